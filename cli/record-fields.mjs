// The record's fields as the command takes them, read from the core's
// generated request schemas (schema/goal-tools.json), never re-listed here:
// the list fields (each also a --flag of its own name), the close statuses,
// and the short flag names the command adds for the common ones.
import { toolDefinitions } from './tool-definitions.mjs'

/** The goal tools' input schemas, generated from the core's typed requests. */
const TOOL_INPUTS = Object.fromEntries(
  toolDefinitions().map((d) => [d.name.replace('goal_system_', ''), d.inputSchema]),
)

/** The record's list fields: the update request's string lists, in its order. */
export const LIST_FIELDS = Object.entries(TOOL_INPUTS.update.properties)
  .filter(([, schema]) => schema.type === 'array' && schema.items?.type === 'string')
  .map(([name]) => name)

/** The statuses a close takes. */
export const CLOSE_STATUSES = TOOL_INPUTS.close.properties.status.enum

/** Short flag names for the common list fields (a test holds that each names one of LIST_FIELDS). */
export const FIELD_ALIASES = {
  done: 'doneSoFar',
  requirement: 'requirements',
  constraint: 'constraints',
  'must-not-regress': 'mustNotRegress',
  environment: 'currentEnvironment',
  tool: 'requiredTools',
  validation: 'validationProof',
  verification: 'verificationResults',
  coverage: 'requirementCoverage',
  inspection: 'inspectionEvidence',
  issue: 'discoveredIssues',
  resolved: 'resolvedIssues',
  audit: 'completionAudit',
  blocker: 'blockers',
}
