// Claude Code hooks through the real hook runner, with the payload shapes
// Claude Code 2.1.197 was seen to send (e2e/NOTES.md), answers parsed from stdout.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { runnerHook } from './helpers.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const addon = createRequire(import.meta.url)('../index.js')

// State root one level down: the store's session-local copy goes to its parent.
let base
let stateRoot
let cwd
before(() => {
  base = mkdtempSync(join(tmpdir(), 'goal-claude-'))
  stateRoot = join(base, 'goal-system')
  cwd = join(base, 'proj')
  mkdirSync(cwd)
})
after(() => rmSync(base, { recursive: true, force: true }))

/** Run the runner as the Claude hooks block does: `claude <Event>`. */
const hook = (payload, event = payload.hook_event_name) =>
  runnerHook(stateRoot, 'claude', payload, { event, env: { HOME: join(base, 'home') } })

const readGoal = (session) => JSON.parse(readFileSync(join(stateRoot, 'by-session', `${session}.json`), 'utf8'))

// Exact field sets from the real host; ids and paths vary.
const common = (session) => ({
  session_id: session,
  transcript_path: join(base, 'home/.claude/projects/proj', `${session}.jsonl`),
  cwd,
})
const userPrompt = (s, prompt) => ({
  ...common(s),
  prompt_id: 'c1320013-0000',
  permission_mode: 'default',
  hook_event_name: 'UserPromptSubmit',
  prompt,
})
let useId = 0
const toolBase = (s, event, tool_name, tool_input) => ({
  ...common(s),
  prompt_id: 'c1320013-0000',
  permission_mode: 'default',
  effort: { level: 'high' },
  hook_event_name: event,
  tool_name,
  tool_input,
  tool_use_id: `toolu_${++useId}`,
})
const preTool = (s, name, input) => toolBase(s, 'PreToolUse', name, input)
const postTool = (s, name, input, response) => ({
  ...toolBase(s, 'PostToolUse', name, input),
  tool_response: response ?? {
    stdout: 'hello',
    stderr: '',
    interrupted: false,
    isImage: false,
    noOutputExpected: false,
  },
  duration_ms: 67,
})
const stop = (s, active) => ({
  ...common(s),
  prompt_id: 'c1320013-0000',
  permission_mode: 'default',
  effort: { level: 'high' },
  hook_event_name: 'Stop',
  stop_hook_active: active,
  last_assistant_message: 'All done.',
  background_tasks: [],
  session_crons: [],
})

function bash(s, command) {
  const pre = hook(preTool(s, 'Bash', { command, description: 'step' })).out
  if (pre.hookSpecificOutput?.permissionDecision !== 'deny') hook(postTool(s, 'Bash', { command, description: 'step' }))
  return pre
}

/** A Claude Code 2.1.330 tool call: PreToolUse, then PostToolUse (or PostToolUseFailure with its error). */
function call(s, name, input, { response, error } = {}) {
  const pre = hook(preTool(s, name, input)).out
  if (pre.hookSpecificOutput?.permissionDecision === 'deny') return pre
  if (error) hook({ ...toolBase(s, 'PostToolUseFailure', name, input), error, is_interrupt: false })
  else hook(postTool(s, name, input, response))
  return pre
}
const evidence = {
  status: 'active',
  doneSoFar: ['greet.sh now echoes hello twice'],
  validationProof: ['npm test asserts two lines of hello'],
  verificationResults: ['npm test: 1 passing'],
  completionAudit: ['the greeting prints twice, checked against the npm test output'],
}
const claudeCaller = (s) => ({ sessionId: s, cwd, stateRoot })

test('Claude Code 2.1.330: inspect, edit, test, update, close passes the first time; meta-tools are not evidence', () => {
  const s = 'cl-honest'
  hook(userPrompt(s, '/goal make the greeting print twice'))
  // The deferred goal tools are loaded with ToolSearch; the plan lives in TodoWrite.
  call(
    s,
    'ToolSearch',
    { query: 'select:mcp__goalSystem__goal_system_update' },
    { response: { matches: ['mcp__goalSystem__goal_system_update'] } },
  )
  call(
    s,
    'TodoWrite',
    { todos: [{ content: 'fix greet.sh', status: 'in_progress' }] },
    { response: { oldTodos: [], newTodos: [] } },
  )
  const goal = readGoal(s)
  assert.equal(goal.toolHistory.seq, 0, 'meta-tools are not recorded')

  call(
    s,
    'Read',
    { file_path: join(cwd, 'greet.sh') },
    { response: { type: 'text', file: { filePath: 'greet.sh', content: 'echo hello' } } },
  )
  call(
    s,
    'Edit',
    { file_path: join(cwd, 'greet.sh'), old_string: 'echo hello', new_string: 'echo hello; echo hello' },
    { response: { filePath: 'greet.sh' } },
  )
  call(
    s,
    'Bash',
    { command: 'npm test', description: 'run the tests' },
    {
      response: {
        stdout: '# tests 1\n# pass 1\n# fail 0',
        stderr: '',
        interrupted: false,
        isImage: false,
        noOutputExpected: false,
      },
    },
  )
  addon.updateGoalSync(claudeCaller(s), evidence)
  const closed = addon.closeGoalSync(claudeCaller(s), { status: 'complete' })
  assert.equal(closed.closed, true, closed.summary)
})

test('Claude Code 2.1.330: claims after ToolSearch alone are refused; a failing test (PostToolUseFailure) names the command', () => {
  const s = 'cl-claims'
  hook(userPrompt(s, '/goal make the greeting print twice'))
  call(s, 'ToolSearch', { query: 'goal' }, { response: { matches: [] } })
  addon.updateGoalSync(claudeCaller(s), { ...evidence, inspectionEvidence: ['greet.sh read'] })
  let refused = addon.closeGoalSync(claudeCaller(s), { status: 'complete' })
  assert.equal(refused.closed, false)
  assert.deepEqual(
    refused.unmet.map((u) => u.field),
    ['toolHistory'],
  )
  assert.match(refused.summary, /claims alone are not evidence/)

  call(
    s,
    'Edit',
    { file_path: join(cwd, 'greet.sh'), old_string: 'a', new_string: 'b' },
    { response: { filePath: 'greet.sh' } },
  )
  call(s, 'Bash', { command: 'npm test' }, { error: 'Exit code 1\nnpm ERR! Test failed.  See above for more details.' })
  refused = addon.closeGoalSync(claudeCaller(s), { status: 'complete' })
  assert.equal(refused.closed, false)
  assert.match(refused.summary, /the last verification "npm test" \(call #2\) failed/)
  // The stop directive carries the same facts.
  const blocked = hook(stop(s, false)).out
  assert.match(blocked.reason, /last verification: call #2 "npm test" FAILED/)

  call(
    s,
    'Bash',
    { command: 'npm test' },
    { response: { stdout: 'Tests: 1 passed, 1 total', stderr: '', interrupted: false } },
  )
  assert.equal(addon.closeGoalSync(claudeCaller(s), { status: 'complete' }).closed, true)
})

test('SessionStart with no goal says nothing; /goal opens a persisted draft; a plain prompt does not', () => {
  const s = 'cl-open'
  assert.deepEqual(hook({ ...common(s), hook_event_name: 'SessionStart', source: 'startup' }).out, {})
  assert.deepEqual(hook(userPrompt(s, 'say hello')).out, {})
  assert.equal(existsSync(join(stateRoot, 'by-session', `${s}.json`)), false)

  const { out } = hook(userPrompt(s, '/goal make the greeting print twice'))
  assert.equal(out.hookSpecificOutput.hookEventName, 'UserPromptSubmit')
  assert.match(out.hookSpecificOutput.additionalContext, /sessionId "cl-open"/)
  const goal = readGoal(s)
  assert.equal(goal.completionStatus, 'draft')
  assert.equal(goal.sessionId, s)
  assert.equal(goal.cwd, cwd)
  // A resumed session gets the goal back in context.
  const resumed = hook({ ...common(s), hook_event_name: 'SessionStart', source: 'resume' }).out
  assert.match(resumed.hookSpecificOutput.additionalContext, /make the greeting print twice/)
})

test('drift: warn at 3, deny at 5 in hookSpecificOutput; the MCP goal tool is allowed and not counted', () => {
  const s = 'cl-drift'
  hook(userPrompt(s, '/goal drift objective'))
  assert.deepEqual(bash(s, 'echo 1'), {})
  assert.deepEqual(bash(s, 'echo 2'), {})
  assert.deepEqual(bash(s, 'echo 3'), {})
  assert.match(bash(s, 'echo 4').hookSpecificOutput.additionalContext, /Drift warning: 3/)
  assert.match(bash(s, 'echo 5').hookSpecificOutput.additionalContext, /Drift warning: 4/)
  const denied = bash(s, 'echo 6')
  assert.deepEqual(Object.keys(denied), ['hookSpecificOutput'], 'deny lives in hookSpecificOutput')
  assert.equal(denied.hookSpecificOutput.hookEventName, 'PreToolUse')
  assert.equal(denied.hookSpecificOutput.permissionDecision, 'deny')
  assert.match(denied.hookSpecificOutput.permissionDecisionReason, /goal_system_update/)

  const name = 'mcp__goalSystem__goal_system_update'
  const input = { sessionId: s, cwd, doneSoFar: ['five echoes'] }
  assert.notEqual(hook(preTool(s, name, input)).out.hookSpecificOutput?.permissionDecision, 'deny')
  // The update itself (what the MCP server would do), then Claude's PostToolUse with MCP content.
  addon.updateGoalSync({ sessionId: s, cwd, stateRoot }, { doneSoFar: ['five echoes'] })
  hook(postTool(s, name, input, [{ type: 'text', text: 'Goal updated' }]))
  const goal = readGoal(s)
  assert.equal(goal.toolHistory.seq, 5, 'the goal tool is not recorded')
  assert.ok(!goal.toolHistory.recent.some((e) => e.tool.includes('goal_system')))
  assert.deepEqual(bash(s, 'echo 7'), {}, 'drift reset by the update')
})

test('Stop: top-level block while open, through once closed', () => {
  const s = 'cl-stop'
  hook(userPrompt(s, '/goal stop objective'))
  addon.updateGoalSync({ sessionId: s, cwd, stateRoot }, { status: 'active', remaining: ['write the test'] })
  const { out } = hook(stop(s, false))
  assert.equal(out.decision, 'block')
  assert.match(out.reason, /write the test/, 'the directive names the next remaining item')
  assert.equal(out.hookSpecificOutput, undefined, 'Claude reads Stop at the top level')

  addon.closeGoalSync(
    { sessionId: s, cwd, stateRoot },
    { status: 'blocked', reason: 'needs the staging credentials from the user' },
  )
  const after = hook(stop(s, true)).out
  assert.equal(after.decision, undefined)
  assert.equal(readGoal(s).completionStatus, 'blocked')
  assert.ok(readGoal(s).closedAt)
})

test("usage: the transcript's tokens are counted once; a crossed budget steers once, then the stop goes through", () => {
  const s = 'cl-budget'
  const transcript = common(s).transcript_path
  mkdirSync(join(transcript, '..'), { recursive: true })
  // As Claude Code writes it: one assistant message over several lines, same message.id.
  const message = (id, input, output) => {
    const line = {
      type: 'assistant',
      requestId: `req_${id}`,
      message: {
        id,
        role: 'assistant',
        usage: {
          input_tokens: input,
          output_tokens: output,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    }
    appendFileSync(transcript, `${JSON.stringify(line)}\n${JSON.stringify(line)}\n`)
  }
  hook(userPrompt(s, '/goal budget objective'))
  // The user's budget command: answered by the hook itself (no model call).
  const budget = hook(userPrompt(s, '/goal budget 250')).out
  assert.equal(budget.decision, 'block', JSON.stringify(budget))
  assert.match(budget.reason, /budget/)
  addon.updateGoalSync({ sessionId: s, cwd, stateRoot }, { status: 'active', remaining: ['write the test'] })
  message('msg_1', 90, 10)
  bash(s, 'ls')
  assert.equal(readGoal(s).budget.tokensUsed, 100)
  assert.equal(hook(stop(s, false)).out.decision, 'block', 'under budget the stop is held')
  assert.equal(readGoal(s).budget.tokensUsed, 100, 're-reading the transcript counts nothing twice')

  message('msg_2', 150, 50)
  const crossed = hook(stop(s, true)).out
  assert.equal(crossed.decision, 'block')
  assert.match(crossed.reason, /budget/)
  assert.match(crossed.reason, /wrap up/)
  assert.equal(readGoal(s).completionStatus, 'budget_limited')

  message('msg_3', 40, 10)
  const after = hook(stop(s, true)).out
  assert.equal(after.decision, undefined, 'after the one steer, stops go through')
  const goal = readGoal(s)
  assert.equal(goal.budget.tokensUsed, 350, 'usage after the limit still accrues')
  assert.equal(goal.budget.turns, 3)
})

test('loop guard: stops with no tool call between them are let through; goal blocked, resumable', () => {
  const s = 'cl-loop'
  hook(userPrompt(s, '/goal loop objective'))
  const decisions = []
  for (let i = 0; i < 6; i++) {
    decisions.push(hook(stop(s, i > 0)).out.decision)
    if (decisions.at(-1) !== 'block') break
  }
  assert.deepEqual(decisions.slice(0, 3), ['block', 'block', 'block'])
  assert.equal(decisions.at(-1), undefined, `never let through: ${decisions}`)
  const goal = readGoal(s)
  assert.equal(goal.completionStatus, 'blocked')
  assert.equal(goal.closedAt, null)
  assert.match(goal.statusReason, /loop guard/)
  // An explicit continue prompt resumes it.
  hook(userPrompt(s, '/goal continue'))
  assert.equal(readGoal(s).completionStatus, 'active')
})

test('tool events from a subagent (agent_id) are not recorded nor counted', () => {
  const s = 'cl-sub'
  hook(userPrompt(s, '/goal subagent objective'))
  for (let i = 0; i < 6; i++) {
    const sub = { agent_id: 'a1b2c3', agent_type: 'general-purpose' }
    const pre = hook({ ...preTool(s, 'Bash', { command: 'npm test' }), ...sub }).out
    assert.notEqual(pre.hookSpecificOutput?.permissionDecision, 'deny')
    hook({ ...postTool(s, 'Bash', { command: 'npm test' }), ...sub })
  }
  assert.equal(readGoal(s).toolHistory.seq, 0)
  assert.deepEqual(
    hook({ ...common(s), hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: 'a1b2c3' }).out,
    {},
  )
  bash(s, 'npm test')
  assert.equal(readGoal(s).toolHistory.verifications, 1, 'the main session is recorded')
})

test('SubagentStart (Claude Code 2.1.197 has it) gets the boundary and no goal state', () => {
  const s = 'cl-substart'
  hook(userPrompt(s, '/goal ZEBRA-OBJECTIVE kept from subagents'))
  const { out, stdout } = hook({
    ...common(s),
    hook_event_name: 'SubagentStart',
    agent_id: 'a9f1',
    agent_type: 'general-purpose',
  })
  assert.equal(out.hookSpecificOutput.hookEventName, 'SubagentStart')
  assert.match(out.hookSpecificOutput.additionalContext, /\[goal-system\] You are a subagent/)
  assert.ok(!stdout.includes('ZEBRA') && !stdout.includes(readGoal(s).id))
})

test('PreCompact writes compact/<session>.txt and .txt.json', () => {
  const s = 'cl-compact'
  hook(userPrompt(s, '/goal compact objective'))
  hook({ ...common(s), hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: '' })
  assert.match(readFileSync(join(stateRoot, 'compact', `${s}.txt`), 'utf8'), /compact objective/)
  const meta = JSON.parse(readFileSync(join(stateRoot, 'compact', `${s}.txt.json`), 'utf8'))
  assert.equal(meta.trigger, 'manual')
  assert.equal(meta.open, true)
})

test('garbage stdin gives an allow answer and exit 0', () => {
  for (const input of ['{{{', '', 'null', '"just a string"']) {
    assert.deepEqual(hook(input, 'PreToolUse').out, {}, JSON.stringify(input))
  }
  assert.deepEqual(hook('not json', 'Stop').out, {})
})

test('the Claude hooks block and .mcp.json have the expected shape and run', () => {
  const { hooks } = JSON.parse(readFileSync(join(ROOT, 'adapters/claude/settings.hooks.json'), 'utf8'))
  const events = [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'PreCompact',
    'SubagentStart',
    'SubagentStop',
    'Stop',
  ]
  assert.deepEqual(Object.keys(hooks).sort(), [...events].sort())
  for (const event of events) {
    const [group] = hooks[event]
    if (event.endsWith('ToolUse')) assert.equal(group.matcher, '*')
    const [h] = group.hooks
    assert.equal(h.type, 'command')
    assert.ok(h.timeout > 0)
    assert.ok(h.command.includes('${GOAL_SYSTEM_HOME}/adapters/vscode-chat/hook-runner.mjs'))
    assert.match(
      h.command,
      new RegExp(`"\\$\\{GOAL_SYSTEM_HOOK\\}" --host claude ${event} \\|\\|.* claude ${event} \\|\\| echo '\\{\\}'$`),
    )
  }
  const mcp = JSON.parse(readFileSync(join(ROOT, 'adapters/claude/mcp.json'), 'utf8'))
  assert.equal(mcp.mcpServers.goalSystem.command, 'node')
  assert.match(mcp.mcpServers.goalSystem.args[0], /adapters\/vscode-chat\/mcp-server\.mjs$/)

  // Claude runs hook commands in a shell: the placeholder resolves from the environment.
  const s = 'cl-config'
  hook(userPrompt(s, '/goal config objective'))
  const r = spawnSync('/bin/sh', ['-c', hooks.Stop[0].hooks[0].command], {
    input: JSON.stringify(stop(s, false)),
    encoding: 'utf8',
    env: {
      ...process.env,
      GOAL_SYSTEM_HOME: ROOT,
      GOAL_SYSTEM_HOOK: join(ROOT, 'native', 'goal-hook'),
      GOAL_SYSTEM_STATE_ROOT: stateRoot,
    },
  })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(JSON.parse(r.stdout).decision, 'block')
})
