#!/usr/bin/env node
// Test set-up: the report test renders the HTML page in headless Chromium
// (Debian's `chromium`). Where it is missing and we run as root, install it
// with apt-get so the README's `npm test` passes on a fresh machine; otherwise
// say exactly what to install. CHROMIUM_PATH names another binary.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'

export const DEFAULT_CHROMIUM = '/usr/bin/chromium'

export function chromiumPath(env = process.env) {
  return env.CHROMIUM_PATH || DEFAULT_CHROMIUM
}

/** The Chromium binary, installing Debian's package when missing and allowed. Throws with the fix otherwise. */
export function ensureChromium({ env = process.env, log = (m) => process.stderr.write(m + '\n') } = {}) {
  const bin = chromiumPath(env)
  if (fs.existsSync(bin)) return bin
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  const hasApt = fs.existsSync('/usr/bin/apt-get')
  if (env.CHROMIUM_PATH || !root || !hasApt) {
    throw new Error(
      `Chromium not found at ${bin}; the report test needs it. Install Debian's package ` +
        `(sudo apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium binary.`,
    )
  }
  log(`goal-system tests: ${bin} is missing; installing Debian's chromium (apt-get install -y chromium)`)
  const opts = { stdio: ['ignore', 'inherit', 'inherit'], env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } }
  let r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], opts)
  if (r.status !== 0) {
    // A fresh machine may have no package lists yet.
    spawnSync('apt-get', ['update'], opts)
    r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], opts)
  }
  if (r.status !== 0 || !fs.existsSync(bin))
    throw new Error(`apt-get install chromium failed (exit ${r.status}); install it by hand`)
  return bin
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.stdout.write(ensureChromium() + '\n')
  } catch (err) {
    process.stderr.write(err.message + '\n')
    process.exitCode = 1
  }
}
