// The goal_system_* tools as the model sees them: names, descriptions and
// input shapes, defined once for the Copilot CLI extension and the MCP server.
// Shapes describe types only; every rule (limits, wildcards, the completion
// gate) is checked in the Rust core so all hosts get the same messages.
import { z } from 'zod'

const list = (what) =>
  z.array(z.string()).optional().describe(`${what} Appends; duplicates are ignored; nothing is ever removed.`)

const queue = (what) =>
  z
    .array(z.string())
    .optional()
    .describe(`${what} Replaces the whole list when given (pass [] to clear it on purpose).`)

/** The evidence and planning fields every write tool accepts. */
export const recordFields = {
  requirements: list('Explicit requirements of the objective, one per item (e.g. "R1: ...").'),
  scope: list('What is in scope.'),
  mustNotRegress: list('Behaviour that must keep working.'),
  constraints: list('Constraints to respect.'),
  currentEnvironment: list('Facts about the environment (versions, paths, services).'),
  requiredTools: list('Tools or commands the work needs.'),
  validationProof: list('What proves the result is right (tests, outputs).'),
  verificationResults: list('Commands run to verify, with their outcome.'),
  requirementCoverage: list(
    'One entry per requirement naming it (its text or label such as "R1") with the evidence that covers it.',
  ),
  inspectionEvidence: list('What was inspected and found (files read, behaviour observed).'),
  discoveredIssues: list('Issues found along the way. Additive: they stay until resolved by name.'),
  resolvedIssues: list('Discovered issues that are fixed, each named exactly as discovered (no wildcards).'),
  doneSoFar: list('Work completed so far.'),
  completionAudit: list('The final audit: each requirement checked against the result.'),
  remaining: queue('The live queue of remaining work items, next first.'),
  blockers: queue('Current blockers.'),
  issueResolutions: z
    .array(
      z.object({
        issue: z.string().describe('The original discovered issue, word for word.'),
        status: z.enum(['resolved', 'merged', 'renamed', 'duplicate', 'superseded']),
        evidence: z.string().describe('Why the original issue no longer remains open.'),
        into: z.string().optional().describe('For merged/renamed/duplicate/superseded: what it became.'),
      }),
    )
    .optional()
    .describe(
      'How discovered issues evolved. Each names one discovered issue exactly and carries evidence; wildcards such as "all issues" are refused.',
    ),
  expectedGoalId: z
    .string()
    .optional()
    .describe('Refuse the write if the session goal is no longer this id (it was replaced).'),
}

const statusReason = z.string().optional().describe('The exact reason, for blocked (or any status change).')

/** Input shapes of the four tools (without the caller's sessionId/cwd). */
export const toolShapes = {
  goal_system_open: {
    objective: z.string().describe('The objective, as the user stated it with /goal.'),
    status: z
      .enum(['draft', 'active'])
      .optional()
      .describe('draft until inspected; active once work starts (default active).'),
    replace: z
      .boolean()
      .optional()
      .describe(
        'Replace an open goal with a different objective. Only when the user explicitly asked for a new objective.',
      ),
    tokenBudget: z.number().int().nonnegative().optional().describe('Optional token budget.'),
    ...recordFields,
  },
  goal_system_status: {},
  goal_system_update: {
    // A plain string so that a wrong status ("complete") gets the core's
    // explanation (use goal_system_close) rather than a schema error.
    status: z
      .string()
      .optional()
      .describe(
        'draft, active, or blocked (resumable; give statusReason). complete/cancelled go through goal_system_close.',
      ),
    statusReason,
    objective: z.string().optional().describe('Refine the wording while the goal is a draft.'),
    ...recordFields,
  },
  goal_system_close: {
    status: z
      .enum(['complete', 'blocked', 'cancelled'])
      .describe('complete passes only through the completion gate; blocked and cancelled need the exact reason.'),
    reason: z
      .string()
      .optional()
      .describe('The exact blocker or cancellation reason (required for blocked and cancelled).'),
    ...recordFields,
  },
}

/** What the completion gate requires, in the model's terms. */
export const GATE_TEXT =
  'The completion gate requires: objective, doneSoFar, validationProof, verificationResults, inspectionEvidence (or inspection tool activity), ' +
  'requirementCoverage naming every requirement with evidence, completionAudit, empty remaining, empty blockers, every discovered issue resolved ' +
  '(resolvedIssues or an evidence-backed issueResolutions entry), and recorded action or verification tool activity (claims alone are refused).'

/** Tool descriptions (the main session only; subagents must not call them). */
export const toolDescriptions = {
  goal_system_open:
    'Open (or continue) the persisted goal of this session. Use ONLY when the user explicitly asked for a goal with /goal; an ordinary request never opens one ' +
    '(the /goal hook usually has already created a draft: then update it instead). The same objective continues the open goal; a different one is refused ' +
    '(GOAL_EXISTS) unless replace is true because the user asked for a new objective. Any record field may be given at once.',
  goal_system_status:
    "Read this session's goal: objective, queues, recorded evidence, drift (non-goal tool calls since the last update) and every unmet completion condition. " +
    'Never changes state. Use it after a resume, a compaction or a stop directive before continuing.',
  goal_system_update:
    'Record progress and evidence after meaningful work (it also resets drift: after 3-4 non-goal tool calls the hooks warn, from 5 they deny the next one until you update). ' +
    'Durable lists append with de-duplication; remaining and blockers REPLACE the queue when given. After inspecting a draft goal, set status "active" with requirements, ' +
    'scope, remaining and inspectionEvidence. Record only evidence you have checked yourself. Status "blocked" (with the exact statusReason) pauses the goal, resumable.',
  goal_system_close:
    'Close the goal. status "complete" passes only through the completion gate; a refusal lists every unmet condition (evidence sent along is still recorded), ' +
    `so fix them all and close again. ${GATE_TEXT} status "blocked" (terminal) or "cancelled" needs the exact reason. A closed goal never reopens. ` +
    'Subagents must never call goal tools; the main session verifies their output before recording it.',
}

/** The names of the four tools. */
export const toolNames = Object.keys(toolShapes)

/** Which addon function serves each tool. */
export const toolOperations = {
  goal_system_open: 'openGoal',
  goal_system_status: 'goalStatus',
  goal_system_update: 'updateGoal',
  goal_system_close: 'closeGoal',
}

/** Text for the model from an addon result: summary, changes and warnings. */
export function resultText(result) {
  const parts = [result.summary]
  if (result.changes?.length) parts.push(`Changes: ${result.changes.join(', ')}`)
  if (result.warnings?.length) parts.push(`Warnings:\n${result.warnings.map((w) => `- ${w}`).join('\n')}`)
  return parts.filter(Boolean).join('\n')
}

/** Call the addon function behind a tool; status takes no request. */
export function callTool(addon, name, caller, args) {
  const op = toolOperations[name]
  if (!op) throw new Error(`unknown goal tool ${name}`)
  return name === 'goal_system_status' ? addon[op](caller) : addon[op](caller, args ?? {})
}

/** True when a refused close or error must be reported as a failure. */
export function isRefusal(name, result) {
  return name === 'goal_system_close' && result && result.closed === false
}

// ---------------------------------------------------------------- context board

/**
 * Input shape of the `context_board` tool (types only). Its name and
 * description, limits included, come from the core (`addon.contextBoardTool()`).
 */
export const boardShape = {
  command: z
    .enum(['get_board', 'get', 'add', 'prune'])
    .describe(
      'get_board lists metadata; get reads one item; add creates or overwrites an agent item; prune deletes one.',
    ),
  src: z.enum(['agent', 'user']).optional().describe('get: whose item (as listed in the board).'),
  name: z.string().optional().describe("get, add, prune: the item's short kebab-case name."),
  description: z.string().optional().describe('add: a one-line summary shown in the board.'),
  context: z.string().optional().describe('add: the full reusable content (one fact, recipe or trap per item).'),
}

/** Text for the model from a board result: the text and any warnings. */
export function boardText(result) {
  const parts = [result.text]
  if (result.warnings?.length) parts.push(`Warnings:\n${result.warnings.map((w) => `- ${w}`).join('\n')}`)
  return parts.filter(Boolean).join('\n')
}
