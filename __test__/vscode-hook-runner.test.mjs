// VS Code Copilot Chat hooks through the real hook runner: payloads on stdin
// (snake_case as VS Code sends them, camelCase too), answers parsed from stdout.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { runnerHook } from './helpers.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUNNER = join(ROOT, 'adapters/vscode-chat/hook-runner.mjs')
const addon = createRequire(import.meta.url)('../index.js')

// The state root sits one level down: the store also writes a session-local
// copy to <parent of the root>/<session>/goal-state.json, which must stay inside
// this run's temp folder.
let base
let stateRoot
let cwd
before(() => {
  base = mkdtempSync(join(tmpdir(), 'goal-vscode-'))
  stateRoot = join(base, 'goal-system')
  cwd = join(base, 'proj')
  mkdirSync(cwd)
})
after(() => rmSync(base, { recursive: true, force: true }))

/** Run the hook runner like VS Code does; returns the parsed answer and the raw output. */
const hook = (payload, { host = 'vscode', event, runner = RUNNER } = {}) =>
  runnerHook(stateRoot, host, payload, { event, runnerPath: runner })

const readGoal = (session) => JSON.parse(readFileSync(join(stateRoot, 'by-session', `${session}.json`), 'utf8'))
const caller = (session) => ({ sessionId: session, cwd, stateRoot })

const prompt = (session, text) => ({ session_id: session, cwd, hook_event_name: 'UserPromptSubmit', prompt: text })
const preTool = (session, tool_name, tool_input, extra = {}) => ({
  session_id: session,
  cwd,
  hook_event_name: 'PreToolUse',
  tool_name,
  tool_input,
  ...extra,
})
const postTool = (session, tool_name, tool_input, extra = {}) => ({
  session_id: session,
  cwd,
  hook_event_name: 'PostToolUse',
  tool_name,
  tool_input,
  tool_response: 'ok',
  ...extra,
})
const stop = (session, active = false) => ({
  session_id: session,
  cwd,
  hook_event_name: 'Stop',
  stop_hook_active: active,
})

/** One non-goal tool call as the host reports it: PreToolUse, then PostToolUse. */
function toolCall(session, n) {
  const input = { command: `echo step-${n}` }
  const pre = hook(preTool(session, 'run_in_terminal', input))
  hook(postTool(session, 'run_in_terminal', input))
  return pre.out
}

test('inspect, edit, test, update, close passes the first time; an edit after the test is refused first', () => {
  const s = 'vs-honest'
  hook(prompt(s, '/goal make the greeting print twice'))
  const call = (name, input, tool_response = 'ok') => {
    hook(preTool(s, name, input))
    hook(postTool(s, name, input, { tool_response }))
  }
  call('manage_todo_list', { todoList: [{ id: 1, title: 'fix greet.sh', status: 'in-progress' }] })
  call('read_file', { filePath: join(cwd, 'greet.sh'), startLine: 1, endLine: 5 }, 'echo hello')
  call(
    'run_in_terminal',
    { command: 'npm test', explanation: 'run the tests', isBackground: false },
    'Tests: 1 passed, 1 total',
  )
  // The editor changes the file, as VS Code's tool does, then the hook runs.
  writeFileSync(join(cwd, 'greet.sh'), 'echo hello; echo hello\n')
  call('replace_string_in_file', {
    filePath: join(cwd, 'greet.sh'),
    oldString: 'echo hello',
    newString: 'echo hello; echo hello',
  })
  const evidence = {
    status: 'active',
    doneSoFar: ['greet.sh now echoes hello twice'],
    validationProof: ['npm test asserts two lines of hello'],
    verificationResults: ['npm test: 1 passed'],
    completionAudit: ['the greeting prints twice, checked against the npm test output'],
  }
  addon.updateGoalSync(caller(s), evidence)
  const refused = addon.closeGoalSync(caller(s), { status: 'complete' })
  assert.equal(refused.closed, false)
  assert.match(
    refused.summary,
    /"replace_string_in_file: .*greet.sh", changed "greet.sh"\) came after the last passing verification "npm test"/,
  )
  call(
    'run_in_terminal',
    { command: 'npm test', explanation: 'rerun', isBackground: false },
    'Tests: 1 passed, 1 total',
  )
  const closed = addon.closeGoalSync(caller(s), { status: 'complete' })
  assert.equal(closed.closed, true, closed.summary)
})

test('/goal creates a persisted draft; an ordinary prompt does not', () => {
  const { out } = hook(prompt('vs-open', '/goal make the greeting print twice'))
  assert.equal(out.hookSpecificOutput.hookEventName, 'UserPromptSubmit')
  // The context carries the session id and cwd the MCP tools need.
  assert.match(out.hookSpecificOutput.additionalContext, /sessionId "vs-open"/)
  assert.ok(out.hookSpecificOutput.additionalContext.includes(JSON.stringify(cwd)))
  const goal = readGoal('vs-open')
  assert.equal(goal.completionStatus, 'draft')
  assert.equal(goal.objective, 'make the greeting print twice')
  assert.equal(goal.closedAt, null)

  const plain = hook(prompt('vs-plain', 'please refactor the greeting'))
  assert.deepEqual(plain.out, {})
  assert.equal(existsSync(join(stateRoot, 'by-session', 'vs-plain.json')), false)
})

test('camelCase payloads work, with the event taken from the payload', () => {
  const { out } = hook({
    sessionId: 'vs-camel',
    cwd,
    hookEventName: 'UserPromptSubmit',
    prompt: '/goal camel objective',
  })
  assert.equal(out.hookSpecificOutput.hookEventName, 'UserPromptSubmit')
  assert.equal(readGoal('vs-camel').completionStatus, 'draft')
  // camelCase tool events are recorded too.
  hook({
    sessionId: 'vs-camel',
    cwd,
    hookEventName: 'PostToolUse',
    toolName: 'read_file',
    toolInput: { filePath: 'a.txt' },
    toolResponse: 'x',
  })
  assert.equal(readGoal('vs-camel').toolHistory.inspections, 1)
})

test('drift: warning at 3 non-goal calls, denial at 5, goal tools never count', () => {
  const s = 'vs-drift'
  hook(prompt(s, '/goal drift objective'))
  assert.deepEqual(toolCall(s, 1), {})
  assert.deepEqual(toolCall(s, 2), {})
  assert.deepEqual(toolCall(s, 3), {})
  // Three calls since the last update: the fourth is warned about.
  let out = toolCall(s, 4)
  assert.equal(out.hookSpecificOutput.hookEventName, 'PreToolUse')
  assert.match(out.hookSpecificOutput.additionalContext, /Drift warning: 3 non-goal/)
  assert.equal(out.hookSpecificOutput.permissionDecision, undefined)
  out = toolCall(s, 5)
  assert.match(out.hookSpecificOutput.additionalContext, /Drift warning: 4 non-goal/)
  // Five: the next non-goal call is denied.
  const denied = hook(preTool(s, 'run_in_terminal', { command: 'echo six' })).out
  assert.equal(denied.hookSpecificOutput.hookEventName, 'PreToolUse')
  assert.equal(denied.hookSpecificOutput.permissionDecision, 'deny')
  assert.match(denied.hookSpecificOutput.permissionDecisionReason, /goal_system_update/)
  // The goal tools pass, however prefixed, and their use is not recorded.
  for (const name of [
    'mcp__goalSystem__goal_system_update',
    'mcp_goalsystem_goal_system_update',
    'goalSystem/goal_system_status',
    'goal_system_close',
  ]) {
    const r = hook(preTool(s, name, { sessionId: s, cwd })).out
    assert.notEqual(r.hookSpecificOutput?.permissionDecision, 'deny', name)
    hook(postTool(s, name, { sessionId: s, cwd }))
  }
  assert.equal(readGoal(s).toolHistory.seq, 5)
  // An update resets drift.
  addon.updateGoalSync(caller(s), { doneSoFar: ['ran five steps'] })
  assert.deepEqual(hook(preTool(s, 'run_in_terminal', { command: 'echo seven' })).out, {})
})

test('Stop is blocked while the goal is open, and not once it is closed', () => {
  const s = 'vs-stop'
  hook(prompt(s, '/goal stop objective'))
  const { out } = hook(stop(s))
  assert.equal(out.hookSpecificOutput.hookEventName, 'Stop')
  assert.equal(out.hookSpecificOutput.decision, 'block')
  assert.match(out.hookSpecificOutput.reason, /still open/)
  assert.equal(out.decision, undefined, 'VS Code reads the decision inside hookSpecificOutput')

  // The user's cancel, typed in the chat.
  hook(prompt(s, '/goal cancel: the user withdrew the request'))
  const closed = hook(stop(s, true)).out
  assert.notEqual(closed.hookSpecificOutput?.decision, 'block')
  assert.equal(readGoal(s).completionStatus, 'cancelled')
})

test('loop guard: repeated blocked stops with no tool call let the stop through, goal blocked and resumable', () => {
  const s = 'vs-loop'
  hook(prompt(s, '/goal loop objective'))
  const answers = []
  for (let i = 0; i < 6; i++) {
    const { out } = hook(stop(s, i > 0))
    answers.push(out.hookSpecificOutput?.decision === 'block' ? 'block' : 'pass')
    if (answers.at(-1) === 'pass') break
  }
  assert.deepEqual(answers.slice(0, 3), ['block', 'block', 'block'])
  assert.equal(answers.at(-1), 'pass', `never let through: ${answers}`)
  const goal = readGoal(s)
  assert.equal(goal.completionStatus, 'blocked')
  assert.equal(goal.closedAt, null, 'blocked by the loop guard stays resumable')
  assert.match(goal.statusReason, /loop guard/)

  // A tool call between stops is progress: the guard starts counting again.
  const t = 'vs-loop-progress'
  hook(prompt(t, '/goal progress objective'))
  for (let i = 0; i < 5; i++) {
    assert.equal(hook(stop(t, i > 0)).out.hookSpecificOutput?.decision, 'block', `stop ${i}`)
    toolCall(t, i)
  }
  assert.equal(readGoal(t).completionStatus, 'draft')
})

test('SubagentStart gets the boundary message and no goal state', () => {
  const s = 'vs-sub'
  hook(prompt(s, '/goal ZEBRA-SECRET-OBJECTIVE for the subagent test'))
  const goalId = readGoal(s).id
  const { out, stdout } = hook({
    session_id: s,
    cwd,
    hook_event_name: 'SubagentStart',
    agent_id: 'agent-1',
    agent_type: 'Explore',
  })
  assert.equal(out.hookSpecificOutput.hookEventName, 'SubagentStart')
  assert.match(out.hookSpecificOutput.additionalContext, /subagent/i)
  assert.ok(!stdout.includes('ZEBRA'), 'no objective text for a subagent')
  assert.ok(!stdout.includes(goalId), 'no goal id for a subagent')
  assert.deepEqual(hook({ session_id: s, cwd, hook_event_name: 'SubagentStop', agent_id: 'agent-1' }).out, {})
})

test('subagent tool events (agent_id) are neither counted nor recorded', () => {
  const s = 'vs-subtools'
  hook(prompt(s, '/goal subagent tools objective'))
  for (let n = 0; n < 6; n++) {
    const extra = { agent_id: 'agent-7', agent_type: 'general-purpose' }
    const pre = hook(preTool(s, 'run_in_terminal', { command: `npm test ${n}` }, extra)).out
    assert.notEqual(pre.hookSpecificOutput?.permissionDecision, 'deny')
    hook(postTool(s, 'run_in_terminal', { command: `npm test ${n}` }, extra))
  }
  const history = readGoal(s).toolHistory
  assert.equal(history.seq, 0)
  assert.equal(history.verifications + history.actions + history.inspections, 0)
  // The main session's own call is recorded.
  hook(postTool(s, 'run_in_terminal', { command: 'npm test' }))
  assert.equal(readGoal(s).toolHistory.verifications, 1)
})

test('PreCompact writes the compact snapshot and its metadata', () => {
  const s = 'vs-compact'
  hook(prompt(s, '/goal compact objective'))
  const { out } = hook({ session_id: s, cwd, hook_event_name: 'PreCompact', trigger: 'auto' })
  assert.equal(typeof out, 'object')
  const text = readFileSync(join(stateRoot, 'compact', `${s}.txt`), 'utf8')
  assert.match(text, /compact objective/)
  const meta = JSON.parse(readFileSync(join(stateRoot, 'compact', `${s}.txt.json`), 'utf8'))
  assert.equal(meta.sessionId, s)
  assert.equal(meta.trigger, 'auto')
  assert.equal(meta.goalId, readGoal(s).id)
})

test('garbage, empty stdin and a missing addon all give an allow answer and exit 0', () => {
  for (const input of ['this is not json', '', '[1,2', '{"hook_event_name":"PreToolUse"}']) {
    const r = hook(input, { event: 'PreToolUse' })
    assert.deepEqual(r.out, {}, JSON.stringify(input))
  }
  assert.match(hook('not json', { event: 'Stop' }).stderr, /not valid JSON/)
  // A copy of the runner two folders below a temp dir cannot find ../../index.js.
  const dir = mkdtempSync(join(tmpdir(), 'goal-vscode-noaddon-'))
  try {
    mkdirSync(join(dir, 'a', 'b'), { recursive: true })
    const copy = join(dir, 'a', 'b', 'hook-runner.mjs')
    cpSync(RUNNER, copy)
    const r = hook(stop('vs-noaddon'), { runner: copy })
    assert.deepEqual(r.out, {})
    assert.match(r.stderr, /could not load the goal-system addon.*allowing/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the VS Code hooks file runs the runner for every event it names', () => {
  const config = JSON.parse(readFileSync(join(ROOT, 'adapters/vscode-chat/hooks/goal-system.json'), 'utf8'))
  const events = [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PreCompact',
    'SubagentStart',
    'SubagentStop',
    'Stop',
  ]
  assert.deepEqual(Object.keys(config.hooks).sort(), [...events].sort())
  for (const event of events) {
    const [entry] = config.hooks[event]
    assert.equal(entry.type, 'command')
    assert.ok(entry.timeout > 0)
    assert.ok(entry.command.includes('${GOAL_SYSTEM_HOME}/adapters/vscode-chat/hook-runner.mjs'), entry.command)
    assert.match(
      entry.command,
      new RegExp(`"\\$\\{GOAL_SYSTEM_HOOK\\}" --host vscode ${event} \\|\\|.* vscode ${event} \\|\\| echo '\\{\\}'$`),
    )
  }
  // Run one command through a shell, the placeholder resolved from the environment.
  const s = 'vs-config'
  const r = spawnSync('/bin/sh', ['-c', config.hooks.UserPromptSubmit[0].command], {
    input: JSON.stringify(prompt(s, '/goal config objective')),
    encoding: 'utf8',
    env: {
      ...process.env,
      GOAL_SYSTEM_HOME: ROOT,
      GOAL_SYSTEM_HOOK: join(ROOT, 'native', 'goal-hook'),
      GOAL_SYSTEM_STATE_ROOT: stateRoot,
    },
  })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(JSON.parse(r.stdout).hookSpecificOutput.hookEventName, 'UserPromptSubmit')
  assert.equal(readGoal(s).objective, 'config objective')
})
