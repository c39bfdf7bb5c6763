#!/usr/bin/env bash
# Copilot CLI lifecycle hook: goal-context.sh <event>
# The payload (JSON) arrives on stdin; the decision (JSON) leaves on stdout.
# Installed hooks files run the native hook directly (see scripts/hooks-files.mjs);
# this script is the same chain for a clone or a hand-written hooks file:
# the native goal-hook, then Node and the addon through hook-runner.mjs, then an
# allow. A hook must never fail closed (Copilot CLI treats a failing preToolUse
# hook as a denial), so a native hook that cannot run (missing, another
# architecture, killed) falls through to the next step: no `exec`, and its
# answer is printed only when it succeeded.
here="${BASH_SOURCE[0]%/*}"
[ "$here" = "${BASH_SOURCE[0]}" ] && here=.
root="$here/../../.."
event="${1:-}"
hook="${GOAL_SYSTEM_HOOK:-$root/native/goal-hook}"
if [ -f "$hook" ]; then
  if out=$("$hook" --host copilot-cli "$event"); then
    printf '%s\n' "$out"
    exit 0
  fi
  echo "goal-system hook: $hook did not run (exit $?); falling back to Node" >&2
fi
if node "$root/adapters/shared/hook-runner.mjs" copilot-cli "$event"; then
  exit 0
fi
echo "goal-system hook: neither the native hook nor Node could answer; allowing" >&2
echo '{}'
exit 0
