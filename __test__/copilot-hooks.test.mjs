// Copilot CLI's shell hook driven as the host drives it: `bash hooks/goal-context.sh
// <event>` with real payloads on stdin, stdout parsed as the host parses it.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'

import { addon, cliHook, normalize, root, tempState } from './helpers.mjs'

let state
before(() => {
  state = tempState()
})
after(() => state.cleanup())

const cwd = '/tmp/goal-cli-project'
let n = 0
const session = () => `cli-session-${++n}`
const base = (sessionId) => ({ sessionId, timestamp: Date.now(), cwd })
const prompt = (sessionId, text) => cliHook(state, 'userPromptSubmitted', { ...base(sessionId), prompt: text })
const pre = (sessionId, toolName, toolArgs) => cliHook(state, 'preToolUse', { ...base(sessionId), toolName, toolArgs })
const post = (sessionId, toolName, toolArgs) =>
  cliHook(state, 'postToolUse', {
    ...base(sessionId),
    toolName,
    toolArgs,
    toolResult: { resultType: 'success', textResultForLlm: 'ok' },
  })
const stop = (sessionId, extra = { stopReason: 'end_turn' }) =>
  cliHook(state, 'agentStop', {
    ...base(sessionId),
    transcriptPath: '/tmp/x/events.jsonl',
    stop_hook_active: false,
    ...extra,
  })
const caller = (sessionId) => ({ sessionId, cwd, stateRoot: state.stateRoot })

/** What Copilot CLI hands the prompt hook for the goal system's user skill `/goal-system <args>`. */
const skill = (args) =>
  `The user explicitly invoked the "/goal-system" skill. Follow its instructions now.\n\n<skill-context name="goal-system">\nBase directory for this skill: /s\n\nbody\n\n\nARGUMENTS: ${args}\n</skill-context>`

function openViaGoal(sessionId, objective = 'make the greeting print hello twice') {
  const out = prompt(sessionId, `/goal ${objective}`)
  assert.equal(out.code, 0, out.stderr)
  return out
}

describe('activation', () => {
  test('/goal creates a persisted draft goal; an ordinary prompt does not', () => {
    const s = session()
    const plain = prompt(s, 'fix the failing test in parser.rs')
    assert.equal(plain.code, 0)
    assert.deepEqual(plain.json, {})
    assert.equal(existsSync(join(state.stateRoot, 'by-session', `${s}.json`)), false)

    const out = openViaGoal(s)
    assert.match(out.json.additionalContext, /opened draft goal goal-[0-9a-f]{20}/)
    const goal = state.bySession(s)
    assert.equal(goal.completionStatus, 'draft')
    assert.equal(goal.objective, 'make the greeting print hello twice')
    assert.match(goal.source.hash, /^sha256:[0-9a-f]{64}$/)
    // Session-local and directory copies exist too.
    assert.ok(existsSync(join(state.home, '.copilot', 'session-state', s, 'goal-state.json')))
  })

  test("Copilot CLI's autopilot prompt opens a goal with the objective alone", () => {
    const s = session()
    const text =
      'The user set this explicit autopilot objective with /autopilot:\n\nmake the greeting script print hello twice\n\nWork autonomously toward this objective in clear checkpoints.\nOnly call task_complete when the objective is fully achieved and verified.'
    const start = cliHook(state, 'sessionStart', { ...base(s), source: 'new', initialPrompt: text })
    assert.equal(start.code, 0)
    const id = state.bySession(s).id
    assert.equal(state.bySession(s).objective, 'make the greeting script print hello twice')
    // The same prompt again (userPromptSubmitted after sessionStart) continues, not replaces.
    prompt(s, text)
    assert.equal(state.bySession(s).id, id)
    // A changed objective is a new version, never a merge.
    prompt(s, text.replace('hello twice', 'goodbye'))
    const next = state.bySession(s)
    assert.notEqual(next.id, id)
    assert.equal(next.generation, 2)
    assert.equal(next.replaces, id)
  })

  test('our own stop directive re-submitted as a prompt is not treated as the user', () => {
    const s = session()
    openViaGoal(s)
    const block = stop(s)
    assert.equal(block.json.decision, 'block')
    const again = prompt(s, block.json.reason)
    assert.deepEqual(again.json, {})
  })
})

describe('drift', () => {
  test('warns at 3, denies at 5, and a goal update resets it', () => {
    const s = session()
    openViaGoal(s)
    for (let i = 0; i < 3; i++) {
      const p = pre(s, 'bash', { command: `echo ${i}` })
      assert.equal(p.json.permissionDecision, undefined)
      post(s, 'bash', { command: `echo ${i}` })
    }
    const warn = pre(s, 'view', JSON.stringify({ path: 'src/main.rs' })) // toolArgs as a JSON string
    assert.match(warn.json.additionalContext, /Drift warning: 3 non-goal tool calls/)
    assert.equal(warn.json.permissionDecision, undefined)
    post(s, 'view', JSON.stringify({ path: 'src/main.rs' }))
    post(s, 'edit', { path: 'src/main.rs' })
    const deny = pre(s, 'bash', { command: 'cargo build' })
    assert.equal(deny.json.permissionDecision, 'deny')
    assert.match(deny.json.permissionDecisionReason, /Denied: 5 non-goal tool calls/)
    // Goal tools never count, however the host prefixes them.
    for (const name of ['goal_system_update', 'goalSystem-goal_system_update', 'mcp__goalSystem__goal_system_status']) {
      assert.equal(pre(s, name, {}).json.permissionDecision, undefined, name)
    }
    addon.updateGoalSync(caller(s), { doneSoFar: ['edited main.rs'] })
    const allowed = pre(s, 'bash', { command: 'cargo build' })
    assert.equal(allowed.json.permissionDecision, undefined)
    assert.equal(state.bySession(s).toolHistory.recent.at(-1).summary, 'edit: src/main.rs')
  })

  test('a batch preToolUse counts every call', () => {
    const s = session()
    openViaGoal(s)
    for (let i = 0; i < 4; i++) post(s, 'bash', { command: `echo ${i}` })
    const batch = cliHook(state, 'preToolUse', {
      sessionId: s,
      cwd,
      toolCalls: [
        { id: 'c1', name: 'bash', args: { command: 'ls' } },
        { id: 'c2', name: 'view', args: '{"path":"a.rs"}' },
      ],
    })
    assert.equal(batch.json.permissionDecision, 'deny')
  })
})

describe('stop control', () => {
  test('agentStop is blocked while open and released once closed', () => {
    const s = session()
    openViaGoal(s)
    addon.updateGoalSync(caller(s), { status: 'active', remaining: ['write the test', 'fix the loop'] })
    const blocked = stop(s)
    assert.equal(blocked.json.decision, 'block')
    assert.match(blocked.json.reason, /"write the test"/)
    assert.match(blocked.json.reason, /goal_system_status/)
    // The user's cancel, typed as the Copilot CLI skill (answered by the hook, no model call).
    const cancel = prompt(s, skill('cancel: the user dropped the feature'))
    assert.equal(cancel.json.handled, true, cancel.stdout)
    assert.match(cancel.json.responseContent, /cancelled/)
    assert.deepEqual(stop(s).json, {})
  })

  test("a command that is the run's first prompt is done once, at userPromptSubmitted, and answered there", () => {
    const s = session()
    openViaGoal(s)
    // `copilot -p '/goal-system cancel: …'` on a resumed session: the host hands the
    // same prompt to sessionStart (initialPrompt) and then to userPromptSubmitted.
    const text = '/goal-system cancel: the user dropped the feature'
    const start = cliHook(state, 'sessionStart', { ...base(s), source: 'resume', initialPrompt: text })
    assert.equal(start.code, 0, start.stderr)
    assert.equal(state.bySession(s).completionStatus, 'draft')
    const cancel = prompt(s, text)
    assert.equal(cancel.json.handled, true, cancel.stdout)
    assert.match(cancel.json.responseContent, /cancelled/)
    assert.equal(state.bySession(s).completionStatus, 'cancelled')
  })

  test('every stop payload variant counts as a stop', () => {
    for (const extra of [
      { finishReason: 'stop' },
      { terminationReason: 'done' },
      { completion_reason: 'x' },
      { stop_reason: 'end_turn' },
    ]) {
      const s = session()
      openViaGoal(s)
      // No event name: the payload alone says it is a stop attempt.
      const out = cliHook(state, '', { ...base(s), ...extra })
      assert.equal(out.json.decision, 'block', JSON.stringify(extra))
    }
  })

  test('the loop guard lets the stop through after the bound and leaves the goal blocked, resumable', () => {
    const s = session()
    openViaGoal(s)
    const reasons = []
    for (let i = 0; i < 3; i++) {
      const out = stop(s)
      assert.equal(out.json.decision, 'block', `attempt ${i + 1}`)
      reasons.push(out.json.reason)
    }
    assert.match(reasons[1], /stop attempt 2 of 3/)
    const released = stop(s)
    assert.equal(released.json.decision, undefined)
    assert.match(released.json.systemMessage, /marked blocked \(resumable\)/)
    const goal = state.bySession(s)
    assert.equal(goal.completionStatus, 'blocked')
    assert.equal(goal.closedAt, null)
    assert.match(goal.statusReason, /loop guard/)
    // Tool activity between stops resets the count.
    const t = session()
    openViaGoal(t)
    for (let i = 0; i < 5; i++) {
      assert.equal(stop(t).json.decision, 'block')
      post(t, 'bash', { command: `make step${i}` })
      addon.updateGoalSync(caller(t), { doneSoFar: [`step ${i}`] })
    }
  })
})

describe('task_complete (Copilot CLI autopilot)', () => {
  test('denied with the unmet conditions while the gate fails, allowed after an honest close', () => {
    const s = session()
    openViaGoal(s)
    const denied = pre(s, 'task_complete', { summary: 'Done.' })
    assert.equal(denied.json.permissionDecision, 'deny')
    assert.match(denied.json.permissionDecisionReason, /doneSoFar/)
    assert.match(denied.json.permissionDecisionReason, /goal_system_close/)
    post(s, 'view', { path: 'greet.sh' })
    post(s, 'edit', { path: 'greet.sh', old_str: 'echo hello', new_str: 'echo hello; echo hello' })
    post(s, 'bash', { command: 'npm test' })
    addon.updateGoalSync(caller(s), {
      status: 'active',
      doneSoFar: ['greet.sh loops twice'],
      validationProof: ['two lines printed'],
      verificationResults: ['npm test: 1 passed'],
      completionAudit: ['greeting checked against the npm test output: two lines'],
    })
    const closed = addon.closeGoalSync(caller(s), { status: 'complete' })
    assert.equal(closed.closed, true, closed.summary)
    assert.deepEqual(pre(s, 'task_complete', { summary: 'Done.' }).json, {})
  })
})

describe('evidence from tool calls (Copilot CLI)', () => {
  const result = (resultType, textResultForLlm) => ({ resultType, textResultForLlm })
  const shell = (s, command, toolResult) =>
    cliHook(state, 'postToolUse', {
      ...base(s),
      toolName: 'bash',
      toolArgs: { command, description: 'run' },
      toolResult,
    })
  const evidence = {
    status: 'active',
    doneSoFar: ['greet.sh now echoes hello twice'],
    inspectionEvidence: ['greet.sh printed hello once before the change'],
    validationProof: ['npm test asserts two lines of hello'],
    verificationResults: ['npm test: 1 passing'],
    completionAudit: ['the greeting prints twice, checked against the npm test output'],
  }

  test('inspect, edit, test, update, close passes the first time', () => {
    const s = session()
    openViaGoal(s)
    post(s, 'report_intent', { intent: 'Fixing the greeting' })
    post(s, 'view', { path: 'greet.sh' })
    post(s, 'edit', { path: 'greet.sh', old_str: 'echo hello', new_str: 'echo hello; echo hello' })
    shell(s, 'npm test', result('success', '1 passing\n<shellId: 0 completed with exit code 0>'))
    addon.updateGoalSync(caller(s), evidence)
    const closed = addon.closeGoalSync(caller(s), { status: 'complete' })
    assert.equal(closed.closed, true, closed.summary)
  })

  test('a test run before the last edit, or a failing one, refuses the close naming the command', () => {
    const s = session()
    openViaGoal(s)
    post(s, 'view', { path: 'greet.sh' })
    shell(s, 'npm test', result('success', '1 passing\n<shellId: 0 completed with exit code 0>'))
    post(s, 'edit', { path: 'greet.sh', old_str: 'a', new_str: 'b' })
    addon.updateGoalSync(caller(s), evidence)
    let refused = addon.closeGoalSync(caller(s), { status: 'complete' })
    assert.equal(refused.closed, false)
    assert.deepEqual(
      refused.unmet.map((u) => u.field),
      ['toolHistory'],
    )
    assert.match(
      refused.summary,
      /last change \(call #3: "edit: greet.sh", changed "greet.sh"\) came after the last passing verification "npm test"/,
    )

    shell(s, 'npm test', result('success', '  0 passing\n  1 failing\n<shellId: 1 completed with exit code 1>'))
    refused = addon.closeGoalSync(caller(s), { status: 'complete' })
    assert.equal(refused.closed, false)
    assert.match(refused.summary, /"npm test" \(call #4\) failed/)
    assert.match(refused.summary, /last verification: call #4 "npm test" FAILED/)
    // task_complete is denied with the same facts.
    const denied = pre(s, 'task_complete', { summary: 'All tests pass.' })
    assert.match(denied.json.permissionDecisionReason, /"npm test" FAILED/)

    shell(s, 'npm test', result('success', '  1 passing\n<shellId: 2 completed with exit code 0>'))
    assert.equal(addon.closeGoalSync(caller(s), { status: 'complete' }).closed, true)
  })

  test('claims over no-op commands and placeholder evidence are refused', () => {
    const s = session()
    openViaGoal(s)
    shell(s, 'echo done', result('success', 'done\n<shellId: 0 completed with exit code 0>'))
    shell(s, 'true', result('success', '<shellId: 0 completed with exit code 0>'))
    addon.updateGoalSync(caller(s), {
      status: 'active',
      doneSoFar: ['done'],
      inspectionEvidence: ['see above'],
      validationProof: ['n/a'],
      verificationResults: ['ok'],
      completionAudit: ['done'],
    })
    const refused = addon.closeGoalSync(caller(s), { status: 'complete' })
    assert.equal(refused.closed, false)
    assert.deepEqual(
      refused.unmet.map((u) => u.field),
      ['doneSoFar', 'validationProof', 'verificationResults', 'inspectionEvidence', 'completionAudit', 'toolHistory'],
    )
    const goal = addon.goalStatusSync(caller(s)).goal
    assert.deepEqual([goal.toolHistory.actions, goal.toolHistory.verifications], [0, 0])
  })
})

describe("Copilot CLI's own autopilot objective", () => {
  test('status shows it beside the goal and reports a completed objective with an open goal', () => {
    const s = session()
    openViaGoal(s, 'print hello twice')
    const dir = join(state.home, '.copilot', 'session-state', s)
    writeFileSync(
      join(dir, 'autopilot-objective.json'),
      JSON.stringify({
        version: 1,
        current: {
          id: 1,
          objective: 'print hello twice',
          status: 'completed',
          continuationCount: 2,
          turnCount: 3,
          tokenCount: 220,
        },
      }),
    )
    const status = addon.goalStatusSync(caller(s))
    assert.equal(status.autopilot.status, 'completed')
    assert.equal(status.autopilot.objective, 'print hello twice')
    assert.ok(
      status.warnings.some((w) => /autopilot objective completed, but goal goal-[0-9a-f]{20} is still open/.test(w)),
      status.warnings.join('; '),
    )
    assert.match(status.summary, /Copilot CLI autopilot objective: print hello twice \(status completed\)/)
  })
})

describe('boundaries and faults', () => {
  test('subagentStart gets the boundary message and no goal state', () => {
    const s = session()
    openViaGoal(s, 'secret-sounding objective alpha-omega')
    const out = cliHook(state, 'subagentStart', { ...base(s), agentName: 'explore' })
    assert.match(out.json.additionalContext, /You are a subagent/)
    assert.equal(out.stdout.includes('alpha-omega'), false)
  })

  test('preCompact writes the compact snapshot', () => {
    const s = session()
    openViaGoal(s)
    const out = cliHook(state, 'preCompact', { ...base(s), trigger: 'auto', customInstructions: '' })
    assert.equal(out.code, 0)
    const text = readFileSync(join(state.stateRoot, 'compact', `${s}.txt`), 'utf8')
    const meta = JSON.parse(readFileSync(join(state.stateRoot, 'compact', `${s}.txt.json`), 'utf8'))
    assert.match(text, /make the greeting print hello twice/)
    assert.equal(meta.goalId, state.bySession(s).id)
    assert.equal(meta.trigger, 'auto')
  })

  test('garbage, empty stdin and unknown events get a safe answer and exit 0', () => {
    for (const [event, input] of [
      ['preToolUse', 'not json {'],
      ['agentStop', ''],
      ['somethingNew', '{"sessionId":"x"}'],
    ]) {
      const out = cliHook(state, event, input)
      assert.equal(out.code, 0)
      assert.deepEqual(out.json, {}, `${event}: ${out.stdout}`)
    }
    assert.match(cliHook(state, 'preToolUse', 'not json {').stderr, /not valid JSON/)
    assert.match(readFileSync(join(state.stateRoot, 'faults.log'), 'utf8'), /not valid JSON/)
  })

  test('a corrupt state file gives a safe answer and is set aside', () => {
    const s = session()
    openViaGoal(s)
    for (const file of [
      join(state.stateRoot, 'by-session', `${s}.json`),
      join(state.home, '.copilot', 'session-state', s, 'goal-state.json'),
    ]) {
      spawnSync('bash', ['-c', `echo '{"version": 3, "id": ' > '${file}'`])
    }
    const out = pre(s, 'bash', { command: 'ls' })
    assert.equal(out.code, 0)
    assert.equal(out.json.permissionDecision, undefined)
    // Reported on stderr and in the fault log; the copy is kept aside for the user.
    assert.match(out.stderr, /corrupt/i)
    assert.match(readFileSync(join(state.stateRoot, 'faults.log'), 'utf8'), new RegExp(`${s}\\.json`))
    assert.ok(readdirSync(join(state.stateRoot, 'by-session')).some((f) => f.startsWith(`${s}.json.corrupt-`)))
    // The valid directory copy still carries the goal.
    assert.equal(addon.goalStatusSync(caller(s)).goal.objective, 'make the greeting print hello twice')
  })
})

describe('native and Node paths agree', () => {
  test('the same payload sequence gives the same answers', () => {
    const runner = join(root, 'adapters', 'vscode-chat', 'hook-runner.mjs')
    if (!existsSync(runner)) return assert.fail('hook-runner.mjs is missing')
    const sequence = [
      ['userPromptSubmitted', { prompt: '/goal port the parser' }],
      ['preToolUse', { toolName: 'bash', toolArgs: { command: 'ls' } }],
      ['postToolUse', { toolName: 'bash', toolArgs: { command: 'ls' }, toolResult: { resultType: 'success' } }],
      ['preToolUse', { toolName: 'task_complete', toolArgs: { summary: 'x' } }],
      ['agentStop', { stopReason: 'end_turn' }],
      ['subagentStart', { agentName: 'x' }],
    ]
    const outputs = ['native', 'node'].map((path) => {
      const st = tempState()
      try {
        return sequence.map(([event, extra]) => {
          const payload = JSON.stringify({ sessionId: 'same-session', cwd, ...extra })
          const args =
            path === 'native'
              ? [join(root, 'native', 'goal-hook'), '--host', 'copilot-cli', event]
              : ['node', runner, 'copilot-cli', event]
          const res = spawnSync(args[0], args.slice(1), { input: payload, env: st.env, encoding: 'utf8' })
          assert.equal(res.status, 0)
          return normalize(res.stdout.trim())
        })
      } finally {
        st.cleanup()
      }
    })
    assert.deepEqual(outputs[0], outputs[1])
  })
})
