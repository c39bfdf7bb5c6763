#!/usr/bin/env node
// MCP server cold start as a host pays it: spawn, initialize, tools/list and one
// goal_system_status, timed with a plain JSON-RPC client (no SDK on this side).
// node bench/mcp-cold.mjs [N=15] [old-server.mjs]
// Cases, interleaved run by run: the product server, a floor server with no
// SDK (bench/mcp-floor-server.mjs), `node -e 0`, and optionally an older server
// file given on the command line (e.g. one from `git show`), for comparison.
// Prints medians and ratios. A plain script: it asserts nothing about time.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const N = Number(process.argv[2]) || 15
const OLD = process.argv[3]
const base = mkdtempSync(join(tmpdir(), 'goal-bench-mcp-cold-'))
const stateRoot = join(base, 'goal-system')
const cwd = join(base, 'proj')
mkdirSync(cwd)

/** One cold start: ms from spawn to the status answer. */
function coldStart(server) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [server], {
      env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot },
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    const send = (msg) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n')
    let buf = ''
    child.stdout.on('data', (d) => {
      buf += d
      let nl
      while ((nl = buf.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl))
        buf = buf.slice(nl + 1)
        if (msg.error) reject(new Error(JSON.stringify(msg.error)))
        if (msg.id === 1) {
          send({ method: 'notifications/initialized' })
          send({ id: 2, method: 'tools/list' })
        } else if (msg.id === 2) {
          send({
            id: 3,
            method: 'tools/call',
            params: { name: 'goal_system_status', arguments: { sessionId: 'bench-cold', cwd } },
          })
        } else if (msg.id === 3) {
          const ms = performance.now() - t0
          child.kill()
          resolve(ms)
        }
      }
    })
    child.on('error', reject)
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    })
  })
}

function nodeBare() {
  const t0 = performance.now()
  spawnSync(process.execPath, ['-e', '0'])
  return performance.now() - t0
}

const cases = [
  ['product server (SDK Server, JSON Schemas)', () => coldStart(join(ROOT, 'adapters/shared/mcp-server.mjs'))],
  ['floor: no SDK, same addon', () => coldStart(join(ROOT, 'bench/mcp-floor-server.mjs'))],
  ['node -e 0', async () => nodeBare()],
]
if (OLD) cases.splice(1, 0, [`older server ${OLD}`, () => coldStart(OLD)])
const times = cases.map(() => [])
for (let i = 0; i < N; i++) for (const [k, [, run]] of cases.entries()) times[k].push(await run())
rmSync(base, { recursive: true, force: true })

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const floor = median(times[cases.length - 2])
const bare = median(times[cases.length - 1])
console.log(`MCP cold start (spawn, initialize, tools/list, one status), median of ${N}:`)
for (const [k, [name]] of cases.entries()) {
  const m = median(times[k])
  console.log(
    `  ${name.padEnd(48)} ${m.toFixed(1).padStart(7)} ms   ${(m / floor).toFixed(2)}x floor   ${(m / bare).toFixed(2)}x node -e 0`,
  )
}
