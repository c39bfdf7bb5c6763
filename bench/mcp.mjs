#!/usr/bin/env node
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { addon, openAsUser } from './common.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const N = Number(process.argv[2]) || 200
const SERVER = process.argv[3] ?? join(ROOT, 'adapters/vscode-chat/mcp-server.mjs')

// State root one level down: the store's session-local copy goes to its parent.
const base = mkdtempSync(join(tmpdir(), 'goal-bench-mcp-'))
const stateRoot = join(base, 'goal-system')
const cwd = join(base, 'proj')
mkdirSync(cwd)

const t0 = performance.now()
const client = new Client({ name: 'goal-system-bench', version: '1.0.0' })
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot },
    stderr: 'ignore',
  }),
)
await client.listTools()
const startup = performance.now() - t0

const sessionId = 'bench-mcp'
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: { sessionId, cwd, ...args } })
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`)
}
// Only the user opens a goal (their /goal); the model then continues it.
openAsUser({ stateRoot }, sessionId, cwd, 'benchmark the MCP server')
await call('goal_system_open', { objective: 'benchmark the MCP server', requirements: ['R1: fast enough'] })

const caller = { sessionId: 'bench-direct', cwd, stateRoot }
openAsUser({ stateRoot }, caller.sessionId, cwd, 'benchmark the addon')

const cases = {
  'mcp goal_system_status': () => call('goal_system_status', {}),
  // remaining replaces the queue, so N updates never hit a list limit.
  'mcp goal_system_update': (i) => call('goal_system_update', { remaining: [`step ${i}`] }),
  'addon goalStatus': () => addon.goalStatus(caller),
  'addon updateGoal': (i) => addon.updateGoal(caller, { remaining: [`step ${i}`] }),
}
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
for (const [_name, run] of Object.entries(cases)) for (let i = 0; i < 10; i++) await run(-i) // warm-up
for (let i = 0; i < N; i++) {
  for (const [name, run] of Object.entries(cases)) {
    const t = performance.now()
    await run(i)
    samples[name].push(performance.now() - t)
  }
}
await client.close()
rmSync(base, { recursive: true, force: true })

const quantile = (xs, q) => {
  const s = [...xs].sort((x, y) => x - y)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]
}
console.log(
  `MCP round trips, ${N} calls each, interleaved (Node ${process.version}); server start + initialize + tools/list ${startup.toFixed(0)} ms\n`,
)
console.log('case                        median ms    p95 ms')
for (const [name, xs] of Object.entries(samples)) {
  console.log(
    `${name.padEnd(26)} ${quantile(xs, 0.5).toFixed(2).padStart(9)} ${quantile(xs, 0.95).toFixed(2).padStart(9)}`,
  )
}
