#!/usr/bin/env node
// Start-up cost of the VS Code / Claude Code hook runner against bare Node.
// node bench/hook-runner.mjs [N=30]
// One run spawns, N times and interleaved (so all three share the same noise):
//   (a) node -e 0
//   (b) node adapters/vscode-chat/hook-runner.mjs vscode   with a PreToolUse payload
//   (c) the same with a PostToolUse payload (writes the tool history)
// against an open goal in a temp state root. Prints median and p95 per case and
// the ratio (b)/(a). A plain script: it asserts nothing about time.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { addon, openAsUser } from './common.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUNNER = join(ROOT, 'adapters/vscode-chat/hook-runner.mjs')
const N = Number(process.argv[2]) || 30

// State root one level down: the store's session-local copy goes to its parent.
const base = mkdtempSync(join(tmpdir(), 'goal-bench-hook-'))
const stateRoot = join(base, 'goal-system')
const cwd = join(base, 'proj')
mkdirSync(cwd)
const env = { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot }
const sessionId = 'bench-hook'
openAsUser({ stateRoot }, sessionId, cwd, 'benchmark the hook runner', { remaining: ['measure'] })

const tool = { tool_name: 'run_in_terminal', tool_input: { command: 'npm test' } }
const payloads = {
  pre: JSON.stringify({ session_id: sessionId, cwd, hook_event_name: 'PreToolUse', ...tool }),
  post: JSON.stringify({ session_id: sessionId, cwd, hook_event_name: 'PostToolUse', ...tool, tool_response: 'ok' }),
}

function timeSpawn(args, input) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, args, { input, env, encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return ms
}

const cases = {
  'node -e 0': () => timeSpawn(['-e', '0'], ''),
  'hook-runner PreToolUse': () => timeSpawn([RUNNER, 'vscode'], payloads.pre),
  'hook-runner PostToolUse': () => timeSpawn([RUNNER, 'vscode'], payloads.post),
}
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))

for (const run of Object.values(cases)) run() // warm the page cache
for (let i = 0; i < N; i++) {
  // Keep drift low so PreToolUse takes its usual allow path (outside the timing).
  addon.updateGoalSync({ sessionId, cwd, stateRoot }, { doneSoFar: [`iteration ${i}`] })
  const order = Object.keys(cases)
  if (i % 2) order.reverse() // alternate the order to spread drift in load
  for (const name of order) samples[name].push(cases[name]())
}

const quantile = (xs, q) => {
  const s = [...xs].sort((x, y) => x - y)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]
}
const rows = Object.entries(samples).map(([name, xs]) => ({ name, median: quantile(xs, 0.5), p95: quantile(xs, 0.95) }))
console.log(
  `hook runner start-up, ${N} interleaved spawns each (Node ${process.version}, ${process.platform}-${process.arch})\n`,
)
console.log('case                        median ms    p95 ms')
for (const r of rows)
  console.log(`${r.name.padEnd(26)} ${r.median.toFixed(1).padStart(9)} ${r.p95.toFixed(1).padStart(9)}`)
const [bare, pre, post] = rows
console.log(
  `\nratio PreToolUse/bare  median ${(pre.median / bare.median).toFixed(3)}  p95 ${(pre.p95 / bare.p95).toFixed(3)}`,
)
console.log(
  `ratio PostToolUse/bare median ${(post.median / bare.median).toFixed(3)}  p95 ${(post.p95 / bare.p95).toFixed(3)}`,
)
rmSync(base, { recursive: true, force: true })
