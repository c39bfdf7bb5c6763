#!/usr/bin/env node
// Cost of the Claude Code status line, which runs on every refresh.
// node bench/statusline.mjs [N=40]
// Interleaved spawns (so all cases share the same noise), against an open
// goal with a full tool history in a temp state root:
//   /bin/true                                   the floor of any spawn
//   native/goal-hook statusline                 what install sets (native path)
//   sh -c '<the installed statusLine command>'  the same through the shell, as Claude Code runs it
//   node -e 0                                   what any Node start-up costs
//   node bin/goal-system.mjs statusline         the Node fallback
// Prints median and p95 per case and ratios. A plain script: it asserts nothing about time.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { claudeStatusLineOp } from '../cli/install-targets.mjs'
import { addon, openAsUser } from './common.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const N = Number(process.argv[2]) || 40
const base = mkdtempSync(join(tmpdir(), 'goal-bench-statusline-'))
const stateRoot = join(base, 'goal-system')
const cwd = join(base, 'proj')
mkdirSync(cwd)
process.env.GOAL_SYSTEM_STATE_ROOT = stateRoot // runHook reads the environment
const env = { ...process.env }
const sessionId = 'bench-statusline'
openAsUser({ stateRoot }, sessionId, cwd, 'benchmark the status line', {
  remaining: ['measure', 'report'],
  requirements: ['R1: fast'],
})
// A full tool history window, as after an hour of work.
for (let i = 0; i < 60; i++) {
  addon.runHook(
    'claude',
    'PostToolUse',
    JSON.stringify({
      session_id: sessionId,
      cwd,
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: `src/f${i}.rs` },
      tool_response: 'ok',
    }),
  )
}
const payload = JSON.stringify({
  session_id: sessionId,
  cwd,
  transcript_path: join(base, 't.jsonl'),
  model: { id: 'm', display_name: 'M' },
  workspace: { current_dir: cwd, project_dir: cwd },
})

function timeSpawn(cmd, args, input, expectLine) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { input, env, encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  if (expectLine && !r.stdout.startsWith('goal ')) throw new Error(`${cmd} printed ${JSON.stringify(r.stdout)}`)
  return ms
}

const native = join(ROOT, 'native', 'goal-hook')
const cases = {
  '/bin/true': () => timeSpawn('/bin/true', [], ''),
  'goal-hook statusline': () => timeSpawn(native, ['statusline'], payload, true),
  'installed command (sh -c)': () => timeSpawn('sh', ['-c', claudeStatusLineOp(ROOT).value.command], payload, true),
  'node -e 0': () => timeSpawn(process.execPath, ['-e', '0'], ''),
  'goal-system statusline': () =>
    timeSpawn(process.execPath, [join(ROOT, 'bin', 'goal-system.mjs'), 'statusline'], payload, true),
}
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
for (const run of Object.values(cases)) run() // warm the page cache
for (let i = 0; i < N; i++) {
  const order = Object.keys(cases)
  if (i % 2) order.reverse()
  for (const name of order) samples[name].push(cases[name]())
}
const quantile = (xs, q) => {
  const s = [...xs].sort((x, y) => x - y)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]
}
const row = Object.fromEntries(
  Object.entries(samples).map(([name, xs]) => [name, { median: quantile(xs, 0.5), p95: quantile(xs, 0.95) }]),
)
console.log(
  `status line, ${N} interleaved spawns each (Node ${process.version}, ${process.platform}-${process.arch})\n`,
)
console.log('case                          median ms    p95 ms')
for (const [name, r] of Object.entries(row))
  console.log(`${name.padEnd(28)} ${r.median.toFixed(2).padStart(9)} ${r.p95.toFixed(2).padStart(9)}`)
const ratio = (a, b) => (row[a].median / row[b].median).toFixed(2)
console.log(`\ngoal-hook statusline / /bin/true     median ${ratio('goal-hook statusline', '/bin/true')}`)
console.log(`node -e 0 / goal-hook statusline     median ${ratio('node -e 0', 'goal-hook statusline')}`)
console.log(`goal-system statusline / node -e 0   median ${ratio('goal-system statusline', 'node -e 0')}`)
rmSync(base, { recursive: true, force: true })
