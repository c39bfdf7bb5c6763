// Help texts of the goal-system command.

import { FIELD_ALIASES, LIST_FIELDS } from './record-fields.mjs'

const EXIT_CODES = `Exit codes:
  0  ok
  1  a check failed or the request was refused (doctor finding, completion gate,
     ambiguous or missing goal, a target file that belongs to someone else)
  2  usage error (unknown option, missing argument, invalid --input-json)
  3  state or file error (a settings file that is not valid JSONC, unreadable
     files, corrupt goal state, incomplete package); nothing was changed`

const HOST_FLAGS = `  --copilot-cli      GitHub Copilot CLI
  --vscode           VS Code Copilot Chat
  --claude           Claude Code
  --codex            OpenAI Codex CLI (~/.codex/hooks.json, config.toml)
  --gemini           Gemini CLI (~/.gemini/settings.json)
                     (no host flag: Copilot CLI, VS Code and Claude Code)`

export const MAIN_HELP = `goal-system: keep a coding agent's long task on one persisted, evidence-gated goal.

Usage: goal-system <command> [options]

Wiring the hosts:
  install      wire Copilot CLI, VS Code and Claude Code to this package
  uninstall    remove exactly what install added
  doctor       check each host's wiring, the addon, the native hook and the state folder
  mcp          run the MCP server on stdio (what the host plugins start)

Goals (state folder: GOAL_SYSTEM_STATE_ROOT or ~/.copilot/session-state/goal-system):
  list         goals as a table, newest page first (--all, --page N, --json)
  status       a session's goal (from --session or the environment), else the list
  show [ID]    one goal by goal id or session id: summary, unmet conditions,
               Copilot CLI's autopilot objective
  log [ID]     the goal's timeline: activation, updates, tool activity, drift,
               blocked stops, refused closes, the close
  report [ID]  a self-contained HTML page of the goal (-o FILE)
  statusline   one line for a status bar (Claude Code's statusLine JSON on stdin)
  open         open a goal for a session (when the goal tools are not loaded)
  update       record progress and evidence
  close        close as complete (through the completion gate), blocked or cancelled
  budget       set or remove the goal's token and time budgets (the user's own terminal)

Context board (reusable notes per repository and branch, outliving goals):
  board        list, show, add or prune items (goal-system board --help)

Repository memories (.github/copilot-memories.jsonl, written by the model with your approval):
  memory       list, show, forget or vote; turn the model's writes or the recall off
               (goal-system memory --help)

Options:
  -h, --help     this help; goal-system <command> --help for a command's options
  -V, --version  the package version
  --json         (every command) print the result as JSON

Output is coloured on a terminal; NO_COLOR=1 turns colour off, FORCE_COLOR=1 on.

${EXIT_CODES}

Environment:
  GOAL_SYSTEM_STATE_ROOT     the goal-system state folder
  GOAL_SYSTEM_SESSION_ID, COPILOT_SESSION_ID, CLAUDE_CODE_SESSION_ID
                             the session of open/update/close/status (first set wins)
  COPILOT_HOME, CLAUDE_CONFIG_DIR, GOAL_SYSTEM_VSCODE_USER_DIR
                             where the hosts keep their user files`

export const INSTALL_HELP = `Usage: goal-system install [--copilot-cli] [--vscode] [--claude] [--codex] [--gemini] [--project DIR] [--dry-run]

Wire the hosts to this package (${'${GOAL_SYSTEM_HOME}'} in the package templates becomes
its absolute path). Settings files are JSONC, edited in place: comments, trailing
commas, unrelated keys, hooks and MCP servers stay; goal-system's own entries
(recognized by the paths to goal-context.sh, hook-runner.mjs, mcp-server.mjs) are
replaced, never duplicated. Every file is read and checked first; if one is not
valid JSONC, nothing is written (exit 3). The hosts' plugins are the other route
(see the README). Each
changed file is backed up once per run as <file>.goal-system.bak-<time>, and written
atomically. What was added is recorded in ~/.copilot/goal-system-install.json so
uninstall is exact.

${HOST_FLAGS}
  --project DIR      workspace layout for VS Code and Claude Code (Copilot CLI is
                     always user level: project extensions do not load in -p mode)
  --dry-run          print the plan (create / update / unchanged per file), write nothing
  --copilot-mcp      also register the MCP server with Copilot CLI (its model then sees
                     each goal tool twice: the extension's and the server's)
  --json             print the plan (and, without --dry-run, the result) as JSON

Files, user level:
  Copilot CLI  ~/.copilot/hooks/goal-system.json        hooks: the native hook, else <pkg>/hooks/goal-context.sh
                                                        (the native hook, else node <pkg>/adapters/vscode-chat/hook-runner.mjs)
               ~/.copilot/extensions/goal-system/extension.mjs   shim importing
                                                        <pkg>/extension.mjs
               ~/.copilot/settings.json                 "experimental": true (needed to load the extension)
               ~/.copilot/mcp-config.json               mcpServers.goalSystem, only with --copilot-mcp
                                                        (the extension offers the tools already)
               ~/.copilot/skills/goal-system/SKILL.md   the "goal-system" skill (/goal-system pause, ...)
  VS Code      <user folder>/mcp.json                   servers.goalSystem
               <user folder>/prompts/goal-system.agent.md
               (<user folder>: ~/.config/Code/User on Linux, ~/Library/Application Support/Code/User
               on macOS, %APPDATA%\\Code\\User on Windows; GOAL_SYSTEM_VSCODE_USER_DIR overrides.
               The agent carries the hooks, scoped to it: no workspace file needed.)
  Claude Code  ~/.claude/settings.json                  hooks, and permissions.allow for the 4 goal tools
               ~/.claude.json                           mcpServers.goalSystem
               ~/.claude/commands/goal.md               /goal (replaces Claude Code's built-in /goal)
Files, --project DIR:
  VS Code      DIR/.vscode/mcp.json, DIR/.github/hooks/goal-system.json,
               DIR/.github/agents/goal-system.agent.md
  Claude Code  DIR/.claude/settings.json (hooks), DIR/.mcp.json (mcpServers.goalSystem),
               and the permissions in the user ~/.claude/settings.json (Claude Code honours
               MCP tool permissions only there)

${EXIT_CODES}`

export const UNINSTALL_HELP = `Usage: goal-system uninstall [--copilot-cli] [--vscode] [--claude] [--codex] [--gemini] [--project DIR] [--dry-run]

Remove exactly what \`goal-system install\` with the same flags added: its entries in
merged settings files (a key it replaced gets its previous value back), the files it
created (shim, skill, agent, hooks files) and folders it created that are now empty.
A settings file that becomes equal to its state before the first install gets its
original bytes back. Entries still needed by another install (for example the Claude
permissions shared by a user and a project install) stay until the last one goes.

${HOST_FLAGS}
  --project DIR      undo an install made with --project DIR
  --dry-run          print the plan, write nothing
  --json             print the plan (and the result) as JSON

${EXIT_CODES}`

export const DOCTOR_HELP = `Usage: goal-system doctor [--copilot-cli] [--vscode] [--claude] [--codex] [--gemini] [--project DIR] [--json]

Check what is installed (per the install manifest, or the hosts named): each settings
file present, valid JSONC, with goal-system's entries pointing at this package and at
files that exist; the extension shim, skill and agent up to date; "experimental": true
for the Copilot CLI extension; the Claude tool permissions; the addon loads; the native
hook is executable and answers {} to an empty payload; the hook runner answers {};
the state folder is writable with 0700 folders and 0600 files. Each problem is printed
with its fix.

  --json             the findings as JSON: { ok, package, findings: [{status, area, message, fix}] }

Exit codes: 0 all checks passed; 1 a check failed; 2 usage error.`

const SESSION_HELP = `Session: --session ID (a session id or a goal id), else GOAL_SYSTEM_SESSION_ID,
COPILOT_SESSION_ID, CLAUDE_CODE_SESSION_ID; with none, the one open goal of the folder
(--cwd, default the current folder). With several open goals there, the command
refuses (exit 1) and lists them.`

/** Every list field of the record as a flag, from the core's generated update schema. */
const RECORD_FLAGS = wrap(LIST_FIELDS.map((name) => `--${name}`))
/** The command's short names for them. */
const SHORT_FLAGS = wrap(Object.entries(FIELD_ALIASES).map(([flag, field]) => `--${flag} (${field})`))

/** Lay items (each kept whole) out in lines of the help's width, indented under their label. */
function wrap(items, width = 84, indent = '    ') {
  const lines = ['']
  for (const word of items) {
    const last = lines.length - 1
    if (lines[last] && `${lines[last]} ${word}`.length > width - indent.length) lines.push(word)
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word
  }
  return `\n${lines.map((l) => indent + l).join('\n')}`
}

const FIELD_HELP = `Fields (repeatable, each TEXT one entry; durable lists append, remaining and blockers replace):
  Every list field of the record, by its own name:${RECORD_FLAGS}.
  Short names:${SHORT_FLAGS}.
  --no-remaining, --no-blockers  clear that queue
  --input-json '{...}'  any fields as a JSON object (issueResolutions need it); - reads
                     stdin (--from-json is the same; the old --json '{...}' still works)
  --json             print the result (goal, summary, unmet conditions) as JSON`

export const LIST_HELP = `Usage: goal-system list [--cwd DIR] [--session ID] [--open] [--page N | --all] [--json]

Goals in the state folder, newest first: id, session, status, updated, remaining
count, unmet completion conditions, cwd. One page of 20 at a time: the newest by
default, with a line saying how many there are and how to see more.

  --cwd DIR          only goals of this folder
  --session ID       only goals of this session (or this goal id)
  --open             only open goals (draft, active, blocked without closedAt)
  --page N           page N (1 is the newest)
  --all              every goal, no paging
  --json             JSON (the same page, or --all): [{id, sessionId, cwd, objective, status, open, createdAt,
                     updatedAt, closedAt, remaining, blockers, unmet}]

${EXIT_CODES}`

export const STATUS_HELP = `Usage: goal-system status [ID] [--session ID] [--cwd DIR] [--open] [--json] [--watch [--interval S]]

With a goal id or session (argument, --session, or the session environment
variables): like show. Otherwise: like list.

  -w, --watch        redraw in place on the terminal (with a goal: its status line,
                     summary and latest timeline entries) until Ctrl-C; when stdout
                     is not a terminal, print once
  --interval S       seconds between redraws (default 2)

${EXIT_CODES}`

export const SHOW_HELP = `Usage: goal-system show [ID] [--session ID] [--cwd DIR] [--json]

One goal by goal id or session id: its summary, every unmet completion condition,
drift, and Copilot CLI's own autopilot objective when the session has one. Without
an ID: the session from the environment, else the one open goal of the folder.

  --json             JSON: {id, sessionId, cwd, objective, status, open, unmet:
                     [{field, message}], drift, autopilot, summary, warnings, goal}

${SESSION_HELP}

${EXIT_CODES}`

export const LOG_HELP = `Usage: goal-system log [ID] [--session ID] [--cwd DIR] [--json]

The goal's timeline, oldest first, from the audit log (GOAL_SYSTEM_STATE_ROOT/audit.log
and its rotated audit.log.1) and the goal's tool history: activation, each update
and what it changed, tool calls by kind (runs of more than 3 are summarized),
drift warnings and denials, blocked stops, denied completion claims, refused
closes with their unmet conditions, the close. The tool history keeps the latest
calls; the totals per kind cover the goal's whole life.

  --json             JSON: {id, sessionId, status, timeline: {events: [{at, atMs, kind,
                     toolKind?, name, detail, status?}], tools}, checklist, coverage, budget}

${SESSION_HELP}

${EXIT_CODES}`

export const REPORT_HELP = `Usage: goal-system report [ID] [--session ID] [--cwd DIR] [-o FILE]

One self-contained HTML page of the goal: objective and status, the completion
gate as a checklist (each condition met or unmet, with its evidence),
requirements against their coverage, the work lists, a timeline chart (tool
calls by kind over time, updates, drift, stops, refusals, the close) with the
event list, and budget use where set. It loads nothing from the network or
other files and runs no script; it prints cleanly.

  -o, --output FILE  write the page to FILE (mode 0600) instead of stdout

${SESSION_HELP}

${EXIT_CODES}`

export const STATUSLINE_HELP = `Usage: goal-system statusline < payload.json

Reads Claude Code's statusLine JSON on stdin (session_id, cwd, workspace, ...) and
prints one line for the session's goal: status, remaining items, unmet completion
conditions, drift, elapsed time, token use against the budget when set, and the
objective. Prints nothing when the session has no goal, and never an error.
\`goal-system install --claude\` sets it as Claude Code's status line (running the
native executable native/goal-hook statusline, without Node) unless you already
have one; \`goal-system doctor --claude\` shows how to combine it with yours.`

export const OPEN_HELP = `Usage: goal-system open --session ID --objective TEXT [--draft] [--replace] [fields]

Open a goal for a session, as goal_system_open does. The same objective continues
the open goal; a different one needs --replace (only when the user asked for a new
objective).

  --objective TEXT   what the goal is
  --draft            open as draft (default active)
  --replace          replace the session's open goal with a new objective
  --session ID       the session (or GOAL_SYSTEM_SESSION_ID, COPILOT_SESSION_ID,
                     CLAUDE_CODE_SESSION_ID); required
  --cwd DIR          the session's folder (default: the current folder)

${FIELD_HELP}

${EXIT_CODES}`

export const UPDATE_HELP = `Usage: goal-system update [--session ID] [--cwd DIR] [fields] [--status S --reason TEXT]

Record progress and evidence, as goal_system_update does, e.g.
  goal-system update --session S --done "parser rewritten" --remaining "docs"
  goal-system update --input-json '{"doneSoFar":["..."],"remaining":[]}'
  echo '{"validationProof":["npm test: 42 passed"]}' | goal-system update --input-json -

  --status S         active, draft or blocked (resumable; give --reason)
  --reason TEXT      the status reason
  --expected-goal-id ID  refuse unless the session's goal is still ID

${FIELD_HELP}

${SESSION_HELP}

${EXIT_CODES}`

export const CLOSE_HELP = `Usage: goal-system close [--status complete|blocked|cancelled] [--reason TEXT] [--session ID] [fields]

Close the goal, as goal_system_close does. complete (the default) passes only through
the completion gate: a refused close prints every unmet condition and exits 1
(evidence given with it is still recorded). blocked and cancelled need --reason.
The summary reports the final usage ("tokens used: N of M; time used: S s").

  --expected-goal-id ID  refuse unless the session's goal is still ID

${FIELD_HELP}

${SESSION_HELP}

${EXIT_CODES}`

export const BUDGET_HELP = `Usage: goal-system budget [--tokens N] [--minutes M] [--off] [--session ID] [--cwd DIR]

Set the goal's budgets, as /goal budget does in a session. Only the user sets or raises
a budget: run it in your own terminal (the model's shell is refused). Crossing a budget
moves the goal to budget_limited: the model is told once to record what was done and
what remains and to close; its stops are no longer held.
  goal-system budget --tokens 200000 --minutes 30
  goal-system budget --off

  --tokens N         token budget (whole number; 0 limits at once)
  --minutes M        wall-time budget while the goal is active
  --off              remove both budgets
  --expected-goal-id ID  refuse unless the session's goal is still ID

${SESSION_HELP}

${EXIT_CODES}`

export const BOARD_HELP = `Usage: goal-system board [list | show NAME | add NAME --description D --content C | prune NAME]
                          [--repo DIR] [--branch B] [--json]

The context board of a repository and branch: a few reusable notes (how to run the
tests, which module owns what, a trap) that outlive any goal. The agent sees the
board's metadata at session start and when a goal opens, and reads an item's content
with its context_board tool. The board is small: an add beyond its capacity is
refused until something is pruned.

  list               the items' metadata (the default)
  show NAME          an item's content (does not count as the agent's read)
  add NAME           add or overwrite your item; NAME is a short kebab-case id
    --description D  one line shown in the board
    --content C      the full note
  prune NAME         delete the item(s) named NAME, yours or the agent's

Items you add are yours (src "user"): the agent can read them but cannot prune them.
Secrets are filtered out of every input before anything is stored.

  --repo DIR         the repository (any folder inside it); default: the current folder
  --branch B         this branch instead of the checked-out one
  --json             machine-readable output

The repository is the origin remote (else the repository's top folder; outside git,
the folder itself) and the branch is the checked-out one ("default" outside git or
on a detached HEAD).

${EXIT_CODES}`
export const MEMORY_HELP = `Usage: goal-system memory [list | show ID | forget ID | vote ID up|down [--reason R]]
                          [--repo DIR] [--json]
       goal-system memory writes [on|off]
       goal-system memory recall [on|off]

Lasting lessons about a repository (a convention, a command that works, a trap), kept
one JSON object a line in .github/copilot-memories.jsonl at the repository's root, so
they travel with the code and are reviewed in pull requests. The model stores them
with store_memory and votes on them with vote_memory; the host asks you first (Copilot
CLI's tool permission, Claude Code's and VS Code's MCP tool approval). At session start
the most useful ones reach the model within a fixed budget; at each prompt a line names
the memories and board items the prompt is about.

  list               every memory: id, votes, date, subject, fact (the default)
  show ID            one memory in full, with its source and its votes' reasons
  forget ID          remove it from the file (yours alone: the model can only vote)
  vote ID up|down    your own vote; a memory voted down more than up is no longer shown
  writes on|off      let the model store and vote memories, or not (asks nothing when off:
                     its calls are refused); without on|off, print the settings
  recall on|off      memories at session start and recall lines at each prompt, or not

Forget and the settings work only in your own terminal (the model's shell is refused).
Secrets are filtered out of every input before anything is stored. You can also edit
the file by hand: a line that is not a valid memory is moved aside (and reported) at the
next write, never dropped silently.

  --repo DIR         the repository (any folder inside it); default: the current folder
  --reason R         why (vote)
  --json             machine-readable output

${EXIT_CODES}`
export const MCP_HELP = `Usage: goal-system mcp

Run the Goal System MCP server (goal_system_open, goal_system_status,
goal_system_update, goal_system_close) on stdin/stdout, as the Claude Code and
Copilot CLI plugins start it. Diagnostics go to stderr.`
