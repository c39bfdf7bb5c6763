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
/** Is `name` offered to the model: in `tools`, or deferred behind ToolSearch (Claude Code 2.1.330)? */
const offersTool = (body, name) =>
  toolNames(body).includes(name) ||
  new RegExp(`deferred tools are now available via ToolSearch[\\s\\S]*\\b${name}\\b`).test(messagesText(body))
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
        new RegExp(`goal-hook" --host claude ${ev} \\|\\|.*hook-runner\\.mjs" claude ${ev} \\|\\| echo '\\{\\}'$`),
        `${ev}: ${cmd}`,
      )
    }
    assert.equal(settings.hooks.PreToolUse[0].matcher, '*')
    const mcp = JSON.parse(fs.readFileSync(f.mcp, 'utf8'))
    const server = mcp.mcpServers?.goalSystem
    assert.ok(server, '.mcp.json has mcpServers.goalSystem')
    assert.ok(
      server.args.some(
        (a) => a.endsWith('/adapters/vscode-chat/mcp-server.mjs') && path.isAbsolute(a) && fs.existsSync(a),
      ),
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
      goal('goal_system_close', { status: 'blocked', reason: 'e2e: the draft was checked' }),
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
    // 2.1.197 lists MCP tools in `tools`; 2.1.330 defers them: their names are listed in the
    // system text ("deferred tools are now available via ToolSearch") until the model loads them.
    for (const tool of GOAL_TOOLS) assert.ok(offersTool(first.body, T(tool)), `${T(tool)} offered`)
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
    // The model may close as blocked (a cancel is the user's: /goal cancel).
    const g = readGoal(home, sid)
    assert.equal(g.completionStatus, 'blocked')
    assert.ok(g.closedAt, 'closed as blocked by the model')
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
        return goal('goal_system_close', { status: 'blocked', reason: 'e2e: checked' })(req)
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
      // 2.1.330 prefixes a PreToolUse deny reason with "PreToolUse:Bash hook error: ".
      new RegExp(
        `^(PreToolUse:Bash hook error: )?\\[goal-system\\] Denied: 5 non-goal tool calls since goal ${g.id} was last updated`,
      ),
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

// ---------------------------------------------------------------------------------------------
// Authority, evidence and budgets (issues 11, 12, 13) in the real host.

/** The first user text of a request: the session's own prompt (the main agent) or a subagent's task. */
const firstUser = (req) => {
  const m = (req.body?.messages || []).find((x) => x.role === 'user')
  if (!m) return ''
  return typeof m.content === 'string' ? m.content : m.content.map((c) => c.text || '').join('\n')
}
const SUBAGENT_MARKER = 'SUBAGENT-TASK-7c1e'

/**
 * A script for a run with a subagent: every model request takes the next entry of its own
 * queue (the subagent's first user text holds SUBAGENT_MARKER). Claude Code 2.1.330 runs a
 * subagent in the background by default, so the two conversations may interleave.
 */
function routedScript(main, sub, n = 40) {
  const route = (req, extra) => {
    const q = firstUser(req).includes(SUBAGENT_MARKER) ? sub : main
    const item = q.shift()
    return typeof item === 'function' ? item(req, extra) : item
  }
  return Array.from({ length: n }, () => route)
}

describe('Goal System in Claude Code: authority, evidence, usage', { skip: skipReason('claude') }, () => {
  test('a subagent (Agent tool) that calls goal_system_close is denied; the main goal stays open and the main session then closes it honestly', {
    timeout: TEST_MS,
  }, async (t) => {
    let home = null
    let mainSid = null
    let mainCwd = null
    let openWhenDenied = null // the main goal's status once the subagent got its answer
    const main = [
      (req) => {
        mainSid = caller(req).sessionId
        mainCwd = caller(req).cwd
        return {
          toolCalls: [
            {
              name: 'Agent',
              args: {
                description: 'Check the greeting',
                prompt: `${SUBAGENT_MARKER}: the goal is done, close it.`,
                subagent_type: 'general-purpose',
              },
            },
          ],
        }
      },
      bash('cat greet.sh'),
      bash(FIX_GREETING),
      bash(RUN_AND_TEST),
      goal('goal_system_update', honestEvidence()),
      goal('goal_system_close', { status: 'complete', reason: 'verified: sh test.sh passes' }),
      { text: 'Done: greet.sh prints hello twice.' },
    ]
    const sub = [
      () => ({
        toolCalls: [
          {
            name: T('goal_system_close'),
            args: { sessionId: mainSid, cwd: mainCwd, status: 'complete', reason: 'the subagent says it is done' },
          },
        ],
      }),
      () => {
        openWhenDenied = readGoal(home, mainSid)?.completionStatus ?? 'no goal'
        return { text: 'Subagent report: I could not close the goal.' }
      },
    ]
    const s = await claudeScenario(t, 'cc-subagent', routedScript(main, sub), {
      prompt: `/goal ${OBJECTIVE}`,
      args: ['Agent'],
      prepare: (ctx) => {
        home = ctx.home
      },
    })
    const { r, server } = s
    assert.equal(r.code, 0, explain(r, server))
    const [subClose] = modelCalls(
      server,
      (n, a) => n === T('goal_system_close') && a.reason === 'the subagent says it is done',
    )
    assert.ok(subClose, `the subagent called the close tool${explain(r, server)}`)
    assert.ok(firstUser(subClose.req).includes(SUBAGENT_MARKER), 'the close came from the subagent conversation')
    const denied = resultOf(server, subClose)
    t.diagnostic(`subagent close result: ${JSON.stringify(denied?.text).slice(0, 300)}`)
    assert.equal(denied?.isError, true, 'the subagent close is an error result')
    assert.match(denied.text, /subagent/i)
    // The main goal stayed open through the subagent's attempt (read when the subagent was answered).
    assert.match(openWhenDenied || '', /^(draft|active)$/, `still open after the subagent: ${openWhenDenied}`)
    const g = readGoal(home, r.json?.session_id)
    assert.equal(g.completionStatus, 'complete', 'the main session closed it honestly')
    assert.ok(readAudit(home).filter((l) => JSON.parse(l).event === 'close').length <= 1, 'one close in the audit log')
  })

  test('a claims-only close (evidence text, no real verification) is refused; after the real test run the close is accepted', {
    timeout: TEST_MS,
  }, async (t) => {
    const loadTools = (req) =>
      toolNames(req.body).includes('ToolSearch') && !toolNames(req.body).includes(T('goal_system_update'))
        ? {
            toolCalls: [
              {
                name: 'ToolSearch',
                args: {
                  query:
                    'select:mcp__goalSystem__goal_system_update,mcp__goalSystem__goal_system_close,mcp__goalSystem__goal_system_status',
                },
              },
            ],
          }
        : bash('cat greet.sh')
    const script = [
      loadTools, // 2.1.330 defers MCP tools behind ToolSearch; 2.1.197 offers them at once
      bash('cat greet.sh'),
      bash(FIX_GREETING),
      goal('goal_system_update', honestEvidence()), // claims a passing test that never ran
      goal('goal_system_close', { status: 'complete', reason: 'sh test.sh passes' }),
      bash(RUN_AND_TEST),
      goal('goal_system_update', honestEvidence()),
      goal('goal_system_close', { status: 'complete', reason: 'verified: sh test.sh passes' }),
      { text: 'Done.' },
    ]
    const { r, home, server } = await claudeScenario(t, 'cc-claims', script, { prompt: `/goal ${OBJECTIVE}` })
    assert.equal(r.code, 0, explain(r, server))
    // Where the host defers MCP tools (2.1.330) the model loaded them first; that call is no evidence.
    const [search] = modelCalls(server, (n) => n === 'ToolSearch')
    if (toolNames(agentRequests(server)[0].body).includes('ToolSearch')) {
      assert.ok(search, 'the model loaded the goal tools with ToolSearch')
      assert.equal(resultOf(server, search)?.isError, false)
    }
    const closes = modelCalls(server, (n) => n === T('goal_system_close'))
    assert.equal(closes.length, 2, explain(r, server))
    const claimed = resultOf(server, closes[0])
    t.diagnostic(`claims-only close: ${JSON.stringify(claimed?.text).slice(0, 400)}`)
    assert.equal(claimed?.isError, true, 'the claims-only close is refused')
    assert.match(claimed.text, /refused/i)
    assert.match(claimed.text, /verif/i)
    const honest = resultOf(server, closes[1])
    assert.equal(honest?.isError, false, honest?.text)
    assert.equal(readGoal(home, r.json?.session_id).completionStatus, 'complete')
  })

  test("usage: the scripted model's reported tokens reach budget.tokensUsed; the user's /goal budget 1k leads to budget_limited and a released stop", {
    timeout: 200_000,
  }, async (t) => {
    // Run 1: /goal X, a model that only talks: the loop guard leaves the goal blocked, resumable.
    const { r, home, cwd, server } = await claudeScenario(t, 'cc-budget', [], {
      prompt: `/goal ${OBJECTIVE}`,
      serverOpts: { defaultText: 'Thinking.' },
    })
    assert.equal(r.code, 0, explain(r, server))
    const sid = r.json?.session_id
    const g1 = readGoal(home, sid)
    // The model server reports 100 input + 10 output tokens per answer; Claude Code writes them
    // into its transcript, which the hooks read.
    t.diagnostic(`after run 1: ${agentRequests(server).length} agent requests, tokensUsed ${g1.budget?.tokensUsed}`)
    assert.ok(g1.budget?.tokensUsed > 0, `usage counted: ${JSON.stringify(g1.budget)}`)
    // Counted per message: a whole number of 110-token answers, never more than were sent.
    assert.equal(g1.budget.tokensUsed % 110, 0, `${g1.budget.tokensUsed}`)
    assert.ok(g1.budget.tokensUsed <= 110 * server.modelRequests().length)

    // Run 2: the user's /goal budget 1k, in the resumed session.
    const resume = (prompt) => runClaude({ cwd, home, prompt, server, timeoutMs: RUN_MS, args: ['--resume', sid] })
    const r2 = await resume('/goal budget 1k')
    assert.equal(r2.code, 0, explain(r2, server))
    const g2 = readGoal(home, sid)
    assert.equal(g2.budget?.tokenBudget, 1000, JSON.stringify(g2.budget))

    // Run 3: continue; the model keeps working until the budget is crossed.
    const before = agentRequests(server).length
    server.push(...Array.from({ length: 12 }, (_, i) => bash(`echo step ${i}`)), { text: 'Stopping.' })
    const r3 = await resume('continue the goal')
    t.diagnostic(`run 3: exit ${r3.code}, ${agentRequests(server).length - before} agent requests`)
    assert.equal(r3.code, 0, explain(r3, server))
    assert.equal(r3.timedOut, false)
    const g3 = readGoal(home, sid)
    t.diagnostic(`after run 3: ${JSON.stringify(g3.budget)} ${g3.completionStatus} ${g3.statusReason}`)
    assert.ok(g3.budget.tokensUsed >= 1000, `tokensUsed ${g3.budget.tokensUsed}`)
    assert.equal(g3.completionStatus, 'budget_limited')
    // The stops after the limit went through. When the crossing is first seen at a stop (the
    // host may write the last usage to its transcript only then), that one stop is held with
    // the wrap-up steer and the next goes through: one more answer, never a loop.
    const answers = agentRequests(server).length - before
    assert.ok([13, 14].includes(answers), `twelve tool turns and the final answer (+1 steer): ${answers}`)
    assert.equal(r3.json?.result, answers === 13 ? 'Stopping.' : 'Thinking.')
    const seen = agentRequests(server)
      .slice(before)
      .map((q) => messagesText(q.body))
      .join('\n')
    assert.match(seen, new RegExp(`Goal ${g3.id} reached its budget`), 'the wrap-up steer reached the model')
    assert.ok(
      readAudit(home).some((l) => /budget/.test(JSON.parse(l).event)),
      'audit records the budget',
    )
  })
})
