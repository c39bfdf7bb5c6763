// What the benchmarks share: the package's addon, the native hook to time, the
// floor program, and the user's own /goal (only the host's hook delivers the
// user's voice, so a bench opens its goals the way a user does).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { userTypes } from '../__test__/helpers.mjs'
import { hookTarget, staticLinkFlags } from '../scripts/build-hook.mjs'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const addon = createRequire(import.meta.url)(join(root, 'index.js'))

/** The native hook to time: this clone's, or GOAL_BENCH_HOOK (another build, an earlier commit's). */
export function nativeHook() {
  const native = process.env.GOAL_BENCH_HOOK || join(root, 'native', 'goal-hook')
  if (!existsSync(native)) throw new Error(`no ${native}: run npm run build first`)
  return native
}

/**
 * The floor program (crates/goal-core/examples/bench_floor.rs), built in
 * release as cargo builds any program. With `{ static: true }` it is built
 * and linked as scripts/build-hook.mjs builds the hook on Linux (statically,
 * not position-independent, against musl where that target is installed), so
 * the bench can show what that link is worth apart from the hook's own work;
 * null where the hook is not linked so.
 */
export function floorProgram({ static: linkedStatically = false } = {}) {
  const targetDir = process.env.CARGO_TARGET_DIR || join(root, 'target')
  const example = ['-p', 'goal-core', '--example', 'bench_floor', '--release', '--quiet', '--message-format=short']
  let args = ['build', ...example]
  let built = join(targetDir, 'release', 'examples', 'bench_floor')
  if (linkedStatically) {
    const target = hookTarget()
    const flags = staticLinkFlags(target)
    if (!flags) return null
    // Its own target folder (target/<triple>), so the two builds do not relink each other.
    args = ['rustc', ...example, '--target', target, '--', ...flags]
    built = join(targetDir, target, 'release', 'examples', 'bench_floor')
  }
  const build = spawnSync('cargo', args, { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) throw new Error('cannot build the floor program')
  return built
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
