#!/usr/bin/env node
// Answer sizes with many open goals in one directory: the continuation
// refusal a `/goal continue` prompt gets (native hook, Claude Code shape) and
// `goal-system list` (default page, and --all). Sizes in bytes; nothing here
// asserts. The goals are opened as users open them (a /goal each, through the
// native hook): about 10 ms a goal with the release build. Usage: node bench/answers.mjs [goals=10000]
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { userTypes } from '../__test__/helpers.mjs'
import { openAsUser } from './common.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const count = Number(process.argv[2] ?? 10_000)

const home = mkdtempSync(join(tmpdir(), 'goal-bench-answers-'))
const stateRoot = join(home, 'session-state', 'goal-system')
const cwd = join(home, 'project')
mkdirSync(cwd)
const env = { ...process.env, HOME: home, GOAL_SYSTEM_STATE_ROOT: stateRoot }
const t0 = process.hrtime.bigint()
for (let i = 0; i < count; i++) {
  openAsUser({ stateRoot, home }, `s-${i}`, cwd, `objective number ${i} of the bench`)
}
const setup = Number(process.hrtime.bigint() - t0) / 1e9

const kb = (n) => `${(n / 1024).toFixed(1)} KB`
// The user's own prompt in a new session (Copilot CLI's shape): a /goal continue with many candidates.
const answer = JSON.stringify(userTypes({ stateRoot, home }, 'new', cwd, '/goal continue'))
const cli = (...args) =>
  spawnSync(process.execPath, [join(root, 'bin', 'goal-system.mjs'), 'list', '--cwd', cwd, ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
const page = cli()
const all = cli('--all')
console.log(`answer sizes with ${count} open goals in one directory (set up in ${setup.toFixed(1)} s)`)
console.log(`continuation refusal (/goal continue): ${kb(Buffer.byteLength(answer))}`)
console.log(`goal-system list (default page):      ${kb(Buffer.byteLength(page.stdout))}`)
console.log(`goal-system list --all:                ${kb(Buffer.byteLength(all.stdout))}`)
if (!answer.includes('goal') || page.status !== 0) process.exitCode = 1
rmSync(home, { recursive: true, force: true })
