// `npx goal-system install` runs the package from npm's npx cache
// (<cache>/_npx/<hash>/node_modules/goal-system), which npm may clear at any
// time: hooks pointing there would stop working without a word. So install
// first copies the package, with the dependencies npx fetched beside it, to a
// stable per-user folder, and runs the install from that copy.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** The node_modules folder of an npx run holding `pkg`, or null when `pkg` is not in npx's cache. */
export function npxNodeModules(pkg) {
  const parts = path.resolve(pkg).split(path.sep)
  const i = parts.lastIndexOf('_npx')
  if (i < 0 || parts[i + 2] !== 'node_modules') return null
  return parts.slice(0, i + 3).join(path.sep) || path.sep
}

/** Where the stable copies live: $XDG_DATA_HOME/goal-system (or %LOCALAPPDATA%\goal-system). */
export function stableRoot(env = process.env) {
  const home = env.HOME || env.USERPROFILE || os.homedir()
  if (env.GOAL_SYSTEM_INSTALL_DIR) return path.resolve(env.GOAL_SYSTEM_INSTALL_DIR)
  if (process.platform === 'win32')
    return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'goal-system')
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'goal-system')
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}

/**
 * Copy the npx run's node_modules to <stableRoot>/<version>/node_modules (once
 * per version; a complete earlier copy is reused) and return the package folder
 * inside it. The copy is made beside the target and renamed into place, so a
 * half-finished copy is never used.
 */
export function copyToStable(pkg, env = process.env) {
  const from = npxNodeModules(pkg)
  if (!from) throw new Error(`${pkg} is not in npm's npx cache`)
  const manifest = readJson(path.join(pkg, 'package.json'))
  const name = manifest?.name ?? path.basename(pkg)
  const version = manifest?.version ?? 'unknown'
  const dest = path.join(stableRoot(env), version)
  const stablePkg = path.join(dest, 'node_modules', ...name.split('/'))
  if (readJson(path.join(stablePkg, 'package.json'))?.version === version) return { pkg: stablePkg, copied: false }
  fs.mkdirSync(path.dirname(dest), { recursive: true, mode: 0o755 })
  const tmp = `${dest}.tmp-${process.pid}`
  fs.rmSync(tmp, { recursive: true, force: true })
  fs.cpSync(from, path.join(tmp, 'node_modules'), { recursive: true, verbatimSymlinks: true })
  fs.rmSync(dest, { recursive: true, force: true })
  fs.renameSync(tmp, dest)
  return { pkg: stablePkg, copied: true }
}
