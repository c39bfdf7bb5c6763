// The hooks files run the native hook directly and fall back to Node, then to
// an allow: driven here exactly as the hosts run them (`sh -c <command>`, the
// payload on stdin), with the native hook present, missing, not executable,
// or built for another architecture. The native hook and the Node runner must
// give byte-identical answers over a long session for VS Code and Claude Code.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { claudeWritesDown, foreignElf, root, runner, spawnAsHost } from './helpers.mjs'
import { hooksFiles } from '../scripts/hooks-files.mjs'

const NATIVE = join(root, 'native', 'goal-hook')

let base
before(() => {
  base = mkdtempSync(join(tmpdir(), 'goal-fallback-'))
})
after(() => rmSync(base, { recursive: true, force: true }))

/** A fresh state root (one level below a temp folder: the store writes beside it). */
function stateRoot(name) {
  const dir = join(base, name, 'goal-system')
  mkdirSync(join(base, name, 'proj'), { recursive: true })
  return dir
}

/** The hooks-file command of `host` for `event`, placeholders resolved as install does. */
function fileCommand(host, event, hook) {
  const files = hooksFiles()
  let cmd
  if (host === 'copilot-cli') cmd = files['hooks/hooks.json'].hooks[event][0].bash
  else if (host === 'vscode') cmd = files['adapters/vscode-chat/hooks/goal-system.json'].hooks[event][0].command
  else cmd = files['adapters/claude/settings.hooks.json'].hooks[event][0].hooks[0].command
  return cmd.replaceAll('${GOAL_SYSTEM_HOOK}', hook).replaceAll('${GOAL_SYSTEM_HOME}', root)
}

const run = (file, args, input, env) =>
  spawnSync(file, args, { input, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 })

/** The HOME of the Claude Code sessions below: its transcripts are where Claude Code keeps them. */
const claudeHome = () => join(base, 'claude-home')

/** Run as `host` runs its hooks (Claude Code: from the host's process shape, with its HOME). */
const runAs = (host, file, args, input, env) =>
  host === 'claude'
    ? spawnAsHost('claude', [file, ...args], { input, env: { ...process.env, HOME: claudeHome(), ...env } })
    : run(file, args, input, env)

/** The three ways an event reaches the core: native directly, Node directly, the hooks-file command. */
const ways = {
  native: (host, event, input, state) =>
    runAs(host, NATIVE, ['--host', host, event], input, { GOAL_SYSTEM_STATE_ROOT: state }),
  node: (host, event, input, state) =>
    runAs(host, process.execPath, [runner, host, event], input, { GOAL_SYSTEM_STATE_ROOT: state }),
  command: (host, event, input, state, hook, shell = '/bin/sh') =>
    runAs(host, shell, ['-c', fileCommand(host, event, hook)], input, { GOAL_SYSTEM_STATE_ROOT: state }),
}

/**
 * Goal ids are random per store: name them in order of appearance, per store,
 * so two stores that made the same decisions print the same bytes.
 */
function idNamer() {
  const ids = new Map()
  // A consumed command's reference is random too (Claude Code writes it down; see provenance).
  return (text) =>
    text
      .replace(/goal-[0-9a-f]{20}/g, (id) => ids.get(id) ?? (ids.set(id, `goal-#${ids.size + 1}`), ids.get(id)))
      .replace(/\(ref [0-9a-f]+\)/g, '(ref #)')
}

/** A long session as VS Code (snake_case) or Claude Code sends it: 26 events. */
function session(host, id, cwd) {
  const tool = host === 'claude' ? 'Bash' : 'run_in_terminal'
  const goalTool = host === 'claude' ? 'mcp__goalSystem__goal_system_status' : 'goal_system_status'
  const common = {
    session_id: id,
    cwd,
    ...(host === 'claude' ? { transcript_path: join(claudeHome(), '.claude', 'projects', 'p', `${id}.jsonl`) } : {}),
  }
  let prompts = 0
  const ev = (hook_event_name, extra = {}) => [
    hook_event_name,
    JSON.stringify({
      ...common,
      hook_event_name,
      ...(hook_event_name === 'UserPromptSubmit' ? { prompt_id: `p-${++prompts}` } : {}),
      ...extra,
    }),
  ]
  const call = (n, extra = {}) => [
    ev('PreToolUse', { tool_name: tool, tool_input: { command: `echo step-${n}` }, ...extra }),
    ev('PostToolUse', {
      tool_name: tool,
      tool_input: { command: `echo step-${n}` },
      tool_response: { stdout: `step-${n}` },
      ...extra,
    }),
  ]
  return [
    ev('SessionStart', { source: 'startup' }),
    ev('UserPromptSubmit', { prompt: 'what does this repo do?' }),
    ev('UserPromptSubmit', { prompt: '/goal make the greeting print twice' }),
    ev('PreToolUse', { tool_name: goalTool, tool_input: {} }),
    ev('PostToolUse', { tool_name: goalTool, tool_input: {}, tool_response: 'status' }),
    ...call(1),
    ...call(2),
    ...call(3),
    ...call(4),
    ...call(5),
    ev('PreToolUse', { tool_name: tool, tool_input: { command: 'echo drifted' } }),
    ev('Stop', { stop_hook_active: false }),
    ev('Stop', { stop_hook_active: true }),
    ev('PreCompact', { trigger: 'auto' }),
    ev('SubagentStart', { agent_id: 'sub-1', agent_type: 'Explore' }),
    ...call(6, { agent_id: 'sub-1', agent_type: 'Explore' }),
    ev('SubagentStop', { agent_id: 'sub-1', agent_type: 'Explore' }),
    ev('UserPromptSubmit', { prompt: '/goal pause' }),
    ev('Stop', { stop_hook_active: false }),
    ev('UserPromptSubmit', { prompt: '/goal resume' }),
    ['PreToolUse', '{"session_id": "not closed'],
  ]
}

for (const host of ['vscode', 'claude']) {
  describe(`${host}: native hook, Node runner and the hooks-file command`, () => {
    test('give byte-identical answers over a long session, also when the native hook is of another architecture', () => {
      const states = {
        native: stateRoot(`${host}-native`),
        node: stateRoot(`${host}-node`),
        command: stateRoot(`${host}-foreign`),
      }
      const foreign = foreignElf(join(base, `${host}-foreign-goal-hook`))
      const events = session(host, `parity-${host}`, join(base, `${host}-native`, 'proj'))
      assert.ok(events.length >= 20)
      const name = { native: idNamer(), node: idNamer(), fallback: idNamer() }
      const decisions = new Set()
      for (const [i, [event, input]] of events.entries()) {
        const native = ways.native(host, event, input, states.native)
        const node = ways.node(host, event, input, states.node)
        const fallback = ways.command(host, event, input, states.command, foreign)
        for (const [name, r] of Object.entries({ native, node, fallback })) {
          assert.equal(r.status, 0, `${name} exit for event ${i} ${event}: ${r.stderr}`)
          // What Claude Code writes down after each prompt hook (one transcript for the three).
          if (host === 'claude' && event === 'UserPromptSubmit')
            claudeWritesDown(JSON.parse(input), JSON.parse(r.stdout))
        }
        const expected = name.native(native.stdout)
        assert.equal(name.node(node.stdout), expected, `event ${i} ${event}: Node differs from native`)
        assert.equal(name.fallback(fallback.stdout), expected, `event ${i} ${event}: the fallback differs from native`)
        assert.match(fallback.stderr, /Exec format error|cannot execute/, 'the failed native run is visible on stderr')
        decisions.add(native.stdout)
      }
      // The session exercised real decisions, not a stream of empty allows.
      const all = [...decisions].join('\n')
      assert.match(all, /"permissionDecision":"deny"/)
      assert.match(all, /"decision":"block"/)
      assert.match(all, /additionalContext/)
      // The goal store written through the fallback holds what the native one holds.
      const goal = (dir) => JSON.parse(readFileSync(join(dir, 'by-session', `parity-${host}.json`), 'utf8'))
      assert.equal(goal(states.command).objective, goal(states.native).objective)
      assert.equal(goal(states.command).status, goal(states.native).status)
    })
  })
}

describe('a hooks-file command never fails closed', () => {
  const input = (host) =>
    host === 'copilot-cli'
      ? JSON.stringify({ sessionId: 'closed-s', cwd: base, toolName: 'bash', toolArgs: { command: 'ls' } })
      : JSON.stringify({
          session_id: 'closed-s',
          cwd: base,
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'ls' },
        })
  const event = (host) => (host === 'copilot-cli' ? 'preToolUse' : 'PreToolUse')

  for (const host of ['copilot-cli', 'vscode', 'claude']) {
    test(`${host}: a missing or non-executable native hook falls back to Node, in sh and in bash`, () => {
      const state = stateRoot(`closed-${host}`)
      const expected = ways.native(host, event(host), input(host), state).stdout
      const plain = join(base, `${host}-plain-file`)
      writeFileSync(plain, 'not a program')
      chmodSync(plain, 0o644)
      for (const hook of [join(base, 'no-such-goal-hook'), plain]) {
        for (const shell of ['/bin/sh', '/bin/bash']) {
          const r = ways.command(host, event(host), input(host), state, hook, shell)
          assert.equal(r.status, 0, r.stderr)
          assert.equal(r.stdout, expected, `${shell} with ${hook}`)
        }
      }
    })

    test(`${host}: with neither the native hook nor Node, the answer is an allow`, () => {
      const r = spawnSync('/bin/sh', ['-c', fileCommand(host, event(host), join(base, 'no-such-goal-hook'))], {
        input: input(host),
        encoding: 'utf8',
        env: { PATH: join(base, 'empty-path'), GOAL_SYSTEM_STATE_ROOT: stateRoot(`none-${host}`) },
      })
      assert.equal(r.status, 0, r.stderr)
      assert.equal(r.stdout, '{}\n')
      assert.match(r.stderr, /not found/)
    })
  }

  test('copilot-cli: a failed exec falls through even under an errexit bash took from its environment', () => {
    const state = stateRoot('closed-errexit')
    const expected = ways.native('copilot-cli', 'preToolUse', input('copilot-cli'), state).stdout
    const command = fileCommand('copilot-cli', 'preToolUse', join(base, 'no-such-goal-hook'))
    const r = run('/bin/bash', ['-c', command], input('copilot-cli'), {
      GOAL_SYSTEM_STATE_ROOT: state,
      SHELLOPTS: 'errexit',
    })
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stdout, expected)
  })

  // Copilot CLI's bash execs the hook: nothing of the command runs after it,
  // so a hook that dies of a fault must answer by itself.
  test('copilot-cli: bash execs the native hook, which answers an allow when it dies of a fault', {
    skip: process.platform !== 'linux',
  }, async () => {
    const state = stateRoot('closed-fault')
    const native = realpathSync(NATIVE)
    for (const signal of ['SIGSEGV', 'SIGABRT', 'SIGBUS', 'SIGILL']) {
      const child = spawn('/bin/bash', ['-c', fileCommand('copilot-cli', 'preToolUse', NATIVE)], {
        env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: state },
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      const exited = once(child, 'exit')
      // No fork: bash's own process becomes the hook, which then waits for its payload.
      const exe = () => {
        try {
          return readlinkSync(`/proc/${child.pid}/exe`)
        } catch {
          return ''
        }
      }
      // Its guard armed: the signals it catches (SigCgt, bit n-1 for signal n)
      // include SIGABRT and SIGSYS, which nothing else in the hook catches.
      const armed = () => {
        try {
          const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
          const caught = BigInt(`0x${/^SigCgt:\s*([0-9a-f]+)/m.exec(status)[1]}`)
          return (caught & (1n << 5n)) !== 0n && (caught & (1n << 30n)) !== 0n
        } catch {
          return false
        }
      }
      for (let i = 0; i < 500 && !(exe() === native && armed()); i++) await sleep(10)
      assert.equal(exe(), native, 'bash execs the hook in its own process')
      assert.ok(armed(), 'the hook arms its guard before it reads its payload')
      child.kill(signal)
      // A hook that ignores the signal (Rust's own SIGSEGV handler returns
      // on a signal that is not a fault) would wait for its payload forever.
      const stuck = setTimeout(() => child.kill('SIGKILL'), 5000)
      const [code, killedBy] = await exited
      clearTimeout(stuck)
      assert.equal(killedBy, null, `${signal}: the hook handled it`)
      assert.equal(code, 0, `${signal}: ${stderr}`)
      assert.equal(stdout, '{}\n', signal)
      assert.match(stderr, /stopped by a fatal signal; allowing/)
    }
  })

  test('hooks/goal-context.sh (a clone, hand-written hooks) falls back the same way', () => {
    const state = stateRoot('closed-script')
    const expected = ways.native('copilot-cli', 'preToolUse', input('copilot-cli'), state).stdout
    const script = join(root, 'hooks', 'goal-context.sh')
    const foreign = foreignElf(join(base, 'script-foreign-goal-hook'))
    const r = run('/bin/bash', [script, 'preToolUse'], input('copilot-cli'), {
      GOAL_SYSTEM_STATE_ROOT: state,
      GOAL_SYSTEM_HOOK: foreign,
    })
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stdout, expected)
    assert.match(r.stderr, /falling back to Node/)
  })

  test('the runner without its addon says so loudly on stderr and allows', () => {
    const dir = join(base, 'no-addon', 'adapters', 'vscode-chat')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'hook-runner.mjs'), readFileSync(runner))
    const r = run(process.execPath, [join(dir, 'hook-runner.mjs'), 'claude', 'PreToolUse'], input('claude'), {})
    assert.equal(r.status, 0)
    assert.equal(r.stdout, '{}\n')
    assert.match(r.stderr, /goal-system hook .*could not load the goal-system addon.*NOT ENFORCED/)
  })
})

test('the hooks files are the ones scripts/hooks-files.mjs writes', () => {
  for (const [rel, value] of Object.entries(hooksFiles())) {
    assert.equal(
      readFileSync(join(root, rel), 'utf8'),
      JSON.stringify(value, null, 2) + '\n',
      `${rel} is stale: node scripts/hooks-files.mjs`,
    )
  }
})

// scripts/build-hook.mjs links the hook statically on a glibc Linux (against
// musl where Rust's musl target is installed, as the published packages'
// hook): with no program interpreter and no relocations to apply, each run
// skips about 0.7 ms of dynamic loading (bench/hooks.mjs, "floor, linked like
// the hook").
const glibc = process.platform === 'linux' && Boolean(process.report.getReport().header.glibcVersionRuntime)
test('on Linux with glibc the native hook is a static, not position-independent executable', { skip: !glibc }, () => {
  const elf = readFileSync(NATIVE)
  assert.equal(elf.toString('latin1', 0, 4), '\x7fELF')
  assert.equal(elf.readUInt16LE(16), 2, 'ELF type EXEC (a PIE is DYN, relocated at every start)')
  const [phoff, phentsize, phnum] = [Number(elf.readBigUInt64LE(0x20)), elf.readUInt16LE(0x36), elf.readUInt16LE(0x38)]
  const types = Array.from({ length: phnum }, (_, i) => elf.readUInt32LE(phoff + i * phentsize))
  assert.ok(types.length > 0, 'program headers read')
  assert.ok(!types.includes(3), 'no PT_INTERP: no dynamic loader runs before the hook')
  assert.ok(!types.includes(2), 'no PT_DYNAMIC: no shared library is loaded')
  // And it runs: a round trip with an empty payload allows.
  const res = spawnSync(NATIVE, ['--host', 'vscode', 'PreToolUse'], { input: '{}', encoding: 'utf8' })
  assert.equal(res.status, 0, res.stderr)
  assert.ok(res.stdout.startsWith('{'), res.stdout)
})
