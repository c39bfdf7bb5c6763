#!/usr/bin/env bash
# Copilot CLI lifecycle hook: goal-context.sh <event>
# The payload (JSON) arrives on stdin; the decision (JSON) leaves on stdout.
# Hot path: exec the native goal-hook (no Node start-up). Fallback: Node and the
# addon through hook-runner.mjs. Both call the same Rust decision.
# A hook must never crash (Copilot CLI treats that as a denial), so every path
# ends in an allow-shaped answer.
here="${BASH_SOURCE[0]%/*}"
[ "$here" = "${BASH_SOURCE[0]}" ] && here=.
root="$here/.."
event="${1:-}"
if [ -x "$root/native/goal-hook" ]; then
  exec "$root/native/goal-hook" --host copilot-cli "$event"
fi
if command -v node >/dev/null 2>&1 && [ -f "$root/adapters/vscode-chat/hook-runner.mjs" ]; then
  exec node "$root/adapters/vscode-chat/hook-runner.mjs" copilot-cli "$event"
fi
echo "goal-system hook: neither native/goal-hook nor node was found; allowing" >&2
echo '{}'
exit 0
