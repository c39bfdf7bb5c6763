#!/usr/bin/env node
// Adds to package-lock.json the other platforms' optional packages of napi-rs
// style dependencies (`@napi-rs/lzma-darwin-arm64`, ...) that a registry mirror
// without them leaves out. Without these entries `npm ci` refuses the lock
// ("Missing: ... from lock file"). Each entry carries the os/cpu/libc its name
// states, so npm never installs it on another platform; where it applies, npm
// fetches it by its exact version. Run after `npm install` changed the lock.
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json')
const lock = JSON.parse(readFileSync(file, 'utf8'))
const CPU = {
  x64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
  wasm32: 'wasm32',
}

/** os/cpu/libc from a napi-rs platform suffix such as linux-arm64-musl or win32-x64-msvc. */
function platformOf(suffix) {
  const m = /^(android|darwin|freebsd|linux|win32|wasm32)-(\w+?)(?:-(gnu|gnueabihf|musl|msvc|eabi|wasi))?$/.exec(suffix)
  if (!m) return null
  const [, os, cpu, abi] = m
  if (os === 'wasm32') return { cpu: ['wasm32'] }
  if (!CPU[cpu]) return null
  const out = { os: [os], cpu: [CPU[cpu]] }
  if (os === 'linux') out.libc = [abi === 'musl' ? 'musl' : 'glibc']
  return out
}

let added = 0
for (const [where, pkg] of Object.entries(lock.packages)) {
  if (!where) continue
  const base = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length)
  for (const [name, range] of Object.entries(pkg.optionalDependencies ?? {})) {
    if (lock.packages[`node_modules/${name}`]) continue
    // `<base>-linux-x64-gnu` (napi-rs) or `@scope/cli-linux-x64` (Biome):
    // the platform is the name's tail, whatever stands before it.
    const words = (
      name.startsWith(`${base}-`) ? name.slice(base.length + 1) : name.slice(name.lastIndexOf('/') + 1)
    ).split('-')
    const platform = words.map((_, i) => platformOf(words.slice(i).join('-'))).find(Boolean)
    if (!platform || !/^\d+\.\d+\.\d+$/.test(range)) continue
    lock.packages[`node_modules/${name}`] = {
      version: range,
      ...(pkg.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    }
    added++
  }
}
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n')
console.log(`lock: ${added} platform package entr${added === 1 ? 'y' : 'ies'} added`)
