// @ts-check
// Copilot CLI extension: the goal_system_* tools, and lifecycle hooks for
// installs without the CLI shell hooks. Protocol only; every decision comes
// from the Rust core through the addon. Stdout belongs to JSON-RPC: log to stderr.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { join } from 'node:path'

// The native addon, loaded directly: every rule lives in the Rust core.
const require = createRequire(import.meta.url)
const addon = require('./index.js')

/** Does this invocation (or hook input) come from a subagent? The rule is the core's. */
export function looksLikeSubagent(invocation, mainSessionId) {
  if (!invocation || typeof invocation !== 'object') return false
  // Only JSON data crosses to the addon: the host's invocation also carries
  // functions and cyclic objects. Markers may be objects (`subagent: {...}`).
  /** @type {import('./index.js').SubagentInvocation} */
  const scalars = {}
  for (const [key, value] of Object.entries(invocation)) {
    if (['string', 'boolean'].includes(typeof value)) scalars[key] = value
    // NaN and Infinity have no JSON form: the addon would throw, and a failed
    // check reads as the main agent.
    else if (typeof value === 'number') scalars[key] = Number.isFinite(value) ? value : null
    else if (value && typeof value === 'object') {
      try {
        scalars[key] = JSON.parse(JSON.stringify(value))
      } catch {
        scalars[key] = { unreadable: true }
      }
    }
  }
  try {
    return addon.looksLikeSubagent(scalars, mainSessionId ?? null)
  } catch (err) {
    process.stderr.write(`goal-system extension: subagent check failed: ${err.message}\n`)
    return false
  }
}

/**
 * The addon function a goal tool names (its `operation`: `openGoal`, ...).
 * @param {string} operation
 * @param {import('./index.js').GoalCaller} caller
 * @param {Record<string, unknown> | undefined} args
 */
function callTool(operation, caller, args) {
  return addon[operation](caller, args ?? {})
}

function failure(text) {
  return { textResultForLlm: text, resultType: 'failure' }
}

/**
 * The four tools, with handlers taking sessionId and cwd from the invocation.
 * Names, descriptions and JSON-Schema parameters are the core's (the SDK takes
 * a JSON Schema as `parameters`).
 */
export function buildTools({ cwd = () => process.cwd(), mainSessionId = () => undefined } = {}) {
  return addon.toolDefinitions().map(({ name, description, inputSchema, operation }) => ({
    name,
    description,
    parameters: inputSchema,
    skipPermission: true,
    handler: async (args, invocation) => {
      // A subagent's call reaches the core flagged: its authority rule refuses it.
      const caller = {
        sessionId: invocation?.sessionId ?? '',
        cwd: cwd(),
        subagent: looksLikeSubagent(invocation, mainSessionId()),
      }
      try {
        const answer = addon.toolAnswer(await callTool(operation, caller, args))
        return answer.refused ? failure(answer.text) : answer.text
      } catch (err) {
        return failure(`${name} failed (${err.code ?? 'ERROR'}): ${err.message}`)
      }
    },
  }))
}

/**
 * The context_board tool. No `skipPermission`: its writes are side effects the
 * host asks the user about (the SDK sets permission per tool, so reads ask too,
 * until the user allows the tool for the session). Subagents may only read.
 */
export function buildBoardTool({ cwd = () => process.cwd(), mainSessionId = () => undefined } = {}) {
  // Name, description and JSON-Schema parameters are the core's, as for the goal tools.
  const { name, description, inputSchema } = addon.contextBoardTool()
  return {
    name,
    description,
    parameters: inputSchema,
    // Copilot CLI 1.0.102 has a built-in context_board of its own (seed 002), which answers
    // "configuration is not available" unless the host's subconscious feature is on; a
    // clashing name without this flag is an error per the SDK. Ours is the one that works.
    overridesBuiltInTool: true,
    handler: async (args, invocation) => {
      const caller = {
        cwd: cwd(),
        sessionId: invocation?.sessionId,
        subagent: looksLikeSubagent(invocation, mainSessionId()),
        agentType: agentTypeOf(invocation),
      }
      try {
        return addon.toolAnswer(await addon.contextBoard(caller, args ?? {})).text
      } catch (err) {
        return failure(`${name} failed (${err.code ?? 'ERROR'}): ${err.message}`)
      }
    },
  }
}

/**
 * The host's name for each subagent (`agentId` -> `agentType`), learnt from the
 * hook inputs that carry both: a tool invocation names only the `agentId`, and
 * the core needs the name to tell the consolidation agent from other subagents.
 */
const agentTypes = new Map()

/** Remember the agent type of a hook input (never decides anything). */
export function noteAgentType(input) {
  const id = input?.agentId
  const type = input?.agentType ?? input?.agentName
  if (typeof id === 'string' && typeof type === 'string') agentTypes.set(id, type)
}

/** The agent type the host gave for this invocation's agent, if any. */
function agentTypeOf(invocation) {
  const id = invocation?.agentId
  return typeof id === 'string' ? agentTypes.get(id) : undefined
}

/**
 * store_memory and vote_memory. No `skipPermission`: a memory write is a side
 * effect the host asks the user about (the user can also turn the model's
 * writes off: `goal-system memory writes off`). Definitions are the core's;
 * the core refuses subagents (but lets the consolidation agent store).
 */
export function buildMemoryTools({ cwd = () => process.cwd(), mainSessionId = () => undefined } = {}) {
  return addon.memoryToolDefinitions().map(({ name, description, inputSchema, operation }) => ({
    name,
    description,
    parameters: inputSchema,
    // Copilot CLI has memory tools of its own behind a feature flag (seed 002); the
    // same names without this flag would clash. Ours write the seed's local file.
    overridesBuiltInTool: true,
    handler: async (args, invocation) => {
      const caller = {
        cwd: cwd(),
        sessionId: invocation?.sessionId,
        subagent: looksLikeSubagent(invocation, mainSessionId()),
        agentType: agentTypeOf(invocation),
        host: 'copilot-cli',
      }
      try {
        return addon.toolAnswer(await addon[operation](caller, args ?? {})).text
      } catch (err) {
        return failure(`${name} failed (${err.code ?? 'ERROR'}): ${err.message}`)
      }
    },
  }))
}

/**
 * Are Copilot CLI's shell hooks of the goal system installed? They then own the
 * lifecycle, so each event gets one decision. `goal-system install` puts them at
 * user level only (`.github/hooks/goal-system.json` is VS Code's file).
 */
export function shellHooksInstalled(copilotHome = process.env.COPILOT_HOME || join(homedir(), '.copilot')) {
  return existsSync(join(copilotHome, 'hooks', 'goal-system.json'))
}

/** Hooks that forward to the same Rust decisions as the shell hook. */
export function buildHooks({ mainSessionId = () => undefined } = {}) {
  const run = (event, input, invocation) => {
    const payload = {
      ...input,
      sessionId: invocation?.sessionId ?? input?.sessionId,
      cwd: input?.workingDirectory ?? input?.cwd ?? process.cwd(),
      isSubagent: looksLikeSubagent(input, invocation?.sessionId ?? mainSessionId()),
    }
    let out
    try {
      out = addon.runHook('copilot-sdk', event, JSON.stringify(payload))
    } catch (err) {
      process.stderr.write(`goal-system extension: ${event} hook failed: ${err.message}\n`)
      return undefined
    }
    if (out.stderr) process.stderr.write(out.stderr)
    const answer = JSON.parse(out.stdout || '{}')
    delete answer.systemMessage // not part of the SDK's hook outputs
    return Object.keys(answer).length ? answer : undefined
  }
  return {
    onSessionStart: (input, inv) => run('sessionStart', input, inv),
    onUserPromptSubmitted: (input, inv) => run('userPromptSubmitted', input, inv),
    onPreToolUse: (input, inv) => run('preToolUse', input, inv),
    // The host's own report (toolResult, or a failure's error) reaches the core as sent:
    // it judges whether a verification passed.
    onPostToolUse: (input, inv) => run('postToolUse', input, inv),
    onPostToolUseFailure: (input, inv) => run('postToolUseFailure', input, inv),
    onAgentStop: (input, inv) => run('agentStop', input, inv),
  }
}

/** Join the foreground session. `join` is injectable for tests. */
export async function start(join = undefined) {
  // @ts-expect-error: an optional peer the host provides; not installed for development.
  const joinSession = join ?? (await import('@github/copilot-sdk/extension')).joinSession
  let session
  const mainSessionId = () => session?.sessionId
  const hooks = shellHooksInstalled() ? {} : buildHooks({ mainSessionId })
  // Always: learn each subagent's name before its tool calls reach the handlers.
  const decide = hooks.onPreToolUse
  hooks.onPreToolUse = (input, inv) => {
    noteAgentType(input)
    return decide?.(input, inv)
  }
  const tools = [
    ...buildTools({ mainSessionId }),
    buildBoardTool({ mainSessionId }),
    ...buildMemoryTools({ mainSessionId }),
  ]
  session = await joinSession({ tools, hooks })
  return session
}

// Loaded by Copilot CLI (directly or through the installed shim): join now.
if (process.env.GOAL_SYSTEM_EXTENSION_NO_AUTOSTART !== '1') {
  start().catch((err) => {
    process.stderr.write(`goal-system extension: could not join the session: ${err.message}\n`)
  })
}
