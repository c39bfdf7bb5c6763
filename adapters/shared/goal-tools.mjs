// @ts-check
// The goal_system_* tools and the context board as the model sees them
// (names, descriptions, JSON Schemas, annotations) come from the Rust core:
// `addon.toolDefinitions()`, `addon.contextBoardTool()` and, for the MCP
// server, `addon.mcpToolDefinitions()`, generated from the typed requests, so
// no field, tool name or gate text is written here. This module only maps a
// tool to its addon call; what the model sees of a result is the core's too
// (`addon.toolAnswer`). Every rule (limits, wildcards, the completion gate) is
// the core's.
import { toolDefinitions } from './tool-definitions.mjs'

export { toolDefinitions }

/**
 * Call the addon function behind a tool (its `operation`).
 * @param {any} addon
 * @param {string} name
 * @param {import('../../index.js').GoalCaller} caller
 * @param {Record<string, unknown> | undefined} args
 */
export function callTool(addon, name, caller, args) {
  const def = toolDefinitions(addon).find((d) => d.name === name)
  if (!def) throw new Error(`unknown goal tool ${name}`)
  return addon[def.operation](caller, args ?? {})
}
