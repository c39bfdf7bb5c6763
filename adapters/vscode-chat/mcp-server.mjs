#!/usr/bin/env node
// @ts-check
// Goal System MCP server (stdio) for VS Code Copilot Chat and Claude Code:
// goal_system_open, goal_system_status, goal_system_update, goal_system_close,
// and context_board (the repository's board of reusable notes).
//
// Protocol only: every rule (limits, statuses, issue resolutions, the
// completion gate) is checked in Rust by the addon, so its messages reach the
// model unchanged. Stdout carries JSON-RPC only; diagnostics go to stderr.
//
// Start-up is what a host waits for before the first tool: this server uses the
// SDK's protocol-level `Server` (not `McpServer`, whose module graph and
// per-tool zod conversion cost most of the cold start) and hands the core's
// tool definitions to tools/list as they are. It checks nothing itself: the
// core reads the caller from the arguments (`mcpCaller`) and each operation
// its own fields, and their INVALID_INPUT names the field. The SDK parts it
// uses come from mcp-sdk.bundle.mjs, one file the build makes
// (scripts/build-mcp.mjs): loading the SDK's module graph file by file was most
// of a cold start. In a clone not yet built they come from node_modules through
// mcp-sdk.mjs. Measured in bench/mcp-cold.mjs.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const log = (msg) => process.stderr.write(`goal-system mcp: ${msg}\n`)

const bundle = new URL('./mcp-sdk.bundle.mjs', import.meta.url)
/** @type {typeof import('./mcp-sdk.mjs')} */
const { Server, StdioServerTransport, CallToolRequestSchema, ListToolsRequestSchema } = await import(
  existsSync(bundle) ? bundle.href : './mcp-sdk.mjs'
)

// The native addon, loaded directly, once; if it fails, keep serving so the model sees why.
let addon = null
let loadError = null
try {
  addon = createRequire(import.meta.url)('../../index.js')
} catch (err) {
  loadError = err
  log(`the goal-system addon failed to load: ${err?.message ?? err}`)
}

/** @type {import('../../index.js').ToolDefinition[] | undefined} */
let definitions
/**
 * The tools as the core defines them for MCP (the caller's fields included);
 * without the addon, the generated copy, so a host still lists the tools and
 * each call says why it fails.
 * @returns {import('../../index.js').ToolDefinition[]}
 */
function tools() {
  definitions ??= addon
    ? addon.mcpToolDefinitions()
    : JSON.parse(readFileSync(new URL('../../schema/mcp-tools.json', import.meta.url), 'utf8'))
  return /** @type {import('../../index.js').ToolDefinition[]} */ (definitions)
}

// ---------------------------------------------------------------- results

/** A thrown addon error (code + message) as a tool error the model can act on. */
function errorResult(err) {
  const code = typeof err?.code === 'string' ? err.code : 'INTERNAL'
  const message = String(err?.message ?? err)
  const text = `${code}: ${message}`
  return {
    content: [{ type: 'text', text }],
    structuredContent: { summary: text, error: { code, message } },
    isError: true,
  }
}

/**
 * Run one tool call through the addon: the core reads the caller from the
 * arguments, then the tool's operation takes them all as its request (it
 * ignores the caller's keys and refuses any other unknown field).
 * @param {string} name
 * @param {Record<string, unknown> | undefined} args
 */
async function call(name, args) {
  if (!addon)
    return errorResult({
      code: 'ADDON_UNAVAILABLE',
      message: `goal-system addon failed to load: ${loadError?.message ?? loadError}`,
    })
  try {
    const caller = addon.mcpCaller(name, args)
    const def = tools().find((d) => d.name === name)
    const result = await addon[/** @type {any} */ (def).operation](caller, args ?? {})
    // The model's view of the result is the core's: text, structured content
    // (summary first, the goal record last and without what the model does
    // not need) and whether a refused completion makes it an error.
    const answer = addon.toolAnswer(result)
    const content = [{ type: 'text', text: answer.text }]
    if (!def?.outputSchema) return { content }
    return { content, structuredContent: answer.structuredContent, isError: answer.refused || undefined }
  } catch (err) {
    return errorResult(err)
  }
}

const server = new Server(
  { name: 'goal-system', version: '0.1.0' },
  { capabilities: { tools: { listChanged: false } } },
)
// `operation` names the addon function behind a tool: ours, not the host's.
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: tools().map(({ operation: _, ...tool }) => tool),
}))
server.setRequestHandler(CallToolRequestSchema, async (request) => call(request.params.name, request.params.arguments))

// ---------------------------------------------------------------- start

const transport = new StdioServerTransport()
transport.onclose = () => process.exit(0)
process.stdin.on('end', () => process.exit(0))
process.on('uncaughtException', (/** @type {NodeJS.ErrnoException} */ err) => {
  log(`uncaught: ${err?.stack ?? err}`)
  if (err?.code === 'EPIPE') process.exit(0) // the client went away
})
process.on('unhandledRejection', (/** @type {any} */ err) => log(`unhandled rejection: ${err?.stack ?? err}`))
await server.connect(transport)
log(`ready (state root ${process.env.GOAL_SYSTEM_STATE_ROOT || 'default'})`)
