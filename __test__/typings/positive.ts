// A sample adapter written against the generated typings: it must compile
// under `tsc --strict`.
import type { ErrorCode, Goal, HookEvent, Host, OpenRequest, Status, UpdateRequest } from '../../index.js'
import { closeGoal, openGoal, runHook, toolDefinitions, updateGoal } from '../../index.js'

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
