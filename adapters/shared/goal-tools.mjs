// @ts-check
// The goal_system_* tools and the context board as the model sees them
// (names, descriptions, JSON Schemas, annotations) come from the Rust core:
// `addon.toolDefinitions()`, `addon.contextBoardTool()` and, for the MCP
// server, `addon.mcpToolDefinitions()`, generated from the typed requests, so
// no field, tool name or gate text is written here. This module only maps a
// tool to its addon call and a result to text. Every rule (limits, wildcards,
// the completion gate) is the core's.
import { toolDefinitions } from './tool-definitions.mjs'

export { toolDefinitions }

/**
 * Text for the model from an addon result: the summary (a goal tool) or the
 * text (the board), changes and warnings.
 * @param {{ summary?: string, text?: string, changes?: string[], warnings?: string[] }} result
 */
export function resultText(result) {
  const parts = [result.summary, result.text]
  if (result.changes?.length) parts.push(`Changes: ${result.changes.join(', ')}`)
  if (result.warnings?.length) parts.push(`Warnings:\n${result.warnings.map((w) => `- ${w}`).join('\n')}`)
  return parts.filter(Boolean).join('\n')
}

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

/**
 * True when a result is a refused completion (only a close reports `closed`).
 * @param {string} _name
 * @param {any} result
 */
export function isRefusal(_name, result) {
  return Boolean(result) && result.closed === false
}
