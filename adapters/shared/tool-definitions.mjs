// @ts-check
// The goal tools' definitions, generated from the core's typed requests. The
// command reads its field flags and tool names here, from the generated copy.
import { readFileSync } from 'node:fs'

/** @typedef {import('../../index.js').ToolDefinition} ToolDefinition */

/** @type {WeakMap<object, ToolDefinition[]>} */
const cache = new WeakMap()

/**
 * The goal tools' definitions from the addon, or (when the addon failed to
 * load) from the generated copy in schema/goal-tools.json, so a host still
 * lists the tools and each call can say why it fails.
 * @param {{ toolDefinitions(): ToolDefinition[] } | null | undefined} addon
 * @returns {ToolDefinition[]}
 */
export function toolDefinitions(addon) {
  if (!addon) return JSON.parse(readFileSync(new URL('../../schema/goal-tools.json', import.meta.url), 'utf8'))
  let defs = cache.get(addon)
  if (!defs) {
    defs = addon.toolDefinitions()
    cache.set(addon, defs)
  }
  return defs
}
