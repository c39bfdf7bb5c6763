// File writes for `goal-system install`: atomic replace, backups, and folders it
// can later remove because it knows it created them.
import fs from 'node:fs'
import path from 'node:path'

/** The file's text, or null when it does not exist. Other errors propagate. */
export function readTextOrNull(file) {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (err) {
    if (err.code === 'ENOENT') return null
    throw err
  }
}

/** Folders `mkdir -p` would create for `dir`, outermost first. */
export function missingDirs(dir) {
  const missing = []
  let cur = path.resolve(dir)
  while (!fs.existsSync(cur)) {
    missing.unshift(cur)
    const parent = path.dirname(cur)
    if (parent === cur) break
    cur = parent
  }
  return missing
}

/**
 * Write `text` to `file` atomically: temp file in the same folder, fsync, rename,
 * folder fsync. A symlinked settings file is written through to its target. An
 * existing file keeps its mode; a new one gets `mode`.
 */
export function writeFileAtomic(file, text, mode = 0o644) {
  let target = file
  try {
    target = fs.realpathSync(file)
  } catch {
    /* new file */
  }
  let fileMode = mode
  try {
    fileMode = fs.statSync(target).mode & 0o777
  } catch {
    /* new file */
  }
  const dir = path.dirname(target)
  fs.mkdirSync(dir, { recursive: true })
  const tmp = path.join(dir, `.${path.basename(target)}.goal-system-tmp-${process.pid}`)
  const fd = fs.openSync(tmp, 'w', fileMode)
  try {
    fs.writeFileSync(fd, text)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  try {
    fs.chmodSync(tmp, fileMode)
    fs.renameSync(tmp, target)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  }
  fsyncDir(dir)
}

function fsyncDir(dir) {
  let fd
  try {
    fd = fs.openSync(dir, 'r')
    fs.fsyncSync(fd)
  } catch {
    /* not supported everywhere (Windows): the rename is still atomic */
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** A compact UTC time stamp for backup names: 20261122T053500Z. */
export function timeStamp(date = new Date()) {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
}

/** The backup name for `file` in this run (never an existing file). */
export function backupPath(file, stamp) {
  const base = `${file}.goal-system.bak-${stamp}`
  let candidate = base
  for (let n = 2; fs.existsSync(candidate); n++) candidate = `${base}-${n}`
  return candidate
}

/** Copy `file` to `dest` with the same mode (settings files may hold tokens). */
export function backupFile(file, dest) {
  fs.copyFileSync(file, dest, fs.constants.COPYFILE_EXCL)
  fs.chmodSync(dest, fs.statSync(file).mode & 0o777)
}

/** Remove folders that are empty, deepest first; others stay. */
export function removeEmptyDirs(dirs) {
  const ordered = [...new Set(dirs)].sort((a, b) => b.length - a.length)
  for (const dir of ordered) {
    try {
      fs.rmdirSync(dir)
    } catch {
      /* not empty, or already gone */
    }
  }
}
