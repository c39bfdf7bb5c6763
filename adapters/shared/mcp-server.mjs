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
// per-tool zod conversion cost most of the cold start) and hands the tools'
// JSON Schemas to tools/list as they are. Measured in bench/mcp-cold.mjs.
import { createRequire } from 'node:module'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const log = (msg) => process.stderr.write(`goal-system mcp: ${msg}\n`)

// Load the addon once; if it fails, keep serving so the model sees why.
let addon = null
let loadError = null
try {
  addon = createRequire(import.meta.url)('../../index.js')
} catch (err) {
  loadError = err
  log(`the goal-system addon failed to load: ${err?.message ?? err}`)
}

// The tool definitions (goal-tools.mjs) are loaded on the first request
// that needs them, so the handshake does not wait for them.
let tools
const goalTools = () => (tools ??= import('./goal-tools.mjs'))
// ---------------------------------------------------------------- schemas

/** Who calls: the main session, as injected by the hooks into the chat context. */
const callerSchema = {
  sessionId: {
    type: 'string',
    description:
      'The main session id shown in the [goal-system] hook context ("sessionId ..."). Required; never invent one.',
  },
  cwd: {
    type: 'string',
    description:
      'The session working directory shown in the [goal-system] hook context ("cwd ..."), absolute. Required.',
  },
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

/** Run one tool through the addon; `request` is everything but the caller. */
async function run(name, args = {}) {
  const { callTool, isRefusal, resultText } = await goalTools()
  if (!addon)
    return errorResult({
      code: 'ADDON_UNAVAILABLE',
      message: `goal-system addon failed to load: ${loadError?.message ?? loadError}`,
    })
  const { sessionId, cwd, ...request } = args
  const caller = { sessionId, cwd }
  try {
    const result = await callTool(addon, name, caller, request)
    // A refused completion is data from Rust, but for the model it is an error:
    // the summary lists every unmet condition.
    const refused = isRefusal(name, result)
    // Summary and unmet first: Claude Code (2.1.197) hands the model the
    // structuredContent JSON instead of the text, and the goal record is long.
    // The recent tool-call window is for hooks and `goal-system show`; the model
    // needs only its counters, so it is left out to keep the result short.
    const goal = result.goal && { ...result.goal, toolHistory: { ...result.goal.toolHistory, recent: undefined } }
    const structuredContent = { summary: result.summary, unmet: result.unmet, ...result, goal }
    return { content: [{ type: 'text', text: resultText(result) }], structuredContent, isError: refused || undefined }
  } catch (err) {
    return errorResult(err)
  }
}

// ---------------------------------------------------------------- tools

const OWNERSHIP =
  ' Only the main chat session owns its goal: pass the sessionId and cwd that the [goal-system] hook context shows. ' +
  "Subagents must never call this tool; the main session verifies a subagent's output before recording it."

// ---------------------------------------------------------------- board

const BOARD = 'context_board'

/** The board tool: reads and writes in one tool, so its annotations describe
 * its writes (prune deletes); hosts that honour them ask before calling it. */
async function boardTool() {
  const [{ boardShape }, { z }] = await Promise.all([goalTools(), import('zod')])
  const board = addon.contextBoardTool()
  const input = z.toJSONSchema(z.object(boardShape), { io: 'input' })
  delete input.$schema
  return {
    name: board.name,
    title: 'Context board',
    description: board.description,
    inputSchema: {
      ...input,
      properties: { cwd: callerSchema.cwd, sessionId: callerSchema.sessionId, ...input.properties },
      required: ['cwd', ...(input.required ?? [])],
    },
    annotations: {
      title: 'Context board',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  }
}

async function runBoard(args = {}) {
  const [{ boardShape, boardText }, { z }] = await Promise.all([goalTools(), import('zod')])
  const parsed = z.object({ cwd: z.string(), sessionId: z.string().optional(), ...boardShape }).safeParse(args)
  if (!parsed.success)
    return errorResult({ code: 'INVALID_INPUT', message: `Input validation error: ${z.prettifyError(parsed.error)}` })
  const { sessionId, cwd, ...request } = parsed.data
  try {
    const result = await addon.contextBoard({ cwd, sessionId }, request)
    return { content: [{ type: 'text', text: boardText(result) }] }
  } catch (err) {
    return errorResult(err)
  }
}

/**
 * The caller's keys are this protocol's (the extension takes them from the
 * invocation); every other field is checked by the core's typed parse, whose
 * INVALID_INPUT names the field (and the nearest known one when misspelt).
 * @param {Record<string, unknown> | undefined} args
 */
function validateCaller(args) {
  const missing = Object.keys(callerSchema).filter((key) => typeof args?.[key] !== 'string' || args[key] === '')
  return missing.length ? `Input validation error: ${missing.join(', ')}: required (a string)` : null
}

/** @type {any[] | undefined} */
let toolList
/** The tools/list answer: the core's tool definitions plus the caller's keys, built once. */
async function listTools() {
  if (toolList) return toolList
  const { toolDefinitions } = await goalTools()
  toolList = toolDefinitions(addon).map((def) => ({
    name: def.name,
    title: def.title,
    description: def.description + OWNERSHIP,
    inputSchema: {
      ...def.inputSchema,
      properties: { ...callerSchema, ...def.inputSchema.properties },
      required: ['sessionId', 'cwd', ...(def.inputSchema.required ?? [])],
    },
    outputSchema: def.outputSchema,
    annotations: def.annotations,
  }))
  if (addon) toolList.push(await boardTool())
  return toolList
}

const server = new Server(
  { name: 'goal-system', version: '0.1.0' },
  { capabilities: { tools: { listChanged: false } } },
)
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools() }))
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params
  if (name === BOARD && addon) return runBoard(args)
  const { toolDefinitions } = await goalTools()
  const names = toolDefinitions(addon).map((d) => d.name)
  if (!names.includes(name))
    return errorResult({
      code: 'UNKNOWN_TOOL',
      message: `no tool named ${name}; the tools are ${names.join(', ')}`,
    })
  const invalid = validateCaller(args)
  if (invalid) return errorResult({ code: 'INVALID_INPUT', message: invalid })
  return run(name, args)
})

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
