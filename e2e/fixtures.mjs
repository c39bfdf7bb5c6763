// Test fixtures for the end-to-end harness: hook recorders for both hosts, a Copilot probe
// extension and a stdio MCP probe server. Nothing here depends on the Goal System itself.

import fs from 'node:fs'
import path from 'node:path'
import { E2E_DIR } from './hosts.mjs'

/** A raw JSON-RPC stdio MCP server with one tool `goal_system_status` (see the file). */
export const MCP_PROBE = path.join(E2E_DIR, 'fixtures', 'mcp-probe.mjs')

export const COPILOT_EVENTS = [
  'sessionStart',
  'userPromptSubmitted',
  'preToolUse',
  'postToolUse',
  'agentStop',
  'sessionEnd',
  'errorOccurred',
  'subagentStop',
]
export const CLAUDE_TOOL_EVENTS = ['PreToolUse', 'PostToolUse']
export const CLAUDE_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd', 'SubagentStop']

/**
 * A hook command that stores every stdin payload as <dir>/log/<ns>-<pid>-<event>.json (plus the
 * names, never the values, of its environment variables in .env) and answers, on stdout, the
 * content of <dir>/answer-once-<event> (deleted after use) or <dir>/answer-always-<event>.
 * It always exits 0.
 */
export function makeHookRecorder(dir) {
  const log = path.join(dir, 'log')
  fs.mkdirSync(log, { recursive: true })
  const script = path.join(dir, 'record-hook.sh')
  fs.writeFileSync(
    script,
    `#!/bin/bash
ev="$1"
base=${JSON.stringify(log)}/"$(date +%s%N)-$$-$ev"
cat > "$base.tmp"; mv "$base.tmp" "$base.json"
env | cut -d= -f1 | sort > "$base.env"
once=${JSON.stringify(dir)}/"answer-once-$ev"
always=${JSON.stringify(dir)}/"answer-always-$ev"
if [ -f "$once" ] && mv "$once" "$once.used.$$" 2>/dev/null; then cat "$once.used.$$"
elif [ -f "$always" ]; then cat "$always"
fi
exit 0
`,
    { mode: 0o755 },
  )
  const write = (name, obj) =>
    fs.writeFileSync(path.join(dir, name), typeof obj === 'string' ? obj : JSON.stringify(obj))
  return {
    dir,
    script,
    command: (event) => `${script} ${event}`,
    answerOnce: (event, obj) => write(`answer-once-${event}`, obj),
    answerAlways: (event, obj) => write(`answer-always-${event}`, obj),
    /** Recorded payloads in order: [{ event, payload, raw, envNames }]. */
    payloads(event) {
      const files = fs
        .readdirSync(log)
        .filter((f) => f.endsWith('.json'))
        .sort()
      const out = []
      for (const f of files) {
        const ev = f
          .replace(/\.json$/, '')
          .split('-')
          .slice(2)
          .join('-')
        if (event && ev !== event) continue
        const raw = fs.readFileSync(path.join(log, f), 'utf8')
        let payload = null
        try {
          payload = JSON.parse(raw)
        } catch {
          /* keep raw */
        }
        let envNames = []
        try {
          envNames = fs
            .readFileSync(path.join(log, f.replace(/\.json$/, '.env')), 'utf8')
            .split('\n')
            .filter(Boolean)
        } catch {
          /* none */
        }
        out.push({ event: ev, payload, raw, envNames })
      }
      return out
    },
  }
}

/** Copilot CLI user-level hooks: $HOME/.copilot/hooks/<name>.json (loaded without folder trust). */
export function installCopilotHooks(home, recorder, { events = COPILOT_EVENTS, name = 'log', timeoutSec = 10 } = {}) {
  const dir = path.join(home, '.copilot', 'hooks')
  fs.mkdirSync(dir, { recursive: true })
  const hooks = {}
  for (const e of events) hooks[e] = [{ type: 'command', bash: recorder.command(e), timeoutSec }]
  const file = path.join(dir, `${name}.json`)
  fs.writeFileSync(file, JSON.stringify({ version: 1, hooks }, null, 2))
  return file
}

/** Merge keys into a JSON settings file (created if missing). */
export function mergeJsonFile(file, patch) {
  let cur = {}
  try {
    cur = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    /* new */
  }
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify({ ...cur, ...patch }, null, 2))
  return file
}

/** Claude Code project hooks in <cwd>/.claude/settings.json (tool events with matcher "*"). */
export function installClaudeHooks(
  cwd,
  recorder,
  { toolEvents = CLAUDE_TOOL_EVENTS, events = CLAUDE_EVENTS, timeout = 10 } = {},
) {
  const hooks = {}
  for (const e of toolEvents)
    hooks[e] = [{ matcher: '*', hooks: [{ type: 'command', command: recorder.command(e), timeout }] }]
  for (const e of events) hooks[e] = [{ hooks: [{ type: 'command', command: recorder.command(e), timeout }] }]
  return mergeJsonFile(path.join(cwd, '.claude', 'settings.json'), { hooks })
}

/**
 * A user-level Copilot extension ~/.copilot/extensions/<name>/extension.mjs registering the tool
 * `probe_tool` (answers "PROBE-RESULT <x>") and logging its hook calls as JSON lines to logFile.
 * Copilot 1.0.102 loads extensions only with experimental features on: pass `--experimental`
 * or call enableCopilotExperimental(home).
 */
export function installCopilotProbeExtension(home, { name = 'probe', logFile }) {
  const dir = path.join(home, '.copilot', 'extensions', name)
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, 'extension.mjs')
  fs.writeFileSync(
    file,
    `// E2E probe extension (generated by e2e/fixtures.mjs)
import fs from 'node:fs';
import { joinSession } from '@github/copilot-sdk/extension';
const LOG = ${JSON.stringify(logFile)};
const log = (kind, data) => fs.appendFileSync(LOG, JSON.stringify({ kind, data }) + '\\n');
const hook = (kind) => async (input, invocation) => { log(kind, { input, invocation }); };
const session = await joinSession({
  tools: [{
    name: 'probe_tool',
    description: 'E2E probe tool: answers PROBE-RESULT and its argument x.',
    parameters: { type: 'object', properties: { x: { type: 'string' } } },
    skipPermission: true,
    handler: async (args, invocation) => {
      const { signal, ...inv } = invocation || {};
      log('probe_tool', { args, invocation: inv });
      return 'PROBE-RESULT ' + (args && args.x);
    },
  }],
  hooks: {
    onSessionStart: hook('onSessionStart'),
    onUserPromptSubmitted: hook('onUserPromptSubmitted'),
    onPreToolUse: hook('onPreToolUse'),
    onPostToolUse: hook('onPostToolUse'),
    onAgentStop: hook('onAgentStop'),
    onSessionEnd: hook('onSessionEnd'),
  },
});
log('joined', { sessionId: session.sessionId });
`,
  )
  return file
}

/** ~/.copilot/settings.json { experimental: true } (same effect as --experimental). */
export function enableCopilotExperimental(home) {
  return mergeJsonFile(path.join(home, '.copilot', 'settings.json'), { experimental: true })
}

/** Read a JSON-lines log file ([] if missing). */
export function readJsonLines(file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return []
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      try {
        return JSON.parse(l)
      } catch {
        return { raw: l }
      }
    })
}
