// Shared pieces of the goal-system command: exit codes, errors that carry them,
// option parsing, and loading the addon on demand.
import { createRequire } from 'node:module'
import path from 'node:path'
import { parseArgs } from 'node:util'

import { didYouMean } from './cli-ui.mjs'
import { PACKAGE_ROOT } from './install-targets.mjs'

export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, STATE: 3 }

/** An error that ends the command with a given exit code. */
export class CliError extends Error {
  constructor(message, exitCode, details = []) {
    super(message)
    this.exitCode = exitCode
    this.details = details
  }
}

export const usageError = (message) => new CliError(message, EXIT.USAGE)
export const refused = (message, details) => new CliError(message, EXIT.FAILED, details)
export const stateError = (message, details) => new CliError(message, EXIT.STATE, details)

/**
 * node:util parseArgs (built in: no start-up cost, strict) with usage errors
 * (exit 2) instead of exceptions, and a suggestion for a misspelt option.
 */
export function parseOptions(argv, options, { positionals = 0 } = {}) {
  let parsed
  const all = { help: { type: 'boolean', short: 'h' }, ...options }
  try {
    parsed = parseArgs({ args: argv, options: all, allowPositionals: true, strict: true })
  } catch (err) {
    let message = err.message.replace(/\. To specify a positional argument.*$/s, '')
    const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && /'--?([^'=]+)/.exec(message)
    if (unknown) message += didYouMean(unknown[1], Object.keys(all), (o) => `--${o}`).replace(/^ /, '. ')
    throw usageError(message)
  }
  if (parsed.positionals.length > positionals) {
    throw usageError(`unexpected argument "${parsed.positionals[positionals]}"`)
  }
  return { ...parsed.values, positionals: parsed.positionals }
}

/** Host flags → host ids (none given: all three). */
export const HOST_OPTIONS = {
  'copilot-cli': { type: 'boolean' },
  vscode: { type: 'boolean' },
  claude: { type: 'boolean' },
  codex: { type: 'boolean' },
  gemini: { type: 'boolean' },
}

export function selectedHosts(opts, { defaultAll = true } = {}) {
  // Codex CLI and Gemini CLI only when named: the default stays the three hosts it always wired.
  const hosts = ['copilot-cli', 'vscode', 'claude', 'codex', 'gemini'].filter((h) => opts[h])
  return hosts.length || !defaultAll ? hosts : ['copilot-cli', 'vscode', 'claude']
}

let addon
/** The napi addon, loaded only by the commands that need it. */
export function loadAddon() {
  if (addon) return addon
  try {
    addon = createRequire(import.meta.url)(path.join(PACKAGE_ROOT, 'index.js'))
  } catch (err) {
    throw stateError(`the goal-system addon failed to load: ${err.message}`)
  }
  return addon
}

/** Map an addon error (`.code`) to an exit code. */
export function addonError(err, what) {
  const code = err?.code
  if (!code || typeof code !== 'string' || code.startsWith('ERR_')) throw err
  const message = `${what}: ${err.message} (${code})`
  if (['IO', 'CORRUPT', 'LOCK_TIMEOUT'].includes(code)) return stateError(message)
  if (code.startsWith('INVALID_') || code === 'LIMIT_EXCEEDED') return usageError(message)
  return refused(message)
}
