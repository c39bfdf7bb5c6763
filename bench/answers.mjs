#!/usr/bin/env node
// Answer sizes with many open goals in one directory: the continuation
// refusal a `/goal continue` prompt gets (native hook, Claude Code shape) and
// `goal-system list` (default page, and --all). Sizes in bytes; nothing here
// asserts. Usage: node bench/answers.mjs [goals=10000]
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const addon = createRequire(import.meta.url)(join(root, 'index.js'))
const count = Number(process.argv[2] ?? 10_000)
const native = join(root, 'native', 'goal-hook')
if (!existsSync(native)) throw new Error(`no ${native}: run npm run build first`)

const home = mkdtempSync(join(tmpdir(), 'goal-bench-answers-'))
const stateRoot = join(home, 'session-state', 'goal-system')
const cwd = join(home, 'project')
mkdirSync(cwd)
const env = { ...process.env, HOME: home, GOAL_SYSTEM_STATE_ROOT: stateRoot }
const t0 = process.hrtime.bigint()
for (let i = 0; i < count; i++) {
  addon.openGoalSync(
    { sessionId: `s-${i}`, cwd, stateRoot, role: 'user' },
    { objective: `objective number ${i} of the bench` },
  )
}
const setup = Number(process.hrtime.bigint() - t0) / 1e9

const kb = (n) => `${(n / 1024).toFixed(1)} KB`
const hook = spawnSync(native, ['--host', 'claude', 'UserPromptSubmit'], {
  input: JSON.stringify({ session_id: 'new', cwd, hook_event_name: 'UserPromptSubmit', prompt: '/goal continue' }),
  env,
  encoding: 'utf8',
  maxBuffer: 1 << 28,
})
const cli = (...args) =>
  spawnSync(process.execPath, [join(root, 'bin', 'goal-system.mjs'), 'list', '--cwd', cwd, ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
const page = cli()
const all = cli('--all')
console.log(`answer sizes with ${count} open goals in one directory (set up in ${setup.toFixed(1)} s)`)
console.log(`continuation refusal (/goal continue): ${kb(Buffer.byteLength(hook.stdout))}`)
console.log(`goal-system list (default page):      ${kb(Buffer.byteLength(page.stdout))}`)
console.log(`goal-system list --all:                ${kb(Buffer.byteLength(all.stdout))}`)
if (hook.status !== 0 || page.status !== 0) process.exitCode = 1
rmSync(home, { recursive: true, force: true })
