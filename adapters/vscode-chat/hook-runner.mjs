#!/usr/bin/env node
// @ts-check
// Hook command for VS Code Copilot Chat, Claude Code, Codex CLI, Gemini CLI (and
// Copilot CLI's Node fallback): node hook-runner.mjs [vscode|claude|copilot-cli|codex|gemini] [Event]
//
// The host's JSON payload arrives on stdin; the answer, already in that host's
// shape, leaves on stdout. Every rule lives in Rust (runHook); this file only
// moves bytes. It runs on every tool call, so it loads nothing but the addon:
// no MCP SDK, no zod, no stream set-up (fd reads and writes are synchronous).
//
// A hook must never break the host: a crash or a non-zero exit can deny the
// tool call. Whatever goes wrong, print an allow-shaped `{}`, say why on
// stderr, and exit 0.
import { createRequire } from 'node:module'
import { readSync, writeSync } from 'node:fs'

const HOSTS = new Set(['vscode', 'claude', 'copilot-cli', 'codex', 'gemini'])
const ALLOW = '{}'

/** First argument names the host (default vscode); a bare event name is accepted too. */
function parseArgs(argv) {
  let [host = '', event = ''] = argv
  if (host && !HOSTS.has(host.toLowerCase())) [host, event] = ['vscode', host]
  return { host: (host || 'vscode').toLowerCase(), event }
}

/**
 * Stdin as bytes, at most `limit` bytes ('' when there is none: closed,
 * empty). The addon decodes them exactly as the native hook does (lossy
 * UTF-8; past its cap, not parsed), so reading stops one byte past the cap the
 * addon names: memory stays bounded whatever the host sends. Read by hand
 * rather than with readFileSync(0), which loses what it had read when a
 * non-blocking pipe answers EAGAIN midway.
 */
function readStdin(limit) {
  const chunks = []
  let total = 0
  const buf = Buffer.alloc(65536)
  const deadline = Date.now() + 5000
  while (total < limit) {
    let n
    try {
      n = readSync(0, buf, 0, Math.min(buf.length, limit - total), null)
    } catch (err) {
      if (err.code === 'EAGAIN' && Date.now() < deadline) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5) // wait for the writer
        continue
      }
      break // EOF (Windows), EBADF (no stdin), ...: use what we have
    }
    if (n === 0) break
    chunks.push(Buffer.from(buf.subarray(0, n)))
    total += n
  }
  return Buffer.concat(chunks)
}

/**
 * The addon. Fast path on Linux: the glibc platform binary next to index.js,
 * which skips napi-rs's generic loader (about 2 ms). Where it does not load
 * (musl, another platform, an override), index.js picks the right one.
 */
function loadAddon() {
  const require = createRequire(import.meta.url)
  if (process.platform === 'linux' && !process.env.NAPI_RS_NATIVE_LIBRARY_PATH) {
    try {
      return require(`../../goal-system.linux-${process.arch}-gnu.node`)
    } catch {}
  }
  return require('../../index.js')
}

/** Write all of `text` to fd, synchronously; a closed pipe is not our crash. */
function emit(fd, text) {
  if (!text) return
  const data = Buffer.from(text, 'utf8')
  let off = 0
  let spins = 0
  while (off < data.length) {
    try {
      off += writeSync(fd, data, off)
    } catch (err) {
      if (err.code !== 'EAGAIN' || ++spins > 1000) return
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2)
    }
  }
}

function main() {
  const { host, event } = parseArgs(process.argv.slice(2))
  const fail = (what, err) => {
    const why = String(err?.message ?? err).split('\n')[0]
    emit(1, ALLOW + '\n')
    emit(2, `goal-system hook (${host} ${event || 'event from payload'}): ${what}: ${why}; allowing\n`)
  }
  let addon
  try {
    addon = loadAddon()
  } catch (err) {
    // Loud: without the addon no goal rule runs, and the user must know.
    return fail(
      'could not load the goal-system addon (goal rules are NOT ENFORCED; reinstall goal-system for this platform, or npm run build in a clone)',
      err,
    )
  }
  let result
  try {
    result = addon.runHookBytes(host, event, readStdin(addon.MAX_HOOK_PAYLOAD_BYTES + 1))
  } catch (err) {
    return fail('the hook failed', err)
  }
  emit(1, (result?.stdout || ALLOW) + '\n')
  emit(2, result?.stderr ?? '')
  process.exitCode = Number.isInteger(result?.exitCode) ? result.exitCode : 0
}

try {
  main()
} catch (err) {
  // Last resort (a fault in the code above): still allow.
  emit(1, ALLOW + '\n')
  emit(2, `goal-system hook: ${err?.message ?? err}; allowing\n`)
  process.exitCode = 0
}
