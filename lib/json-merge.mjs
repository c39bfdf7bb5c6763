// JSON settings files for `goal-system install`: parse with a clear error, keep the
// file's own formatting, walk paths, and merge or strip the goal-system entries.
// Pure functions on plain values; file IO lives in fs-safe.mjs.

/** A settings file that cannot be parsed, or has the wrong shape. */
export class JsonFileError extends Error {
  constructor(file, detail, { shape = false } = {}) {
    super(shape ? `${file} cannot take goal-system's entries: ${detail}` : `${file} is not valid JSON: ${detail}`)
    this.file = file
    this.detail = detail
  }
}

/** A settings value of an unexpected type where goal-system must write (e.g. "hooks": 3). */
export class ShapeError extends Error {}

/** Parse a settings file's text: an object, `{}` for an empty file, or a JsonFileError. */
export function parseJsonObject(text, file) {
  if (text.trim() === '') return {}
  let value
  try {
    value = JSON.parse(stripBom(text))
  } catch (err) {
    throw new JsonFileError(file, describeParseError(text, err))
  }
  if (!isPlainObject(value)) {
    throw new JsonFileError(file, `expected an object at the top level, found ${typeName(value)}`, { shape: true })
  }
  return value
}

function stripBom(text) {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** The parser's message, with line and column, and a hint when comments are the cause. */
export function describeParseError(text, err) {
  let detail = err.message
  const pos = /at position (\d+)/.exec(detail)
  if (pos) {
    const before = text.slice(0, Number(pos[1]))
    const line = before.split('\n').length
    const column = before.length - before.lastIndexOf('\n')
    detail += ` (line ${line}, column ${column})`
  }
  if (parsesAsJsonc(text)) {
    detail += '; the file has comments or trailing commas, which goal-system does not rewrite: remove them, or add the entries by hand'
  }
  return detail
}

function parsesAsJsonc(text) {
  const noComments = text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m, str) => str ?? '')
  const noTrailingCommas = noComments.replace(/("(?:[^"\\]|\\.)*")|,(\s*[}\]])/g, (m, str, close) => str ?? close)
  try {
    JSON.parse(stripBom(noTrailingCommas))
    return true
  } catch {
    return false
  }
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
