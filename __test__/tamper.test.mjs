// A goal copy edited by hand (status set to complete with a regex replace) is
// caught by the real shell hook: the stop stays blocked, the user is told,
// and the edited copy is set aside while the goal system's state comes back.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'

import { cliHook, tempState } from './helpers.mjs'

let state
before(() => {
  state = tempState()
})
after(() => state.cleanup())

const cwd = '/tmp/goal-tamper-project'
const sessionId = 'tamper-session-1'
const base = { sessionId, timestamp: Date.now(), cwd }

test('a by-session copy edited to complete does not release the stop', () => {
  const opened = cliHook(state, 'userPromptSubmitted', { ...base, prompt: '/goal make the greeting print hello twice' })
  assert.equal(opened.code, 0, opened.stderr)
  const path = join(state.stateRoot, 'by-session', `${sessionId}.json`)
  const text = readFileSync(path, 'utf8')
  assert.match(text, /"seal": "[0-9a-f]{64}"/)
  const edited = text
    .replace(/"completionStatus": "[a-z_]+"/, '"completionStatus": "complete"')
    .replace(/"closedAt": null/, '"closedAt": "2026-11-24T08:00:00.000Z"')
  assert.notEqual(edited, text)
  writeFileSync(path, edited)

  const out = cliHook(state, 'agentStop', { ...base, stopReason: 'end_turn' })
  assert.equal(out.code, 0, out.stderr)
  assert.equal(out.json.decision, 'block', out.stdout)
  assert.match(out.json.systemMessage, /edited outside the goal system/)
  assert.match(out.stderr, /changed outside the goal system; set aside/)

  const aside = readdirSync(join(state.stateRoot, 'by-session')).filter((n) => n.includes('.tampered-'))
  assert.equal(aside.length, 1)
  const restored = state.bySession(sessionId)
  assert.notEqual(restored.completionStatus, 'complete')
  assert.equal(restored.closedAt, null)
})
