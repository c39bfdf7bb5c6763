// Gemini CLI hooks through the native hook (`goal-hook --host gemini`), with the payload shapes
// Gemini CLI 0.61.0 was seen to send (e2e/NOTES.md, "Gemini CLI"), run in the process shape
// Gemini CLI gives its hooks (its own child, in its own session); answers parsed from stdout.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { addon, nativeHook, spawnAsHost } from './helpers.mjs'

let base
let home
let stateRoot
let cwd
before(() => {
  base = mkdtempSync(join(tmpdir(), 'goal-gemini-'))
  home = join(base, 'home')
  stateRoot = join(home, '.copilot', 'session-state', 'goal-system')
  cwd = join(base, 'proj')
  mkdirSync(cwd, { recursive: true })
})
after(() => rmSync(base, { recursive: true, force: true }))

/** Run the native hook as Gemini CLI runs its hook command (`shape` null: a bare spawn). */
function hook(payload, { shape = 'gemini' } = {}) {
  const res = spawnAsHost(shape, [nativeHook, '--host', 'gemini', payload.hook_event_name], {
    input: JSON.stringify(payload),
    env: { ...process.env, HOME: home, GOAL_SYSTEM_STATE_ROOT: stateRoot },
  })
  assert.equal(res.status, 0, res.stderr)
  return JSON.parse(res.stdout)
}

const common = (s, event) => ({
  session_id: s,
  transcript_path: join(home, '.gemini', 'tmp', 'proj', 'chats', `session-2026-11-26T15-05-${s.slice(0, 8)}.jsonl`),
  cwd,
  hook_event_name: event,
  timestamp: new Date().toISOString(),
})
const beforeAgent = (s, prompt) => ({ ...common(s, 'BeforeAgent'), prompt })
const beforeTool = (s, command) => ({
  ...common(s, 'BeforeTool'),
  tool_name: 'run_shell_command',
  tool_input: { command, description: 'x' },
})
const afterTool = (s, command, output) => ({
  ...beforeTool(s, command),
  hook_event_name: 'AfterTool',
  tool_response: {
    llmContent: `<untrusted_context>\nOutput: ${output}\nProcess Group PGID: 77\n</untrusted_context>`,
    returnDisplay: output,
  },
})
const afterAgent = (s, active = false) => ({
  ...common(s, 'AfterAgent'),
  prompt: '/goal x',
  prompt_response: 'Done.',
  stop_hook_active: active,
})
const goalOf = (s) => JSON.parse(readFileSync(join(stateRoot, 'by-session', `${s}.json`), 'utf8'))

test('Gemini: /goal X opens a goal at BeforeAgent; AfterAgent holds the stop with decision "deny"', () => {
  const s = randomUUID()
  const opened = hook(beforeAgent(s, '/goal make the greeting script print hello twice'))
  assert.equal(opened.hookSpecificOutput.hookEventName, 'BeforeAgent')
  assert.match(opened.hookSpecificOutput.additionalContext, /opened draft goal/)
  assert.equal(goalOf(s).objective, 'make the greeting script print hello twice')
  addon.updateGoalSync(
    { sessionId: s, cwd, stateRoot },
    { status: 'active', requirements: ['R1'], remaining: ['fix greet.sh'] },
  )
  const held = hook(afterAgent(s))
  assert.equal(held.decision, 'deny')
  assert.match(held.reason, /fix greet\.sh/)
  hook(afterTool(s, 'sh test.sh', 'ok 1 - greet'))
  assert.equal(goalOf(s).toolHistory.seq, 1, "AfterTool's run_shell_command was recorded")
})

test("Gemini: a user command from outside Gemini CLI's hook shape is refused", () => {
  const s = randomUUID()
  hook(beforeAgent(s, '/goal keep the build green'))
  addon.updateGoalSync({ sessionId: s, cwd, stateRoot }, { status: 'active', remaining: ['build'] })
  const forged = hook(beforeAgent(s, '/goal cancel'), { shape: 'claude' })
  assert.equal(forged.decision, undefined)
  const goal = goalOf(s)
  assert.equal(goal.completionStatus, 'active')
  assert.match(JSON.stringify(goal.voice.refused), /cancel/)
  const paused = hook(beforeAgent(s, '/goal pause'))
  assert.equal(goalOf(s).completionStatus, 'paused', 'the user pauses from the hook')
  assert.match(paused.systemMessage, /paused by the user/)
})

test('Gemini: a shell call into the goal state is denied in BeforeTool shape', () => {
  const s = randomUUID()
  const out = hook(beforeTool(s, `rm -rf ${stateRoot}`))
  assert.equal(out.decision, 'deny')
  assert.match(out.reason, /goal-system/)
})

/**
 * A model answer as Gemini CLI 0.61.0 records it in its chat recording (`transcript_path`): its
 * tokens are the answer's usageMetadata; the record is appended again, same id, with its tool calls.
 */
const answerRecord = (id, input, output, toolCalls) =>
  `${JSON.stringify({
    id,
    timestamp: new Date().toISOString(),
    type: 'gemini',
    content: '',
    thoughts: [],
    tokens: { input, output, cached: 0, thoughts: 0, tool: 0, total: input + output },
    model: 'gemini-e2e',
    ...(toolCalls ? { toolCalls } : {}),
  })}\n`

test("Gemini: the goal's tokens are the chat recording's, each answer once, from the goal's prompt on", () => {
  const s = randomUUID()
  const chat = common(s, 'x').transcript_path
  mkdirSync(dirname(chat), { recursive: true })
  appendFileSync(chat, `${JSON.stringify({ sessionId: s, projectHash: 'h', kind: 'main' })}\n`)
  appendFileSync(chat, answerRecord('before-goal', 900, 90)) // a turn before /goal: not the goal's
  hook(beforeAgent(s, '/goal count the tokens'))
  appendFileSync(chat, `${JSON.stringify({ id: 'u1', type: 'user', content: [{ text: '/goal count the tokens' }] })}\n`)
  appendFileSync(chat, answerRecord('a1', 100, 11))
  appendFileSync(chat, answerRecord('a1', 100, 11, [{ id: 'c1', name: 'run_shell_command', args: { command: 'ls' } }]))
  hook(afterTool(s, 'ls', 'greet.sh'))
  assert.equal(goalOf(s).budget.tokensUsed, 111, 'the answer that called the tool, once')
  appendFileSync(chat, answerRecord('a2', 120, 7))
  hook(afterAgent(s))
  const goal = goalOf(s)
  assert.equal(goal.budget.tokensUsed, 111 + 127)
  assert.equal(goal.budget.turns, 1)
})
