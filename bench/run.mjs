#!/usr/bin/env node
// Runs every benchmark in turn (by hand: `npm run bench`). Each prints its own
// table with ratios measured in the same run; nothing here asserts timings.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const steps = [
  [
    'Hooks as installed (Copilot CLI, VS Code, Claude Code), and a 10 MB tool result',
    process.execPath,
    [join(here, 'hooks.mjs')],
  ],
  [
    'Observing the working tree at 1,000 / 10,000 / 100,000 files: walk, watcher, text only',
    process.execPath,
    [join(here, 'observe.mjs')],
  ],
  [
    'Node fallback: the hook runner (only when the native hook cannot run)',
    process.execPath,
    [join(here, 'hook-runner.mjs')],
  ],
  ['MCP round trip', process.execPath, [join(here, 'mcp.mjs')]],
  [
    'Gemini CLI usage: its chat recording read at AfterTool, against an AfterModel hook per model call',
    process.execPath,
    [join(here, 'gemini.mjs')],
  ],
  [
    'Context board: what reading it adds to a hook',
    'cargo',
    ['run', '--quiet', '--release', '-p', 'goal-core', '--example', 'bench_board'],
  ],
  [
    'Memories: recall ranking and the session-start block at 25 board items + 1,000 memories',
    'cargo',
    ['run', '--quiet', '--release', '-p', 'goal-core', '--example', 'bench_memory'],
  ],
  ['Claude Code status line (native)', process.execPath, [join(here, 'statusline.mjs')]],
  ['MCP cold start', process.execPath, [join(here, 'mcp-cold.mjs')]],
  [
    'Store: durable update and continuation lookup',
    'cargo',
    ['run', '--quiet', '--release', '-p', 'goal-core', '--example', 'bench_store'],
  ],
  ['Answer sizes at 10,000 goals', process.execPath, [join(here, 'answers.mjs')]],
  [
    'Redaction throughput at 1, 10 and 100 MB',
    'cargo',
    ['run', '--quiet', '--release', '-p', 'goal-core', '--example', 'bench_redact'],
  ],
]
for (const [title, cmd, args] of steps) {
  console.log(`\n== ${title}`)
  const res = spawnSync(cmd, args, { stdio: 'inherit', cwd: join(here, '..') })
  if (res.status !== 0) process.exitCode = 1
}
