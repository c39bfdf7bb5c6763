#!/bin/sh
# Copilot CLI lifecycle hook: goal-context.sh <event>
# The payload (JSON) arrives on stdin; the decision (JSON) leaves on stdout.
# hooks.json beside this file runs it for every event (`sh goal-context.sh
# <event>`: POSIX sh, so any shell starts it, and dash starts fastest); settings
# written for the seed's system run it the same way, or with bash.
# The chain: the native goal-hook, then Node and the addon through
# adapters/vscode-chat/hook-runner.mjs, then an allow. A hook must never fail
# closed (Copilot CLI treats a failing preToolUse hook as a denial), so a native
# hook that cannot run (missing, another architecture, killed) falls through
# to the next step: no `exec`. It prints its answer in one write as its last
# act and exits 0 after it, so a run that failed has printed nothing.
# GOAL_SYSTEM_HOOK names the native hook when it is not the package's
# native/goal-hook (goal-system install sets it to the platform package's).
here="${0%/*}"
[ "$here" = "$0" ] && here=.
root="$here/.."
event="${1:-}"
hook="${GOAL_SYSTEM_HOOK:-$root/native/goal-hook}"
if [ -f "$hook" ]; then
  "$hook" --host copilot-cli "$event"
  status=$?
  [ "$status" -eq 0 ] && exit 0
  echo "goal-system hook: $hook did not run (exit $status); falling back to Node" >&2
fi
if node "$root/adapters/vscode-chat/hook-runner.mjs" copilot-cli "$event"; then
  exit 0
fi
echo "goal-system hook: neither the native hook nor Node could answer; allowing" >&2
echo '{}'
exit 0
