#!/usr/bin/env node
// npm's `prepare`: build the addon and the native hook in a clone (`npm ci` or
// `npm install` there, then `npm test`). Nothing to build anywhere else: a
// tarball or registry install has neither Cargo.toml nor .git (its binaries
// come in the platform package), and `npm pack`/`npm publish` package the
// binaries `npm run build:all` made, with the MCP server's bundle made afresh.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const clone = existsSync(join(root, 'Cargo.toml')) && existsSync(join(root, '.git'))
if (!clone) process.exit(0)
if (['pack', 'publish'].includes(process.env.npm_command)) {
  // The tarball ships the MCP server's bundle, made from the sources being packed.
  const res = spawnSync(process.execPath, [join(root, 'scripts', 'build-mcp.mjs')], { cwd: root, stdio: 'inherit' })
  process.exit(res.status ?? 1)
}
const res = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
process.exit(res.status ?? 1)
