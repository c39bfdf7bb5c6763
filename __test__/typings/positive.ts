// A sample adapter written against the generated typings: it must compile
// under `tsc --strict`.
import type { ErrorCode, Goal, HookEvent, Host, OpenRequest, Status, UpdateRequest } from '../../index.js'
import {
  closeGoal,
  contextBoard,
  goalLog,
  goalRecordSchema,
  goalStatus,
  listGoals,
  looksLikeSubagent,
  openGoal,
  runHook,
  toolAnswer,
  toolDefinitions,
  updateGoal,
} from '../../index.js'

const caller = { sessionId: 'adapter-session', cwd: '/work/project' }

export async function work(): Promise<Status> {
  const open: OpenRequest = { objective: 'ship the parser', status: 'draft', requirements: ['R1: parses'] }
  const opened = await openGoal(caller, open)
  const goal: Goal = opened.goal
  const update: UpdateRequest = {
    status: 'active',
    doneSoFar: ['parser rewritten'],
    issueResolutions: [{ issue: 'slow start', status: 'resolved', evidence: 'bench: 40 ms' }],
    expectedGoalId: goal.id,
  }
  const updated = await updateGoal(caller, update)
  const closed = await closeGoal(caller, { status: 'blocked', reason: 'needs the staging password' })
  return closed.closed ? closed.goal.completionStatus : updated.goal.completionStatus
}

export function hook(host: Host, event: HookEvent, stdin: string): string {
  return runHook(host, event, stdin).stdout
}

export const claude = runHook('claude-code', 'PreToolUse', '{}')
export const copilot = runHook('copilot-cli', 'agentStop', '{}')

export function toolNames(): string[] {
  return toolDefinitions().map((t) => `${t.name}: ${t.annotations.readOnlyHint}`)
}

export function isRefusedForRole(err: { code: ErrorCode }): boolean {
  return err.code === 'FORBIDDEN'
}

// Every value that crosses is typed: a wrong use of any of them fails to
// compile (were one `any`, its @ts-expect-error would be unused, an error too).
export function views(idOrSession: string): string[] {
  const log = goalLog(idOrSession)
  const kinds: string[] = log.timeline.events.map((e) => `${e.kind} ${e.toolKind ?? ''} ${e.atMs + 1}`)
  // @ts-expect-error: a timeline event's kind is a string union
  const wrongKind: number = log.timeline.events[0].kind
  const checklist = log.checklist.filter((c) => !c.met).map((c) => `${c.field}: ${c.unmet.join('; ')}`)
  // @ts-expect-error: a checklist item's evidence is a list
  const wrongEvidence: string = log.checklist[0].evidence
  const coverage = log.coverage.map((c) => `${c.requirement} ${c.covered} ${c.entries.length}`)
  // @ts-expect-error: the budget may be absent
  const used: number = log.budget.used
  const listed = listGoals().map((l) => l.goal.objective)
  // @ts-expect-error: a listed goal's objective is a string
  const wrongObjective: number = listGoals()[0].goal.objective
  const schema = goalRecordSchema()
  // @ts-expect-error: a schema is an object, not a string
  const wrongSchema: string = schema
  void [wrongKind, wrongEvidence, used, wrongObjective, wrongSchema]
  return [...kinds, ...checklist, ...coverage, ...listed, Object.keys(schema).join()]
}

export async function board(cwd: string): Promise<string[]> {
  const result = await contextBoard({ cwd }, { command: 'get_board' })
  // @ts-expect-error: a listed item's readCount is a number
  const wrongCount: string = result.items[0].readCount
  void wrongCount
  const answer = toolAnswer(result)
  return result.items.map((i) => `${i.src}/${i.name}: ${i.description} (${i.readCount})`).concat(answer.text)
}

export async function autopilot(): Promise<string> {
  const status = await goalStatus(caller)
  // @ts-expect-error: the host's objective may be absent
  const wrongTurns: number = status.autopilot.turnCount
  void wrongTurns
  return `${status.autopilot?.objective ?? ''} ${status.autopilot?.status ?? ''}`
}

export function subagent(invocation: { sessionId: string; agentId?: string }): boolean {
  // @ts-expect-error: the invocation is JSON data, not a function
  looksLikeSubagent(() => 0)
  return looksLikeSubagent(invocation, 'main') || looksLikeSubagent({ parentSessionId: 'p', extra: [1] })
}
