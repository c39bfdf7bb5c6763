// `goal-system memory`: the user's side of the repository's memories
// (.github/copilot-memories.jsonl): list, show, forget, vote, and the settings
// that turn the model's writes or the memory context off. Every rule is the
// core's (addon.memoryCommandSync, addon.memorySettingsSync): forgetting and the
// settings are the user's alone, so they work only in the user's own terminal.
import path from 'node:path'

import { EXIT, addonError, loadAddon, parseOptions, usageError } from './cli-common.mjs'

const OPTIONS = {
  repo: { type: 'string' },
  reason: { type: 'string' },
  json: { type: 'boolean' },
}

/** `memory [list | show ID | forget ID | vote ID up|down | writes on|off | recall on|off]`. */
export function runMemoryCommand(argv, io, help) {
  const opts = parseOptions(argv, OPTIONS, { positionals: 3 })
  if (opts.help) {
    io.out(help)
    return EXIT.OK
  }
  const [action = 'list', arg, arg2] = opts.positionals
  const addon = loadAddon()
  // The user's rights only from the user's own terminal (the core's rule).
  const role = addon.commandRole(Boolean(process.stdin.isTTY), Object.keys(process.env))
  if (action === 'writes' || action === 'recall') return settings(addon, io, opts, role, action, arg, arg2)
  if (arg2 !== undefined && action !== 'vote') throw usageError(`unexpected argument "${arg2}"`)
  const request = requestFor(action, arg, arg2, opts)
  const caller = { cwd: path.resolve(opts.repo ?? process.cwd()), role }
  let result
  try {
    result = addon.memoryCommandSync(caller, request)
  } catch (err) {
    throw addonError(err, `goal-system memory ${action}`)
  }
  for (const w of result.warnings ?? []) io.err(`warning: ${w}`)
  if (opts.json) {
    io.out(JSON.stringify(result, null, 2))
    return EXIT.OK
  }
  io.out(
    action === 'list'
      ? listing(addon, result)
      : action === 'show'
        ? result.memories.map((m) => m.shown).join('\n\n')
        : result.text,
  )
  return EXIT.OK
}

function requestFor(action, id, direction, opts) {
  const needId = () => {
    if (!id)
      throw usageError(`goal-system memory ${action}: needs the memory's ID (goal-system memory list shows them)`)
    return id
  }
  if (opts.reason !== undefined && action !== 'vote') throw usageError('--reason belongs to vote')
  switch (action) {
    case 'list':
      if (id) throw usageError(`unexpected argument "${id}"`)
      return { command: 'list' }
    case 'show':
    case 'forget':
      return { command: action, id: needId() }
    case 'vote':
      needId()
      if (direction !== 'up' && direction !== 'down') throw usageError('goal-system memory vote ID up|down')
      return { command: 'vote', id, direction, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) }
    default:
      throw usageError(`goal-system memory: unknown action "${action}" (list, show, forget, vote, writes or recall)`)
  }
}

function settings(addon, io, opts, role, which, value, extra) {
  if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`)
  if (value !== undefined && value !== 'on' && value !== 'off') throw usageError(`goal-system memory ${which} on|off`)
  let result
  try {
    result = addon.memorySettingsSync({ role, ...(value !== undefined ? { [which]: value === 'on' } : {}) })
  } catch (err) {
    throw addonError(err, `goal-system memory ${which}`)
  }
  if (opts.json) io.out(JSON.stringify(result, null, 2))
  else io.out(settingsLine(result))
  return EXIT.OK
}

function settingsLine(s) {
  return `memory writes by the model: ${s.writes ? 'on' : 'off'}; memories and recall in the model's context: ${s.recall ? 'on' : 'off'}`
}

/** A plain table, most voted first within the file's order. */
function listing(addon, result) {
  const head = `Memories of ${result.repository} (${result.file}): ${result.total}.`
  const s = addon.memorySettingsSync({})
  if (!result.memories.length) return `${head}\n${settingsLine(s)}`
  const rows = result.memories.map((m) => [
    m.id,
    `+${m.up}/-${m.down}${m.disputed ? ' (not shown)' : ''}`,
    m.time.slice(0, 10),
    m.subject,
    m.fact.length > 70 ? `${m.fact.slice(0, 69)}…` : m.fact,
  ])
  const titles = ['ID', 'VOTES', 'STORED', 'SUBJECT', 'FACT']
  const widths = titles.map((h, n) => Math.max(h.length, ...rows.map((r) => r[n].length)))
  const line = (cells) => cells.map((c, n) => (n === cells.length - 1 ? c : c.padEnd(widths[n]))).join('  ')
  return [head, settingsLine(s), line(titles), ...rows.map(line)].join('\n')
}
