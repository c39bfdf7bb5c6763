// Goal commands of `goal-system`: list, status (and --watch), show, log, report,
// open, update, close, statusline. They call the same addon functions as the
// goal tools, so the same rules apply; the progress views come from the core.
import fs from 'node:fs'
import path from 'node:path'

import { EXIT, addonError, loadAddon, parseOptions, refused, stateError, usageError } from './cli-common.mjs'
import { CLOSE_STATUSES, FIELD_ALIASES, LIST_FIELDS } from './record-fields.mjs'

const SESSION_ENV = ['GOAL_SYSTEM_SESSION_ID', 'COPILOT_SESSION_ID', 'CLAUDE_CODE_SESSION_ID']

const COMMON = {
  session: { type: 'string' },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
}

const FIELD_OPTIONS = Object.fromEntries(
  [...LIST_FIELDS, ...Object.keys(FIELD_ALIASES)].map((name) => [name, { type: 'string', multiple: true }]),
)

/** Goals on one page of `list` (newest first); `--all` shows every one. */
export const PAGE_SIZE = 20

const WRITE_OPTIONS = {
  session: { type: 'string' },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
  'input-json': { type: 'string' },
  'from-json': { type: 'string' },
  ...FIELD_OPTIONS,
  'no-remaining': { type: 'boolean' },
  'no-blockers': { type: 'boolean' },
}

export const GOAL_COMMAND_OPTIONS = {
  list: { ...COMMON, open: { type: 'boolean' }, all: { type: 'boolean' }, page: { type: 'string' } },
  status: {
    ...COMMON,
    open: { type: 'boolean' },
    all: { type: 'boolean' },
    page: { type: 'string' },
    watch: { type: 'boolean', short: 'w' },
    interval: { type: 'string' },
  },
  show: COMMON,
  log: COMMON,
  report: { session: { type: 'string' }, cwd: { type: 'string' }, output: { type: 'string', short: 'o' } },
  open: { ...WRITE_OPTIONS, objective: { type: 'string' }, draft: { type: 'boolean' }, replace: { type: 'boolean' } },
  update: {
    ...WRITE_OPTIONS,
    status: { type: 'string' },
    reason: { type: 'string' },
    'expected-goal-id': { type: 'string' },
  },
  close: {
    ...WRITE_OPTIONS,
    status: { type: 'string' },
    reason: { type: 'string' },
    'expected-goal-id': { type: 'string' },
  },
  budget: {
    session: { type: 'string' },
    cwd: { type: 'string' },
    tokens: { type: 'string' },
    minutes: { type: 'string' },
    off: { type: 'boolean' },
    'expected-goal-id': { type: 'string' },
  },
}

/**
 * Before 0.2 `--json` took the request on open/update/close; it now asks for
 * JSON output everywhere. `--json '{...}'` and `--json -` still work as
 * `--input-json`, with a note.
 */
export function legacyJsonInput(cmd, argv, warn) {
  if (!['open', 'update', 'close'].includes(cmd)) return argv
  const out = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = argv[i + 1]
    if (a === '--json' && next !== undefined && (next === '-' || next.trimStart().startsWith('{'))) {
      out.push('--input-json', next)
      i++
    } else if (a.startsWith('--json=')) {
      out.push(`--input-json=${a.slice('--json='.length)}`)
    } else {
      out.push(a)
      continue
    }
    warn(`goal-system ${cmd}: --json with a request is deprecated; use --input-json (--json now asks for JSON output)`)
  }
  return out
}

export function runGoalCommand(cmd, argv, io, help) {
  argv = legacyJsonInput(cmd, argv, io.err)
  const opts = parseOptions(argv, GOAL_COMMAND_OPTIONS[cmd], {
    positionals: ['list', 'update', 'close', 'open', 'budget'].includes(cmd) ? 0 : 1,
  })
  if (opts.help) {
    io.out(help)
    return EXIT.OK
  }
  const cwd = opts.cwd !== undefined ? path.resolve(opts.cwd) : null
  switch (cmd) {
    case 'list':
      return list(opts, cwd, io)
    case 'status':
      if (opts.watch) return watch(opts, cwd, io)
      return statusOnce(opts, cwd, io)
    case 'show':
      return show(opts, cwd, io)
    case 'log':
      return log(opts, cwd, io)
    case 'report':
      return report(opts, cwd, io)
    default:
      return write(cmd, opts, cwd, io)
  }
}

// ---- reading ----

function list(opts, cwd, io) {
  const addon = loadAddon()
  let listings = call(() => addon.listGoals(cwd ?? undefined), 'list')
  if (opts.session) listings = listings.filter((l) => l.goal.sessionId === opts.session || l.goal.id === opts.session)
  if (opts.open) listings = listings.filter((l) => l.open)
  const { shown, page, pages } = paginate(listings, opts)
  if (opts.json) {
    io.out(JSON.stringify(shown.map(listingJson), null, 2))
    if (shown.length < listings.length) io.err(pageNote(shown, listings, page, pages))
    return EXIT.OK
  }
  if (!listings.length) {
    io.out(`No goals${cwd ? ` for ${cwd}` : ''} in ${addon.statePaths().root}.`)
    return EXIT.OK
  }
  io.out(table(shown, io.paint))
  if (shown.length < listings.length) io.out(pageNote(shown, listings, page, pages))
  return EXIT.OK
}

/** The newest page (listings come newest first), page N, or all. */
export function paginate(listings, opts) {
  const pages = Math.max(1, Math.ceil(listings.length / PAGE_SIZE))
  if (opts.all) return { shown: listings, page: 1, pages: 1 }
  let page = 1
  if (opts.page !== undefined) {
    page = Number(opts.page)
    if (!Number.isInteger(page) || page < 1) throw usageError(`--page takes a page number from 1 (got "${opts.page}")`)
  }
  return { shown: listings.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), page, pages }
}

function pageNote(shown, listings, page, pages) {
  const first = (page - 1) * PAGE_SIZE + 1
  const range = shown.length ? `${first}-${first + shown.length - 1}` : 'none'
  const more = page < pages ? `--page ${page + 1} for older ones, ` : ''
  return `Goals ${range} of ${listings.length} (newest first, page ${page} of ${pages}); ${more}--all for every one.`
}

function listingJson(l) {
  const g = l.goal
  return {
    id: g.id,
    sessionId: g.sessionId,
    cwd: g.cwd,
    objective: g.objective,
    status: l.status,
    open: l.open,
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
    closedAt: g.closedAt ?? null,
    remaining: g.remaining ?? [],
    blockers: g.blockers ?? [],
    statusReason: g.statusReason ?? null,
    budget: usageJson(g.budget),
    unmet: l.unmet,
  }
}

/** Budgets and usage as the command shows them (the record's own fields). */
function usageJson(b = {}) {
  return {
    tokenBudget: b.tokenBudget ?? null,
    tokensUsed: b.tokensUsed ?? 0,
    timeBudgetSeconds: b.timeBudgetSeconds ?? null,
    timeUsedSeconds: Math.floor((b.timeUsedMs ?? 0) / 1000),
    toolCalls: b.toolCalls ?? 0,
    turns: b.turns ?? 0,
  }
}

/** `used/budget` tokens for the table. */
function tokensCell(b = {}) {
  return `${b.tokensUsed ?? 0}${b.tokenBudget != null ? `/${b.tokenBudget}` : ''}`
}

const shortTime = (iso) => (typeof iso === 'string' ? iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z') : '-')

function clip(text, max) {
  return text.length > max ? text.slice(0, max - 1) + '…' : text
}

/** A plain-text table: id, session, status, updated, remaining count, tokens used/budget, unmet conditions, cwd. */
export function table(listings, paint = (style, text) => text) {
  const head = ['ID', 'SESSION', 'STATUS', 'UPDATED', 'REMAINING', 'TOKENS', 'UNMET', 'CWD']
  const rows = listings.map((l) => [
    l.goal.id,
    clip(l.goal.sessionId, 40),
    l.status,
    shortTime(l.goal.updatedAt),
    String((l.goal.remaining ?? []).length),
    tokensCell(l.goal.budget),
    clip(l.unmet.length ? l.unmet.join(',') : '-', 60),
    l.goal.cwd,
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const STATUS = 2
  const colour = {
    active: 'green',
    draft: 'cyan',
    blocked: 'yellow',
    paused: 'yellow',
    budget_limited: 'yellow',
    complete: 'gray',
    cancelled: 'gray',
  }
  const cell = (c, i, last) => {
    const padded = last ? c : c.padEnd(widths[i])
    return i === STATUS && colour[c] ? paint(colour[c], padded) : padded
  }
  const line = (cells, styled = true) =>
    cells
      .map((c, i) => (styled ? cell(c, i, i === cells.length - 1) : i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
  return [paint('bold', line(head, false)), ...rows.map((r) => line(r))].join('\n')
}

/** The goal a reading command names: argument, --session or the environment, else the one open goal here. */
function pickGoal(addon, opts, cwd, what) {
  const key = opts.positionals[0] ?? sessionFromFlagOrEnv(opts)
  const listing = key ? call(() => addon.findGoal(key), what) : soleOpenGoal(addon, cwd ?? process.cwd())
  if (!listing) throw refused(`goal-system ${what}: no goal with id or session "${key}"`)
  return listing
}

function show(opts, cwd, io) {
  const addon = loadAddon()
  const listing = pickGoal(addon, opts, cwd, 'show')
  const goal = listing.goal
  const status = call(() => addon.goalStatusSync({ sessionId: goal.sessionId, cwd: goal.cwd }), 'show')
  const current = status.goal?.id === goal.id
  const result = {
    id: goal.id,
    sessionId: goal.sessionId,
    cwd: goal.cwd,
    objective: goal.objective,
    status: listing.status,
    open: listing.open,
    unmet: current ? status.unmet : listing.unmet.map((field) => ({ field, message: '' })),
    drift: current ? status.drift : null,
    autopilot: status.autopilot ?? null,
    summary: current ? status.summary : listing.summary,
    warnings: current ? status.warnings : [],
    goal,
  }
  if (opts.json) {
    io.out(JSON.stringify(result, null, 2))
    return EXIT.OK
  }
  io.out(`Goal ${goal.id} (${listing.status})\nSession: ${goal.sessionId}\nCwd: ${goal.cwd}`)
  io.out(result.summary.trimEnd())
  if (!current) {
    io.out(`Note: session ${goal.sessionId} has moved on to goal ${status.goal?.id ?? '(none)'}; this one is history.`)
    if (result.autopilot)
      io.out(`Copilot CLI autopilot objective: ${result.autopilot.objective} (status ${result.autopilot.status})`)
  }
  return EXIT.OK
}

function statusOnce(opts, cwd, io) {
  return opts.positionals[0] || sessionFromFlagOrEnv(opts) ? show(opts, cwd, io) : list(opts, cwd, io)
}

/** The goal's timeline (audit log and tool history), as text or --json. */
function log(opts, cwd, io) {
  const addon = loadAddon()
  const listing = pickGoal(addon, opts, cwd, 'log')
  const result = call(() => addon.goalLog(listing.goal.id), 'log')
  if (opts.json) {
    const { goal, timeline, checklist, coverage, budget } = result
    io.out(
      JSON.stringify(
        {
          id: goal.id,
          sessionId: goal.sessionId,
          status: listing.status,
          timeline,
          checklist,
          coverage,
          budget: budget ?? null,
        },
        null,
        2,
      ),
    )
  } else io.out(result.text.trimEnd())
  return EXIT.OK
}

/** The self-contained HTML report, on stdout or into -o FILE (0600: it holds the goal's details). */
function report(opts, cwd, io) {
  const addon = loadAddon()
  const listing = pickGoal(addon, opts, cwd, 'report')
  const html = call(() => addon.goalReport(listing.goal.id), 'report')
  if (opts.output === undefined || opts.output === '-') {
    process.stdout.write(html)
    return EXIT.OK
  }
  const file = path.resolve(opts.output)
  try {
    fs.writeFileSync(file, html, { mode: 0o600 })
  } catch (err) {
    throw stateError(`goal-system report: cannot write ${file} (${err.code ?? err.message})`)
  }
  io.out(`Report of goal ${listing.goal.id} written to ${file}`)
  return EXIT.OK
}

/** Lines the watch screen shows: what status prints, then the latest timeline entries. */
function watchScreen(opts, cwd) {
  const lines = []
  const capture = { out: (t) => lines.push(t), err: (t) => lines.push(t) }
  try {
    if (opts.positionals[0] || sessionFromFlagOrEnv(opts)) {
      const addon = loadAddon()
      const listing = pickGoal(addon, opts, cwd, 'status')
      lines.push(addon.statusLine(JSON.stringify({ session_id: listing.goal.sessionId })), '')
      show({ ...opts, positionals: [listing.goal.id], json: false }, cwd, capture)
      // The text log is a header, a blank line, then one line per event.
      const log = addon.goalLog(listing.goal.id).text.trimEnd().split('\n')
      lines.push('', 'Latest:', ...log.slice(log.indexOf('') + 1).slice(-WATCH_EVENTS))
    } else list({ ...opts, json: false }, cwd, capture)
  } catch (err) {
    lines.push(err.message, ...(err.details ?? []))
  }
  return lines.join('\n')
}

const WATCH_EVENTS = 10

/**
 * status --watch: redraw in place (alternate screen, cursor home and clear)
 * until Ctrl-C; when stdout is not a terminal, print once.
 */
function watch(opts, cwd, io, stdout = process.stdout) {
  const seconds = opts.interval === undefined ? 2 : Number(opts.interval)
  if (!Number.isFinite(seconds) || seconds < 0.1)
    throw usageError(`--interval: expected seconds (0.1 or more), got "${opts.interval}"`)
  if (!stdout.isTTY) {
    io.out(watchScreen(opts, cwd))
    return EXIT.OK
  }
  stdout.write('\x1b[?1049h\x1b[?25l')
  const draw = () => {
    const when = new Date().toISOString().replace('T', ' ').slice(0, 19)
    stdout.write(`\x1b[H\x1b[2J${watchScreen(opts, cwd)}\n\n${when}Z, every ${seconds}s; Ctrl-C to stop\n`)
  }
  draw()
  const timer = setInterval(draw, seconds * 1000)
  return new Promise((resolve) => {
    const stop = () => {
      clearInterval(timer)
      stdout.write('\x1b[?25h\x1b[?1049l')
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve(EXIT.OK)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/**
 * statusline: Claude Code's statusLine JSON on stdin, the goal line on stdout.
 * The installed status line runs the native hook; this is its Node fallback,
 * and it prints nothing rather than an error.
 */
export function statusLine(readStdin = () => fs.readFileSync(0, 'utf8')) {
  try {
    return loadAddon().statusLine(readStdin())
  } catch {
    return ''
  }
}

// ---- writing ----

function sessionFromFlagOrEnv(opts) {
  if (opts.session) return opts.session
  for (const name of SESSION_ENV) if (process.env[name]) return process.env[name]
  return null
}

/** The one open goal of a folder, as continuation finds it; several or none refuse. */
function soleOpenGoal(addon, cwd) {
  const candidates = call(() => addon.continuationCandidates(cwd), 'session lookup')
  if (candidates.length === 1) return candidates[0]
  const how = 'pass --session <session id or goal id> (or set GOAL_SYSTEM_SESSION_ID)'
  if (!candidates.length) throw refused(`no session given and no open goal in ${cwd}; ${how}`)
  throw refused(
    `no session given and ${candidates.length} open goals in ${cwd}; name one: ${how}`,
    candidates.map(
      (c) => `${c.goal.id}  session ${c.goal.sessionId}  ${c.status}  ${clip(c.goal.objective ?? '', 80)}`,
    ),
  )
}

/** Who calls: explicit session (or goal id), else the environment, else the one open goal here. */
function resolveCaller(addon, cmd, opts, cwd) {
  const key = sessionFromFlagOrEnv(opts)
  if (!key) {
    if (cmd === 'open')
      throw usageError(
        'goal-system open: needs --session ID (or GOAL_SYSTEM_SESSION_ID, COPILOT_SESSION_ID, CLAUDE_CODE_SESSION_ID)',
      )
    const only = soleOpenGoal(addon, cwd ?? process.cwd())
    return { caller: { sessionId: only.goal.sessionId, cwd: cwd ?? only.goal.cwd }, goalId: null }
  }
  const found = cmd === 'open' ? null : call(() => addon.findGoal(key), 'session lookup')
  if (!found) return { caller: { sessionId: key, cwd: cwd ?? process.cwd() }, goalId: null }
  const goalId = found.goal.id === key ? key : null
  return { caller: { sessionId: found.goal.sessionId, cwd: cwd ?? found.goal.cwd }, goalId }
}

/** The request: --input-json (object, or - for stdin) plus the field flags. */
export function buildRequest(cmd, opts, readStdin = () => fs.readFileSync(0, 'utf8')) {
  let request = {}
  const input = opts['input-json'] ?? opts['from-json']
  if (input !== undefined) {
    const text = input === '-' ? readStdin() : input
    try {
      request = JSON.parse(text)
    } catch (err) {
      throw usageError(`--input-json: not valid JSON: ${err.message}`)
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request))
      throw usageError('--input-json: expected an object of fields')
  }
  for (const [flag, values] of Object.entries(opts)) {
    const field = FIELD_ALIASES[flag] ?? (LIST_FIELDS.includes(flag) ? flag : null)
    if (!field || !Array.isArray(values)) continue
    const before = request[field] === undefined ? [] : [].concat(request[field])
    request[field] = [...before, ...values]
  }
  if (opts['no-remaining']) request.remaining = []
  if (opts['no-blockers']) request.blockers = []
  if (cmd === 'open') {
    if (opts.objective !== undefined) request.objective = opts.objective
    if (opts.draft) request.status = 'draft'
    if (opts.replace) request.replace = true
    if (!request.objective) throw usageError('goal-system open: needs --objective TEXT')
  } else if (cmd === 'budget') {
    Object.assign(request, budgetRequest(opts))
  } else {
    if (opts.status !== undefined) request.status = opts.status
    if (opts.reason !== undefined) request[cmd === 'close' ? 'reason' : 'statusReason'] = opts.reason
  }
  if (opts['expected-goal-id'] !== undefined) request.expectedGoalId = opts['expected-goal-id']
  if (cmd === 'close') {
    request.status ??= 'complete'
    if (!CLOSE_STATUSES.includes(request.status)) {
      throw usageError(
        `goal-system close: --status must be one of ${CLOSE_STATUSES.join(', ')} (got "${request.status}")`,
      )
    }
  }
  return request
}

/** --tokens N, --minutes M, or --off: the budget fields of an update. */
function budgetRequest(opts) {
  if (opts.off) return { tokenBudget: null, timeBudgetSeconds: null }
  const whole = (flag) => {
    const text = opts[flag]
    if (text === undefined) return undefined
    if (!/^\d+$/.test(text)) throw usageError(`goal-system budget: --${flag} takes a whole number (got "${text}")`)
    return Number(text)
  }
  const tokens = whole('tokens')
  const minutes = whole('minutes')
  if (tokens === undefined && minutes === undefined)
    throw usageError('goal-system budget: needs --tokens N, --minutes M or --off')
  const request = {}
  if (tokens !== undefined) request.tokenBudget = tokens
  if (minutes !== undefined) request.timeBudgetSeconds = minutes * 60
  return request
}

function write(cmd, opts, cwd, io) {
  const request = buildRequest(cmd, opts)
  const addon = loadAddon()
  const { caller, goalId } = resolveCaller(addon, cmd, opts, cwd)
  // The user's rights only in the user's own terminal; the rule is the core's.
  caller.role = addon.commandRole(Boolean(process.stdin.isTTY), Object.keys(process.env))
  if (goalId && request.expectedGoalId === undefined) request.expectedGoalId = goalId
  const fn = {
    open: addon.openGoalSync,
    update: addon.updateGoalSync,
    budget: addon.updateGoalSync,
    close: addon.closeGoalSync,
  }[cmd]
  const result = call(() => fn(caller, request), cmd)
  const refusedClose = cmd === 'close' && !result.closed
  if (opts.json) {
    io.out(JSON.stringify(result, null, 2))
    return refusedClose ? EXIT.FAILED : EXIT.OK
  }
  for (const w of result.warnings ?? []) io.err(`warning: ${w}`)
  if (refusedClose) {
    io.err(result.summary.trimEnd())
    for (const u of result.unmet) if (!result.summary.includes(u.message)) io.err(`- ${u.field}: ${u.message}`)
    return EXIT.FAILED
  }
  if ((cmd === 'update' || cmd === 'budget') && result.changes?.length) io.out(`Changes: ${result.changes.join(', ')}`)
  if (cmd === 'open')
    io.out(
      result.created
        ? `Opened goal ${result.goal.id} for session ${caller.sessionId}.`
        : `Goal ${result.goal.id} continues (same objective).`,
    )
  io.out(result.summary.trimEnd())
  return EXIT.OK
}

function call(fn, what) {
  try {
    return fn()
  } catch (err) {
    // The core names an unknown field with the nearest known one.
    throw addonError(err, `goal-system ${what}`)
  }
}
