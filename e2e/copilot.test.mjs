// The Goal System inside the real GitHub Copilot CLI (1.0.102), offline, against the scripted
// model server, in a loopback-only namespace (see NOTES.md). Each test installs the goal system
// into a fresh temp HOME (the real `goal-system install --copilot-cli`, or by hand when the
// installer is missing/broken: GOAL_E2E_INSTALLER), runs `copilot -p`, and asserts on what the
// host did: the model server's request log, the host's exit code and output, events.jsonl,
// autopilot-objective.json and the goal state files.
//
//   node --test --test-concurrency=1 e2e/copilot.test.mjs
//
// The scripted model uses the tools Copilot really offers: the extension's goal_system_open /
// status / update / close (no sessionId/cwd: the extension takes them from the invocation),
// `bash` {command, description}, and in autopilot (`/goal`) `task_complete` {summary}.

import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { runCopilot, readAutopilotObjective, readCopilotEvents, taskCompleteSettled } from './hosts.mjs'
import { makeHookRecorder } from './fixtures.mjs'
import {
  OBJECTIVE,
  GOAL_TOOLS,
  setupRun,
  skipReason,
  explain,
  writeGreetingProject,
  installGoalSystem,
  copilotInstallFiles,
  runInstaller,
  INSTALLER,
  readGoal,
  listGoals,
  readAudit,
  messagesText,
  toolNames,
  userTexts,
  modelCalls,
  resultOf,
  honestEvidence,
  RUN_AND_TEST,
  callerFromContext,
  debugDump,
} from './goal-helpers.mjs'

const RUN_MS = 60_000 // one host run
const TEST_MS = 150_000 // one test (some tests run the host twice)

const bash = (command, description = 'run a command') => ({
  toolCalls: [{ name: 'bash', args: { command, description } }],
})
const goal = (name, args = {}) => ({ toolCalls: [{ name, args }] })
const FIX_GREETING = "printf '#!/bin/sh\\necho hello\\necho hello\\n' > greet.sh"
const DIRECTIVE = '[goal-system] Do not stop'

/** Install, then run Copilot once. Returns the run context and result. */
async function copilotScenario(t, name, script, { prompt, stopWhen, serverOpts, timeoutMs = RUN_MS } = {}) {
  const ctx = await setupRun(name, script, serverOpts)
  t.after(ctx.cleanup)
  writeGreetingProject(ctx.cwd)
  const install = installGoalSystem('copilot', { home: ctx.home, project: ctx.cwd })
  // A stopWhen function also gets the run context (to look at the model server).
  const until = typeof stopWhen === 'function' ? (state) => stopWhen(state, ctx) : stopWhen
  const r = await runCopilot({ cwd: ctx.cwd, home: ctx.home, prompt, server: ctx.server, timeoutMs, stopWhen: until })
  t.diagnostic(
    `install: ${install.method}${install.note ? ` (${install.note})` : ''}; copilot ${r.version}: exit ${r.code}${r.signal ? ` (${r.signal})` : ''}, ${r.stoppedBy}, ${r.durationMs} ms, ${ctx.server.modelRequests().length} model requests`,
  )
  const dump = debugDump(name, ctx.server, `${r.stdout}\n--- stderr\n${r.stderr}`)
  if (dump) t.diagnostic(`transcript: ${dump}`)
  return { ...ctx, r, install }
}

/** hook.end outputs of one hook type, in order (Copilot logs them in events.jsonl). */
function hookOutputs(events, hookType) {
  const starts = new Map()
  for (const e of events) if (e.type === 'hook.start') starts.set(e.data.hookInvocationId, e.data)
  return events
    .filter((e) => e.type === 'hook.end' && e.data.hookType === hookType)
    .map((e) => ({
      input: starts.get(e.data.hookInvocationId)?.input,
      output: e.data.output ?? null,
      success: e.data.success,
    }))
}

const isBlock = (o) => o && o.output && o.output.decision === 'block'

/** The last user message of a request (Copilot: string content). */
const lastUser = (req) => userTexts(req.body).at(-1) || ''

const greetingOutput = (cwd) => execFileSync('sh', ['greet.sh'], { cwd, encoding: 'utf8' })

// ---------------------------------------------------------------------------------------------

describe('Goal System in GitHub Copilot CLI', { skip: skipReason('copilot') }, () => {
  test('installer: goal-system install --copilot-cli wires hooks, extension and experimental mode into HOME', {
    timeout: 30_000,
  }, async (t) => {
    assert.ok(fs.existsSync(INSTALLER), `${INSTALLER} is missing`)
    const { home, cleanup } = await setupRun('cop-install', [])
    t.after(cleanup)
    const r = runInstaller(home, ['--copilot-cli'])
    assert.equal(r.code, 0, r.stderr || r.stdout)
    const f = copilotInstallFiles(home)
    const hooks = JSON.parse(fs.readFileSync(f.hooks, 'utf8'))
    assert.equal(hooks.version, 1)
    for (const ev of ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'agentStop']) {
      const cmd = hooks.hooks[ev]?.[0]?.bash || ''
      // The native hook exec'd (bash goes on when the exec fails), then the package's
      // hooks/goal-context.sh (native hook, then Node), told where the native hook is; an
      // allow when the script cannot run.
      const [, first, hook, script] =
        /^set \+e; shopt -s execfail 2>\/dev\/null && exec "([^"]+)" --host copilot-cli \w+; GOAL_SYSTEM_HOOK="([^"]+)" sh "([^"]+)" (\w+) \|\| echo '\{\}'$/.exec(
          cmd,
        ) || []
      assert.equal(first, hook, cmd)
      assert.ok(hook && path.isAbsolute(hook) && fs.existsSync(hook), `absolute, existing native hook: ${cmd}`)
      assert.ok(script?.endsWith('/hooks/goal-context.sh') && fs.existsSync(script), `${ev}: ${cmd}`)
    }
    const shim = fs.readFileSync(f.extension, 'utf8')
    assert.match(shim, /import\s+"file:\/\/.*\/extension\.mjs"/)
    assert.equal(JSON.parse(fs.readFileSync(f.settings, 'utf8')).experimental, true)
  })

  test('/goal X opens a persisted draft goal with exactly X as its objective', { timeout: TEST_MS }, async (t) => {
    // The model's first answer is held back; the run is ended once that first request arrived.
    const hold = () => new Promise((resolve) => setTimeout(() => resolve({ text: 'Acknowledged.' }), 20_000).unref())
    const s = await copilotScenario(t, 'cop-goal-draft', [hold], {
      prompt: `/goal ${OBJECTIVE}`,
      stopWhen: (state, ctx) => ctx.server.modelRequests().length >= 1,
    })
    const { r, home, cwd } = s
    assert.equal(r.timedOut, false, explain(r, s.server))
    assert.ok(r.sessionId, 'copilot created a session')
    const g = readGoal(home, r.sessionId)
    assert.ok(g, `goal state by-session/${r.sessionId}.json exists`)
    assert.equal(g.objective, OBJECTIVE)
    assert.equal(g.completionStatus, 'draft')
    assert.equal(g.closedAt, null)
    assert.equal(g.sessionId, r.sessionId)
    assert.equal(g.cwd, cwd)
    assert.equal(listGoals(home).length, 1, 'one goal')
    assert.ok(
      readAudit(home).some((l) => JSON.parse(l).event === 'open'),
      'audit.log records the open',
    )

    // The host's own objective is the same text.
    const ap = readAutopilotObjective(home, r.sessionId)
    assert.equal(ap?.current?.objective, OBJECTIVE)
    assert.equal(ap?.current?.status, 'active')

    // The model saw the draft (hook context) and the extension's goal tools.
    const first = s.server.modelRequests()[0]
    const text = messagesText(first.body)
    assert.ok(
      text.includes(`[goal-system] The user's explicit /goal opened draft goal ${g.id}`),
      'open context reaches the model',
    )
    assert.deepEqual(callerFromContext(first.body), { sessionId: r.sessionId, cwd })
    const offered = toolNames(first.body)
    for (const tool of [...GOAL_TOOLS, 'task_complete', 'bash']) assert.ok(offered.includes(tool), `${tool} offered`)
  })

  test('an ordinary prompt opens no goal and the stop is not blocked', { timeout: TEST_MS }, async (t) => {
    const { r, home, server } = await copilotScenario(
      t,
      'cop-plain',
      [bash('echo hello', 'say hello'), { text: 'All done.' }],
      { prompt: 'say hello' },
    )
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.stoppedBy, 'exit')
    assert.equal(server.modelRequests().length, 2, 'one tool turn, one final answer: nothing re-prompted')
    assert.deepEqual(listGoals(home), [], 'no goal state')
    for (const q of server.modelRequests())
      assert.ok(!messagesText(q.body).includes('[goal-system]'), `request ${q.index} has no goal-system text`)
    const stops = hookOutputs(r.events(), 'agentStop')
    assert.equal(stops.length, 1)
    assert.ok(!isBlock(stops[0]), 'agentStop not blocked')
    // The goal tools are installed all the same.
    for (const tool of GOAL_TOOLS) assert.ok(toolNames(server.modelRequests()[0].body).includes(tool), tool)
  })

  test('the model is offered each goal tool once (not the extension tools and the MCP tools side by side)', {
    timeout: TEST_MS,
  }, async (t) => {
    const { r, server } = await copilotScenario(t, 'cop-toolset', [{ text: 'Hi.' }], { prompt: 'say hi' })
    assert.equal(r.code, 0, explain(r, server))
    const offered = toolNames(server.modelRequests()[0].body)
    const goalish = offered.filter((n) => /goal_system_/.test(n))
    t.diagnostic(`goal tools offered: ${goalish.join(', ')}`)
    for (const tool of GOAL_TOOLS) assert.ok(offered.includes(tool), `${tool} offered`)
    // `goal-system install --copilot-cli` also registers the MCP server in ~/.copilot/mcp-config.json,
    // so Copilot offers goalSystem-goal_system_* too: a second set whose schema requires sessionId
    // and cwd (a call without them fails: "MCP error -32602: Input validation error").
    assert.deepEqual(goalish.sort(), [...GOAL_TOOLS].sort(), 'exactly one set of goal tools')
  })

  test('autopilot /goal: premature close and task_complete are refused and the model is told why; an honest close then task_complete completes the objective', {
    timeout: TEST_MS,
  }, async (t) => {
    const script = [
      goal('goal_system_open', {
        objective: OBJECTIVE,
        status: 'active',
        requirements: ['R1: greet.sh prints hello twice'],
        scope: ['greet.sh'],
        remaining: ['make greet.sh print hello twice'],
      }),
      goal('goal_system_close', { status: 'complete', reason: 'I believe it is done.' }),
      goal('task_complete', { summary: 'The greeting prints hello twice.' }),
      bash('cat greet.sh', 'inspect the script'),
      bash(FIX_GREETING, 'print hello twice'),
      bash(RUN_AND_TEST, 'run the script and its test'),
      goal('goal_system_update', honestEvidence()),
      goal('goal_system_close', { status: 'complete', reason: 'verified: sh greet.sh prints hello twice' }),
      goal('task_complete', { summary: 'greet.sh prints hello twice (verified).' }),
    ]
    const { r, home, cwd, server } = await copilotScenario(t, 'cop-tools', script, {
      prompt: `/goal ${OBJECTIVE}`,
      stopWhen: 'task_complete',
    })
    assert.equal(r.stoppedBy, 'stopWhen', `the run ended by task_complete${explain(r, server)}`)
    const reqs = server.modelRequests()
    assert.equal(reqs.length, script.length, 'one model request per scripted step, none after task_complete')

    const calls = modelCalls(server)
    const [open, prematureClose, prematureTc, cat, fix, run, update, close, tc] = calls
    assert.equal(tc.name, 'task_complete')

    const g0 = readGoal(home, r.sessionId)
    assert.ok(g0, 'goal state exists')
    const openRes = resultOf(server, open)
    assert.ok(openRes, 'open answered')
    assert.match(openRes.text, new RegExp(g0.id), 'open continued the /goal draft (same goal id)')

    // The premature close: refused by the gate; the refusal and its unmet conditions reach the model.
    const pc = resultOf(server, prematureClose)
    assert.ok(pc, 'premature close answered')
    assert.match(pc.text, /doneSoFar/)
    assert.match(pc.text, /verificationResults/)
    assert.match(pc.text, /toolHistory|action or verification/)
    assert.doesNotMatch(pc.text, /^Goal .* complete\b/m)

    // The premature task_complete: denied by preToolUse with the unmet conditions.
    const ptc = resultOf(server, prematureTc)
    assert.ok(ptc, 'premature task_complete answered')
    assert.match(ptc.text, /^Denied by preToolUse hook: \[goal-system\] task_complete refused/)
    assert.match(ptc.text, /Unmet conditions:/)

    // Real work ran.
    assert.match(resultOf(server, cat).text, /echo hello/)
    assert.match(resultOf(server, run).text, /^hello\nhello\n/)
    void fix
    void update
    assert.equal(greetingOutput(cwd), 'hello\nhello\n')

    // The honest close is accepted, the final task_complete goes through and completes the objective.
    const hc = resultOf(server, close)
    assert.ok(hc, 'honest close answered')
    assert.doesNotMatch(hc.text, /unmet|refused/i)
    const g = readGoal(home, r.sessionId)
    assert.equal(g.completionStatus, 'complete')
    assert.ok(g.closedAt, 'closedAt set')
    assert.equal(g.objective, OBJECTIVE)
    assert.ok(g.toolHistory.actions + g.toolHistory.verifications >= 1, 'bash calls recorded as evidence')

    const done = r.events().filter((e) => e.type === 'session.task_complete')
    assert.equal(done.length, 1, 'only the honest task_complete completed')
    assert.equal(done[0].data.summary, 'greet.sh prints hello twice (verified).')
    const ap = readAutopilotObjective(home, r.sessionId)
    assert.equal(ap?.current?.objective, OBJECTIVE)
    assert.equal(ap?.current?.status, 'completed')
    assert.equal(ap?.current?.completionSummary, 'greet.sh prints hello twice (verified).')
  })

  test('the stop is blocked while the goal is open (the host asks the model again with the directive) and goes through once the goal is closed', {
    timeout: TEST_MS,
  }, async (t) => {
    const script = [
      { text: 'I will stop here.' },
      goal('goal_system_status'),
      bash('cat greet.sh', 'inspect the script'),
      bash(FIX_GREETING, 'print hello twice'),
      bash(RUN_AND_TEST, 'run the script and its test'),
      goal('goal_system_update', { status: 'active', ...honestEvidence() }),
      goal('goal_system_close', { status: 'complete', reason: 'verified' }),
      { text: 'Done: greet.sh prints hello twice.' },
    ]
    const { r, home, cwd, server } = await copilotScenario(t, 'cop-stop', script, {
      prompt: `start goal: ${OBJECTIVE}`,
    })
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.stoppedBy, 'exit', 'the host exited by itself once the stop went through')
    const reqs = server.modelRequests()
    assert.equal(reqs.length, script.length, 'exactly one re-prompt (after the blocked stop), none after the close')

    const g = readGoal(home, r.sessionId)
    assert.ok(g, 'start goal: opened a goal')
    // After the first text-only answer the host asked again, with our directive as the new user message.
    const directive = lastUser(reqs[1])
    assert.ok(
      directive.includes(`${DIRECTIVE}: goal ${g.id} is still open`),
      `second request carries the directive:\n${directive.slice(0, 400)}`,
    )
    const stops = hookOutputs(r.events(), 'agentStop')
    assert.equal(stops.length, 2)
    assert.ok(isBlock(stops[0]), 'first stop blocked')
    assert.ok(stops[0].output.reason.startsWith(DIRECTIVE))
    assert.ok(!isBlock(stops[1]), 'the stop after the close went through')
    assert.equal(g.completionStatus, 'complete')
    assert.ok(g.closedAt)
    assert.equal(listGoals(home).length, 1, 'the re-submitted directive opened no second goal')
    assert.equal(greetingOutput(cwd), 'hello\nhello\n')
  })

  test('drift: past 5 non-goal tool calls the next one is denied, the model is told why, and a goal update lifts it', {
    timeout: TEST_MS,
  }, async (t) => {
    const script = [
      goal('goal_system_update', {
        status: 'active',
        requirements: ['R1: greet.sh prints hello twice'],
        scope: ['greet.sh'],
        remaining: ['make greet.sh print hello twice'],
      }),
      bash('cat greet.sh', 'look 1'),
      bash('ls -la', 'look 2'),
      bash('wc -l greet.sh', 'look 3'),
      bash('head -n 1 greet.sh', 'look 4'),
      bash('tail -n 1 greet.sh', 'look 5'),
      bash('echo drift > drift.txt', 'the sixth call'),
      goal('goal_system_update', {
        inspectionEvidence: ['cat greet.sh: one echo hello'],
        remaining: ['make greet.sh print hello twice'],
      }),
      bash(FIX_GREETING, 'print hello twice'),
      bash(RUN_AND_TEST, 'run the script and its test'),
      goal('goal_system_update', honestEvidence()),
      goal('goal_system_close', { status: 'complete', reason: 'verified' }),
      { text: 'Done.' },
    ]
    const { r, home, cwd, server } = await copilotScenario(t, 'cop-drift', script, {
      prompt: `start goal: ${OBJECTIVE}`,
    })
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.stoppedBy, 'exit')
    const g = readGoal(home, r.sessionId)
    assert.ok(g, 'goal exists')
    const calls = modelCalls(server, (n) => n === 'bash')
    const looks = calls.slice(0, 5)
    const sixth = calls[5]
    for (const c of looks) assert.doesNotMatch(resultOf(server, c).text, /Denied/, `${c.args.command} ran`)
    const denied = resultOf(server, sixth)
    assert.ok(denied, 'the sixth call was answered')
    assert.match(
      denied.text,
      new RegExp(
        `^Denied by preToolUse hook: \\[goal-system\\] Denied: 5 non-goal tool calls since goal ${g.id} was last updated`,
      ),
    )
    assert.ok(!fs.existsSync(path.join(cwd, 'drift.txt')), 'the denied command did not run')
    // The denial reached the model in its very next request.
    assert.equal(denied.req.index, server.modelRequests().find((q) => q.index > sixth.req.index).index)
    // The warning (3 and 4 calls since the update) reaches the model before the denial.
    const warned = server
      .modelRequests()
      .filter((q) => q.index <= sixth.req.index && messagesText(q.body).includes('[goal-system] Drift warning'))
    t.diagnostic(`drift warning seen by the model in ${warned.length} request(s) before the denial`)
    assert.ok(warned.length > 0, 'the drift warning reached the model before the denial')
    // After the update the next bash call ran.
    assert.doesNotMatch(resultOf(server, calls[6]).text, /Denied/)
    assert.equal(greetingOutput(cwd), 'hello\nhello\n')
    assert.equal(g.completionStatus, 'complete')
  })

  test('loop guard: a model that never makes progress is released after 3 blocked stops; the host exits cleanly, the goal is blocked and resumable', {
    timeout: TEST_MS,
  }, async (t) => {
    const stuck = 'I am still thinking about it.'
    const { r, home, cwd, server } = await copilotScenario(t, 'cop-loop', [], {
      prompt: `/goal ${OBJECTIVE}`,
      serverOpts: { defaultText: stuck },
    })
    assert.equal(r.timedOut, false, explain(r, server))
    assert.equal(r.stoppedBy, 'exit', 'the host exited by itself')
    assert.equal(r.code, 0, explain(r, server))
    const reqs = server.modelRequests()
    const directed = reqs.filter((q) => lastUser(q).includes(DIRECTIVE))
    assert.equal(directed.length, 3, 'three continuation directives, then the stop is let through')
    assert.ok(reqs.length <= 8, `bounded: ${reqs.length} model requests`)
    const stops = hookOutputs(r.events(), 'agentStop')
    assert.deepEqual(
      stops.slice(0, 4).map(isBlock),
      [true, true, true, false],
      'blocked 3 times, the 4th stop goes through',
    )
    assert.ok(
      stops.slice(4).every((s) => !isBlock(s)),
      'no block after the release',
    )
    const g = readGoal(home, r.sessionId)
    assert.equal(g.completionStatus, 'blocked')
    assert.equal(g.closedAt, null, 'resumable: not closed')
    assert.match(g.statusReason || '', /loop guard/)
    assert.ok(readAudit(home).some((l) => JSON.parse(l).event === 'loop-guard'))

    // Resumable: `--resume` the session with an explicit continue prompt, do the work, close.
    const sid = r.sessionId
    const before = reqs.length
    server.push(
      goal('goal_system_status'),
      bash('cat greet.sh', 'inspect the script'),
      bash(FIX_GREETING, 'print hello twice'),
      bash(RUN_AND_TEST, 'run the script and its test'),
      goal('goal_system_update', { ...honestEvidence(), blockers: [] }),
      goal('goal_system_close', { status: 'complete', reason: 'verified after resuming' }),
      goal('task_complete', { summary: 'Resumed and finished.' }),
    )
    const settled = taskCompleteSettled()
    const r2 = await runCopilot({
      cwd,
      home,
      prompt: 'continue the goal',
      server,
      timeoutMs: RUN_MS,
      trustFolder: false,
      args: [`--resume=${sid}`],
      stopWhen: () => settled({ events: readCopilotEvents(home, sid) }),
    })
    t.diagnostic(`resume run: exit ${r2.code}, ${r2.stoppedBy}, ${r2.durationMs} ms`)
    debugDump('cop-loop-resume', server, `${r2.stdout}\n--- stderr\n${r2.stderr}`)
    assert.equal(r2.timedOut, false, explain(r2, server))
    const resumed = server.modelRequests().slice(before)
    assert.ok(resumed.length >= 1, 'the resumed session asked the model')
    assert.ok(
      messagesText(resumed[0].body).includes(`[goal-system] Continuing this session's goal ${g.id}`),
      'the continue prompt reactivated the goal',
    )
    const g2 = readGoal(home, sid)
    assert.equal(g2.id, g.id)
    assert.equal(g2.completionStatus, 'complete', `resumed goal closes: ${JSON.stringify(g2.statusReason)}`)
    assert.equal(greetingOutput(cwd), 'hello\nhello\n')
  })

  test("authority: the model's replace attempt is refused (the model sees why); `/goal continue` in the resumed session continues the SAME goal", {
    timeout: 200_000,
  }, async (t) => {
    const hold = () => new Promise((resolve) => setTimeout(() => resolve({ text: 'Acknowledged.' }), 20_000).unref())
    const script = [
      goal('goal_system_open', { objective: 'print hello once', replace: true }),
      hold, // the run is ended once the refusal came back to the model
    ]
    const { r, home, cwd, server } = await copilotScenario(t, 'cop-authority', script, {
      prompt: `/goal ${OBJECTIVE}`,
      stopWhen: (state, ctx) => ctx.server.modelRequests().length >= 2,
    })
    assert.equal(r.timedOut, false, explain(r, server))
    const sid = r.sessionId
    const g = readGoal(home, sid)
    assert.equal(g.objective, OBJECTIVE, 'the user objective stayed')
    const [replace] = modelCalls(server, (n) => n === 'goal_system_open')
    const refused = resultOf(server, replace)
    t.diagnostic(`replace attempt result: ${JSON.stringify(refused?.text).slice(0, 300)}`)
    assert.ok(refused, 'the refusal reached the model in its next request')
    assert.equal(refused.req.index, replace.req.index + 1)
    assert.match(refused.text, /FORBIDDEN|only the user can replace the goal/)
    assert.match(refused.text, /\/goal <objective>/)
    assert.equal(listGoals(home).length, 1, 'no second goal')

    // Resume the session with the user's `/goal continue` (Copilot wraps it in its autopilot prompt).
    const before = server.modelRequests().length
    server.push(
      goal('goal_system_status'),
      bash('cat greet.sh', 'inspect the script'),
      bash(FIX_GREETING, 'print hello twice'),
      bash(RUN_AND_TEST, 'run the script and its test'),
      goal('goal_system_update', honestEvidence()),
      goal('goal_system_close', { status: 'complete', reason: 'verified: sh test.sh passes' }),
      goal('task_complete', { summary: 'Continued and finished.' }),
    )
    const settled = taskCompleteSettled()
    const r2 = await runCopilot({
      cwd,
      home,
      prompt: '/goal continue',
      server,
      timeoutMs: RUN_MS,
      trustFolder: false,
      args: [`--resume=${sid}`],
      stopWhen: () => settled({ events: readCopilotEvents(home, sid) }),
    })
    debugDump('cop-authority-resume', server, `${r2.stdout}\n--- stderr\n${r2.stderr}`)
    assert.equal(r2.timedOut, false, explain(r2, server))
    const resumed = server.modelRequests().slice(before)
    assert.ok(
      messagesText(resumed[0].body).includes(`[goal-system] Continuing this session's goal ${g.id}`),
      `/goal continue continued ${g.id}`,
    )
    assert.ok(!messagesText(resumed[0].body).includes('opened draft goal'), 'no new goal for "continue"')
    const [status] = modelCalls(server, (n) => n === 'goal_system_status')
    assert.match(resultOf(server, status)?.text || '', new RegExp(g.id))
    const goals = listGoals(home)
    assert.deepEqual(
      goals.map((x) => [x.id, x.objective]),
      [[g.id, OBJECTIVE]],
      'the same goal, the same objective',
    )
    assert.equal(readGoal(home, sid).completionStatus, 'complete')
  })

  test('one decision per event: with the Copilot CLI, VS Code and Claude Code goal hooks all installed, each event is decided once', {
    timeout: TEST_MS,
  }, async (t) => {
    const script = [
      { text: 'I will stop here.' },
      bash('cat greet.sh', 'inspect the script'),
      bash(FIX_GREETING, 'print hello twice'),
      bash(RUN_AND_TEST, 'run the script and its test'),
      goal('goal_system_update', { status: 'active', ...honestEvidence() }),
      goal('goal_system_close', { status: 'complete', reason: 'verified' }),
      { text: 'Done.' },
    ]
    const ctx = await setupRun('cop-once', script)
    t.after(ctx.cleanup)
    const { home, cwd, server } = ctx
    writeGreetingProject(cwd)
    installGoalSystem('copilot', { home, project: cwd })
    for (const flag of ['--vscode', '--claude']) {
      const ri = runInstaller(home, [flag, '--project', cwd])
      assert.equal(ri.code, 0, ri.stderr || ri.stdout)
    }
    assert.ok(fs.existsSync(path.join(cwd, '.github', 'hooks', 'goal-system.json')), 'VS Code workspace hooks')
    assert.ok(fs.existsSync(path.join(cwd, '.claude', 'settings.json')), 'Claude Code project hooks')
    // Recorders next to the goal entries in both foreign files: they show whether Copilot CLI
    // really runs those files' hooks (the goal entries there then must stand down).
    const recVs = makeHookRecorder(path.join(ctx.root, 'rec-vscode'))
    const recCc = makeHookRecorder(path.join(ctx.root, 'rec-claude'))
    const vsFile = path.join(cwd, '.github', 'hooks', 'goal-system.json')
    const vs = JSON.parse(fs.readFileSync(vsFile, 'utf8'))
    vs.hooks.Stop.push({ type: 'command', command: recVs.command('Stop') })
    fs.writeFileSync(vsFile, JSON.stringify(vs, null, 2))
    const ccFile = path.join(cwd, '.claude', 'settings.json')
    const cc = JSON.parse(fs.readFileSync(ccFile, 'utf8'))
    cc.hooks.Stop.push({ hooks: [{ type: 'command', command: recCc.command('Stop') }] })
    fs.writeFileSync(ccFile, JSON.stringify(cc, null, 2))
    // --trust-folder: Copilot CLI loads the repository's hook files too.
    const r = await runCopilot({ cwd, home, prompt: `start goal: ${OBJECTIVE}`, server, timeoutMs: RUN_MS })
    debugDump('cop-once', server, `${r.stdout}\n--- stderr\n${r.stderr}`)
    assert.equal(r.code, 0, explain(r, server))
    const events = r.events()
    const starts = events.filter((e) => e.type === 'hook.start')
    const perType = {}
    for (const e of starts) perType[e.data.hookType] = (perType[e.data.hookType] || 0) + 1
    t.diagnostic(`hook runs per event type: ${JSON.stringify(perType)}`)
    const ranVs = recVs.payloads('Stop')
    const ranCc = recCc.payloads('Stop')
    t.diagnostic(
      `foreign Stop hooks run by Copilot CLI: .github/hooks ${ranVs.length}, .claude/settings.json ${ranCc.length}; COPILOT_CLI in their env: ${[...ranVs, ...ranCc].some((x) => x.envNames?.includes('COPILOT_CLI'))}`,
    )
    assert.ok(
      ranVs.length + ranCc.length > 0,
      'Copilot CLI ran at least one foreign hook file (else this checks nothing)',
    )
    const stops = hookOutputs(events, 'agentStop')
    const blocks = stops.filter(isBlock)
    assert.equal(blocks.length, 1, `one blocked stop, not one per installed file: ${JSON.stringify(stops)}`)
    assert.equal(server.modelRequests().length, script.length, 'exactly one re-prompt')
    const g = readGoal(home, r.sessionId)
    assert.equal(listGoals(home).length, 1, 'one goal')
    assert.equal(readAudit(home).filter((l) => JSON.parse(l).event === 'stop-blocked').length, 1)
    assert.equal(readAudit(home).filter((l) => JSON.parse(l).event === 'open').length, 1)
    // Each bash call counted once (3 calls), not once per installed hook file.
    const bashCalls = modelCalls(server, (n) => n === 'bash').length
    const counted = g.toolHistory.inspections + g.toolHistory.actions + g.toolHistory.verifications
    t.diagnostic(`toolHistory: ${JSON.stringify({ ...g.toolHistory, recent: undefined })}`)
    assert.equal(counted, bashCalls, `${counted} tool calls recorded for ${bashCalls} bash calls`)
    assert.equal(g.completionStatus, 'complete')
  })
})
