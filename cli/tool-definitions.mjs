// @ts-check
// The goal tools' definitions as the core generates them from its typed
// requests (schema/goal-tools.json, written by `npm run gen`; a test fails
// while it is stale). The command reads its field flags, its help and the tool
// names here, so it works even where the addon does not load.
import { readFileSync } from 'node:fs'

/** @typedef {import('../index.js').ToolDefinition} ToolDefinition */

/** @type {ToolDefinition[] | undefined} */
let cached

/** The goal tools' definitions, from the generated copy. @returns {ToolDefinition[]} */
export function toolDefinitions() {
  cached ??= JSON.parse(readFileSync(new URL('../schema/goal-tools.json', import.meta.url), 'utf8'))
  return /** @type {ToolDefinition[]} */ (cached)
}
