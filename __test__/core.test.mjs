// The addon's goal operations: open -> update -> refused close -> complete close,
// and the rules an adapter relies on (errors with codes, redaction, wildcards).
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'

import { addon, addonAsUser, tempState } from './helpers.mjs'

let state
const caller = () => ({ sessionId: 'core-session-1', cwd: '/tmp/goal-core-project', stateRoot: state.stateRoot })
// Opening and replacing are the user's: called as the command does in the user's own terminal.
function openAsUser(c, request) {
  const r = addonAsUser('openGoalSync', c, request)
  if (r.error) throw Object.assign(new Error(r.error.message), { code: r.error.code })
  return r.value
}

before(() => {
  state = tempState()
})
after(() => state.cleanup())

function recordToolCall(command) {
  const payload = { sessionId: caller().sessionId, cwd: caller().cwd, toolName: 'bash', toolArgs: { command } }
  const out = addon.runHook(
    'copilot-cli',
    'postToolUse',
    JSON.stringify({ ...payload, toolResult: { resultType: 'success' } }),
  )
  assert.equal(out.exitCode, 0)
}

describe("the user's rights", () => {
  test('a process that only claims to be the user (no terminal) gets the agent rights', () => {
    const c = { ...caller(), sessionId: 'core-claims-user' }
    assert.throws(() => addon.openGoalSync({ ...c, role: 'user' }, { objective: 'a goal nobody asked for' }), {
      code: 'FORBIDDEN',
    })
    openAsUser(c, { objective: 'the user asked for this' })
    assert.throws(() => addon.closeGoalSync({ ...c, role: 'user' }, { status: 'cancelled', reason: 'done' }), {
      code: 'FORBIDDEN',
    })
    assert.equal(addon.goalStatusSync(c).open, true)
  })
})

describe('goal lifecycle through the addon', () => {
  test('open, update, refused close listing every condition, then complete', async () => {
    process.env.GOAL_SYSTEM_STATE_ROOT = state.stateRoot
    const opened = openAsUser(caller(), {
      objective: 'Make the greeting script print hello twice',
      requirements: ['R1: prints hello twice', 'R2: exits with status 0'],
      remaining: ['edit greet.sh', 'run the test'],
    })
    assert.equal(opened.created, true)
    assert.equal(opened.goal.completionStatus, 'active')
    assert.equal(opened.goal.version, 3)

    const refused = await addon.closeGoal(caller(), { status: 'complete' })
    assert.equal(refused.closed, false)
    const fields = refused.unmet.map((u) => u.field)
    for (const f of [
      'doneSoFar',
      'validationProof',
      'verificationResults',
      'inspectionEvidence',
      'requirementCoverage',
      'completionAudit',
      'remaining',
      'toolHistory',
    ]) {
      assert.ok(fields.includes(f), `unmet lists ${f}: ${fields}`)
    }
    assert.equal(fields.filter((f) => f === 'requirementCoverage').length, 2, 'one per uncovered requirement')
    assert.match(refused.summary, /Close refused/)

    recordToolCall('cat greet.sh')
    recordToolCall('npm test')
    const upd = await addon.updateGoal(caller(), {
      doneSoFar: ['greet.sh now loops twice'],
      inspectionEvidence: ['read greet.sh: single echo'],
      validationProof: ['test asserts two lines of hello'],
      verificationResults: ['npm test: 1 passed'],
      requirementCoverage: ['R1: covered by test two_lines', 'R2: npm test exit status 0'],
      completionAudit: ['R1 and R2 checked against the test output'],
      remaining: [],
    })
    assert.deepEqual(upd.unmet, [])
    assert.ok(upd.changes.includes('remaining: replaced'))

    const closed = await addon.closeGoal(caller(), { status: 'complete' })
    assert.equal(closed.closed, true)
    assert.equal(closed.goal.completionStatus, 'complete')
    assert.ok(closed.goal.closedAt)

    // A closed goal never reopens by a stray update.
    assert.throws(() => addon.updateGoalSync(caller(), { status: 'active' }), { code: 'GOAL_CLOSED' })
  })

  test('errors carry codes and name the field', () => {
    const c = { ...caller(), sessionId: 'core-session-2' }
    assert.throws(() => addon.updateGoalSync(c, { doneSoFar: ['x'] }), { code: 'NO_GOAL' })
    openAsUser(c, { objective: 'first objective' })
    assert.throws(() => openAsUser(c, { objective: 'a different objective' }), { code: 'GOAL_EXISTS' })
    assert.throws(
      () => addon.updateGoalSync(c, { doneSoFar: 7 }),
      (err) => err.code === 'INVALID_INPUT' && /doneSoFar/.test(err.message),
    )
    const many = Array.from({ length: 201 }, (_, i) => `item ${i}`)
    assert.throws(
      () => addon.updateGoalSync(c, { scope: many }),
      (err) => err.code === 'LIMIT_EXCEEDED' && /scope/.test(err.message) && /200/.test(err.message),
    )
    assert.throws(() => openAsUser({ ...c, sessionId: '../escape' }, { objective: 'x' }), {
      code: 'INVALID_SESSION_ID',
    })
    assert.throws(() => addon.goalStatusSync({ ...c, subagent: true }), { code: 'SUBAGENT' })
    const replaced = openAsUser(c, { objective: 'a different objective', replace: true })
    assert.equal(replaced.replaced.length > 0, true)
    assert.equal(replaced.goal.generation, 2)
  })

  test('issue resolutions refuse wildcards and discovered issues are additive', () => {
    const c = { ...caller(), sessionId: 'core-session-3' }
    openAsUser(c, {
      objective: 'fix the parser',
      discoveredIssues: ['crash on empty input', 'slow on big files'],
    })
    for (const issue of ['all issues', 'everything', '*']) {
      assert.throws(
        () => addon.updateGoalSync(c, { issueResolutions: [{ issue, status: 'resolved', evidence: 'fixed them' }] }),
        { code: 'INVALID_RESOLUTION' },
      )
    }
    const upd = addon.updateGoalSync(c, { discoveredIssues: ['crash on empty input'] })
    assert.equal(upd.goal.discoveredIssues.length, 2)
    const res = addon.updateGoalSync(c, {
      issueResolutions: [{ issue: 'crash on empty input', status: 'resolved', evidence: 'test_empty passes' }],
    })
    assert.equal(res.goal.issueResolutions.length, 1)
    const issues = res.unmet.filter((u) => u.field === 'discoveredIssues').map((u) => u.message)
    assert.equal(issues.length, 1)
    assert.match(issues[0], /slow on big files/)
  })

  test('a fake token built at run time never reaches disk', () => {
    const token = ['gh', 'p_'].join('') + 'T'.repeat(36)
    const c = { ...caller(), sessionId: 'core-session-4' }
    openAsUser(c, { objective: `deploy using ${token}`, doneSoFar: [`set GITHUB_TOKEN=${token}`] })
    assert.equal(addon.redact(`token ${token}`).includes(token), false)
    const files = []
    const walk = (dir) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name)
        statSync(p).isDirectory() ? walk(p) : files.push(p)
      }
    }
    walk(state.home)
    assert.ok(files.length >= 3)
    for (const f of files) assert.equal(readFileSync(f, 'utf8').includes(token), false, `${f} holds the token`)
  })

  test('state files are private', () => {
    const goalFile = join(state.stateRoot, 'by-session', 'core-session-1.json')
    assert.equal(statSync(goalFile).mode & 0o777, 0o600)
    assert.equal(statSync(join(state.stateRoot, 'by-session')).mode & 0o777, 0o700)
  })
})
