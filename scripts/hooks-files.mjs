#!/usr/bin/env node
// Writes the hooks files (Copilot CLI, VS Code, Claude Code, Codex CLI, Gemini CLI) from one
// definition of the hook command, so every event of every host gets the same
// fallback chain. `node scripts/hooks-files.mjs --check` exits 1 when a file
// differs from what this script writes (the test suite runs the check).
//
// Copilot CLI's entries run the native executable, then the seed's
// hooks/goal-context.sh <event>, a POSIX sh script that holds the same chain.
// The chain, in the shell the host runs the command with:
//   1. the native executable, directly (no Node start-up), its answer
//      straight to the host: it prints its one answer in a single write as
//      its last act and always exits 0 after it, so a run that fails (exits
//      non-zero) has printed nothing and the next step's answer is the only
//      one (capturing the answer in the shell cost every hook a pipe and a
//      copy, 0.14 ms in sh); in Copilot CLI's bash it is `exec`ed (see
//      copilotCommand) and answers `{}` itself when it dies of a fault;
//   2. when it cannot run (missing: 127, not executable or another
//      architecture: 126; where it is not exec'd also killed by a signal, any
//      non-zero exit), Node and the addon through hook-runner.mjs, which
//      reads the payload the failed exec left on stdin;
//   3. when Node cannot run either, an allow-shaped `{}`: Copilot CLI treats a
//      failing preToolUse hook as a denial, so a hook must never fail closed.
// `${GOAL_SYSTEM_HOOK}` (the native executable) and `${GOAL_SYSTEM_HOME}` (the
// package) become absolute paths at `goal-system install`.
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execStep } from '../cli/hook-exec.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const HOOK = '${GOAL_SYSTEM_HOOK}'
const RUNNER = '${GOAL_SYSTEM_HOME}/adapters/vscode-chat/hook-runner.mjs'
const CONTEXT_SCRIPT = '${GOAL_SYSTEM_HOME}/hooks/goal-context.sh'
const TIMEOUT = 10

/** The POSIX shell command (bash, dash, Git Bash) for one host and event. */
export function shellCommand(host, event) {
  return `"${HOOK}" --host ${host} ${event}` + ` || node "${RUNNER}" ${host} ${event}` + ` || echo '{}'`
}

/**
 * Copilot CLI's bash command: the native executable first, as in the other
 * hosts' chain (a second shell to run the script cost every hook about 1 ms,
 * a quarter of the floor), and `exec`ed: bash then neither forks nor waits
 * (0.3 ms of every call). Under `execfail` an exec that fails (missing, not
 * executable, another architecture) leaves bash running, on to
 * hooks/goal-context.sh <event>, told where the native hook is (it tries it,
 * then Node); `{}` when the script cannot run (`set +e` first: bash exits
 * on a failed exec under an errexit it took from SHELLOPTS or BASH_ENV).
 * Once the hook runs, nothing follows it, so the hook itself answers `{}`
 * when it dies of a fault (crates/goal-hook/src/guard.rs, which says what
 * it cannot cover). A shell without `shopt` (not bash) skips the exec and
 * runs the script. `goal-system install` leaves the exec out where the hook
 * does not run at all (cli/hook-exec.mjs).
 */
export function copilotCommand(event) {
  return execStep(HOOK, event) + `GOAL_SYSTEM_HOOK="${HOOK}" sh "${CONTEXT_SCRIPT}" ${event}` + ` || echo '{}'`
}

/**
 * The PowerShell command (Copilot CLI on Windows) for one event. The payload is
 * read once and handed to each candidate in turn, as UTF-8.
 */
export function powershellCommand(host, event) {
  const attempt = (cmd) => `try { $o = $p | ${cmd}; if ($LASTEXITCODE -ne 0) { $o = $null } } catch { $o = $null }`
  return [
    '$OutputEncoding = [Console]::InputEncoding = [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false',
    '$p = [Console]::In.ReadToEnd()',
    '$o = $null',
    attempt(`& '${HOOK}' --host ${host} ${event}`),
    `if ($null -eq $o) { ${attempt(`node '${RUNNER}' ${host} ${event}`)} }`,
    "if ($null -eq $o) { '{}' } else { $o }",
  ].join('; ')
}

const COPILOT_EVENTS = [
  'sessionStart',
  'userPromptSubmitted',
  'preToolUse',
  'postToolUse',
  'agentStop',
  'subagentStart',
  'preCompact',
]
const CHAT_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PreCompact',
  'SubagentStart',
  'SubagentStop',
  'Stop',
]
// Claude Code sends a failing tool call only to PostToolUseFailure: without it
// a failed test run would never be recorded as failed.
const CLAUDE_EVENTS = [...CHAT_EVENTS.slice(0, 4), 'PostToolUseFailure', ...CHAT_EVENTS.slice(4)]
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure'])
// Codex CLI 0.169.0: Claude Code's names, without PostToolUseFailure, and its Interrupt (the user's
// Esc), whose timeout it clamps to 3 s (with a warning at each start for a longer one).
const CODEX_EVENTS = [...CHAT_EVENTS, 'Interrupt']
const CODEX_TIMEOUT = { Interrupt: 3 }
// Gemini CLI 0.61.0's own names; its timeout is in milliseconds, its tool matcher a regex.
const GEMINI_EVENTS = ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'PreCompress', 'AfterAgent']
const GEMINI_TOOL_EVENTS = new Set(['BeforeTool', 'AfterTool'])

/** Each host's hooks file, by path from the package root. */
export const HOOKS_FILES = {
  'copilot-cli': 'hooks/hooks.json',
  vscode: 'adapters/vscode-chat/hooks/goal-system.json',
  claude: 'adapters/claude/settings.hooks.json',
  codex: 'adapters/codex/hooks.json',
  gemini: 'adapters/gemini/hooks.json',
}

/** The POSIX shell command a host's hooks file runs for `event`. */
export function entryCommand(host, event) {
  return host === 'copilot-cli' ? copilotCommand(event) : shellCommand(host, event)
}

/** Every hooks file: path (from the package root) -> JSON value. */
export function hooksFiles() {
  const copilot = {
    version: 1,
    hooks: Object.fromEntries(
      COPILOT_EVENTS.map((e) => [
        e,
        [
          {
            type: 'command',
            bash: copilotCommand(e),
            powershell: powershellCommand('copilot-cli', e),
            timeoutSec: TIMEOUT,
          },
        ],
      ]),
    ),
  }
  const vscode = {
    hooks: Object.fromEntries(
      CHAT_EVENTS.map((e) => [
        e,
        [
          {
            type: 'command',
            command: shellCommand('vscode', e),
            windows: powershellCommand('vscode', e),
            timeout: TIMEOUT,
          },
        ],
      ]),
    ),
  }
  // Claude Code runs hook commands with a POSIX shell everywhere (Git Bash on
  // Windows, which finds goal-hook.exe for goal-hook).
  const claude = {
    hooks: Object.fromEntries(
      CLAUDE_EVENTS.map((e) => [
        e,
        [
          {
            ...(TOOL_EVENTS.has(e) ? { matcher: '*' } : {}),
            hooks: [{ type: 'command', command: shellCommand('claude', e), timeout: TIMEOUT }],
          },
        ],
      ]),
    ),
  }
  const codex = {
    hooks: Object.fromEntries(
      CODEX_EVENTS.map((e) => [
        e,
        [
          {
            ...(TOOL_EVENTS.has(e) ? { matcher: '*' } : {}),
            hooks: [{ type: 'command', command: shellCommand('codex', e), timeout: CODEX_TIMEOUT[e] ?? TIMEOUT }],
          },
        ],
      ]),
    ),
  }
  const gemini = {
    hooks: Object.fromEntries(
      GEMINI_EVENTS.map((e) => [
        e,
        [
          {
            matcher: GEMINI_TOOL_EVENTS.has(e) ? '.*' : '',
            hooks: [
              { type: 'command', name: 'goal-system', command: shellCommand('gemini', e), timeout: TIMEOUT * 1000 },
            ],
          },
        ],
      ]),
    ),
  }
  return {
    [HOOKS_FILES['copilot-cli']]: copilot,
    [HOOKS_FILES.vscode]: vscode,
    [HOOKS_FILES.claude]: claude,
    [HOOKS_FILES.codex]: codex,
    [HOOKS_FILES.gemini]: gemini,
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check')
  let stale = 0
  for (const [rel, value] of Object.entries(hooksFiles())) {
    const file = join(root, rel)
    const text = JSON.stringify(value, null, 2) + '\n'
    let have = null
    try {
      have = readFileSync(file, 'utf8')
    } catch {}
    if (have === text) continue
    if (check) {
      console.error(`${rel} is out of date: run node scripts/hooks-files.mjs`)
      stale++
    } else {
      writeFileSync(file, text)
      console.log(`wrote ${rel}`)
    }
  }
  process.exitCode = stale ? 1 : 0
}
