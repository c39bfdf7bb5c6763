// The Goal System inside the real Claude Code (2.1.197), offline, against the scripted model
// server, in a loopback-only namespace (see NOTES.md). Each test installs the goal system into a
// fresh temp HOME and project (the real `goal-system install --claude --project DIR`, or by hand
// when the installer is missing/broken: GOAL_E2E_INSTALLER): project .claude/settings.json hooks
// (hook-runner.mjs claude), project .mcp.json (mcp-server.mjs) and the user-level
// permissions.allow for the four mcp__goalSystem__* tools. Then `claude -p` runs with
// `--allowedTools Bash` only (the goal tools are allowed by the installed user settings).
//
//   node --test --test-concurrency=1 e2e/claude.test.mjs
//
// The scripted model calls mcp__goalSystem__goal_system_* with the sessionId and cwd it reads
// from the hook context in its own request (`sessionId "<id>", cwd "<cwd>"`), and `Bash`
// {command}. Claude Code's own built-in `/goal` is active in these runs (it is what `/goal X`
// does in Claude Code 2.1.197); its stop-condition judge is answered honestly by the model
// server (see claudeServerOpts in goal-helpers.mjs).

import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { runClaude } from './hosts.mjs'
import { makeHookRecorder } from './fixtures.mjs'
import {
  OBJECTIVE,
  GOAL_TOOLS,
  CLAUDE_GOAL_TOOL,
  setupRun,
  skipReason,
  explain,
  writeGreetingProject,
  installGoalSystem,
  claudeInstallFiles,
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
  isClaudeGoalEvaluator,
  claudeServerOpts,
  debugDump,
} from './goal-helpers.mjs'

const RUN_MS = 60_000
const TEST_MS = 150_000

const T = CLAUDE_GOAL_TOOL
/** The caller the model learns from the goal-system hook context in its request. */
const caller = (req) => callerFromContext(req.body) || { sessionId: 'NOT-IN-CONTEXT', cwd: 'NOT-IN-CONTEXT' }
/** A scripted goal tool call with sessionId/cwd from the request's context. */
const goal =
  (bare, fields = {}) =>
  (req) => ({ toolCalls: [{ name: T(bare), args: { ...caller(req), ...fields } }] })
const bash = (command) => ({ toolCalls: [{ name: 'Bash', args: { command } }] })
const FIX_GREETING = "printf '#!/bin/sh\\necho hello\\necho hello\\n' > greet.sh"
const DIRECTIVE = '[goal-system] Do not stop'

/** Agent requests only (Claude Code's /goal judge requests left out). */
const agentRequests = (server) => server.modelRequests().filter((q) => !isClaudeGoalEvaluator(q))
const judgeRequests = (server) => server.modelRequests().filter((q) => isClaudeGoalEvaluator(q))
const lastUser = (req) => userTexts(req.body).at(-1) || ''
const greetingOutput = (cwd) => execFileSync('sh', ['greet.sh'], { cwd, encoding: 'utf8' })

/** Append a recorder hook to the installed project settings (after the goal-system hooks). */
function addRecorder(cwd, recorder, events) {
  const file = path.join(cwd, '.claude', 'settings.json')
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'))
  settings.hooks ||= {}
  for (const ev of events) {
    const entry = { hooks: [{ type: 'command', command: recorder.command(ev), timeout: 10 }] }
    if (ev === 'PreToolUse' || ev === 'PostToolUse') entry.matcher = '*'
    ;(settings.hooks[ev] ||= []).push(entry)
  }
  fs.writeFileSync(file, JSON.stringify(settings, null, 2))
}

/** Install, then run Claude Code once (`prepare(ctx)` runs between install and run). */
async function claudeScenario(
  t,
  name,
  script,
  { prompt, prepare, serverOpts = {}, args = [], timeoutMs = RUN_MS } = {},
) {
  let project = null // the /goal judge looks at the project folder, known once it exists
  const ctx = await setupRun(
    name,
    script,
    claudeServerOpts(() => project, serverOpts),
  )
  project = ctx.cwd
  t.after(ctx.cleanup)
  writeGreetingProject(ctx.cwd)
  const install = installGoalSystem('claude', { home: ctx.home, project: ctx.cwd })
  if (prepare) await prepare(ctx)
  const r = await runClaude({ cwd: ctx.cwd, home: ctx.home, prompt, server: ctx.server, timeoutMs, args })
  t.diagnostic(
    `install: ${install.method}${install.note ? ` (${install.note})` : ''}; claude ${r.version}: exit ${r.code}${r.signal ? ` (${r.signal})` : ''}, ${r.stoppedBy}, ${r.durationMs} ms, ${agentRequests(ctx.server).length} agent + ${judgeRequests(ctx.server).length} /goal-judge model requests`,
  )
  const dump = debugDump(name, ctx.server, `${r.stdout}\n--- stderr\n${r.stderr}`)
  if (dump) t.diagnostic(`transcript: ${dump}`)
  return { ...ctx, r, install }
}

// ---------------------------------------------------------------------------------------------

describe('Goal System in Claude Code', { skip: skipReason('claude') }, () => {
  test('installer: goal-system install --claude --project wires hooks, .mcp.json and the tool permissions', {
    timeout: 30_000,
  }, async (t) => {
    assert.ok(fs.existsSync(INSTALLER), `${INSTALLER} is missing`)
    const { home, cwd, cleanup } = await setupRun('cc-install', [])
    t.after(cleanup)
    const r = runInstaller(home, ['--claude', '--project', cwd])
    assert.equal(r.code, 0, r.stderr || r.stdout)
    const f = claudeInstallFiles(home, cwd)
    const settings = JSON.parse(fs.readFileSync(f.settings, 'utf8'))
    for (const ev of ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']) {
      const cmd = settings.hooks?.[ev]?.[0]?.hooks?.[0]?.command || ''
      assert.match(
        cmd,
        new RegExp(`goal-hook" --host claude ${ev}\\).*hook-runner\\.mjs" claude ${ev} \\|\\| echo '\\{\\}'$`),
        `${ev}: ${cmd}`,
      )
    }
    assert.equal(settings.hooks.PreToolUse[0].matcher, '*')
    const mcp = JSON.parse(fs.readFileSync(f.mcp, 'utf8'))
    const server = mcp.mcpServers?.goalSystem
    assert.ok(server, '.mcp.json has mcpServers.goalSystem')
    assert.ok(
      server.args.some((a) => a.endsWith('/adapters/shared/mcp-server.mjs') && path.isAbsolute(a) && fs.existsSync(a)),
      JSON.stringify(server),
    )
    const user = JSON.parse(fs.readFileSync(f.userSettings, 'utf8'))
    for (const tool of GOAL_TOOLS)
      assert.ok(user.permissions?.allow?.includes(T(tool)), `permissions.allow has ${T(tool)}`)
  })

  test('/goal X opens a persisted draft goal with exactly X as its objective (UserPromptSubmit receives the raw "/goal X")', {
    timeout: TEST_MS,
  }, async (t) => {
    let snapshot = null // the goal state when the model is first asked
    let snapshotHome = null
    let recorder = null
    const script = [
      (req) => {
        snapshot = listGoals(snapshotHome)
        return goal('goal_system_status')(req)
      },
      bash(FIX_GREETING), // so that the built-in /goal's judge lets the run end
      goal('goal_system_close', { status: 'cancelled', reason: 'e2e: the draft was checked' }),
      { text: 'Stopping.' },
    ]
    const { r, home, cwd, server } = await claudeScenario(t, 'cc-goal-draft', script, {
      prompt: `/goal ${OBJECTIVE}`,
      prepare: (ctx) => {
        snapshotHome = ctx.home
        recorder = makeHookRecorder(path.join(ctx.root, 'recorder'))
        addRecorder(ctx.cwd, recorder, ['UserPromptSubmit'])
      },
    })
    assert.equal(r.code, 0, explain(r, server))
    const sid = r.json?.session_id
    assert.ok(sid, 'claude reported its session id')

    // What the hook received: the raw command line.
    const prompts = recorder.payloads('UserPromptSubmit').map((p) => p.payload.prompt)
    assert.deepEqual(prompts, [`/goal ${OBJECTIVE}`])

    // The draft, as persisted when the model was first asked.
    assert.equal(snapshot?.length, 1, 'one goal persisted before the first model request')
    const [draft] = snapshot
    assert.equal(draft.objective, OBJECTIVE)
    assert.equal(draft.completionStatus, 'draft')
    assert.equal(draft.sessionId, sid)
    assert.equal(draft.cwd, cwd)
    assert.ok(readAudit(home).some((l) => JSON.parse(l).event === 'open'))

    // The model saw our context (with its sessionId and cwd) and the MCP goal tools.
    const first = agentRequests(server)[0]
    const text = messagesText(first.body)
    assert.ok(
      text.includes(`[goal-system] The user's explicit /goal opened draft goal ${draft.id}`),
      'open context reaches the model',
    )
    assert.deepEqual(callerFromContext(first.body), { sessionId: sid, cwd })
    for (const tool of GOAL_TOOLS) assert.ok(toolNames(first.body).includes(T(tool)), `${T(tool)} offered`)
    // The installed ~/.claude/commands/goal.md replaced Claude Code's built-in /goal:
    // the model got our command body, and no second, model-judged stop hook ran.
    assert.ok(
      text.includes(`The user started a goal with /goal: ${OBJECTIVE}`),
      'our /goal command body reaches the model',
    )
    assert.ok(!text.includes(`Goal set: ${OBJECTIVE}`), "Claude Code's built-in /goal did not run")

    // The MCP status tool, called with the context's sessionId/cwd, read the draft.
    const [status] = modelCalls(server, (n) => n === T('goal_system_status'))
    const res = resultOf(server, status)
    assert.equal(res?.isError, false, res?.text)
    assert.match(res.text, new RegExp(`${draft.id} — draft`))
    const g = readGoal(home, sid)
    assert.equal(g.completionStatus, 'cancelled')
  })

  test('/goal X with a project .claude/commands/goal.md: the command file replaces the built-in /goal; the hook still gets the raw "/goal X"', {
    timeout: TEST_MS,
  }, async (t) => {
    let snapshot = null
    let snapshotHome = null
    let recorder = null
    const script = [
      (req) => {
        snapshot = listGoals(snapshotHome)
        return goal('goal_system_close', { status: 'cancelled', reason: 'e2e: checked' })(req)
      },
      { text: 'Stopping.' },
    ]
    const { r, server } = await claudeScenario(t, 'cc-goal-command', script, {
      prompt: `/goal ${OBJECTIVE}`,
      prepare: (ctx) => {
        snapshotHome = ctx.home
        const dir = path.join(ctx.cwd, '.claude', 'commands')
        fs.mkdirSync(dir, { recursive: true })
        fs.writeFileSync(
          path.join(dir, 'goal.md'),
          '---\ndescription: Start a persisted goal\nargument-hint: <objective>\n---\nGOAL-COMMAND-BODY: $ARGUMENTS\n',
        )
        recorder = makeHookRecorder(path.join(ctx.root, 'recorder'))
        addRecorder(ctx.cwd, recorder, ['UserPromptSubmit'])
      },
    })
    assert.equal(r.code, 0, explain(r, server))
    assert.deepEqual(
      recorder.payloads('UserPromptSubmit').map((p) => p.payload.prompt),
      [`/goal ${OBJECTIVE}`],
    )
    const first = agentRequests(server)[0]
    const text = messagesText(first.body)
    assert.ok(text.includes(`GOAL-COMMAND-BODY: ${OBJECTIVE}`), 'the command body (with $ARGUMENTS) reached the model')
    assert.ok(!text.includes('Goal set:'), 'the built-in /goal did not run')
    assert.equal(judgeRequests(server).length, 0, 'no stop-condition judge')
    assert.equal(snapshot?.[0]?.objective, OBJECTIVE)
    assert.equal(snapshot?.[0]?.completionStatus, 'draft')
  })

  test('an ordinary prompt opens no goal and the stop is not blocked', { timeout: TEST_MS }, async (t) => {
    const { r, home, server } = await claudeScenario(t, 'cc-plain', [bash('echo hello'), { text: 'All done.' }], {
      prompt: 'say hello',
    })
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.json?.result, 'All done.')
    assert.equal(r.json?.num_turns, 2)
    assert.equal(server.modelRequests().length, 2)
    assert.deepEqual(listGoals(home), [])
    for (const q of server.modelRequests())
      assert.ok(!messagesText(q.body).includes('[goal-system]'), `request ${q.index} has no goal-system text`)
  })

  test('goal tools and stop control: the stop is blocked while the goal is open, a premature close is refused (the model sees why), an honest close is accepted and the stop goes through', {
    timeout: TEST_MS,
  }, async (t) => {
    const script = [
      { text: 'I will stop here.' },
      goal('goal_system_open', {
        objective: OBJECTIVE,
        status: 'active',
        requirements: ['R1: greet.sh prints hello twice'],
        scope: ['greet.sh'],
        remaining: ['make greet.sh print hello twice'],
      }),
      goal('goal_system_close', { status: 'complete', reason: 'I believe it is done.' }),
      bash('cat greet.sh'),
      bash(FIX_GREETING),
      bash(RUN_AND_TEST),
      goal('goal_system_update', honestEvidence()),
      goal('goal_system_close', { status: 'complete', reason: 'verified: sh greet.sh prints hello twice' }),
      { text: 'Done: greet.sh prints hello twice.' },
    ]
    const { r, home, cwd, server } = await claudeScenario(t, 'cc-tools', script, { prompt: `/goal ${OBJECTIVE}` })
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.timedOut, false)
    assert.equal(r.json?.subtype, 'success')
    assert.equal(r.json?.result, 'Done: greet.sh prints hello twice.')
    const reqs = agentRequests(server)
    assert.equal(
      reqs.length,
      script.length,
      'one agent request per scripted step: one re-prompt after the blocked stop, none after the close',
    )

    const sid = r.json.session_id
    const g = readGoal(home, sid)
    assert.ok(g, 'goal state exists')
    // The first stop was blocked: the host asked again with our directive as stop-hook feedback.
    const feedback = lastUser(reqs[1])
    assert.ok(
      feedback.includes(`Stop hook feedback:\n${DIRECTIVE}: goal ${g.id} is still open`),
      `directive reached the model:\n${feedback.slice(0, 500)}`,
    )

    const [open, premature, cat, fix, run, update, close] = modelCalls(server)
    assert.equal(open.args.sessionId, sid, 'the model took sessionId from the hook context')
    assert.equal(open.args.cwd, cwd)
    const openRes = resultOf(server, open)
    assert.equal(openRes?.isError, false, openRes?.text)
    assert.match(openRes.text, new RegExp(`${g.id} — active`), 'open continued the /goal draft as active')

    const pc = resultOf(server, premature)
    assert.ok(pc, 'premature close answered')
    assert.equal(pc.isError, true, 'a refused close is an error result')
    assert.match(pc.text, /refused/i)
    assert.match(pc.text, /doneSoFar/)
    assert.match(pc.text, /toolHistory|action or verification/)

    assert.match(resultOf(server, cat).text, /echo hello/)
    assert.match(resultOf(server, run).text, /^hello\nhello\nok 1 - greet.sh prints hello twice/)
    void fix
    assert.equal(resultOf(server, update)?.isError, false)
    const hc = resultOf(server, close)
    assert.equal(hc?.isError, false, hc?.text)
    assert.match(hc.text, new RegExp(`${g.id} — complete`))
    // What Claude Code hands the model for a successful MCP call (structuredContent or the text).
    t.diagnostic(
      `honest close result as the model saw it: ${hc.text.length} chars, ${hc.text.startsWith('{') ? 'structuredContent JSON (the whole goal record)' : 'text summary'}`,
    )

    assert.equal(g.completionStatus, 'complete')
    assert.ok(g.closedAt)
    assert.ok(g.toolHistory.actions + g.toolHistory.verifications >= 1)
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
      bash('cat greet.sh'),
      bash('ls -la'),
      bash('wc -l greet.sh'),
      bash('head -n 1 greet.sh'),
      bash('tail -n 1 greet.sh'),
      bash('echo drift > drift.txt'),
      goal('goal_system_update', {
        inspectionEvidence: ['cat greet.sh: one echo hello'],
        remaining: ['make greet.sh print hello twice'],
      }),
      bash(FIX_GREETING),
      bash(RUN_AND_TEST),
      goal('goal_system_update', honestEvidence()),
      goal('goal_system_close', { status: 'complete', reason: 'verified' }),
      { text: 'Done.' },
    ]
    const { r, home, cwd, server } = await claudeScenario(t, 'cc-drift', script, { prompt: `/goal ${OBJECTIVE}` })
    assert.equal(r.code, 0, explain(r, server))
    const g = readGoal(home, r.json?.session_id)
    assert.ok(g)
    const calls = modelCalls(server, (n) => n === 'Bash')
    for (const c of calls.slice(0, 5)) {
      const res = resultOf(server, c)
      assert.equal(res?.isError, false, `${c.args.command}: ${res?.text}`)
    }
    const denied = resultOf(server, calls[5])
    assert.ok(denied, 'the sixth call was answered')
    assert.equal(denied.isError, true)
    assert.match(
      denied.text,
      new RegExp(`^\\[goal-system\\] Denied: 5 non-goal tool calls since goal ${g.id} was last updated`),
    )
    assert.ok(!fs.existsSync(path.join(cwd, 'drift.txt')), 'the denied command did not run')
    assert.deepEqual(
      r.json.permission_denials.map((d) => [d.tool_name, d.tool_input?.command]),
      [['Bash', 'echo drift > drift.txt']],
    )
    const warned = agentRequests(server).filter(
      (q) => q.index <= calls[5].req.index && messagesText(q.body).includes('[goal-system] Drift warning'),
    )
    t.diagnostic(`drift warning seen by the model in ${warned.length} request(s) before the denial`)
    assert.ok(warned.length > 0, 'the drift warning reached the model before the denial')
    assert.equal(resultOf(server, calls[6])?.isError, false, 'after the update the next call ran')
    assert.equal(greetingOutput(cwd), 'hello\nhello\n')
    assert.equal(g.completionStatus, 'complete')
  })

  test('loop guard: a model that never makes progress is released after 3 blocked stops; the host exits cleanly, the goal is blocked and resumable', {
    timeout: TEST_MS,
  }, async (t) => {
    const stuck = 'I am still thinking about it.'
    const { r, home, cwd, server } = await claudeScenario(t, 'cc-loop', [], {
      prompt: `/goal ${OBJECTIVE}`,
      serverOpts: { defaultText: stuck },
    })
    assert.equal(r.timedOut, false, explain(r, server))
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.json?.subtype, 'success')
    const sid = r.json.session_id
    const g = readGoal(home, sid)
    assert.equal(g.completionStatus, 'blocked')
    assert.equal(g.closedAt, null, 'resumable: not closed')
    assert.match(g.statusReason || '', /loop guard/)
    assert.ok(readAudit(home).some((l) => JSON.parse(l).event === 'loop-guard'))
    const reqs = agentRequests(server)
    const directed = reqs.filter((q) => lastUser(q).includes(`Stop hook feedback:\n${DIRECTIVE}`))
    assert.equal(directed.length, 3, 'three continuation directives, then the stop is let through')
    const turnsAfterRelease = reqs.filter((q) => q.index > directed.at(-1).index).length
    const judged = judgeRequests(server).length

    // Resumable: `--resume` the session with an explicit continue prompt, do the work, close.
    const before = agentRequests(server).length
    server.push(
      goal('goal_system_status'),
      bash('cat greet.sh'),
      bash(FIX_GREETING),
      bash(RUN_AND_TEST),
      goal('goal_system_update', { ...honestEvidence(), blockers: [] }),
      goal('goal_system_close', { status: 'complete', reason: 'verified after resuming' }),
      { text: 'Resumed and finished.' },
    )
    const r2 = await runClaude({
      cwd,
      home,
      prompt: 'continue the goal',
      server,
      timeoutMs: RUN_MS,
      args: ['--resume', sid],
    })
    t.diagnostic(`resume run: exit ${r2.code}, ${r2.stoppedBy}, ${r2.durationMs} ms`)
    debugDump('cc-loop-resume', server, `${r2.stdout}\n--- stderr\n${r2.stderr}`)
    assert.equal(r2.code, 0, explain(r2, server))
    const resumed = agentRequests(server).slice(before)
    assert.ok(resumed.length >= 1)
    assert.ok(
      messagesText(resumed[0].body).includes(`[goal-system] Continuing this session's goal ${g.id}`),
      'the continue prompt reactivated the goal',
    )
    const g2 = readGoal(home, sid)
    assert.equal(g2.id, g.id)
    assert.equal(g2.completionStatus, 'complete', JSON.stringify(g2.statusReason))
    assert.equal(r2.json?.result, 'Resumed and finished.')

    // The bound: once our loop guard lets the stop through, the host stops asking the model.
    // (Claude Code's built-in /goal, which `/goal X` also starts, keeps blocking with its own
    // judge: see the report. This is asserted last so the checks above still run.)
    t.diagnostic(`after the release: ${turnsAfterRelease} more agent turn(s); ${judged} /goal-judge request(s)`)
    assert.equal(
      turnsAfterRelease,
      0,
      `the model answered the 3rd directive, the 4th stop was released, and the host must ask nothing more; it asked ${turnsAfterRelease} more time(s) (${judged} /goal-judge requests): Claude Code's built-in /goal keeps the session going`,
    )
  })
})
