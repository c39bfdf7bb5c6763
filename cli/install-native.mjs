// Where this machine's native pieces live: the platform package napi-rs names
// after the package (`goal-system-linux-x64-gnu`, ...), which carries the addon
// and the native hook executable, or a clone's own build (`native/goal-hook`).
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

/** glibc or musl on Linux (Node's report names the glibc it runs on; musl has none). */
export function linuxLibc() {
  const report = process.report?.getReport?.()
  return report?.header?.glibcVersionRuntime ? 'gnu' : 'musl'
}

/** napi-rs's name for this platform: linux-x64-gnu, darwin-arm64, win32-x64-msvc, ... */
export function platformId(platform = process.platform, arch = process.arch) {
  if (platform === 'linux') return `linux-${arch}-${linuxLibc()}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

export const HOOK_FILE = process.platform === 'win32' ? 'goal-hook.exe' : 'goal-hook'

function packageName(pkg) {
  try {
    return JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).name
  } catch {
    return 'goal-system'
  }
}

/** The folder of this platform's package as Node would resolve it from `pkg`, or null. */
export function platformPackageDir(pkg) {
  const name = `${packageName(pkg)}-${platformId()}`
  try {
    return path.dirname(createRequire(path.join(pkg, 'package.json')).resolve(`${name}/package.json`))
  } catch {
    return null
  }
}

/**
 * The native hook the hooks files should run: a clone's own build first, then
 * the platform package. { path, source: 'build' | 'platform package' | null }.
 * When neither exists, path is where a build would put it: the hooks files then
 * fall back to Node at run time.
 */
export function nativeHook(pkg) {
  const built = path.join(pkg, 'native', HOOK_FILE)
  if (fs.existsSync(built)) return { path: built, source: 'build' }
  const dir = platformPackageDir(pkg)
  if (dir && fs.existsSync(path.join(dir, HOOK_FILE)))
    return { path: path.join(dir, HOOK_FILE), source: 'platform package' }
  return { path: built, source: null }
}
