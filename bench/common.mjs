// What the benchmarks share: the package's addon, the native hook to time, the
// floor program, and the user's own /goal (only the host's hook delivers the
// user's voice, so a bench opens its goals the way a user does).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { userTypes } from '../__test__/helpers.mjs'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const addon = createRequire(import.meta.url)(join(root, 'index.js'))

/** The native hook to time: this clone's, or GOAL_BENCH_HOOK (another build, an earlier commit's). */
export function nativeHook() {
  const native = process.env.GOAL_BENCH_HOOK || join(root, 'native', 'goal-hook')
  if (!existsSync(native)) throw new Error(`no ${native}: run npm run build first`)
  return native
}

/** The floor program (crates/goal-core/examples/bench_floor.rs), built in release. */
export function floorProgram() {
  const build = spawnSync(
    'cargo',
    ['build', '--quiet', '--release', '-p', 'goal-core', '--example', 'bench_floor', '--message-format=short'],
    { cwd: root, stdio: 'inherit' },
  )
  if (build.status !== 0) throw new Error('cannot build the floor program')
  return join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'release', 'examples', 'bench_floor')
}

/**
 * The user types `/goal <objective>` (through the native hook, as Copilot CLI runs it; no
 * watcher started by it); the model then sets `fields` on the draft. `where`: { stateRoot, home? }.
 */
export function openAsUser(where, sessionId, cwd, objective, fields) {
  const answer = userTypes({ ...where, hookEnv: { GOAL_SYSTEM_WATCH: 'off' } }, sessionId, cwd, `/goal ${objective}`)
  if (!JSON.stringify(answer).includes('draft goal')) throw new Error(`/goal was not taken: ${JSON.stringify(answer)}`)
  if (fields) addon.updateGoalSync({ sessionId, cwd, stateRoot: where.stateRoot }, fields)
}
