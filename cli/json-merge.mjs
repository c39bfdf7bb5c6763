// Settings files for `goal-system install`: JSONC (comments, trailing commas)
// as VS Code and the other hosts accept it. Parse with a clear error, walk
// paths, merge or strip the goal-system entries on plain values, and write the
// difference back into the original text as in-place edits (jsonc-parser's
// modify/applyEdits), so comments, trailing commas and layout survive.
// Pure functions on text and values; file IO lives in fs-safe.mjs.
import { applyEdits, findNodeAtLocation, modify, parse, parseTree, printParseErrorCode } from 'jsonc-parser'

/** A settings file that cannot be parsed, or has the wrong shape. */
export class JsonFileError extends Error {
  constructor(file, detail, { shape = false } = {}) {
    super(shape ? `${file} cannot take goal-system's entries: ${detail}` : `${file} is not valid JSONC: ${detail}`)
    this.file = file
    this.detail = detail
  }
}

/** A settings value of an unexpected type where goal-system must write (e.g. "hooks": 3). */
export class ShapeError extends Error {}

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true }

/** Parse a settings file's text (JSONC): an object, `{}` for an empty file, or a JsonFileError. */
export function parseJsonObject(text, file) {
  if (text.trim() === '') return {}
  const errors = []
  const value = parse(stripBom(text), errors, PARSE_OPTIONS)
  if (errors.length) throw new JsonFileError(file, describeParseError(stripBom(text), errors[0]))
  if (!isPlainObject(value)) {
    throw new JsonFileError(file, `expected an object at the top level, found ${typeName(value)}`, { shape: true })
  }
  return value
}

function stripBom(text) {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** The parser's error, with line and column. */
export function describeParseError(text, error) {
  const before = text.slice(0, error.offset)
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return `${printParseErrorCode(error.error)} at line ${line}, column ${column}`
}

function typeName(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return `a ${typeof value}`
}

export function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** How a file is laid out, so a rewrite changes only what it must. */
export function detectFormat(text) {
  const fmt = { indent: 2, eol: '\n', finalNewline: true }
  if (text == null || text.trim() === '') return fmt
  if (text.includes('\r\n')) fmt.eol = '\r\n'
  const indented = /^[{[][^\n]*\r?\n([ \t]+)\S/m.exec(text)
  if (indented) fmt.indent = indented[1].startsWith('\t') ? '\t' : indented[1].length
  else if (!/\n\s*\S/.test(text.trim())) fmt.indent = 2 // one-line file: write it readable
  fmt.finalNewline = /\n$/.test(text)
  return fmt
}

export function formatJson(value, fmt = detectFormat(null)) {
  let text = JSON.stringify(value, null, fmt.indent)
  if (fmt.eol !== '\n') text = text.replace(/\n/g, fmt.eol)
  return fmt.finalNewline ? text + fmt.eol : text
}

/**
 * The text of `next` written into `text` (whose value is `current`) as in-place
 * edits: only the keys and list items that differ are touched, each insertion
 * laid out in the file's own indentation and line ends.
 */
export function editJsonc(text, current, next) {
  if (text == null || text.trim() === '') return formatJson(next)
  const bom = text.charCodeAt(0) === 0xfeff ? '\ufeff' : ''
  const fmt = detectFormat(text)
  return bom + diffInto(stripBom(text), [], current, next, fmt)
}

function diffInto(text, path, cur, nxt, fmt) {
  if (deepEqual(cur, nxt)) return text
  if (isPlainObject(cur) && isPlainObject(nxt)) {
    for (const key of Object.keys(cur)) if (!Object.hasOwn(nxt, key)) text = edit(text, [...path, key], undefined, fmt)
    for (const key of Object.keys(cur))
      if (Object.hasOwn(nxt, key)) text = diffInto(text, [...path, key], cur[key], nxt[key], fmt)
    for (const key of Object.keys(nxt)) if (!Object.hasOwn(cur, key)) text = edit(text, [...path, key], nxt[key], fmt)
    return text
  }
  if (Array.isArray(cur) && Array.isArray(nxt)) {
    const kept = subsequence(cur, nxt)
    if (kept) {
      // Only additions: insert each new item where it belongs.
      nxt.forEach((item, i) => {
        if (!kept.has(i)) text = edit(text, [...path, i], item, fmt, true)
      })
      return text
    }
    const left = subsequence(nxt, cur)
    if (left) {
      // Only removals: delete from the end so indexes stay valid.
      for (let i = cur.length - 1; i >= 0; i--) if (!left.has(i)) text = edit(text, [...path, i], undefined, fmt)
      return text
    }
    if (cur.length === nxt.length) {
      cur.forEach((item, i) => {
        text = diffInto(text, [...path, i], item, nxt[i], fmt)
      })
      return text
    }
  }
  if (path.length === 0) return formatJson(nxt, fmt)
  return edit(text, path, nxt, fmt)
}

/** Indexes of `long` matched, in order, by the items of `short`; null when `short` is not a subsequence. */
function subsequence(short, long) {
  const matched = new Set()
  let j = 0
  for (const item of short) {
    while (j < long.length && !deepEqual(item, long[j])) j++
    if (j === long.length) return null
    matched.add(j++)
  }
  return matched
}

/** One modify: set (value), insert into a list (insert), or remove (undefined). */
function edit(text, path, value, fmt, insert = false) {
  if (value === undefined) {
    const own = removeOwnLine(text, path) ?? removeArrayItem(text, path)
    if (own) return own
  }
  const edits = modify(text, path, value, { isArrayInsertion: insert })
  return applyEdits(
    text,
    edits.map((e) => (value === undefined ? e : layout(text, e, path, value, fmt))),
  )
}

/**
 * An item on a line of its own and followed by a comma goes with its line, its
 * comma and a comment after it: the exact inverse of an insertion, where
 * jsonc-parser would take the comma (and comment) of the item before it.
 */
function removeOwnLine(text, path) {
  const node = findNodeAtLocation(parseTree(text, [], PARSE_OPTIONS), path)
  if (!node) return null
  const item = node.parent?.type === 'property' ? node.parent : node
  const lineStart = text.lastIndexOf('\n', item.offset - 1)
  if (lineStart < 0 || text.slice(lineStart + 1, item.offset).trim() !== '') return null
  const end = item.offset + item.length
  const rest = /^[ \t]*,([ \t]*\/\/[^\n]*|[ \t]*\/\*.*?\*\/)?[ \t]*(?=\r?\n)/.exec(text.slice(end))
  if (!rest) return null
  const from = text[lineStart - 1] === '\r' ? lineStart - 1 : lineStart
  return text.slice(0, from) + text.slice(end + rest[0].length).replace(/^(?=\r?\n)/, '')
}

/**
 * An array item goes with the comma before it (after it, for the first item).
 * Done here because jsonc-parser 3.3.1 cuts one character short when the item
 * ends its list on the same line (`[{"a":1},{"b":2}]` became `[{"a":1}}]`).
 */
function removeArrayItem(text, path) {
  const node = findNodeAtLocation(parseTree(text, [], PARSE_OPTIONS), path)
  const list = node?.parent
  if (!node || list?.type !== 'array') return null
  const i = list.children.indexOf(node)
  const [prev, next] = [list.children[i - 1], list.children[i + 1]]
  if (prev) return text.slice(0, prev.offset + prev.length) + text.slice(node.offset + node.length)
  if (next) return text.slice(0, node.offset) + text.slice(next.offset)
  return text.slice(0, list.offset + 1) + text.slice(list.offset + list.length - 1)
}

const lineIndent = (text, offset) => /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', offset - 1) + 1))[0]

/** jsonc-parser writes new values on one line; lay them out as the file does. */
function layout(text, e, path, value, fmt) {
  const unit = typeof fmt.indent === 'number' ? ' '.repeat(fmt.indent) : fmt.indent
  const pretty = (v, indent) =>
    JSON.stringify(v, null, unit)
      .split('\n')
      .join(fmt.eol + indent)
  if (e.length > 0) return { ...e, content: pretty(value, lineIndent(text, e.offset)) }
  const key = path[path.length - 1]
  const parent = findNodeAtLocation(parseTree(text, [], PARSE_OPTIONS), path.slice(0, -1))
  const outer = parent ? lineIndent(text, parent.offset) : ''
  const inner = outer + unit
  const body = (typeof key === 'string' ? `${JSON.stringify(key)}: ` : '') + pretty(value, inner)
  if (!e.content.startsWith(',')) {
    // The first item of an empty container.
    const closesOnNextLine = /^[ \t]*\r?\n/.test(text.slice(e.offset))
    return { ...e, content: fmt.eol + inner + body + (closesOnNextLine ? '' : fmt.eol + outer) }
  }
  // After the last item: when the file keeps a trailing comma (and maybe a
  // comment on that line), go after them and keep the trailing comma.
  const rest = /^([ \t]*,)([ \t]*\/\/[^\n]*|[ \t]*\/\*.*?\*\/)?[ \t]*(?=\r?\n)/.exec(text.slice(e.offset))
  if (rest) return { offset: e.offset + rest[0].length, length: 0, content: fmt.eol + inner + body + ',' }
  return { ...e, content: ',' + fmt.eol + inner + body }
}

export function deepEqual(a, b) {
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
}

export const clone = (value) => (value === undefined ? undefined : structuredClone(value))

// ---- paths: arrays of keys, e.g. ['permissions', 'allow'] ----

export function getIn(obj, path) {
  let cur = obj
  for (const key of path) {
    if (!isPlainObject(cur) || !Object.hasOwn(cur, key)) return undefined
    cur = cur[key]
  }
  return cur
}

/** Set a value, creating parent objects; returns the parent paths it created. */
export function setIn(obj, path, value) {
  const created = []
  let cur = obj
  path.slice(0, -1).forEach((key, i) => {
    if (!Object.hasOwn(cur, key)) {
      cur[key] = {}
      created.push(path.slice(0, i + 1))
    }
    if (!isPlainObject(cur[key])) throw new ShapeError(`${path.slice(0, i + 1).join('.')} is not an object`)
    cur = cur[key]
  })
  cur[path[path.length - 1]] = value
  return created
}

export function deleteIn(obj, path) {
  const parent = getIn(obj, path.slice(0, -1))
  if (isPlainObject(parent)) delete parent[path[path.length - 1]]
}

export const pathKey = (path) => JSON.stringify(path)

const isEmptyContainer = (v) => (Array.isArray(v) ? v.length === 0 : isPlainObject(v) && Object.keys(v).length === 0)

/**
 * Remove containers left empty by a removal, deepest first, walking up to the root.
 * `allowed(path)` says which of them may go (those goal-system created).
 */
export function pruneEmpty(obj, emptiedPaths, allowed) {
  const candidates = new Map()
  for (const path of emptiedPaths) {
    for (let n = path.length; n > 0; n--) candidates.set(pathKey(path.slice(0, n)), path.slice(0, n))
  }
  const ordered = [...candidates.values()].sort((a, b) => b.length - a.length)
  for (const path of ordered) {
    if (isEmptyContainer(getIn(obj, path)) && allowed(path)) deleteIn(obj, path)
  }
}

// ---- hook entries ----

const COMMAND_KEYS = ['bash', 'powershell', 'command', 'linux', 'osx', 'windows']

/** The command strings of one hook entry (Copilot `bash`, VS Code/Claude `command`, ...). */
export function commandStrings(entry) {
  if (!isPlainObject(entry)) return []
  return COMMAND_KEYS.map((k) => entry[k]).filter((v) => typeof v === 'string')
}

/**
 * Strip the entries `isOurs(commandString)` recognizes from a `hooks` object of
 * either layout: flat `{Event: [entry]}` (Copilot CLI, VS Code) or nested
 * `{Event: [{matcher, hooks: [entry]}]}` (Claude Code). Mutates; returns the
 * paths (relative to the settings root) of arrays it emptied and the count.
 */
export function stripHooks(settings, isOurs) {
  const emptied = []
  let removed = 0
  const hooks = settings.hooks
  if (!isPlainObject(hooks)) return { emptied, removed }
  const ours = (entry) => commandStrings(entry).some((s) => isOurs(s))
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue
    const kept = []
    const before = removed
    for (const item of list) {
      if (isPlainObject(item) && Array.isArray(item.hooks)) {
        const inner = item.hooks.filter((e) => !ours(e))
        removed += item.hooks.length - inner.length
        if (inner.length === item.hooks.length) kept.push(item)
        else if (inner.length > 0) kept.push({ ...item, hooks: inner })
      } else if (ours(item)) {
        removed++
      } else {
        kept.push(item)
      }
    }
    if (removed !== before) {
      hooks[event] = kept
      if (kept.length === 0) emptied.push(['hooks', event])
    }
  }
  return { emptied, removed }
}

/** Append hook entries per event; returns the containers it had to create. */
export function addHooks(settings, hooksToAdd) {
  const created = []
  if (!isPlainObject(settings.hooks)) {
    if (settings.hooks !== undefined) throw new ShapeError('"hooks" is not an object')
    settings.hooks = {}
    created.push(['hooks'])
  }
  for (const [event, entries] of Object.entries(hooksToAdd)) {
    if (!Array.isArray(settings.hooks[event])) {
      if (settings.hooks[event] !== undefined) throw new ShapeError(`hooks.${event} is not a list`)
      settings.hooks[event] = []
      created.push(['hooks', event])
    }
    settings.hooks[event].push(...clone(entries))
  }
  return created
}

/** Map every string of a value; `fn(string, key)` gets the nearest object key. */
export function mapStrings(value, fn, key = undefined) {
  if (typeof value === 'string') return fn(value, key)
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn, key))
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn, k)]))
  }
  return value
}
