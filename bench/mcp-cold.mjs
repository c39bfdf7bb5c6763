#!/usr/bin/env node
// MCP server cold start as a host pays it: spawn, initialize, tools/list and one
// goal_system_status, timed with a plain JSON-RPC client (no SDK on this side).
// node bench/mcp-cold.mjs [N=15] [old-server.mjs]
// Cases, interleaved run by run: the product server; the McpServer+zod server
// of commit 586a5e0 (the one the issue measured the peer against: the peer was
// 1.11-1.28x faster than it), rebuilt from git and run against today's addon and
// node_modules; a floor server with no SDK (bench/mcp-floor-server.mjs); and
// `node -e 0`. An older server file given on the command line replaces the
// rebuilt one. Prints medians and ratios. A plain script: it asserts nothing
// about time.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const N = Number(process.argv[2]) || 15
/** The reference: the peer ran 1.11-1.28x faster than this commit's server. */
const OLD_COMMIT = '586a5e0'
const OLD = process.argv[3] ?? oldServer()
const base = mkdtempSync(join(tmpdir(), 'goal-bench-mcp-cold-'))
const stateRoot = join(base, 'goal-system')
const cwd = join(base, 'proj')
mkdirSync(cwd)

/** One cold start of `node ...args`: ms from spawn to the status answer. */
function coldStart(...args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, args, {
      env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot },
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    const send = (msg) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`)
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

/**
 * The server of OLD_COMMIT with the two files it imports, written under
 * node_modules/.cache (so its bare imports resolve to this repository's
 * node_modules); its `index.js` is today's addon, so only the JavaScript
 * differs. Returns the server's path, or undefined (said why) without git history.
 */
function oldServer() {
  const dir = join(ROOT, 'node_modules', '.cache', 'goal-system-bench', `mcp-server-${OLD_COMMIT}`)
  const files = ['adapters/vscode-chat/mcp-server.mjs', 'lib/goal-tools.mjs']
  for (const file of files) {
    const shown = spawnSync('git', ['show', `${OLD_COMMIT}:${file}`], { cwd: ROOT, encoding: 'utf8' })
    if (shown.status !== 0) {
      console.error(`(no old server: git show ${OLD_COMMIT}:${file} failed: ${shown.stderr.trim() || shown.error})`)
      return undefined
    }
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    writeFileSync(join(dir, file), shown.stdout)
  }
  writeFileSync(join(dir, 'index.js'), `module.exports = require(${JSON.stringify(join(ROOT, 'index.js'))})\n`)
  return join(dir, files[0])
}

function nodeBare() {
  const t0 = performance.now()
  spawnSync(process.execPath, ['-e', '0'])
  return performance.now() - t0
}

/**
 * The product server as a clone not yet built runs it: a copy without the SDK
 * bundle beside it, under node_modules/.cache (its SDK import resolves to this
 * repository's node_modules), with today's addon.
 */
function unbundledServer() {
  const dir = join(ROOT, 'node_modules', '.cache', 'goal-system-bench', 'mcp-unbundled')
  const adapter = join(dir, 'adapters', 'vscode-chat')
  mkdirSync(adapter, { recursive: true })
  for (const file of ['mcp-server.mjs', 'mcp-sdk.mjs'])
    writeFileSync(join(adapter, file), readFileSync(join(ROOT, 'adapters', 'vscode-chat', file)))
  writeFileSync(join(dir, 'index.js'), `module.exports = require(${JSON.stringify(join(ROOT, 'index.js'))})\n`)
  return join(adapter, 'mcp-server.mjs')
}

const server = join(ROOT, 'adapters/vscode-chat/mcp-server.mjs')
const unbundled = unbundledServer()
const cases = [
  [
    existsSync(join(ROOT, 'adapters/vscode-chat/mcp-sdk.bundle.mjs'))
      ? 'product server (bundled SDK, as registered)'
      : 'product server (NOT BUILT: runs unbundled)',
    () => coldStart(server),
  ],
  ['goal-system mcp (the host plugins)', () => coldStart(join(ROOT, 'bin/goal-system.mjs'), 'mcp')],
  ['product server, SDK unbundled', () => coldStart(unbundled)],
  ['floor: no SDK, same addon', () => coldStart(join(ROOT, 'bench/mcp-floor-server.mjs'))],
  ['node -e 0', async () => nodeBare()],
]
if (OLD)
  cases.splice(1, 0, [
    process.argv[3] ? `older server ${OLD}` : `server of ${OLD_COMMIT} (McpServer, zod)`,
    () => coldStart(OLD),
  ])
const times = cases.map(() => [])
for (let i = 0; i < N; i++) for (const [k, [, run]] of cases.entries()) times[k].push(await run())
rmSync(base, { recursive: true, force: true })

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const floor = median(times[cases.length - 2])
const bare = median(times[cases.length - 1])
const old = OLD ? median(times[1]) : undefined
console.log(`MCP cold start (spawn, initialize, tools/list, one status), median of ${N}:`)
for (const [k, [name]] of cases.entries()) {
  const m = median(times[k])
  const vsOld = old ? `   ${(m / old).toFixed(2)}x ${OLD_COMMIT}` : ''
  console.log(
    `  ${name.padEnd(42)} ${m.toFixed(1).padStart(7)} ms   ${(m / floor).toFixed(2)}x floor   ${(m / bare).toFixed(2)}x node -e 0${vsOld}`,
  )
}
if (old)
  console.log(
    `  The issue measured the peer at 1.11-1.28x faster than ${OLD_COMMIT}'s server: the product matches the peer below ${(1 / 1.28).toFixed(2)}x ${OLD_COMMIT}.`,
  )
