#!/usr/bin/env node
// Builds the native hook executable (crates/goal-hook) and places it in
// native/goal-hook, where hooks/goal-context.sh looks for it first.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, chmodSync, renameSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const debug = process.argv.includes('--debug')
const args = ['build', '-p', 'goal-hook', ...(debug ? [] : ['--release'])]
const res = spawnSync('cargo', args, { cwd: root, stdio: 'inherit' })
if (res.status !== 0) {
  console.error(`goal-system: cargo ${args.join(' ')} failed`)
  process.exit(res.status ?? 1)
}
const built = join(root, 'target', debug ? 'debug' : 'release', 'goal-hook')
const dest = join(root, 'native', 'goal-hook')
mkdirSync(dirname(dest), { recursive: true })
// Copy then rename so a hook running right now never sees a half-written file.
copyFileSync(built, `${dest}.tmp`)
chmodSync(`${dest}.tmp`, 0o755)
renameSync(`${dest}.tmp`, dest)
console.log(`goal-system: native hook at ${dest}`)
