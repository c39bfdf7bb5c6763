// `goal-system board`: the user's view of the context board of a repository
// and branch. Items added here are the user's (src "user"): the agent can read
// them but never prune them. Every rule is the core's (addon.contextBoardSync).
import path from 'node:path'

import { EXIT, addonError, loadAddon, parseOptions, usageError } from './cli-common.mjs'

const OPTIONS = {
  repo: { type: 'string' },
  branch: { type: 'string' },
  description: { type: 'string' },
  content: { type: 'string' },
  json: { type: 'boolean' },
}

/** `board [list | show NAME | add NAME --description D --content C | prune NAME]`. */
export function runBoardCommand(argv, io, help) {
  const opts = parseOptions(argv, OPTIONS, { positionals: 2 })
  if (opts.help) {
    io.out(help)
    return EXIT.OK
  }
  const [action = 'list', name] = opts.positionals
  const request = requestFor(action, name, opts)
  const addon = loadAddon()
  const caller = {
    cwd: path.resolve(opts.repo ?? process.cwd()),
    // The user's items only from the user's own terminal (the core's rule); an
    // agent's shell writes agent items and cannot prune the user's.
    user: addon.commandRole(Boolean(process.stdin.isTTY), Object.keys(process.env)) === 'user',
    ...(opts.branch !== undefined ? { branch: opts.branch } : {}),
  }
  let result
  try {
    result = addon.contextBoardSync(caller, request)
  } catch (err) {
    throw addonError(err, `goal-system board ${action}`)
  }
  for (const w of result.warnings ?? []) io.err(`warning: ${w}`)
  if (opts.json) {
    const { text, ...data } = result
    io.out(
      JSON.stringify(
        action === 'show' ? { ...data, items: undefined } : { ...data, found: undefined, message: text },
        null,
        2,
      ),
    )
    return EXIT.OK
  }
  io.out(action === 'list' ? listing(result) : result.text)
  return EXIT.OK
}

function requestFor(action, name, opts) {
  const needName = () => {
    if (!name) throw usageError(`goal-system board ${action}: needs the item's NAME`)
    return name
  }
  if (action !== 'list' && action !== 'add' && (opts.description !== undefined || opts.content !== undefined)) {
    throw usageError(`goal-system board ${action}: --description and --content belong to add`)
  }
  switch (action) {
    case 'list':
      if (name) throw usageError(`unexpected argument "${name}"`)
      return { command: 'get_board' }
    case 'show':
      return { command: 'get', name: needName() }
    case 'add':
      needName()
      if (opts.description === undefined || opts.content === undefined) {
        throw usageError('goal-system board add: needs --description TEXT and --content TEXT')
      }
      return { command: 'add', name, description: opts.description, context: opts.content }
    case 'prune':
      return { command: 'prune', name: needName() }
    default:
      throw usageError(`goal-system board: unknown action "${action}" (list, show, add or prune)`)
  }
}

/** A plain table of the metadata, like the one the model sees. */
function listing(result) {
  const where = `Context board of ${result.repository} (branch ${result.branch})`
  if (!result.items.length) return `${where}: empty.`
  const head = ['SRC', 'NAME', 'DESCRIPTION', 'READS', 'SESSIONS', 'UPDATED']
  const rows = result.items.map((i) => [
    i.src,
    i.name,
    i.description,
    String(i.readCount),
    String(i.count),
    i.updatedAt,
  ])
  const widths = head.map((h, n) => Math.max(h.length, ...rows.map((r) => r[n].length)))
  const line = (cells) => cells.map((c, n) => (n === cells.length - 1 ? c : c.padEnd(widths[n]))).join('  ')
  return [
    `${where}: ${result.items.length} items.`,
    ...(result.notice ? [result.notice] : []),
    line(head),
    ...rows.map(line),
  ].join('\n')
}
