#!/usr/bin/env node
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

/**
 * What every tool returns: the summary, the unmet conditions, and the goal
 * record typed by its JSON Schema (derived from the Rust record by the addon).
 * The record's recent tool-call window is left out of results (see run()).
 */
function outputSchema() {
  const goal = addon?.goalRecordSchema?.() ?? { type: 'object' }
  if (goal.properties?.toolHistory?.properties) delete goal.properties.toolHistory.properties.recent
  return {
    type: 'object',
    properties: {
      summary: { type: 'string', description: 'Readable summary, also the text content.' },
      goal: { ...goal, description: 'The version-3 goal record.' },
      unmet: {
        type: 'array',
        items: {
          type: 'object',
          properties: { field: { type: 'string' }, message: { type: 'string' } },
          required: ['field', 'message'],
        },
      },
      error: {
        type: 'object',
        properties: { code: { type: 'string' }, message: { type: 'string' } },
        required: ['code', 'message'],
      },
    },
    required: ['summary'],
  }
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

const TITLES = {
  goal_system_open: 'Open goal',
  goal_system_status: 'Goal status',
  goal_system_update: 'Update goal',
  goal_system_close: 'Close goal',
}

/**
 * What each tool does to the world, for the host's approval prompts. None
 * reaches outside the state folder. Open continues the same objective
 * (idempotent); update appends evidence but replaces the remaining and blocker
 * queues it is given; close ends a goal for good and refuses a second close.
 */
const ANNOTATIONS = {
  goal_system_open: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  goal_system_status: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  goal_system_update: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  goal_system_close: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
}

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

let validators
/** Input checks of the shared tool shapes (types only; the rules are the core's). */
async function validate(name, args) {
  if (!validators) {
    const [{ toolNames, toolShapes }, { z }] = await Promise.all([goalTools(), import('zod')])
    const caller = { sessionId: z.string(), cwd: z.string() }
    validators = Object.fromEntries(toolNames.map((n) => [n, z.object({ ...caller, ...toolShapes[n] })]))
    validators.prettify = z.prettifyError
  }
  const parsed = validators[name].safeParse(args ?? {})
  return parsed.success ? null : `Input validation error: ${validators.prettify(parsed.error)}`
}

let toolList
/** The tools/list answer: JSON Schemas of the shared tool shapes, built once. */
async function listTools() {
  if (toolList) return toolList
  const [{ toolDescriptions, toolNames, toolShapes }, { z }] = await Promise.all([goalTools(), import('zod')])
  const output = outputSchema()
  toolList = toolNames.map((name) => {
    const input = z.toJSONSchema(z.object(toolShapes[name]), { io: 'input' })
    delete input.$schema
    return {
      name,
      title: TITLES[name],
      description: toolDescriptions[name] + OWNERSHIP,
      inputSchema: {
        ...input,
        properties: { ...callerSchema, ...input.properties },
        required: ['sessionId', 'cwd', ...(input.required ?? [])],
      },
      outputSchema: output,
      annotations: { title: TITLES[name], ...ANNOTATIONS[name] },
    }
  })
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
  if (!TITLES[name])
    return errorResult({
      code: 'UNKNOWN_TOOL',
      message: `no tool named ${name}; the tools are ${Object.keys(TITLES).join(', ')}`,
    })
  const invalid = await validate(name, args)
  if (invalid) return errorResult({ code: 'INVALID_INPUT', message: invalid })
  return run(name, args)
})

// ---------------------------------------------------------------- start

const transport = new StdioServerTransport()
transport.onclose = () => process.exit(0)
process.stdin.on('end', () => process.exit(0))
process.on('uncaughtException', (err) => {
  log(`uncaught: ${err?.stack ?? err}`)
  if (err?.code === 'EPIPE') process.exit(0) // the client went away
})
process.on('unhandledRejection', (err) => log(`unhandled rejection: ${err?.stack ?? err}`))
await server.connect(transport)
log(`ready (state root ${process.env.GOAL_SYSTEM_STATE_ROOT || 'default'})`)
