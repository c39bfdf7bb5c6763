// Shared helpers for the node:test suites: temporary state roots and hook runs.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
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

/** Run `bash hooks/goal-context.sh <event>` with a payload; parse stdout. */
export function cliHook(state, event, payload, extraEnv = {}) {
  const input = typeof payload === 'string' ? payload : JSON.stringify(payload)
  const res = spawnSync('bash', [join(root, 'hooks', 'goal-context.sh'), event], {
    input,
    env: { ...state.env, ...extraEnv },
    encoding: 'utf8',
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

/** Run hook-runner.mjs as a host's hooks file does (`<host> [Event]`); parse stdout. */
export function runnerHook(stateRoot, host, payload, { event, runnerPath = runner } = {}) {
  const input = typeof payload === 'string' ? payload : JSON.stringify(payload) + '\n'
  const res = spawnSync(process.execPath, [runnerPath, host, ...(event ? [event] : [])], {
    input,
    encoding: 'utf8',
    env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot },
    timeout: 20_000,
  })
  if (res.status !== 0) throw new Error(`hook exited ${res.status}: ${res.stderr}`)
  return { out: JSON.parse(res.stdout), stdout: res.stdout, stderr: res.stderr }
}
