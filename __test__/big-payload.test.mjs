// Big payloads through the native hook as Copilot CLI sends them (issue 29):
// a 10 MB tool result is judged by its end, and a write tool carrying a big
// file is searched whole by the guard and recorded after. The byte reader
// (crates/goal-core/src/hooks/protocol/fast.rs) reads these; a regression in
// it shows here as a wrong verdict, a missed refusal or a call not recorded.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { addon, nativeHook, tempState, userOpens } from './helpers.mjs'

const hook = (st, event, payload) => {
  const res = spawnSync(nativeHook, ['--host', 'copilot-cli', event], {
    input: JSON.stringify(payload),
    env: { ...st.env, GOAL_SYSTEM_WATCH: 'off' },
    maxBuffer: 1 << 26,
    timeout: 60_000,
  })
  assert.equal(res.status, 0, res.stderr.toString())
  assert.equal(res.stderr.toString(), '', 'no note: the payload was read')
  return JSON.parse(res.stdout.toString() || '{}')
}

test('a 10 MB tool result is judged by its end, a big write is searched whole and recorded', () => {
  const st = tempState()
  try {
    const s = 'big-payload'
    const cwd = join(st.home, 'project')
    mkdirSync(cwd)
    userOpens(st, s, cwd, 'read big payloads', { remaining: ['measure'] })
    const caller = { sessionId: s, cwd, stateRoot: st.stateRoot }
    const history = () => addon.goalStatusSync(caller).goal.toolHistory
    // Quotes, backslashes, tabs and non-ASCII text all through the body.
    const line = 'test output \t"quoted" C:\\path é 😀 line 0123456789\n'
    const body = line.repeat(Math.ceil((10 << 20) / line.length))
    const base = { sessionId: s, cwd, timestamp: Date.now() }
    const run = (end) =>
      hook(st, 'postToolUse', {
        ...base,
        toolName: 'bash',
        toolArgs: { command: 'cargo test' },
        toolResult: { resultType: 'success', textResultForLlm: `${body}${end}` },
      })
    run('test result: FAILED. 1 passed; 1 failed; 0 ignored\n')
    assert.equal(history().verifications, 1)
    assert.equal(history().recent.at(-1).passed, false, 'the failure at the end of 10 MB is read')
    run('test result: ok. 2 passed; 0 failed; 0 ignored\n')
    assert.equal(history().recent.at(-1).passed, true)

    // A 3 MB file whose last line names the goal state: refused before it is written.
    const path = join(cwd, 'big.txt')
    const write = (text) => ({ ...base, toolName: 'create', toolArgs: { path, file_text: text } })
    const refused = hook(st, 'preToolUse', write(`${body.slice(0, 3 << 20)}see ${st.stateRoot}/by-session\n`))
    assert.equal(refused.permissionDecision, 'deny', JSON.stringify(refused).slice(0, 300))
    const plain = write(body.slice(0, 3 << 20))
    assert.notEqual(hook(st, 'preToolUse', plain).permissionDecision, 'deny')
    const seq = history().seq
    hook(st, 'postToolUse', { ...plain, toolResult: { resultType: 'success', textResultForLlm: 'created' } })
    assert.equal(history().seq, seq + 1, 'the big write is recorded')
    const last = history().recent.at(-1)
    assert.equal(last.tool, 'create')
    assert.match(JSON.stringify(last), /big\.txt/, 'its path is in the history')
  } finally {
    st.cleanup()
  }
})
