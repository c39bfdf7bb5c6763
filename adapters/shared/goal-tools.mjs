// @ts-check
// The goal_system_* tools as the model sees them (names, descriptions, JSON
// Schemas, annotations) come from the Rust core: `addon.toolDefinitions()`,
// generated from the typed requests, so no field, tool name or gate text is
// written here. This module only maps a tool to its addon call and a result
// to text. Every rule (limits, wildcards, the completion gate) is the core's.
import { z } from 'zod'

import { toolDefinitions } from './tool-definitions.mjs'

export { toolDefinitions }

/**
 * Text for the model from an addon result: summary, changes and warnings.
 * @param {{ summary?: string, changes?: string[], warnings?: string[] }} result
 */
export function resultText(result) {
  const parts = [result.summary]
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

// ---------------------------------------------------------------- context board

/**
 * Input shape of the `context_board` tool (types only). Its name and
 * description, limits included, come from the core (`addon.contextBoardTool()`).
 */
export const boardShape = {
  command: z
    .enum(['get_board', 'get', 'add', 'prune'])
    .describe(
      'get_board lists metadata; get reads one item; add creates or overwrites an agent item; prune deletes one.',
    ),
  src: z.enum(['agent', 'user']).optional().describe('get: whose item (as listed in the board).'),
  name: z.string().optional().describe("get, add, prune: the item's short kebab-case name."),
  description: z.string().optional().describe('add: a one-line summary shown in the board.'),
  context: z.string().optional().describe('add: the full reusable content (one fact, recipe or trap per item).'),
}

/** Text for the model from a board result: the text and any warnings. */
export function boardText(result) {
  const parts = [result.text]
  if (result.warnings?.length) parts.push(`Warnings:\n${result.warnings.map((w) => `- ${w}`).join('\n')}`)
  return parts.filter(Boolean).join('\n')
}
