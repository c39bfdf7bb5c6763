#!/usr/bin/env node
// The goal-system command: install/uninstall/doctor for the hosts, and
// list/status/show/open/update/close/budget for goals. Each command loads only what it
// needs (the addon only for goal commands and doctor). See `goal-system --help`.
// Options are parsed by node:util parseArgs (cli/cli-common.mjs); every error
// is printed as `goal-system <command>: ...` with the exit code it carries.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

import { didYouMean, makeIo } from '../cli/cli-ui.mjs'

const COMMANDS = [
  'install',
  'uninstall',
  'doctor',
  'list',
  'status',
  'show',
  'log',
  'report',
  'open',
  'update',
  'close',
  'budget',
  'board',
  'memory',
  'statusline',
  'mcp',
]

const io = makeIo(process.stdout, process.stderr, secretFree(process.argv.slice(2)))

/**
 * What this command prints, secret-free: every line through the core's
 * redaction, each argument judged as it stands alone (a line that quotes it
 * changes what follows it), errors and warnings as messages. The addon
 * loads with the first line printed; if it cannot load, the arguments
 * themselves are masked instead.
 */
function secretFree(args) {
  let core
  const load = () => {
    if (core === undefined) {
      try {
        core = createRequire(import.meta.url)('../index.js')
      } catch {
        core = null
      }
    }
    return core
  }
  const mask = (text) => args.reduce((t, a) => (a.length >= 8 ? t.split(a).join('[argument]') : t), text)
  return {
    out: (text) => (load() ? core.redactLine(text, args, false) : mask(text)),
    err: (text) => (load() ? core.redactLine(text, args, true) : mask(text)),
  }
}

const version = () => JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

async function main(argv) {
  const [cmd, ...rest] = argv
  if (cmd === 'statusline' && !rest.includes('--help')) {
    // A status bar shows stdout on every refresh: the line or nothing, never an error.
    try {
      const line = (await import('../cli/goals-cli.mjs')).statusLine()
      if (line) io.out(line)
    } catch {}
    return 0
  }
  if (cmd === 'mcp' && !rest.includes('--help') && !rest.includes('-h')) {
    // The MCP server on stdio (the host plugins start it this way), before
    // anything else loads: a host waits for it.
    context.command = cmd
    await import('../adapters/vscode-chat/mcp-server.mjs')
    return undefined
  }
  const help = await import('../cli/cli-help.mjs')
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    if (cmd === 'help' && rest[0] && COMMANDS.includes(rest[0])) return main([rest[0], '--help'])
    io.out(help.MAIN_HELP)
    return cmd === undefined ? 2 : 0
  }
  if (cmd === '--version' || cmd === '-V' || cmd === '-v' || cmd === 'version') {
    io.out(version())
    return 0
  }
  if (!COMMANDS.includes(cmd)) {
    const what = cmd.startsWith('-') ? 'option' : 'command'
    io.err(`goal-system: unknown ${what} "${cmd}".${didYouMean(cmd.replace(/^-+/, ''), COMMANDS, (c) => `"${c}"`)}`)
    io.err('Run goal-system --help for the commands.')
    return 2
  }
  context.command = cmd
  if (cmd === 'mcp') {
    io.out(help.MCP_HELP)
    return 0
  }
  if (cmd === 'install' || cmd === 'uninstall') {
    const { runInstallCommand } = await import('../cli/cli-install.mjs')
    return runInstallCommand(cmd, rest, io, cmd === 'install' ? help.INSTALL_HELP : help.UNINSTALL_HELP)
  }
  if (cmd === 'doctor') return doctor(rest, help.DOCTOR_HELP)
  if (cmd === 'board') {
    const { runBoardCommand } = await import('../cli/board-cli.mjs')
    return runBoardCommand(rest, io, help.BOARD_HELP)
  }
  if (cmd === 'memory') {
    const { runMemoryCommand } = await import('../cli/memory-cli.mjs')
    return runMemoryCommand(rest, io, help.MEMORY_HELP)
  }
  const { runGoalCommand } = await import('../cli/goals-cli.mjs')
  if (cmd === 'statusline') {
    io.out(help.STATUSLINE_HELP)
    return 0
  }
  const helpText = {
    list: help.LIST_HELP,
    status: help.STATUS_HELP,
    show: help.SHOW_HELP,
    log: help.LOG_HELP,
    report: help.REPORT_HELP,
    open: help.OPEN_HELP,
    update: help.UPDATE_HELP,
    close: help.CLOSE_HELP,
    budget: help.BUDGET_HELP,
  }
  return runGoalCommand(cmd, rest, io, helpText[cmd])
}

async function doctor(argv, helpText) {
  const { HOST_OPTIONS, parseOptions, selectedHosts } = await import('../cli/cli-common.mjs')
  const { resolveProject } = await import('../cli/cli-install.mjs')
  const { runChecks, formatFindings } = await import('../cli/doctor.mjs')
  const opts = parseOptions(argv, { ...HOST_OPTIONS, project: { type: 'string' }, json: { type: 'boolean' } })
  if (opts.help) {
    io.out(helpText)
    return 0
  }
  const hosts = selectedHosts(opts, { defaultAll: false })
  const report = runChecks({ hosts: hosts.length ? hosts : null, project: resolveProject(opts.project) })
  io.out(opts.json ? JSON.stringify(report, null, 2) : formatFindings(report, io.paint))
  return report.ok ? 0 : 1
}

/** The command being run, for the error prefix. */
const context = { command: null }

/** `goal-system <command>: message`, unless the message already names the program. */
function prefixed(message) {
  if (/^goal-system\b/.test(message)) return message
  return `goal-system${context.command ? ` ${context.command}` : ''}: ${message}`
}

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (err) {
  if (typeof err?.exitCode === 'number') {
    io.err(io.paintErr('red', prefixed(err.message)))
    for (const d of err.details ?? []) io.err(`  ${d}`)
    process.exitCode = err.exitCode
  } else {
    io.err(prefixed(`unexpected error: ${err?.stack ?? err}`))
    process.exitCode = 3
  }
}
