#!/usr/bin/env node
// Hook round trip for Copilot CLI's shell hook (bash adapters/copilot-cli/hooks/goal-context.sh ->
// native goal-hook): payload in, decision out, state updated durably. Measured
// in one interleaved run against `node -e 0` and `/bin/true`, so the ratios
// hold on a noisy machine. Usage: node bench/hooks.mjs [iterations]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const addon = createRequire(import.meta.url)(join(root, 'index.js'))
const iterations = Number(process.argv[2] ?? 60)
const home = mkdtempSync(join(tmpdir(), 'goal-bench-'))
const env = {
  ...process.env,
  HOME: home,
  GOAL_SYSTEM_STATE_ROOT: join(home, '.copilot', 'session-state', 'goal-system'),
}
process.env.GOAL_SYSTEM_STATE_ROOT = env.GOAL_SYSTEM_STATE_ROOT

const sessionId = 'bench-session'
const cwd = '/tmp/bench-project'
addon.openGoalSync({ sessionId, cwd }, { objective: 'benchmark the hooks', remaining: ['measure'] })

const hook = join(root, 'adapters', 'copilot-cli', 'hooks', 'goal-context.sh')
const payloads = {
  preToolUse: { sessionId, cwd, timestamp: 0, toolName: 'bash', toolArgs: { command: 'cargo test' } },
  postToolUse: {
    sessionId,
    cwd,
    timestamp: 0,
    toolName: 'bash',
    toolArgs: { command: 'cargo test' },
    toolResult: { resultType: 'success', textResultForLlm: 'ok' },
  },
  agentStop: { sessionId, cwd, timestamp: 0, stopReason: 'end_turn', stop_hook_active: false },
}
const cases = [
  ['/bin/true', () => spawnSync('/bin/true')],
  ['node -e 0', () => spawnSync(process.execPath, ['-e', '0'])],
  ...Object.entries(payloads).map(([event, payload]) => [
    `hook ${event}`,
    () => {
      const res = spawnSync('bash', [hook, event], { input: JSON.stringify(payload), env, encoding: 'utf8' })
      if (res.status !== 0 || !res.stdout.startsWith('{')) throw new Error(`${event}: ${res.status} ${res.stderr}`)
      return res
    },
  ]),
]

const times = Object.fromEntries(cases.map(([name]) => [name, []]))
for (let i = 0; i < iterations; i++) {
  for (const [name, run] of cases) {
    const t = process.hrtime.bigint()
    run()
    times[name].push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  // Keep the drift below the denial threshold so preToolUse measures the common path.
  if (i % 3 === 2) addon.updateGoalSync({ sessionId, cwd }, { doneSoFar: [`step ${i}`] })
}

const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { median: s[Math.floor(s.length / 2)], p95: s[Math.floor(s.length * 0.95)] }
}
const node = stat(times['node -e 0']).median
console.log(`hook round trip, ${iterations} interleaved runs each (ms)`)
console.log('case'.padEnd(20), 'median'.padStart(8), 'p95'.padStart(8), 'node/x'.padStart(8))
for (const [name] of cases) {
  const { median, p95 } = stat(times[name])
  console.log(
    name.padEnd(20),
    median.toFixed(2).padStart(8),
    p95.toFixed(2).padStart(8),
    (node / median).toFixed(1).padStart(8),
  )
}
rmSync(home, { recursive: true, force: true })
