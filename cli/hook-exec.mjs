// Copilot CLI's hooks file `exec`s the native hook from bash, and nothing of
// the command runs after it (scripts/hooks-files.mjs writes the step;
// crates/goal-hook/src/guard.rs answers for a hook that dies). `goal-system
// install` leaves the step out where the hook does not run at all (no
// build, another architecture, a library or signature the system refuses):
// the command then starts at hooks/goal-context.sh, which tries the hook
// under its chain, then Node.
import { spawnSync } from 'node:child_process'

/** The exec step of Copilot CLI's command for `hook` (a path or its placeholder) and `event`. */
export const execStep = (hook, event) =>
  `set +e; shopt -s execfail 2>/dev/null && exec "${hook}" --host copilot-cli ${event}; `

const EXEC_STEP = /^set \+e; shopt -s execfail 2>\/dev\/null && exec .*? --host copilot-cli \w+; /

/** `command` without its exec step: the chain alone. */
export const withoutExecStep = (command) => command.replace(EXEC_STEP, '')

/** Whether the native hook at `path` runs here (it names itself when asked). */
export function hookRuns(path) {
  const res = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 })
  return res.status === 0 && res.stdout.startsWith('goal-hook ')
}
