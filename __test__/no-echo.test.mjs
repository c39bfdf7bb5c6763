// No secret is ever echoed: fake secrets of several families (built here at
// run time, never spelled out in the source), given to the real `goal-system`
// command on every error path that quotes an argument, read by the real hooks
// from a state copy of the wrong shape, named to the hook runner as its host,
// and held by a record the report shows. Every family of the core's rules goes
// through the same paths in its own tests (redact/echo_tests.rs); here the
// front ends are driven as a user and a host drive them.
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { promisify } from 'node:util'

import { cliHook, root, runner, tempState } from './helpers.mjs'

const run = promisify(execFile)
const bin = join(root, 'bin', 'goal-system.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'goal-no-echo-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

let seed = 0x9e3779b9
const random = (n) => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return (seed >>> 0) % n
}
const pick = (alphabet, n) => Array.from({ length: n }, () => alphabet[random(alphabet.length)]).join('')
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
/** A mixed-case run of letters and digits (token bodies have all three). */
const body = (n) =>
  `${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1)}${pick('abcdefghijklmnopqrstuvwxyz', 1)}${pick('0123456789', 1)}${pick(ALNUM, n - 3)}`
const b64url = (n) => pick(`${ALNUM}_-`, n)

/** A Discord bot token: the base64 of a numeric id, a timestamp, an HMAC. */
function discordToken() {
  const id = pick('123456789', 1) + pick('0123456789', 18)
  return `${Buffer.from(id).toString('base64').replace(/=+$/, '')}.${b64url(6)}.${b64url(38)}`
}

// (family, what is given, the secret that must not come back). Prefixes are
// joined here so that no token shape is spelled in the repository.
const SECRETS = [
  ['github-token', ['gh', 'p_'].join('') + body(36)],
  ['aws-access-key-id', ['AK', 'IA'].join('') + pick(UPPER, 16)],
  ['slack-token', `${['xo', 'xb-'].join('')}${pick('0123456789', 11)}-${pick('0123456789', 12)}-${body(24)}`],
  ['anthropic-key', ['sk-', 'ant-'].join('') + b64url(40)],
  ['openai-key', ['sk-', 'proj-'].join('') + body(48)],
  ['stripe-key', ['sk_', 'live_'].join('') + body(24)],
  ['google-api-key', ['AI', 'za'].join('') + b64url(35)],
  ['jwt', `${['ey', 'J'].join('')}${b64url(20)}.${['ey', 'J'].join('')}${b64url(30)}.${b64url(43)}`],
  ['discord-bot-token', discordToken()],
  ...['xABBcdEfGh', pick(LETTERS, 12), pick('abcdefghijklmnopqrstuvwxyz', 9)].map((p) => [
    'password',
    `password=${p}`,
    p,
  ]),
].map(([family, given, secret = given]) => ({ family, given, secret }))

/** Run the command; resolve with its exit code and both streams. */
async function goalSystem(args, env) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env, cwd: scratch, timeout: 20_000 })
    return { code: 0, out: stdout, err: stderr }
  } catch (e) {
    if (typeof e.code !== 'number') throw e
    return { code: e.code, out: e.stdout, err: e.stderr }
  }
}

// Every place the command quotes what it was given: an unknown command,
// option, action or argument, a goal id or session that matches nothing, a
// status, a number, a page, JSON that does not parse, a folder.
const PATHS = [
  (s) => [s],
  (s) => ['show', s],
  (s) => ['status', '--session', s],
  (s) => ['log', s],
  (s) => ['report', s],
  (s) => ['close', '--status', s],
  (s) => ['close', s],
  (s) => ['list', s],
  (s) => ['show', `--${s}`],
  (s) => ['board', s],
  (s) => ['budget', '--tokens', s],
  (s) => ['list', '--page', s],
  (s) => ['update', '--json', s],
  (s) => ['install', '--dry-run', '--project', s],
  (s) => ['doctor', '--project', s],
  (s) => ['list', '--cwd', s],
]

test('no command line echoes a secret it was given, on any error path', async () => {
  const home = join(scratch, 'home')
  mkdirSync(home, { recursive: true })
  const env = { ...process.env, HOME: home, GOAL_SYSTEM_STATE_ROOT: join(home, 'state') }
  for (const k of ['GOAL_SYSTEM_SESSION_ID', 'COPILOT_SESSION_ID', 'CLAUDE_CODE_SESSION_ID']) delete env[k]
  // Each path with a third of the families, in turn, so each family meets
  // about a third of the paths (and every family several).
  const runs = PATHS.flatMap((path, i) =>
    SECRETS.filter((_, k) => (k + i) % 3 === 0).map(({ family, given, secret }) => ({
      family,
      secret,
      args: path(given),
    })),
  )
  // A few at a time: each is a process.
  for (let i = 0; i < runs.length; i += 6) {
    const batch = runs.slice(i, i + 6)
    const results = await Promise.all(batch.map(({ args }) => goalSystem(args, env)))
    batch.forEach(({ family, secret, args }, k) => {
      const { code, out, err } = results[k]
      const shown = out + err
      assert.ok(shown.trim().length > 0, `${family}: goal-system ${args[0]} printed nothing (exit ${code})`)
      assert.ok(!shown.includes(secret), `${family}: goal-system ${args.join(' ')} echoed the secret:\n${shown}`)
    })
  }
})

/** A state copy of the wrong shape: serde's error would quote the value. */
function wrongShape(stateRoot, sessionId, value) {
  const dir = join(stateRoot, 'by-session')
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, `${sessionId}.json`),
    JSON.stringify({ version: value, id: 'goal-0123456789abcdef0123', sessionId, cwd: '/w' }),
  )
}

test("a hook's stderr and fault log never show a secret a state copy holds", () => {
  for (const [i, { family, given, secret }] of SECRETS.entries()) {
    const state = tempState()
    try {
      const sessionId = `echo-${i}`
      wrongShape(state.stateRoot, sessionId, given)
      const payload = { sessionId, cwd: '/w', toolName: 'bash', toolArgs: '{"command":"ls"}' }
      // The shell hook (native when built) and the Node runner.
      const shell = cliHook(state, 'preToolUse', payload)
      assert.equal(shell.code, 0, shell.stderr)
      assert.match(shell.stderr, /not a valid goal record/, `${family}: the hook said nothing of the copy`)
      assert.ok(!shell.stderr.includes(secret), `${family}: hook stderr: ${shell.stderr}`)
      wrongShape(state.stateRoot, sessionId, given)
      const node = runnerHook(state, 'vscode', { ...payload, hookEventName: 'PreToolUse', tool_name: 'bash' })
      assert.match(node.stderr, /not a valid goal record/, `${family}: the runner said nothing of the copy`)
      assert.ok(!node.stderr.includes(secret), `${family}: runner stderr: ${node.stderr}`)
      const faults = readFileSync(join(state.stateRoot, 'faults.log'), 'utf8')
      assert.ok(!faults.includes(secret), `${family}: faults.log: ${faults}`)
      // A name the runner does not know as a host is read as the event.
      const unknown = runnerHook(state, given, payload)
      assert.ok(!unknown.stderr.includes(secret), `${family}: a name given to the runner: ${unknown.stderr}`)
    } finally {
      state.cleanup()
    }
  }
})

/** hook-runner.mjs as a host's hooks file runs it; stderr and exit kept. */
function runnerHook(state, host, payload) {
  const res = spawnRunner(state, host, JSON.stringify(payload))
  assert.equal(res.status, 0, res.stderr)
  return res
}

function spawnRunner(state, host, input) {
  return spawnSync(process.execPath, [runner, host], { input, encoding: 'utf8', env: state.env, timeout: 20_000 })
}

test('the report never shows a secret a record holds, whoever wrote it', async () => {
  const state = tempState()
  try {
    const sessionId = 'report-echo'
    const dir = join(state.stateRoot, 'by-session')
    mkdirSync(dir, { recursive: true })
    // Written as another writer would (no seal, no journal): past the
    // redaction the goal system applies to what it stores.
    writeFileSync(
      join(dir, `${sessionId}.json`),
      JSON.stringify({
        version: 3,
        id: 'goal-0123456789abcdef0123',
        sessionId,
        cwd: '/w',
        objective: `deploy with ${SECRETS[0].given}`,
        requirements: SECRETS.map((s) => s.given),
        doneSoFar: SECRETS.map((s) => `ran with ${s.given}`),
        blockers: [SECRETS.at(-1).given],
        completionStatus: 'active',
        createdAt: '2026-11-22T05:00:00.000Z',
        updatedAt: '2026-11-22T05:00:00.000Z',
      }),
    )
    const { code, out, err } = await goalSystem(['report', '--session', sessionId], state.env)
    assert.equal(code, 0, err)
    assert.match(out, /<!doctype html>/)
    for (const { family, secret } of SECRETS) {
      assert.ok(!out.includes(secret), `${family}: the report shows its secret`)
    }
  } finally {
    state.cleanup()
  }
})
