// The built binaries answer real hook payloads: the arm64 Linux hooks and addon
// (under qemu-user, the addon in an arm64 Node), the x64 Linux hooks (static
// musl builds, the gnu package's too), and the hooks-file fallback when the
// native hook is the arm64 one on this x64 machine. Each answer must equal the
// one this machine's own build gives (native/goal-hook, `npm run build`).
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'

import { claudeWritesDown, spawnAsHost } from '../__test__/helpers.mjs'
import { hooksFiles } from '../scripts/hooks-files.mjs'
import { ARM64_SYSROOT, addonOf, arm64Missing, arm64Node, hookOf, qemu, root } from './tools.mjs'

// Built apart from the packages (build-hook.mjs: this machine's linker, and
// its own C library unless Rust's musl target is installed), so the packages'
// hooks are compared with a program they do not share.
const HOST_HOOK = join(root, 'native', 'goal-hook')
const RUNNER = join(root, 'adapters', 'vscode-chat', 'hook-runner.mjs')

let base
before(() => {
  base = mkdtempSync(join(tmpdir(), 'goal-cross-'))
})
after(() => rmSync(base, { recursive: true, force: true }))

let n = 0
/** A fresh state root; every session works in the same project folder, so answers compare. */
function freshState() {
  const dir = join(base, `s${++n}`)
  mkdirSync(join(base, 'proj'), { recursive: true })
  return { home: dir, root: join(dir, 'goal-system'), cwd: join(base, 'proj') }
}

/** A short Claude Code session: prompt /goal, a tool call, a stop (blocked while the goal is open). */
function events({ cwd, home }) {
  // The transcript where Claude Code keeps it: a user command counts once the host wrote it down.
  const transcript_path = join(home, '.claude', 'projects', 'proj', 'cross-1.jsonl')
  const common = { session_id: 'cross-1', cwd, transcript_path }
  const ev = (hook_event_name, extra) => [hook_event_name, JSON.stringify({ ...common, hook_event_name, ...extra })]
  return [
    ev('UserPromptSubmit', { prompt: '/goal the greeting prints twice', prompt_id: 'p-1' }),
    ev('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } }),
    ev('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: 'a' } }),
    ev('Stop', { stop_hook_active: false }),
  ]
}

const ids = () => {
  const seen = new Map()
  return (t) =>
    t.replace(/goal-[0-9a-f]{20}/g, (id) => seen.get(id) ?? (seen.set(id, `goal-#${seen.size + 1}`), seen.get(id)))
}

/** Answers of `runOne(event, input, env)` over the session, ids named in order. */
function session(runOne) {
  const state = freshState()
  const name = ids()
  return events(state).map(([event, input]) => {
    const r = runOne(event, input, { ...process.env, HOME: state.home, GOAL_SYSTEM_STATE_ROOT: state.root })
    assert.equal(r.status, 0, `${event}: exit ${r.status} ${r.stderr} ${r.error ?? ''}`)
    claudeWritesDown(JSON.parse(input), JSON.parse(r.stdout))
    return name(r.stdout)
  })
}

/** Run as Claude Code runs a hook command (the goal system takes a user command only from there). */
const spawn = (file, args, input, env) => spawnAsHost('claude', [file, ...args], { input, env, timeout: 120_000 })
const underQemu = (args, input, env) => spawn('qemu-aarch64', ['-L', ARM64_SYSROOT, ...args], input, env)
let expected
before(() => {
  assert.ok(existsSync(HOST_HOOK), `${HOST_HOOK} is built (npm run build)`)
  expected = session((event, input, env) => spawn(HOST_HOOK, ['--host', 'claude', event], input, env))
  assert.match(expected.join(''), /"decision":"block"/, 'the reference session blocks the stop')
})

describe('arm64 Linux under qemu-user', { skip: process.arch === 'arm64' }, () => {
  test('the arm64 tools are here', () => assert.equal(arm64Missing(), null))

  test('the linux-arm64-gnu hook (static) gives the same answers', () => {
    const got = session((event, input, env) =>
      underQemu([hookOf('linux-arm64-gnu'), '--host', 'claude', event], input, env),
    )
    assert.deepEqual(got, expected)
  })

  test('the linux-arm64-gnu addon in an arm64 Node gives the same answers through hook-runner.mjs', () => {
    const node = arm64Node()
    const version = qemu([node, '-p', 'process.arch + " " + process.version'])
    assert.equal(version.stdout.trim(), 'arm64 v20.20.2', version.stderr)
    const got = session((event, input, env) =>
      underQemu([node, RUNNER, 'claude', event], input, {
        ...env,
        NAPI_RS_NATIVE_LIBRARY_PATH: addonOf('linux-arm64-gnu'),
      }),
    )
    assert.deepEqual(got, expected)
  })

  test('the linux-arm64-musl hook (static) gives the same answers', () => {
    const got = session((event, input, env) =>
      underQemu([hookOf('linux-arm64-musl'), '--host', 'claude', event], input, env),
    )
    assert.deepEqual(got, expected)
  })
})

for (const id of ['linux-x64-gnu', 'linux-x64-musl']) {
  test(`the ${id} hook (static) gives the same answers`, { skip: process.arch !== 'x64' }, () => {
    const got = session((event, input, env) => spawn(hookOf(id), ['--host', 'claude', event], input, env))
    assert.deepEqual(got, expected)
  })
}

test('a hooks file whose native hook is the other architecture answers the same through Node, exit 0', () => {
  const foreign = hookOf(process.arch === 'arm64' ? 'linux-x64-gnu' : 'linux-arm64-gnu')
  const template = hooksFiles()['adapters/claude/settings.hooks.json'].hooks
  const got = session((event, input, env) => {
    const cmd = template[event][0].hooks[0].command
      .replaceAll('${GOAL_SYSTEM_HOOK}', foreign)
      .replaceAll('${GOAL_SYSTEM_HOME}', root)
    const r = spawn('/bin/sh', ['-c', cmd], input, env)
    assert.match(r.stderr, /Exec format error|cannot execute/)
    return r
  })
  assert.deepEqual(got, expected)
})
