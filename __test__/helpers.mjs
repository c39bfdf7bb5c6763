// Shared helpers for the node:test suites: temporary state roots and hook runs.
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const addon = createRequire(import.meta.url)(join(root, 'index.js'))

/** A temporary HOME with its own goal-system state root; `cleanup()` removes it. */
export function tempState() {
  const home = mkdtempSync(join(tmpdir(), 'goal-test-'))
  const stateRoot = join(home, '.copilot', 'session-state', 'goal-system')
  return {
    home,
    stateRoot,
    env: { ...process.env, HOME: home, GOAL_SYSTEM_STATE_ROOT: stateRoot },
    bySession: (session) => JSON.parse(readFileSync(join(stateRoot, 'by-session', `${session}.json`), 'utf8')),
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  }
}

/**
 * Where a test plays an agent host: a copy of the system shell named like the host's binary
 * (`copilot`, `claude`), so the hook runs in the process shape the real host gives its hooks
 * (the goal system checks that shape before it takes a user command; see
 * crates/goal-core/src/provenance/process.rs). Made once per test process.
 */
let fakeHosts
function fakeHost(name) {
  if (!fakeHosts) {
    fakeHosts = mkdtempSync(join(tmpdir(), 'goal-fake-hosts-'))
    process.on('exit', () => rmSync(fakeHosts, { recursive: true, force: true }))
  }
  const bin = join(fakeHosts, name)
  if (!existsSync(bin)) copyFileSync(realpathSync('/bin/sh'), bin)
  return bin
}

/** How each host starts a hook command: Copilot CLI right under itself in its own session,
 * Claude Code as `/bin/sh -c <command>` leading a new session. */
const HOOK_SHAPE = {
  copilot: 'bash -c "$GOAL_TEST_COMMAND"; true',
  claude: 'setsid /bin/sh -c "$GOAL_TEST_COMMAND"; true',
  // Codex CLI 0.169.0 starts a hook as a shell leading a new session right under itself.
  codex: 'setsid /bin/sh -c "$GOAL_TEST_COMMAND"; true',
}

const quote = (a) => `'${String(a).replaceAll("'", "'\\''")}'`

/**
 * Run `argv` as `host` ('copilot' | 'claude' | 'codex') runs a hook command; any other host runs it
 * directly (VS Code's shape is not checked). Returns spawnSync's result.
 */
export function spawnAsHost(host, argv, { input, env, cwd, timeout = 20_000 } = {}) {
  if (host === 'gemini') {
    // Gemini CLI is a Node process running its bundle: a shell named `node` running a
    // script named `gemini.js`, which runs the command as its own child, in its session.
    const script = join(dirname(fakeHost('node')), 'gemini.js')
    if (!existsSync(script)) writeFileSync(script, '/bin/sh -c "$GOAL_TEST_COMMAND"; true\n')
    return spawnSync(fakeHost('node'), [script], {
      input,
      env: { ...env, GOAL_TEST_COMMAND: argv.map(quote).join(' ') },
      cwd,
      encoding: 'utf8',
      timeout,
    })
  }
  if (!HOOK_SHAPE[host]) {
    return spawnSync(argv[0], argv.slice(1), { input, env, cwd, encoding: 'utf8', timeout })
  }
  const prompt = host === 'copilot' ? copilotPrompt(argv, input) : undefined
  const res = spawnSync(fakeHost(host), ['-c', HOOK_SHAPE[host]], {
    input: prompt ? JSON.stringify(prompt.payload) : input,
    env: { ...env, GOAL_TEST_COMMAND: argv.map(quote).join(' ') },
    cwd,
    encoding: 'utf8',
    timeout,
  })
  if (prompt) copilotWritesDown(prompt, env ?? process.env)
  return res
}

let copilotStamp = Date.now()

/** A prompt hook's payload as Copilot CLI sends it: always with a fresh `timestamp`. */
function copilotPrompt(argv, input) {
  const event = argv.find((a) => a === 'userPromptSubmitted' || a === 'sessionStart')
  if (!event || typeof input !== 'string') return undefined
  let payload
  try {
    payload = JSON.parse(input)
  } catch {
    return undefined
  }
  if (!payload || typeof payload !== 'object' || !(payload.prompt ?? payload.initialPrompt)) return undefined
  copilotStamp = Math.max(copilotStamp + 1, Date.now())
  if (payload.timestamp === undefined) payload = { ...payload, timestamp: copilotStamp }
  return { event, payload }
}

/** What Copilot CLI 1.0.102 writes to the session's events.jsonl for a prompt hook it ran:
 * `hook.start` with the payload's input (the goal system confirms a user command by it). */
function copilotWritesDown({ event, payload }, env) {
  const { sessionId } = payload
  if (typeof sessionId !== 'string' || !/^[A-Za-z0-9._-]+$/.test(sessionId)) return
  const state =
    env.GOAL_SYSTEM_SESSION_STATE ||
    (env.GOAL_SYSTEM_STATE_ROOT
      ? dirname(env.GOAL_SYSTEM_STATE_ROOT)
      : join(env.HOME || '', '.copilot', 'session-state'))
  const input = { ...payload, timestamp: String(payload.timestamp) }
  const record = { type: 'hook.start', data: { hookType: event, input } }
  mkdirSync(join(state, sessionId), { recursive: true })
  appendFileSync(join(state, sessionId, 'events.jsonl'), `${JSON.stringify(record)}\n`)
}

/** Run `sh hooks/goal-context.sh <event>` as Copilot CLI runs it, with a payload; parse stdout. */
export function cliHook(state, event, payload, extraEnv = {}) {
  const input = typeof payload === 'string' ? payload : JSON.stringify(payload)
  const res = spawnAsHost('copilot', ['sh', join(root, 'hooks', 'goal-context.sh'), event], {
    input,
    env: { ...state.env, ...extraEnv },
  })
  let json
  try {
    json = JSON.parse(res.stdout)
  } catch {
    json = undefined
  }
  return { code: res.status, stdout: res.stdout, stderr: res.stderr, json }
}

/** Replace generated goal ids and times so two runs can be compared. */
export function normalize(text) {
  return text.replace(/goal-[0-9a-f]{20}/g, 'goal-ID').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'TIME')
}

/** The VS Code / Claude Code hook runner. */
export const runner = join(root, 'adapters', 'vscode-chat', 'hook-runner.mjs')

/** Which fake host runs a runner host's hooks. */
const RUNNER_HOST = { claude: 'claude', 'copilot-cli': 'copilot' }

/**
 * Run hook-runner.mjs as a host's hooks file does (`<host> [Event]`), from the host's process
 * shape; parse stdout. For Claude Code, the host's transcript gets the prompt's record as Claude
 * Code writes it after the hook (the user's prompt, or our hook's block of it).
 */
export function runnerHook(stateRoot, host, payload, { event, runnerPath = runner, env = {} } = {}) {
  const input = typeof payload === 'string' ? payload : JSON.stringify(payload) + '\n'
  const res = spawnAsHost(RUNNER_HOST[host], [process.execPath, runnerPath, host, ...(event ? [event] : [])], {
    input,
    env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot, ...env },
  })
  if (res.status !== 0) throw new Error(`hook exited ${res.status}: ${res.stderr}`)
  const out = JSON.parse(res.stdout)
  if (host === 'claude' && typeof payload === 'object') claudeWritesDown(payload, out)
  return { out, stdout: res.stdout, stderr: res.stderr }
}

/** What Claude Code appends to its transcript after a UserPromptSubmit hook answered `out`. */
export function claudeWritesDown(payload, out) {
  const event = payload.hook_event_name
  if (event !== 'UserPromptSubmit' || !payload.transcript_path || !payload.prompt_id) return
  const record =
    out?.decision === 'block'
      ? {
          type: 'system',
          subtype: 'informational',
          content: `UserPromptSubmit operation blocked by hook:\n${out.reason}\n\nOriginal prompt: ${payload.prompt}`,
          promptSubmitEnding: { ending: { kind: 'blocked_by_hook', reason: out.reason }, promptKept: false },
        }
      : {
          type: 'user',
          promptId: payload.prompt_id,
          origin: { kind: 'human' },
          promptSource: 'typed',
          message: { role: 'user', content: payload.prompt },
        }
  mkdirSync(dirname(payload.transcript_path), { recursive: true })
  appendFileSync(payload.transcript_path, `${JSON.stringify(record)}\n`)
}

/** The native hook, as `npm ci` builds it. */
export const nativeHook = join(root, 'native', process.platform === 'win32' ? 'goal-hook.exe' : 'goal-hook')

/**
 * The user's own voice, as a test needs it: a prompt typed in Copilot CLI, run through the
 * native hook from the host's process shape. Only this (or the command in a terminal) may open,
 * cancel, pause or budget a goal; the addon gives a caller that merely claims `role: 'user'`
 * the agent's rights. `hookEnv` adds to the hook's environment. Returns the hook's answer.
 */
export function userTypes({ stateRoot, home, hookEnv }, sessionId, cwd, prompt) {
  const res = spawnAsHost('copilot', [nativeHook, '--host', 'copilot-cli', 'userPromptSubmitted'], {
    input: JSON.stringify({ sessionId, timestamp: Date.now(), cwd, prompt }),
    env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot, ...(home ? { HOME: home } : {}), ...hookEnv },
  })
  if (res.status !== 0) throw new Error(`hook exited ${res.status}: ${res.stderr}`)
  return JSON.parse(res.stdout || '{}')
}

/** The user opens a goal (`/goal <objective>`); the model then activates the draft with
 * `fields`. Returns `{ goal }` as openGoalSync does. */
export function userOpens(where, sessionId, cwd, objective, fields = {}) {
  userTypes(where, sessionId, cwd, `/goal ${objective}`)
  const caller = { sessionId, cwd, stateRoot: where.stateRoot }
  addon.updateGoalSync(caller, { status: 'active', ...fields })
  return { goal: addon.goalStatusSync(caller).goal }
}

/** Environment variables of the agent hosts' shells: a user's own terminal has none. */
const AGENT_MARKERS = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'COPILOT_CLI',
  'COPILOT_AGENT_SESSION_ID',
  'GITHUB_COPILOT_CLI',
  'VSCODE_COPILOT_AGENT',
  'CODEX_TOOL_CALL_ID',
  'CODEX_THREAD_ID',
]

/**
 * Call an addon function with the user's rights, the way the `goal-system` command does in the
 * user's own terminal: from a pseudo-terminal (util-linux `script`) no agent host spawned.
 * Returns `{ value }` or `{ error: { code, message } }`.
 */
export function addonAsUser(method, caller, request, env = {}) {
  const code = `const a = require(${JSON.stringify(join(root, 'index.js'))});
try { console.log(JSON.stringify({ value: a[${JSON.stringify(method)}](${JSON.stringify({ ...caller, role: 'user' })}, ${JSON.stringify(request)}) })) }
catch (e) { console.log(JSON.stringify({ error: { code: e.code, message: e.message } })) }`
  const clean = { ...process.env, ...env }
  for (const k of AGENT_MARKERS) delete clean[k]
  const res = spawnSync('script', ['-qec', `${quote(process.execPath)} -e ${quote(code)}`, '/dev/null'], {
    env: clean,
    encoding: 'utf8',
    input: '',
  })
  const line = res.stdout.split(/\r?\n/).find((l) => l.startsWith('{'))
  if (!line) throw new Error(`no answer (exit ${res.status}): ${res.stdout}${res.stderr}`)
  return JSON.parse(line)
}

/** An executable that is an ELF file for another architecture than this machine's. */
export function foreignElf(file) {
  const header = Buffer.alloc(64)
  header.write('\x7fELF', 0, 'latin1')
  header[4] = 2 // 64-bit
  header[5] = 1 // little endian
  header[6] = 1 // ELF version
  header.writeUInt16LE(2, 16) // executable
  header.writeUInt16LE(process.arch === 'arm64' ? 62 : 183, 18) // x86-64 on arm64 hosts, aarch64 elsewhere
  header.writeUInt32LE(1, 20)
  header.writeUInt16LE(64, 52)
  writeFileSync(file, header)
  chmodSync(file, 0o755)
  return file
}
