// Install and uninstall as a plan: read every target first, compute each new
// content in memory, and only then write. A file that is not valid JSONC stops the
// whole run before anything changes; the others are edited in place, comments
// and trailing commas kept. The manifest records what goal-system added
// (per file and operation, and which installs still need it), so uninstall
// removes exactly that and restores what was there before.
import fs from 'node:fs'
import path from 'node:path'

import {
  JsonFileError,
  ShapeError,
  addHooks,
  clone,
  deepEqual,
  deleteIn,
  editJsonc,
  formatJson,
  getIn,
  parseJsonObject,
  pathKey,
  pruneEmpty,
  setIn,
  stripHooks,
} from './json-merge.mjs'
import { backupFile, backupPath, missingDirs, readTextOrNull, removeEmptyDirs, writeFileAtomic } from './fs-safe.mjs'
import { TEXT_MARKER, isOurString } from './install-targets.mjs'

const MANIFEST_VERSION = 1
const ours = (text) => isOurString(text)

/** A target that belongs to someone else (e.g. a skill of the same name). */
export class ConflictError extends Error {
  constructor(file, detail) {
    super(`${file} ${detail}`)
    this.file = file
  }
}

// ---- manifest ----

/** The manifest (or an empty one) and its text; a corrupt manifest is a JsonFileError. */
export function readManifest(file) {
  const text = readTextOrNull(file)
  const value = text === null ? null : parseJsonObject(text, file)
  return {
    file,
    text,
    value: value ?? { version: MANIFEST_VERSION, createdDirs: missingDirs(path.dirname(file)), files: {} },
  }
}

const hasScope = (opRec, scope) => opRec.scopes.includes(scope)
const addScope = (opRec, scope) => hasScope(opRec, scope) || opRec.scopes.push(scope)
const union = (a = [], b = []) => [...new Set([...a, ...b])]

function addCreated(rec, paths) {
  const have = new Set(rec.createdPaths.map(pathKey))
  for (const p of paths) if (!have.has(pathKey(p))) rec.createdPaths.push(p)
}

const wasCreated = (rec, p) => rec.createdPaths.some((c) => pathKey(c) === pathKey(p))

// ---- one target, install ----

function newRecord(target, existed) {
  return {
    host: target.host,
    kind: target.kind,
    createdFile: !existed,
    createdDirs: existed ? [] : missingDirs(path.dirname(target.file)),
    backup: null,
    createdPaths: [],
    ops: {},
  }
}

/** The manifest record of a target, brought up to date with whether the file exists now. */
function recordFor(target, text, record) {
  if (!record) return newRecord(target, text !== null)
  const rec = clone(record)
  if (text === null) {
    // Deleted since the last install: this run creates it again.
    rec.createdFile = true
    rec.createdDirs = union(rec.createdDirs, missingDirs(path.dirname(target.file)))
  }
  return rec
}

function installJson(target, text, record) {
  const current = text === null ? null : parseJsonObject(text, target.file)
  const next = clone(current ?? {})
  const rec = recordFor(target, text, record)
  const mayPrune = (p) => (record ? wasCreated(rec, p) : true)
  const kept = []
  try {
    for (const op of target.ops) {
      const have = getIn(next, op.path ?? [])
      if (op.keepExisting && op.type === 'key' && have !== undefined && !op.recognize?.(have)) {
        kept.push(`${op.path.join('.')} kept: you already have one (goal-system doctor shows how to combine)`)
        continue
      }
      const opRec = (rec.ops[op.id] ??= { scopes: [] })
      addScope(opRec, target.scope)
      if (op.type === 'hooks') {
        const { emptied } = stripHooks(next, ours)
        pruneEmpty(next, emptied, mayPrune)
        addCreated(rec, addHooks(next, op.hooks))
      } else if (op.type === 'key') {
        const existing = getIn(next, op.path)
        if (!('hadPrevious' in opRec)) {
          opRec.hadPrevious = existing !== undefined && !op.recognize?.(existing)
          if (opRec.hadPrevious) opRec.previous = clone(existing)
        }
        addCreated(rec, setIn(next, op.path, clone(op.value)))
      } else if (op.type === 'items') {
        let list = getIn(next, op.path)
        if (list === undefined) {
          addCreated(rec, [...setIn(next, op.path, []), op.path])
          list = getIn(next, op.path)
        } else if (!Array.isArray(list)) {
          throw new ShapeError(`${op.path.join('.')} is not a list`)
        }
        opRec.added ??= []
        for (const item of op.items) {
          if (!list.includes(item)) {
            list.push(item)
            opRec.added.push(item)
          }
        }
      }
    }
  } catch (err) {
    if (err instanceof ShapeError) throw new JsonFileError(target.file, err.message, { shape: true })
    throw err
  }
  const detail = kept.length ? `${target.label}; ${kept.join('; ')}` : undefined
  if (current !== null && deepEqual(current, next)) return { action: 'unchanged', record: rec, detail }
  return {
    action: current === null ? 'create' : 'update',
    text: current === null ? formatJson(next) : editJsonc(text, current, next),
    record: rec,
    firstTouch: !record,
    detail,
  }
}

function installText(target, text, record) {
  if (text !== null && !text.includes(TEXT_MARKER)) {
    throw new ConflictError(target.file, 'exists and was not written by goal-system; move it away, then install again')
  }
  const rec = recordFor(target, text, record)
  const opRec = (rec.ops.file ??= { scopes: [] })
  addScope(opRec, target.scope)
  if (text === target.content) return { action: 'unchanged', record: rec }
  return { action: text === null ? 'create' : 'update', text: target.content, record: rec, noBackup: true }
}

// ---- a block goal-system owns inside someone else's text file (Codex's config.toml) ----

/** Where our block sits in `text`: [start, end) from its first line to the end of its last, or null. */
export function findBlock(text, content) {
  const first = content.slice(0, content.indexOf('\n') + 1)
  const lastLine = content.trimEnd().split('\n').pop()
  const start = text.indexOf(first.split(':')[0])
  if (start < 0) return null
  const endAt = text.indexOf(lastLine, start)
  if (endAt < 0) return null
  let end = endAt + lastLine.length
  if (text[end] === '\n') end++
  return [start, end]
}

function installBlock(target, text, record) {
  const rec = recordFor(target, text, record)
  const opRec = (rec.ops.block ??= { scopes: [] })
  addScope(opRec, target.scope)
  const have = text === null ? null : findBlock(text, target.content)
  if (have) {
    const next = text.slice(0, have[0]) + target.content + text.slice(have[1])
    if (next === text) return { action: 'unchanged', record: rec }
    return { action: 'update', text: next, record: rec, firstTouch: !record }
  }
  if (text !== null && text.split('\n').some((line) => line.trim() === target.header)) {
    throw new ConflictError(
      target.file,
      `already has ${target.header}, not written by goal-system; remove it, then install again`,
    )
  }
  // What goes before the block, kept so uninstall gives back the exact bytes.
  const sep = text === null || text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n'
  opRec.sep = sep
  return {
    action: text === null ? 'create' : 'update',
    text: (text ?? '') + sep + target.content,
    record: rec,
    firstTouch: !record,
  }
}

function uninstallBlock(target, text, record) {
  const rec = record ? clone(record) : null
  if (rec && release(target, rec).length === 0) return { action: 'keep', record: rec }
  if (text === null) return { action: 'absent', record: null }
  const have = findBlock(text, target.content)
  if (!have) return { action: 'unchanged', record: null }
  const sep = record?.ops?.block?.sep ?? ''
  const start = sep && text.slice(have[0] - sep.length, have[0]) === sep ? have[0] - sep.length : have[0]
  const next = text.slice(0, start) + text.slice(have[1])
  if (next === '' && rec?.createdFile) return { action: 'remove', record: null, dirs: rec.createdDirs ?? [] }
  return { action: 'update', text: next, record: null, noBackup: true }
}

// ---- one target, uninstall ----

/** Take this install's claim off each operation; returns the operations nobody needs any more. */
function release(target, rec) {
  if (!rec) return target.ops.map((op) => ({ op, opRec: undefined }))
  const released = []
  for (const op of target.ops) {
    const opRec = rec.ops[op.id]
    if (!opRec || !hasScope(opRec, target.scope)) continue
    opRec.scopes = opRec.scopes.filter((s) => s !== target.scope)
    if (opRec.scopes.length === 0) {
      delete rec.ops[op.id]
      released.push({ op, opRec })
    }
  }
  return released
}

function revertOp(next, op, opRec, emptied) {
  if (op.type === 'hooks') {
    emptied.push(...stripHooks(next, ours).emptied)
  } else if (op.type === 'key') {
    const cur = getIn(next, op.path)
    if (cur === undefined) return
    const ours = opRec ? deepEqual(cur, op.value) || op.recognize?.(cur) : op.recognize?.(cur)
    if (!ours) return // changed by the user since: theirs now
    if (opRec?.hadPrevious) setIn(next, op.path, clone(opRec.previous))
    else {
      deleteIn(next, op.path)
      emptied.push(op.path)
    }
  } else if (op.type === 'items') {
    const list = getIn(next, op.path)
    if (!Array.isArray(list)) return
    const mine = new Set(opRec ? (opRec.added ?? []) : op.items)
    const kept = list.filter((item) => !mine.has(item))
    if (kept.length === list.length) return
    setIn(next, op.path, kept)
    if (kept.length === 0) emptied.push(op.path)
  }
}

function uninstallJson(target, text, record) {
  if (text === null) return { action: 'absent', record: null }
  const current = parseJsonObject(text, target.file)
  const rec = record ? clone(record) : null
  const next = clone(current)
  const emptied = []
  for (const { op, opRec } of release(target, rec)) revertOp(next, op, opRec, emptied)
  pruneEmpty(next, emptied, (p) => (rec ? wasCreated(rec, p) : true))
  const done = !rec || Object.keys(rec.ops).length === 0
  const empty = Object.keys(next).length === 0
  if (done && empty && (rec ? rec.createdFile : target.dedicated)) {
    return { action: 'remove', record: null, dirs: rec?.createdDirs ?? [] }
  }
  const record2 = done ? null : rec
  if (deepEqual(current, next)) return { action: done ? 'unchanged' : 'keep', record: record2 }
  const original = done ? restoredText(rec, next) : null
  if (original !== null) {
    // Back to the file as it was: its original bytes, and the install's backup is no longer needed.
    return {
      action: 'update',
      text: original,
      record: null,
      noBackup: true,
      dropBackup: rec.backup,
      detail: 'restored to its state before install',
    }
  }
  return { action: 'update', text: editJsonc(text, current, next), record: record2 }
}

/** The original bytes, when the result equals the file as it was before the first install. */
function restoredText(rec, value) {
  if (!rec?.backup) return null
  const original = readTextOrNull(rec.backup)
  if (original === null) return null
  try {
    return deepEqual(parseJsonObject(original, rec.backup), value) ? original : null
  } catch {
    return null
  }
}

function uninstallText(target, text, record) {
  const rec = record ? clone(record) : null
  if (rec && release(target, rec).length === 0) return { action: 'keep', record: rec }
  if (text === null) return { action: 'absent', record: null }
  if (!text.includes(TEXT_MARKER))
    return { action: 'skip', record: null, detail: 'not written by goal-system: left in place' }
  return { action: 'remove', record: null, dirs: rec?.createdDirs ?? [] }
}

// ---- plans ----

/**
 * Compute a plan without writing anything. Returns { entries, manifest, errors,
 * conflicts }: each entry { target, file, action, text?, backup?, dirs? }.
 */
export function makePlan(mode, targets, manifestFile, stamp) {
  const errors = []
  const conflicts = []
  let manifest
  try {
    manifest = readManifest(manifestFile)
  } catch (err) {
    errors.push(err)
    return { mode, entries: [], manifest: null, errors, conflicts }
  }
  const files = clone(manifest.value.files ?? {})
  const entries = []
  for (const target of groupByFile(targets)) {
    let text
    try {
      text = readTextOrNull(target.file)
    } catch (err) {
      errors.push(new JsonFileError(target.file, `cannot be read (${err.code ?? err.message})`))
      continue
    }
    let result
    try {
      result = planTarget(mode, target, text, files[target.file])
    } catch (err) {
      if (err instanceof ConflictError) conflicts.push(err)
      else if (err instanceof JsonFileError) errors.push(err)
      else throw err
      continue
    }
    if (result.record) files[target.file] = result.record
    else delete files[target.file]
    const backup = result.action === 'update' && !result.noBackup ? backupPath(target.file, stamp) : null
    if (backup && result.firstTouch) result.record.backup = backup
    entries.push({ target, file: target.file, ...result, backup })
  }
  return { mode, entries, manifest: manifestEntry(manifest, files), errors, conflicts }
}

function planTarget(mode, target, text, record) {
  // A file an earlier release wrote at a place this one no longer uses: removed when it is ours.
  if (target.kind === 'retired') {
    if (text === null) return { action: 'absent', record: null }
    if (!text.includes(TEXT_MARKER))
      return { action: 'skip', record: null, detail: 'not written by goal-system: left in place' }
    return { action: 'remove', record: null, dirs: record?.createdDirs ?? [] }
  }
  if (target.kind === 'block')
    return mode === 'install' ? installBlock(target, text, record) : uninstallBlock(target, text, record)
  if (mode === 'install')
    return target.kind === 'json' ? installJson(target, text, record) : installText(target, text, record)
  return target.kind === 'json' ? uninstallJson(target, text, record) : uninstallText(target, text, record)
}

/** Targets of one file are merged (e.g. Claude's user settings: hooks and permissions). */
function groupByFile(targets) {
  const byFile = new Map()
  for (const t of targets) {
    const have = byFile.get(t.file)
    if (!have) byFile.set(t.file, { ...t, ops: [...t.ops], requires: [...t.requires] })
    else {
      have.ops.push(...t.ops)
      have.requires = union(have.requires, t.requires)
      have.label = `${have.label}; ${t.label}`
    }
  }
  return [...byFile.values()]
}

function manifestEntry(manifest, files) {
  const next = { ...manifest.value, version: MANIFEST_VERSION, files }
  const removed = Object.keys(files).length === 0
  if (removed) {
    return { file: manifest.file, action: manifest.text === null ? 'absent' : 'remove', dirs: next.createdDirs ?? [] }
  }
  const text = JSON.stringify(next, null, 2) + '\n'
  let action = 'update'
  if (manifest.text === null) action = 'create'
  else if (deepEqual(parseJsonObject(manifest.text, manifest.file), next)) action = 'unchanged'
  return { file: manifest.file, action, text }
}

/** Carry out a plan (refuses when it has errors or conflicts). Returns the backups made. */
export function applyPlan(plan) {
  if (plan.errors.length || plan.conflicts.length) throw new Error('refusing to apply a plan with problems')
  const backups = []
  const dirs = []
  for (const entry of plan.entries) {
    if (entry.action === 'create' || entry.action === 'update') {
      if (entry.backup) {
        backupFile(entry.file, entry.backup)
        backups.push(entry.backup)
      }
      writeFileAtomic(entry.file, entry.text)
      if (entry.dropBackup && readTextOrNull(entry.dropBackup) === entry.text) fs.rmSync(entry.dropBackup)
    } else if (entry.action === 'remove') {
      fs.rmSync(entry.file, { force: true })
      dirs.push(...(entry.dirs ?? []))
    }
  }
  const m = plan.manifest
  if (m.action === 'create' || m.action === 'update') writeFileAtomic(m.file, m.text, 0o600)
  else if (m.action === 'remove') {
    fs.rmSync(m.file, { force: true })
    dirs.push(...m.dirs)
  }
  removeEmptyDirs(dirs)
  return { backups }
}
