#!/usr/bin/env node
// Gemini CLI's token usage: what reading its chat recording adds to an AfterTool hook (the
// record grows by one answer per call, as the host writes it), against the same hook with no
// `transcript_path`; and what an AfterModel hook would cost on every model call instead (its
// payload carries the whole request), against a shell that only reads the payload. One
// interleaved run; ratios, not absolute times, carry across machines.
// Usage: node bench/gemini.mjs [iterations]
import { spawnSync } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnAsHost } from '../__test__/helpers.mjs'
import { addon, nativeHook, openAsUser } from './common.mjs'

const iterations = Number(process.argv[2] ?? 100)
const hook = nativeHook()
const home = mkdtempSync(join(tmpdir(), 'goal-bench-gemini-'))
const stateRoot = join(home, '.copilot', 'session-state', 'goal-system')
const env = { ...process.env, HOME: home, GOAL_SYSTEM_STATE_ROOT: stateRoot, GOAL_SYSTEM_WATCH: 'off' }
const cwd = join(home, 'project')
mkdirSync(cwd, { recursive: true })
for (let i = 0; i < 50; i++) writeFileSync(join(cwd, `f${i}.txt`), `${i}\n`)
const withRecord = '11111111-1111-4111-8111-111111111111'
// Where and as Gemini CLI writes a main session's recording: a hook reads it nowhere else.
const chat = join(
  home,
  '.gemini',
  'tmp',
  'project',
  'chats',
  `session-2026-11-26T18-00-${withRecord.slice(0, 8)}.jsonl`,
)
mkdirSync(join(chat, '..'), { recursive: true })
writeFileSync(chat, `${JSON.stringify({ sessionId: withRecord, kind: 'main' })}\n`)

const without = '22222222-2222-4222-8222-222222222222'
// The goal whose usage is read is opened in Gemini CLI, as a user does (a goal opened in
// another host is pinned to that host's record and counts nothing from Gemini's).
const typed = spawnAsHost('gemini', [hook, '--host', 'gemini', 'BeforeAgent'], {
  input: JSON.stringify({
    session_id: withRecord,
    transcript_path: chat,
    cwd,
    hook_event_name: 'BeforeAgent',
    timestamp: new Date().toISOString(),
    prompt: '/goal measure the usage read',
  }),
  env,
})
if (!typed.stdout.includes('draft goal')) throw new Error(`/goal was not taken: ${typed.stdout}${typed.stderr}`)
addon.updateGoalSync({ sessionId: withRecord, cwd, stateRoot }, { status: 'active', remaining: ['x'] })
openAsUser({ stateRoot, home }, without, cwd, 'measure the usage read', { status: 'active', remaining: ['x'] })

const run = (command, payload) => {
  const t = process.hrtime.bigint()
  const r = spawnSync('sh', ['-c', command], { input: payload, env, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return Number(process.hrtime.bigint() - t) / 1e6
}
const afterTool = (s, transcript) =>
  JSON.stringify({
    session_id: s,
    transcript_path: transcript,
    cwd,
    hook_event_name: 'AfterTool',
    timestamp: new Date().toISOString(),
    tool_name: 'run_shell_command',
    tool_input: { command: 'ls', description: 'list' },
    tool_response: { llmContent: 'Output: f0.txt', returnDisplay: 'f0.txt' },
  })
// An AfterModel payload at a 60-message conversation (~180 KB): llm_request holds all of it.
const afterModel = JSON.stringify({
  session_id: without,
  transcript_path: '',
  cwd,
  hook_event_name: 'AfterModel',
  timestamp: new Date().toISOString(),
  llm_request: {
    model: 'gemini-e2e',
    messages: Array.from({ length: 60 }, (_, i) => ({ role: i % 2 ? 'model' : 'user', content: 'x'.repeat(3000) })),
  },
  llm_response: {
    text: 'ok',
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
  },
})

const t = { withRecord: [], without: [], afterModel: [], readOnly: [] }
for (let i = 0; i < iterations; i++) {
  appendFileSync(
    chat,
    `${JSON.stringify({ id: `m${i}`, type: 'gemini', content: '', tokens: { input: 100, output: 10, total: 110 } })}\n`,
  )
  t.withRecord.push(run(`"${hook}" --host gemini AfterTool`, afterTool(withRecord, chat)))
  t.without.push(run(`"${hook}" --host gemini AfterTool`, afterTool(without, '')))
  t.afterModel.push(run(`"${hook}" --host gemini AfterModel`, afterModel))
  t.readOnly.push(run('cat >/dev/null', afterModel))
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]))
const goal = JSON.parse(readFileSync(join(stateRoot, 'by-session', `${withRecord}.json`), 'utf8'))
console.log(`Gemini CLI usage, ${iterations} interleaved rounds (medians):`)
console.log(
  `  AfterTool reading the chat recording  ${m.withRecord.toFixed(2)} ms  (${(m.withRecord / m.without).toFixed(2)}x the same hook without it, ${m.without.toFixed(2)} ms)`,
)
console.log(`  tokens counted: ${goal.budget.tokensUsed} of ${110 * iterations} recorded`)
// A hook that read nothing would be measured as cheap: the count must be there.
if (goal.budget.tokensUsed === 0) throw new Error('the hook counted no tokens: it did not read the recording')
console.log(
  `  an AfterModel hook per model call     ${m.afterModel.toFixed(2)} ms  (${(afterModel.length / 1024).toFixed(0)} KB payload; ${m.readOnly.toFixed(2)} ms for a shell that only reads it)`,
)
rmSync(home, { recursive: true, force: true })
