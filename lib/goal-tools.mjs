// The goal_system_* tools as the model sees them: names, descriptions and
// input shapes, defined once for the Copilot CLI extension and the MCP server.
// Shapes describe types only; every rule (limits, wildcards, the completion
// gate) is checked in the Rust core so all hosts get the same messages.
import { z } from 'zod'

const list = (what) =>
  z
    .array(z.string())
    .optional()
    .describe(`${what} Appends; duplicates are ignored; nothing is ever removed.`)

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
    .describe('How discovered issues evolved. Each names one discovered issue exactly and carries evidence; wildcards such as "all issues" are refused.'),
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
    status: z.enum(['draft', 'active']).optional().describe('draft until inspected; active once work starts (default active).'),
    replace: z
      .boolean()
      .optional()
      .describe('Replace an open goal with a different objective. Only when the user explicitly asked for a new objective.'),
    tokenBudget: z.number().int().nonnegative().optional().describe('Optional token budget.'),
    ...recordFields,
  },
  goal_system_status: {},
  goal_system_update: {
    status: z.enum(['draft', 'active', 'blocked']).optional().describe('active to start or resume work; blocked (resumable) needs statusReason.'),
    statusReason,
    objective: z.string().optional().describe('Refine the wording while the goal is a draft.'),
    ...recordFields,
  },
  goal_system_close: {
    status: z
      .enum(['complete', 'blocked', 'cancelled'])
      .describe('complete passes only through the completion gate; blocked and cancelled need the exact reason.'),
    reason: z.string().optional().describe('The exact blocker or cancellation reason (required for blocked and cancelled).'),
    ...recordFields,
  },
}

const gateText =
  'The completion gate requires: objective, doneSoFar, validationProof, verificationResults, inspectionEvidence (or inspection in the tool history), requirementCoverage naming every requirement, completionAudit, empty remaining and blockers, every discoveredIssue resolved by name with evidence, and recorded action or verification tool activity.'

/** Tool descriptions (the main session only; subagents must not call them). */
export const toolDescriptions = {
  goal_system_open:
    'Open the session goal, only when the user explicitly asked with /goal (or continue it when the objective is the same). Never open a goal for an ordinary request. Subagents must not call goal tools.',
  goal_system_status:
    'Reload the session goal: objective, status, remaining items, unmet completion conditions and drift. Call it after a stop block, a compaction or a resume.',
  goal_system_update:
    'Record progress and evidence after meaningful work (this resets the drift counter: after 3 non-goal tool calls you are warned, after 5 further calls are denied). Lists append; remaining and blockers replace when given.',
  goal_system_close: `Close the session goal. ${gateText} A refused close lists every unmet condition; record them and try again. Use status blocked or cancelled with the exact reason when the goal cannot be finished.`,
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

/** Text for the model from an addon result: the summary plus warnings. */
export function resultText(result) {
  const warnings = (result.warnings ?? []).map((w) => `Warning: ${w}`)
  return [result.summary, ...warnings].filter(Boolean).join('\n')
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
