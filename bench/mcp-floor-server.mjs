#!/usr/bin/env node
// The floor for MCP cold start: a stdio JSON-RPC loop with no MCP SDK and no
// zod, answering initialize, tools/list (names only) and tools/call through the
// same addon. Only bench/mcp-cold.mjs runs it; it is not a product server.
import { createRequire } from 'node:module'

const addon = createRequire(import.meta.url)('../index.js')
let buffer = ''
const send = (msg) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`)
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  buffer += chunk
  let nl
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, nl)
    buffer = buffer.slice(nl + 1)
    if (!line.trim()) continue
    const req = JSON.parse(line)
    if (req.id === undefined) continue
    if (req.method === 'initialize')
      send({
        id: req.id,
        result: {
          protocolVersion: req.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'floor', version: '0' },
        },
      })
    else if (req.method === 'tools/list')
      send({ id: req.id, result: { tools: [{ name: 'goal_system_status', inputSchema: { type: 'object' } }] } })
    else if (req.method === 'tools/call') {
      const { sessionId, cwd } = req.params.arguments
      const r = addon.goalStatusSync({ sessionId, cwd })
      send({ id: req.id, result: { content: [{ type: 'text', text: r.summary }] } })
    } else send({ id: req.id, error: { code: -32601, message: 'method not found' } })
  }
})
process.stdin.on('end', () => process.exit(0))
