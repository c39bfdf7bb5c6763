#!/usr/bin/env node
// Builds the native hook executable (crates/goal-hook) and places it in
// native/goal-hook, where a clone's hooks files find it.
//
// It builds for the same explicit target as `napi build --platform` (the host
// triple), so both land in target/<triple>/. `npm run build` goes further: one
// cargo run builds the addon and the hook together (`napi build ... -- -p
// goal-hook`), so features unify and every crate compiles once; this script is
// then called with --copy and only places the executable.
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, chmodSync, renameSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const debug = process.argv.includes('--debug')
const copyOnly = process.argv.includes('--copy')
const host = /^host: (.+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))[1].trim()
const args = ['build', '-p', 'goal-hook', '--target', host, ...(debug ? [] : ['--release'])]
const res = copyOnly ? { status: 0 } : spawnSync('cargo', args, { cwd: root, stdio: 'inherit' })
if (res.status !== 0) {
  console.error(`goal-system: cargo ${args.join(' ')} failed`)
  process.exit(res.status ?? 1)
}
const exe = process.platform === 'win32' ? 'goal-hook.exe' : 'goal-hook'
const targetDir = process.env.CARGO_TARGET_DIR || join(root, 'target')
const built = join(targetDir, host, debug ? 'debug' : 'release', exe)
const dest = join(root, 'native', exe)
mkdirSync(dirname(dest), { recursive: true })
// Copy then rename so a hook running right now never sees a half-written file.
copyFileSync(built, `${dest}.tmp`)
chmodSync(`${dest}.tmp`, 0o755)
renameSync(`${dest}.tmp`, dest)
console.log(`goal-system: native hook at ${dest}`)
