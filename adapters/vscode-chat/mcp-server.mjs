#!/usr/bin/env node
// Goal System MCP server (stdio) for VS Code Copilot Chat and Claude Code:
// goal_system_open, goal_system_status, goal_system_update, goal_system_close.
//
// Protocol only: every rule (limits, statuses, issue resolutions, the
// completion gate) is checked in Rust by the addon, so its messages reach the
// model unchanged. The zod schemas below describe shapes and types, nothing
// more. Stdout carries JSON-RPC only; diagnostics go to stderr.
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

import { boardShape, boardText, callTool, isRefusal, resultText, toolDescriptions, toolNames, toolShapes } from '../../lib/goal-tools.mjs';

const log = (msg) => process.stderr.write(`goal-system mcp: ${msg}\n`);

// Load the addon once; if it fails, keep serving so the model sees why.
let addon = null;
let loadError = null;
try {
  addon = createRequire(import.meta.url)('../../index.js');
} catch (err) {
  loadError = err;
  log(`the goal-system addon failed to load: ${err?.message ?? err}`);
}

// ---------------------------------------------------------------- schemas

/** Who calls: the main session, as injected by the hooks into the chat context. */
const callerShape = {
  sessionId: z
    .string()
    .describe('The main session id shown in the [goal-system] hook context ("sessionId ..."). Required; never invent one.'),
  cwd: z
    .string()
    .describe('The session working directory shown in the [goal-system] hook context ("cwd ..."), absolute. Required.'),
};

// Loose: the result objects are the addon's (goal record, unmet conditions...).
const outputSchema = z
  .looseObject({
    summary: z.string().describe('Readable summary, also the text content.'),
    goal: z.any().optional().describe('The version-3 goal record.'),
    unmet: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  });

// ---------------------------------------------------------------- results

/** A thrown addon error (code + message) as a tool error the model can act on. */
function errorResult(err) {
  const code = typeof err?.code === 'string' ? err.code : 'INTERNAL';
  const message = String(err?.message ?? err);
  const text = `${code}: ${message}`;
  return { content: [{ type: 'text', text }], structuredContent: { summary: text, error: { code, message } }, isError: true };
}

/** Run one tool through the addon; `request` is everything but the caller. */
async function run(name, args) {
  if (!addon) return errorResult({ code: 'ADDON_UNAVAILABLE', message: `goal-system addon failed to load: ${loadError?.message ?? loadError}` });
  const { sessionId, cwd, ...request } = args;
  const caller = { sessionId, cwd };
  try {
    const result = await callTool(addon, name, caller, request);
    // A refused completion is data from Rust, but for the model it is an error:
    // the summary lists every unmet condition.
    const refused = isRefusal(name, result);
    // Summary and unmet first: Claude Code (2.1.197) hands the model the
    // structuredContent JSON instead of the text, and the goal record is long.
    // The recent tool-call window is for hooks and `goal-system show`; the model
    // needs only its counters, so it is left out to keep the result short.
    const goal = result.goal && { ...result.goal, toolHistory: { ...result.goal.toolHistory, recent: undefined } };
    const structuredContent = { summary: result.summary, unmet: result.unmet, ...result, goal };
    return { content: [{ type: 'text', text: resultText(result) }], structuredContent, isError: refused || undefined };
  } catch (err) {
    return errorResult(err);
  }
}

// ---------------------------------------------------------------- tools

const OWNERSHIP =
  ' Only the main chat session owns its goal: pass the sessionId and cwd that the [goal-system] hook context shows. ' +
  "Subagents must never call this tool; the main session verifies a subagent's output before recording it.";

const TITLES = {
  goal_system_open: 'Open goal',
  goal_system_status: 'Goal status',
  goal_system_update: 'Update goal',
  goal_system_close: 'Close goal',
};

const server = new McpServer({ name: 'goal-system', version: '0.1.0' });

for (const name of toolNames) {
  server.registerTool(
    name,
    {
      title: TITLES[name],
      description: toolDescriptions[name] + OWNERSHIP,
      inputSchema: { ...callerShape, ...toolShapes[name] },
      outputSchema,
    },
    (args) => run(name, args),
  );
}

// The context board: reads and writes in one tool, so the annotations describe
// its writes (prune deletes); hosts that honour them ask before calling it.
const boardCallerShape = {
  cwd: callerShape.cwd,
  sessionId: callerShape.sessionId.optional(),
};

async function runBoard(args) {
  if (!addon) return errorResult({ code: 'ADDON_UNAVAILABLE', message: `goal-system addon failed to load: ${loadError?.message ?? loadError}` });
  const { sessionId, cwd, ...request } = args;
  try {
    const result = await addon.contextBoard({ cwd, sessionId }, request);
    return { content: [{ type: 'text', text: boardText(result) }] };
  } catch (err) {
    return errorResult(err);
  }
}

if (addon) {
  const board = addon.contextBoardTool();
  server.registerTool(
    board.name,
    {
      title: 'Context board',
      description: board.description,
      inputSchema: { ...boardCallerShape, ...boardShape },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) => runBoard(args),
  );
}

// ---------------------------------------------------------------- start

const transport = new StdioServerTransport();
transport.onclose = () => process.exit(0);
process.stdin.on('end', () => process.exit(0));
process.on('uncaughtException', (err) => {
  log(`uncaught: ${err?.stack ?? err}`);
  if (err?.code === 'EPIPE') process.exit(0); // the client went away
});
process.on('unhandledRejection', (err) => log(`unhandled rejection: ${err?.stack ?? err}`));
await server.connect(transport);
log(`ready (state root ${process.env.GOAL_SYSTEM_STATE_ROOT || 'default'})`);
