// Generated from the Rust types by `npm run gen` (crates/goal-core/src/schema.rs). Do not edit.

/**
 * What a tool does to the world, for the host's approval prompts (MCP
 * annotations). None reaches outside the state folder.
 */
export interface Annotations {
  destructiveHint?: boolean | null
  idempotentHint: boolean
  openWorldHint: boolean
  readOnlyHint: boolean
  title: string
}

/** A run that looked like a verification but did not count. */
export interface Attempt {
  /** The command, redacted and truncated. */
  command: string
  /** The end of what it printed, redacted. */
  output?: string
  seq: number
  /** Why it does not count, in words the model acts on. */
  why: string
}

/**
 * Copilot CLI's autopilot objective for a session, as the goal's status shows
 * it (texts redacted and shortened).
 */
export interface AutopilotObjective {
  completionSummary: string | null
  continuationCount: number | null
  objective: string | null
  /** The host's word: `active` or `completed`. */
  status: string | null
  tokenCount: number | null
  turnCount: number | null
}

/** A board item without its content, as the board lists it. */
export interface BoardItemMeta {
  /** Sessions that were shown the board while this item was on it. */
  count: number
  createdAt: string
  description: string
  name: string
  /** Times the content was fetched with `get`. */
  readCount: number
  src: Src
  updatedAt: string
}

/** `context_board`: one command on the board of this repository and branch. */
export interface BoardRequest {
  /** get_board lists metadata; get reads one item; add creates or overwrites an agent item; prune deletes one. */
  command: "get_board" | "get" | "add" | "prune"
  /** add: the full reusable content (one fact, recipe or trap per item). */
  context?: string | null
  /** add: a one-line summary shown in the board. */
  description?: string | null
  /** get, add, prune: the item's short kebab-case name. */
  name?: string | null
  /** get: whose item (as listed in the board). */
  src?: Src | null
}

/**
 * Optional budgets and the goal's usage, after Codex's goals. Budgets are set
 * only by the user; usage is accounted by `goals::account_usage` from what
 * the host itself records (see `usage`).
 */
export interface Budget {
  /**
   * When the current active stretch began (ms since the epoch); `None`
   * while the goal is not active, so waiting on the user never counts.
   */
  activeSinceMs?: number | null
  /**
   * Fingerprint of the last host record a hook named that the running
   * host did not vouch for (it keeps its record elsewhere): tool and stop
   * hooks do not ask again (the process chain is read only at a prompt),
   * and the user was told once.
   */
  refusedRecord?: string
  timeBudgetSeconds?: number | null
  /** Wall time while the goal was active, in milliseconds. */
  timeUsedMs: number
  tokenBudget?: number | null
  tokensUsed: number
  toolCalls: number
  turns: number
  /**
   * Per host source (a transcript's hash, a Copilot session) what was
   * already counted, so a source re-read by every hook counts once.
   */
  usageSources?: Record<string, unknown>
  /** The one-time wrap-up steer after a budget was crossed was given. */
  wrapUpSent?: boolean
}

/** Token use against the budget, when the goal has a budget or any usage. */
export interface BudgetUse {
  limit: number | null
  /** Whole percent of the budget used (may pass 100). */
  percent: number | null
  used: number
}

/** `goal_system_close`: close as complete (through the gate), blocked or cancelled. */
export interface CloseRequest {
  /** Current blockers. Replaces the whole list when given (pass [] to clear it on purpose). */
  blockers?: string[] | null
  /** The final audit: each requirement checked against the result. Appends; duplicates are ignored; nothing is ever removed. */
  completionAudit?: string[] | null
  /** Constraints to respect. Appends; duplicates are ignored; nothing is ever removed. */
  constraints?: string[] | null
  /** Facts about the environment (versions, paths, services). Appends; duplicates are ignored; nothing is ever removed. */
  currentEnvironment?: string[] | null
  /** Issues found along the way. Additive: they stay until resolved by name. */
  discoveredIssues?: string[] | null
  /** Work completed so far. Appends; duplicates are ignored; nothing is ever removed. */
  doneSoFar?: string[] | null
  /** Refuse the write if the session goal is no longer this id (it was replaced). */
  expectedGoalId?: string | null
  /** What was inspected and found (files read, behaviour observed). Appends; duplicates are ignored; nothing is ever removed. */
  inspectionEvidence?: string[] | null
  /** How discovered issues evolved. Each names one discovered issue exactly and carries evidence; wildcards such as "all issues" are refused. */
  issueResolutions?: IssueResolutionInput[] | null
  /** Behaviour that must keep working. Appends; duplicates are ignored; nothing is ever removed. */
  mustNotRegress?: string[] | null
  /** The exact blocker or cancellation reason (required for blocked and cancelled). */
  reason?: string | null
  /** The live queue of remaining work items, next first. Replaces the whole list when given (pass [] to clear it on purpose). */
  remaining?: string[] | null
  /** Tools or commands the work needs. Appends; duplicates are ignored; nothing is ever removed. */
  requiredTools?: string[] | null
  /** One entry per requirement naming it (its text or label such as "R1") with the evidence that covers it. Appends; duplicates are ignored; nothing is ever removed. */
  requirementCoverage?: string[] | null
  /** Explicit requirements of the objective, one per item (e.g. "R1: ..."). Appends; duplicates are ignored; nothing is ever removed. */
  requirements?: string[] | null
  /** Discovered issues that are fixed, each named exactly as discovered (no wildcards). Appends; nothing is ever removed. */
  resolvedIssues?: string[] | null
  /** What is in scope. Appends; duplicates are ignored; nothing is ever removed. */
  scope?: string[] | null
  /** complete passes only through the completion gate; blocked and cancelled need the exact reason (default complete). */
  status: "complete" | "blocked" | "cancelled"
  /** What proves the result is right (tests, outputs). Appends; duplicates are ignored; nothing is ever removed. */
  validationProof?: string[] | null
  /** Commands run to verify, with their outcome. Appends; duplicates are ignored; nothing is ever removed. */
  verificationResults?: string[] | null
}

/** Each requirement with the coverage entries that name it (the gate's matching). */
export interface Coverage {
  covered: boolean
  entries: string[]
  requirement: string
}

/** The `.code` of an error thrown by the addon. */
export type ErrorCode = "INVALID_INPUT" | "LIMIT_EXCEEDED" | "INVALID_SESSION_ID" | "INVALID_CWD" | "NO_GOAL" | "GOAL_EXISTS" | "GOAL_CLOSED" | "STALE_GOAL" | "AMBIGUOUS" | "SUBAGENT" | "FORBIDDEN" | "INVALID_RESOLUTION" | "LOCK_TIMEOUT" | "CORRUPT" | "IO" | "NOT_FOUND"

/** What happened. */
export type EventKind = "opened" | "replaced" | "continued" | "updated" | "tool" | "drift-warning" | "drift-denied" | "stop-blocked" | "claim-denied" | "loop-guard" | "close-refused" | "closed" | "compact" | "other"

/** One condition of the completion gate, met or not, with what backs it. */
export interface GateItem {
  /** What the record holds for it (entries, counts). */
  evidence: string[]
  /** The record field the gate names (`toolHistory` for recorded activity). */
  field: string
  /** What the condition asks, in words. */
  label: string
  met: boolean
  /** The gate's own messages when unmet (several for coverage and issues). */
  unmet: string[]
}

/** The goal record. Field names and order follow the seed's version-3 record. */
export interface Goal {
  blockers: string[]
  budget: Budget
  closedAt: string | null
  completionAudit: string[]
  completionStatus: Status
  constraints: string[]
  createdAt: string
  currentEnvironment: string[]
  cwd: string
  discoveredIssues: string[]
  doneSoFar: string[]
  /** Bumped on every replacement (a new objective), after Codex's goal-id versioning. */
  generation: number
  id: string
  inspectionEvidence: string[]
  issueResolutions: IssueResolution[]
  mustNotRegress: string[]
  objective: string
  remaining: string[]
  /** The goal this one replaced, if any. */
  replaces?: string | null
  requiredTools: string[]
  requirementCoverage: string[]
  requirements: string[]
  resolvedIssues: string[]
  /** Bumped on every write; breaks ties between copies with the same updatedAt. */
  revision: number
  scope: string[]
  /**
   * Keyed digest written by the store (see `integrity`): a copy edited
   * outside the goal system no longer matches it.
   */
  seal?: string | null
  sessionId: string
  source?: PromptSource | null
  /** Exact blocker or cancellation reason (or the loop guard's). */
  statusReason?: string | null
  stopGuard: StopGuard
  toolHistory: ToolHistory
  updatedAt: string
  validationProof: string[]
  verificationResults: string[]
  version: number
  /** The user's commands as the hooks received them (see `provenance`). */
  voice?: UserVoice
  /** Fields a newer or older version wrote, kept verbatim. */
  [key: string]: unknown
}

/** The goal tools. */
export type GoalToolName = "goal_system_open" | "goal_system_status" | "goal_system_update" | "goal_system_close"

/** A hook event name as the hosts send it. */
export type HookEvent = "sessionStart" | "userPromptSubmitted" | "preToolUse" | "postToolUse" | "postToolUseFailure" | "preCompact" | "subagentStart" | "subagentStop" | "agentStop" | "sessionEnd" | "SessionStart" | "UserPromptSubmit" | "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PreCompact" | "SubagentStart" | "SubagentStop" | "Stop" | "SessionEnd" | "BeforeAgent" | "BeforeTool" | "AfterTool" | "PreCompress" | "AfterAgent" | "Interrupt"

/** A host whose hook protocol `runHook` speaks. */
export type Host = "copilot-cli" | "copilot-sdk" | "vscode" | "claude" | "claude-code" | "codex" | "gemini"

/** One entry of `issueResolutions`. */
export interface IssueResolution {
  /** Why the original issue no longer remains open. */
  evidence: string
  /** For merged/renamed/duplicate/superseded: what it became. */
  into?: string | null
  /** The original discovered issue, word for word. */
  issue: string
  status: ResolutionStatus
}

/**
 * How a discovered issue evolved (the shape of the record's
 * `IssueResolution`; the checks live in `update::parse_resolutions`).
 */
export interface IssueResolutionInput {
  /** Why the original issue no longer remains open. */
  evidence: string
  /** For merged/renamed/duplicate/superseded: what it became. */
  into?: string | null
  /** The original discovered issue, word for word. */
  issue: string
  /** resolved, merged, renamed, duplicate or superseded. */
  status: "resolved" | "merged" | "renamed" | "duplicate" | "superseded"
}

/** A JSON Schema document (draft 2020-12). */
export type JsonSchema = Record<string, unknown>

/** The facts kept about the last verification. */
export interface LastVerification {
  at: string
  /** The command (or tool summary), redacted and truncated. */
  command: string
  /**
   * What it was: `tests`, `check` (build, lint, type check) or `run` (the
   * project's own program); empty in records of earlier versions.
   */
  kind?: string
  /**
   * Whether the working tree was observed around it (`tree`) or only its
   * words were read (`words`); empty in records of earlier versions.
   */
  observed?: string
  /** The end of what it printed, redacted: what was seen. */
  output?: string
  passed: boolean
  /** Its `seq` in the tool history: fresh when greater than `lastChangeSeq`. */
  seq: number
  /** Why it failed, in a few words, when it did. */
  why?: string
}

/**
 * Who calls a tool over MCP, where no host says it: the main session as the
 * hooks show it in the chat context. The MCP tools take these beside their
 * own fields.
 */
export interface McpCaller {
  /** The session working directory shown in the [goal-system] hook context ("cwd ..."), absolute. */
  cwd: string
  /** The main session id shown in the [goal-system] hook context ("sessionId ..."). Never invent one. */
  sessionId?: string | null
}

/** `goal_system_open`: open (or continue) the session's goal. */
export interface OpenRequest {
  /** Current blockers. Replaces the whole list when given (pass [] to clear it on purpose). */
  blockers?: string[] | null
  /** The final audit: each requirement checked against the result. Appends; duplicates are ignored; nothing is ever removed. */
  completionAudit?: string[] | null
  /** Constraints to respect. Appends; duplicates are ignored; nothing is ever removed. */
  constraints?: string[] | null
  /** Facts about the environment (versions, paths, services). Appends; duplicates are ignored; nothing is ever removed. */
  currentEnvironment?: string[] | null
  /** Issues found along the way. Additive: they stay until resolved by name. */
  discoveredIssues?: string[] | null
  /** Work completed so far. Appends; duplicates are ignored; nothing is ever removed. */
  doneSoFar?: string[] | null
  /** Refuse the write if the session goal is no longer this id (it was replaced). */
  expectedGoalId?: string | null
  /** What was inspected and found (files read, behaviour observed). Appends; duplicates are ignored; nothing is ever removed. */
  inspectionEvidence?: string[] | null
  /** How discovered issues evolved. Each names one discovered issue exactly and carries evidence; wildcards such as "all issues" are refused. */
  issueResolutions?: IssueResolutionInput[] | null
  /** Behaviour that must keep working. Appends; duplicates are ignored; nothing is ever removed. */
  mustNotRegress?: string[] | null
  /** The objective, as the user stated it with /goal. */
  objective: string
  /** The live queue of remaining work items, next first. Replaces the whole list when given (pass [] to clear it on purpose). */
  remaining?: string[] | null
  /** Replace an open goal with a different objective. Only when the user explicitly asked for a new objective. */
  replace?: boolean | null
  /** Tools or commands the work needs. Appends; duplicates are ignored; nothing is ever removed. */
  requiredTools?: string[] | null
  /** One entry per requirement naming it (its text or label such as "R1") with the evidence that covers it. Appends; duplicates are ignored; nothing is ever removed. */
  requirementCoverage?: string[] | null
  /** Explicit requirements of the objective, one per item (e.g. "R1: ..."). Appends; duplicates are ignored; nothing is ever removed. */
  requirements?: string[] | null
  /** Discovered issues that are fixed, each named exactly as discovered (no wildcards). Appends; nothing is ever removed. */
  resolvedIssues?: string[] | null
  /** What is in scope. Appends; duplicates are ignored; nothing is ever removed. */
  scope?: string[] | null
  /** draft until inspected; active once work starts (default active). */
  status?: OpenStatus | null
  /** Time budget in seconds (the user's: a model cannot set it). null removes it. */
  timeBudgetSeconds?: number | null
  /** Token budget (the user's: a model cannot set it). null removes it. */
  tokenBudget?: number | null
  /** What proves the result is right (tests, outputs). Appends; duplicates are ignored; nothing is ever removed. */
  validationProof?: string[] | null
  /** Commands run to verify, with their outcome. Appends; duplicates are ignored; nothing is ever removed. */
  verificationResults?: string[] | null
}

/** The statuses a goal opens with. */
export type OpenStatus = "draft" | "active"

/** A user command applied at its prompt hook, waiting for the host's record. */
export interface PendingCommand {
  at: string
  atMs: number
  /**
   * The goal as it was before the command (none when there was none):
   * what a refused command is rolled back to.
   */
  before?: Goal | null
  /** The command as typed, redacted and short. */
  command: string
  /** `sha256:` of the prompt's text (whitespace collapsed): never the text. */
  fingerprint: string
  /**
   * Put in a consumed command's answer, so the host's record of our own
   * block is known (Claude Code writes the block reason down).
   */
  nonce: string
  /** Where that record ended when the command arrived. */
  offset: number
  /** The host's id of the prompt (Claude Code's `prompt_id`). */
  promptId: string
  /** The host's record to confirm it in (Claude Code's transcript). */
  record: string
}

/** How a goal came to be: kept as a hash and a short redacted preview only. */
export interface PromptSource {
  /** `sha256:<hex>` of the full prompt. */
  hash: string
  /** What opened it: "goal-command", "autopilot", "tool", "cli", "continue". */
  kind: string
  /** Redacted, truncated preview. */
  preview: string
}

/** A command refused because it did not come from the user. */
export interface RefusedCommand {
  at: string
  /** The command, redacted and short. */
  command: string
  /** Why, in a few words. */
  why: string
}

/** How a discovered issue evolved. */
export type ResolutionStatus = "resolved" | "merged" | "renamed" | "duplicate" | "superseded"

/** Who wrote an item. */
export type Src = "agent" | "user"

/** A goal's lifecycle status. */
export type Status = "draft" | "active" | "blocked" | "paused" | "budget_limited" | "complete" | "cancelled"

/** State of the stop loop guard. */
export interface StopGuard {
  /** Consecutive blocked stops (or refused completion claims) with no tool call between. */
  blockedStops: number
  /** Tool `seq` when the last stop was blocked. */
  seqAtLastBlock: number
  /**
   * Stops blocked since the user's last prompt, progress or not: bounded
   * absolutely by `goals::MAX_STOPS_PER_PROMPT`.
   */
  sincePrompt: number
  /** Total stops blocked for this goal. */
  totalBlocked: number
}

/** `store_memory`: remember one lasting fact about this repository. */
export interface StoreMemoryRequest {
  /** Where it comes from: file paths with line numbers, or "User input: ..." when the user said it. */
  citations?: string | null
  /** One concise, lasting fact a future task in this repository needs (a convention, a command, a trap); not the state of the current task. */
  fact?: string | null
  /** Why future tasks need it. */
  reason?: string | null
  /** A few words naming what the fact is about (e.g. "test command", "error handling"). */
  subject?: string | null
}

/** A tool invocation or hook input as the subagent check reads it (`looksLikeSubagent`): JSON data only. */
export interface SubagentInvocation {
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  agentId?: string | number | boolean | Record<string, unknown> | null
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  agent_id?: string | number | boolean | Record<string, unknown> | null
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  isSubagent?: string | number | boolean | Record<string, unknown> | null
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  is_subagent?: string | number | boolean | Record<string, unknown> | null
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  parentInvocationId?: string | number | boolean | Record<string, unknown> | null
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  parentSessionId?: string | number | boolean | Record<string, unknown> | null
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  parent_invocation_id?: string | number | boolean | Record<string, unknown> | null
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  parent_session_id?: string | number | boolean | Record<string, unknown> | null
  /** The session it came from: another than the main session marks a subagent. */
  sessionId?: string
  /** The session it came from: another than the main session marks a subagent. */
  session_id?: string
  /** Marks a subagent when present: a non-empty string, a number, a non-empty object or true. */
  subagent?: string | number | boolean | Record<string, unknown> | null
  /** Whatever else the host passes; the check ignores it. */
  [key: string]: unknown
}

/** A goal's timeline: every event in time order, and the tool totals. */
export interface Timeline {
  events: TimelineEvent[]
  goalId: string
  sessionId: string
  tools: ToolTotals
}

/** One entry of the timeline. */
export interface TimelineEvent {
  at: string
  atMs: number
  /** What changed, the unmet conditions, the tool's main argument, ... */
  detail: string
  kind: EventKind
  /** The audit event name, or the tool name. */
  name: string
  /** The goal status the audit line recorded (empty for tool calls). */
  status?: string
  /** For tool events: inspection, action, verification, delegation, other. */
  toolKind?: ToolKind | null
}

/** One tool as every adapter declares it. */
export interface ToolDefinition {
  annotations: Annotations
  description: string
  inputSchema: JsonSchema
  name: string
  /** The addon function that serves it (`openGoal`, ..., `contextBoard`). */
  operation: string
  /** The goal tools' results (`structuredContent`); the board answers in text. */
  outputSchema?: JsonSchema
  title: string
}

/** One persisted tool call (already redacted and truncated). */
export interface ToolEvent {
  at: string
  atMs: number
  /**
   * The files it changed, as observed in the working tree (or as the tool
   * named them), relative to the goal's folder, redacted; at most a few.
   */
  files?: string[]
  /** Dedup key: hash of tool name and arguments. */
  key?: string
  kind: ToolKind
  /**
   * For a verification: did it pass, as the host reported it (result type,
   * exit code, interruption, the runner's summary). Absent for other kinds.
   */
  passed?: boolean | null
  /** "success", "failure", "denied" or empty when unknown. */
  result?: string
  /** Monotonic per goal; drift is derived from it. */
  seq: number
  /** Which adapter recorded it ("cli-hook", "sdk", "vscode", "claude"). */
  source?: string
  /** Tool name and main argument (command, path), redacted. */
  summary: string
  tool: string
}

/** Tool history: a bounded window of recent calls plus counters that survive trimming. */
export interface ToolHistory {
  actions: number
  /**
   * Runs of the project's program started in the background (a server): a
   * request to localhost afterwards exercises it.
   */
  backgroundRuns: number
  /**
   * Files other than documentation the goal's calls changed or created
   * since the last passing verification (at most [`MAX_WRITTEN`]).
   */
  changedFiles?: string[]
  /**
   * Changes that touched anything but documentation (or files unknown).
   * While it is 0, a goal that changed only documentation may rest on
   * reading the result back.
   */
  codeChanges: number
  /**
   * Files the goal's calls created, other than documentation and the
   * outputs of runs (at most [`MAX_WRITTEN`]): a program among them must
   * use something else the goal changed to verify it.
   */
  createdFiles?: string[]
  delegations: number
  /** Documentation files the goal changed (at most a few). */
  docsChanged?: string[]
  /** Counts per kind over the whole life of the goal. */
  inspections: number
  /**
   * The last run that looked like a verification but did not count, and why
   * (it ran no tests, ran outside the goal's folder, changed files as it ran).
   */
  lastAttempt?: Attempt | null
  /** Summary of that call (`edit: src/a.rs`), redacted. */
  lastChange?: string | null
  /**
   * The files the last change touched (observed, or named by the tool),
   * relative to the goal's folder, redacted; at most a few.
   */
  lastChangeFiles?: string[]
  /**
   * `seq` of the last call that changed files (0: none yet). Survives the
   * window, so freshness holds however long the history grows.
   */
  lastChangeSeq: number
  /** `seq` of the last call that read a changed documentation file back. */
  lastReadbackSeq: number
  /**
   * The last verification (tests, build, lint, type check, or a run of the
   * project's own program) and its result.
   */
  lastVerification?: LastVerification | null
  /** Most recent entries, oldest first. */
  recent: ToolEvent[]
  /** Number of non-goal main-session calls ever recorded for this goal. */
  seq: number
  /** `seq` at the last goal update: drift = seq - seq_at_update. */
  seqAtUpdate: number
  /**
   * The observed working tree kept after the last observed call (its
   * digest; the manifest is a side file). Absent when not observed.
   */
  tree?: TreeMark | null
  verifications: number
}

/** Rough classification of a tool call, for drift and the completion gate. */
export type ToolKind = "goal" | "inspection" | "action" | "verification" | "other" | "delegation" | "meta" | "noop"

/** Tool calls per kind over the goal's whole life. */
export interface ToolTotals {
  actions: number
  delegations: number
  inspections: number
  /** How many of them the timeline shows (the history keeps a window). */
  shown: number
  total: number
  verifications: number
}

/** The kept working tree's digest (SHA-256 of the side file) and size. */
export interface TreeMark {
  digest: string
  entries: number
  /**
   * The tree's watcher's mark the kept tree is current at (its instance
   * and event count): the next hook asks it what changed since. Absent
   * when no watcher vouched for the tree.
   */
  watch?: string | null
}

/** One unmet condition. */
export interface Unmet {
  /** The record field to fill or fix (`toolHistory` for recorded activity). */
  field: string
  /** What is missing, in words the model can act on. */
  message: string
}

/** `goal_system_update`: record progress and evidence. */
export interface UpdateRequest {
  /** Current blockers. Replaces the whole list when given (pass [] to clear it on purpose). */
  blockers?: string[] | null
  /** The final audit: each requirement checked against the result. Appends; duplicates are ignored; nothing is ever removed. */
  completionAudit?: string[] | null
  /** Constraints to respect. Appends; duplicates are ignored; nothing is ever removed. */
  constraints?: string[] | null
  /** Facts about the environment (versions, paths, services). Appends; duplicates are ignored; nothing is ever removed. */
  currentEnvironment?: string[] | null
  /** Issues found along the way. Additive: they stay until resolved by name. */
  discoveredIssues?: string[] | null
  /** Work completed so far. Appends; duplicates are ignored; nothing is ever removed. */
  doneSoFar?: string[] | null
  /** Refuse the write if the session goal is no longer this id (it was replaced). */
  expectedGoalId?: string | null
  /** What was inspected and found (files read, behaviour observed). Appends; duplicates are ignored; nothing is ever removed. */
  inspectionEvidence?: string[] | null
  /** How discovered issues evolved. Each names one discovered issue exactly and carries evidence; wildcards such as "all issues" are refused. */
  issueResolutions?: IssueResolutionInput[] | null
  /** Behaviour that must keep working. Appends; duplicates are ignored; nothing is ever removed. */
  mustNotRegress?: string[] | null
  /** Refine the wording while the goal is a draft. */
  objective?: string | null
  /** The live queue of remaining work items, next first. Replaces the whole list when given (pass [] to clear it on purpose). */
  remaining?: string[] | null
  /** Tools or commands the work needs. Appends; duplicates are ignored; nothing is ever removed. */
  requiredTools?: string[] | null
  /** One entry per requirement naming it (its text or label such as "R1") with the evidence that covers it. Appends; duplicates are ignored; nothing is ever removed. */
  requirementCoverage?: string[] | null
  /** Explicit requirements of the objective, one per item (e.g. "R1: ..."). Appends; duplicates are ignored; nothing is ever removed. */
  requirements?: string[] | null
  /** Discovered issues that are fixed, each named exactly as discovered (no wildcards). Appends; nothing is ever removed. */
  resolvedIssues?: string[] | null
  /** What is in scope. Appends; duplicates are ignored; nothing is ever removed. */
  scope?: string[] | null
  /** draft, active, or blocked (resumable; give statusReason); paused only by the user. complete/cancelled go through goal_system_close. */
  status?: Status | null
  /** The exact reason, for blocked (or any status change). */
  statusReason?: string | null
  /** Time budget in seconds (the user's: a model cannot set it). null removes it. */
  timeBudgetSeconds?: number | null
  /** Token budget (the user's: a model cannot set it). null removes it. */
  tokenBudget?: number | null
  /** What proves the result is right (tests, outputs). Appends; duplicates are ignored; nothing is ever removed. */
  validationProof?: string[] | null
  /** Commands run to verify, with their outcome. Appends; duplicates are ignored; nothing is ever removed. */
  verificationResults?: string[] | null
}

/** What was already counted from one usage source. */
export interface UsageMark {
  /** Byte offset read up to (transcripts: only whole lines are consumed). */
  offset: number
  /**
   * Recent message ids with the tokens counted for each: one message spans
   * several transcript lines and may straddle two reads.
   */
  recent?: unknown[]
  /**
   * Fingerprint of the host record the source was first counted from (a
   * running total is keyed by the host's session, not by where it was
   * read): the source counts only beside that record afterwards.
   */
  record?: string
  /** The host's running total last seen (Copilot CLI's `tokenCount`). */
  total: number
}

/** What the goal keeps about the user's voice. */
export interface UserVoice {
  /** A user command applied and not yet confirmed by the host's record. */
  pending?: PendingCommand | null
  /**
   * How far the host's record of the session was read for interrupts:
   * a hash of its path and the byte offset.
   */
  recordKey?: string
  recordOffset: number
  /** Commands refused because they did not come from the user (newest last, a few). */
  refused?: RefusedCommand[]
}

/** The vote directions as the tool's schema lists them. */
export type VoteDirection = "upvote" | "downvote"

/** `vote_memory`: say a stored memory helped, or is wrong or outdated. */
export interface VoteMemoryRequest {
  /** upvote when it helped; downvote when it is wrong or outdated. */
  direction?: VoteDirection | null
  /** The memory's fact, exactly as it was shown. */
  fact?: string | null
  /** Why: what it helped with, or what is wrong with it now. */
  reason?: string | null
}

