// Smoke test of the e2e harness: the real hosts, offline, against the scripted model server.
//   node --test e2e/smoke.test.mjs
// Hosts are found in ./node_modules, $GOAL_E2E_HOSTS_DIR or /tmp/e2e-hosts; a missing host skips
// its tests (GOAL_E2E_REQUIRE=1 turns a skip into a failure). Each host run is bounded by 60 s.

import { test, describe, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer, toolResults, userTexts, toolNames } from './model-server.mjs'
import {
  runCopilot,
  runClaude,
  runIsolated,
  hostUnavailableReason,
  makeTempDir,
  copilotHookEvents,
  readAutopilotObjective,
} from './hosts.mjs'
import {
  makeHookRecorder,
  installCopilotHooks,
  installClaudeHooks,
  installCopilotProbeExtension,
  enableCopilotExperimental,
  readJsonLines,
  mergeJsonFile,
  MCP_PROBE,
} from './fixtures.mjs'

const RUN_MS = 60_000
const TEST_MS = 90_000
const KEEP = !!process.env.GOAL_E2E_KEEP // keep temp folders for inspection

function skipReason(host) {
  const r = hostUnavailableReason(host)
  if (r && process.env.GOAL_E2E_REQUIRE) throw new Error(r)
  return r || false
}

const cleanups = []
after(async () => {
  for (const c of cleanups.reverse()) await c()
})

/** A fresh temp root with home/, proj/ and hooks/, plus a model server running `script`. */
async function setup(name, script, opts) {
  const root = makeTempDir(name)
  const home = path.join(root, 'home')
  const cwd = path.join(root, 'proj')
  fs.mkdirSync(home, { recursive: true })
  fs.mkdirSync(cwd, { recursive: true })
  const hooks = makeHookRecorder(path.join(root, 'hooks'))
  const server = await startModelServer(script, opts)
  cleanups.push(async () => {
    await server.close()
    if (!KEEP) fs.rmSync(root, { recursive: true, force: true })
  })
  return { root, home, cwd, hooks, server }
}

function diag(t, r) {
  t.diagnostic(
    `${r.host} ${r.version}: exit ${r.code}${r.signal ? ` (${r.signal})` : ''}, ${r.stoppedBy}, ${r.durationMs} ms`,
  )
}

function explain(r, server) {
  return `\nstdout:\n${r.stdout.slice(-2000)}\nstderr:\n${r.stderr.slice(-2000)}\nrequests: ${server.requests.length}`
}

const ECHO_HELLO_COPILOT = { toolCalls: [{ name: 'bash', args: { command: 'echo hello', description: 'Say hello' } }] }
const ECHO_HELLO_CLAUDE = { toolCalls: [{ name: 'Bash', args: { command: 'echo hello', description: 'Say hello' } }] }

// ---------------------------------------------------------------------------------------------

test('the namespace has loopback only: an outside address is unreachable', {
  timeout: 20_000,
  skip: process.platform !== 'linux',
}, async () => {
  const root = makeTempDir('netns')
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  const probe = `const s=require('net').connect({host:'1.1.1.1',port:443});s.setTimeout(3000,()=>{console.log('TIMEOUT');process.exit(0)});s.on('connect',()=>{console.log('CONNECTED');process.exit(0)});s.on('error',e=>{console.log('ERR',e.code);process.exit(0)});`
  const r = await runIsolated({
    bin: process.execPath,
    args: ['-e', probe],
    cwd: root,
    env: { PATH: process.env.PATH, HOME: root },
    timeoutMs: 15_000,
  })
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /ERR ENETUNREACH|TIMEOUT/)
  assert.doesNotMatch(r.stdout, /CONNECTED/)
})

describe('GitHub Copilot CLI', { skip: skipReason('copilot') }, () => {
  test('hooks fire for a bash tool call and the tool result reaches the model', { timeout: TEST_MS }, async (t) => {
    const { home, cwd, hooks, server } = await setup('cop-hooks', [ECHO_HELLO_COPILOT, { text: 'All done.' }])
    installCopilotHooks(home, hooks)
    const r = await runCopilot({ cwd, home, prompt: 'say hello', server, timeoutMs: RUN_MS })
    diag(t, r)
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.timedOut, false)

    const ev = (name) => hooks.payloads(name).map((p) => p.payload)
    const [start] = ev('sessionStart')
    assert.equal(start.sessionId, r.sessionId)
    assert.equal(start.cwd, cwd)
    assert.equal(typeof start.timestamp, 'number')
    assert.equal(start.source, 'new')
    assert.equal(start.initialPrompt, 'say hello')
    assert.equal(ev('userPromptSubmitted')[0].prompt, 'say hello')
    const [pre] = ev('preToolUse')
    assert.equal(pre.toolName, 'bash')
    assert.deepEqual(pre.toolArgs, { command: 'echo hello', description: 'Say hello' })
    const [post] = ev('postToolUse')
    assert.equal(post.toolName, 'bash')
    assert.equal(post.toolResult.resultType, 'success')
    assert.match(post.toolResult.textResultForLlm, /^hello\n/)
    const [stop] = ev('agentStop')
    assert.equal(stop.stopReason, 'end_turn')
    assert.equal(stop.stop_hook_active, false)
    assert.match(stop.transcriptPath, /session-state\/.+\/events\.jsonl$/)
    assert.equal(ev('sessionEnd')[0].reason, 'complete')

    // The model got the tool output back as a role:"tool" message.
    const reqs = server.modelRequests()
    assert.equal(reqs.length, 2)
    assert.ok(reqs[0].body.stream && reqs[0].body.stream_options?.include_usage)
    assert.ok(toolNames(reqs[0].body).includes('bash'))
    const results = toolResults(reqs[1].body)
    assert.equal(results.length, 1)
    assert.match(results[0].text, /^hello\n<shellId: \d+ completed with exit code 0>/)

    // events.jsonl logs every hook run (hook.start/hook.end).
    const types = copilotHookEvents(home, r.sessionId)
      .filter((e) => e.type === 'hook.start')
      .map((e) => e.data.hookType)
    for (const h of ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'agentStop', 'sessionEnd'])
      assert.ok(types.includes(h), h)
  })

  test('an agentStop block makes the host ask the model again with the reason', { timeout: TEST_MS }, async (t) => {
    const { home, cwd, hooks, server } = await setup('cop-block', [{ text: 'First stop.' }, { text: 'Second stop.' }])
    installCopilotHooks(home, hooks)
    hooks.answerOnce('agentStop', { decision: 'block', reason: 'KEEP-GOING-MARKER' })
    const r = await runCopilot({ cwd, home, prompt: 'say hello', server, timeoutMs: RUN_MS })
    diag(t, r)
    assert.equal(r.code, 0, explain(r, server))
    const reqs = server.modelRequests()
    assert.equal(reqs.length, 2)
    const last = userTexts(reqs[1].body).at(-1)
    assert.match(last, /KEEP-GOING-MARKER$/)
    const stops = hooks.payloads('agentStop').map((p) => p.payload)
    assert.deepEqual(
      stops.map((s) => s.stop_hook_active),
      [false, true],
    )
    // The reason is submitted as a user prompt: userPromptSubmitted fires with it.
    assert.deepEqual(
      hooks.payloads('userPromptSubmitted').map((p) => p.payload.prompt),
      ['say hello', 'KEEP-GOING-MARKER'],
    )
  })

  test('a preToolUse deny reaches the model as the tool result', { timeout: TEST_MS }, async (t) => {
    const { home, cwd, hooks, server } = await setup('cop-deny', [ECHO_HELLO_COPILOT, { text: 'Understood.' }])
    installCopilotHooks(home, hooks)
    hooks.answerOnce('preToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'DENY-MARKER' })
    const r = await runCopilot({ cwd, home, prompt: 'say hello', server, timeoutMs: RUN_MS })
    diag(t, r)
    assert.equal(r.code, 0, explain(r, server))
    const results = toolResults(server.modelRequests()[1].body)
    assert.deepEqual(
      results.map((x) => x.text),
      ['Denied by preToolUse hook: DENY-MARKER'],
    )
    assert.equal(hooks.payloads('postToolUse').length, 0, 'no postToolUse for a denied call')
    // events.jsonl: hook.start input is a batch {toolCalls:[{id,name,args}]}; hook.end output maps id -> denial.
    const hookEvents = copilotHookEvents(home, r.sessionId).filter((e) => e.data.hookType === 'preToolUse')
    const start = hookEvents.find((e) => e.type === 'hook.start')
    assert.equal(start.data.input.toolCalls[0].name, 'bash')
    const end = hookEvents.find((e) => e.type === 'hook.end')
    assert.deepEqual(Object.values(end.data.output), ['Denied by preToolUse hook: DENY-MARKER'])
  })

  test('/goal X starts autopilot; task_complete ends it and stopWhen ends the process', {
    timeout: TEST_MS,
  }, async (t) => {
    const { home, cwd, hooks, server } = await setup('cop-goal', [
      { toolCalls: [{ name: 'bash', args: { command: 'echo X > x.txt', description: 'Make X' } }] },
      { toolCalls: [{ name: 'task_complete', args: { summary: 'Made X.' } }] },
    ])
    installCopilotHooks(home, hooks)
    const r = await runCopilot({
      cwd,
      home,
      prompt: '/goal make X',
      server,
      timeoutMs: RUN_MS,
      stopWhen: 'task_complete',
    })
    diag(t, r)
    assert.equal(r.stoppedBy, 'stopWhen', explain(r, server))
    assert.equal(r.timedOut, false)
    assert.equal(fs.readFileSync(path.join(cwd, 'x.txt'), 'utf8'), 'X\n')
    assert.ok(toolNames(server.modelRequests()[0].body).includes('task_complete'), 'task_complete offered in autopilot')

    const prefix = 'The user set this explicit autopilot objective with /autopilot:\n\nmake X\n\n'
    assert.ok(hooks.payloads('sessionStart')[0].payload.initialPrompt.startsWith(prefix))
    assert.ok(hooks.payloads('userPromptSubmitted')[0].payload.prompt.startsWith(prefix))
    const pre = hooks.payloads('preToolUse').map((p) => p.payload)
    assert.deepEqual(
      pre.map((p) => p.toolName),
      ['bash', 'task_complete'],
    )
    assert.deepEqual(pre[1].toolArgs, { summary: 'Made X.' })
    assert.equal(hooks.payloads('agentStop').length, 1, 'agentStop fires after task_complete')
    assert.equal(
      hooks.payloads('sessionEnd').at(-1)?.payload.reason,
      'complete',
      'stopWhen waited for the sessionEnd hook',
    )

    const events = r.events()
    const done = events.find((e) => e.type === 'session.task_complete')
    assert.deepEqual(done.data, { summary: 'Made X.', success: true })
    const objective = readAutopilotObjective(home, r.sessionId)
    assert.equal(objective.current.objective, 'make X')
    assert.equal(objective.current.status, 'completed')
    assert.equal(objective.current.completionSummary, 'Made X.')
  })

  test('a user extension (experimental on) adds its tool to the model request', { timeout: TEST_MS }, async (t) => {
    const { root, home, cwd, server } = await setup('cop-ext', [
      (req) =>
        toolNames(req.body).includes('probe_tool')
          ? { toolCalls: [{ name: 'probe_tool', args: { x: 'abc' } }] }
          : { text: 'NO-PROBE-TOOL' },
      { text: 'Done.' },
    ])
    const logFile = path.join(root, 'ext.log')
    installCopilotProbeExtension(home, { logFile })
    enableCopilotExperimental(home)
    const r = await runCopilot({ cwd, home, prompt: 'probe', server, timeoutMs: RUN_MS })
    diag(t, r)
    assert.equal(r.code, 0, explain(r, server))
    const reqs = server.modelRequests()
    assert.ok(toolNames(reqs[0].body).includes('probe_tool'), 'probe_tool offered to the model')
    assert.deepEqual(
      toolResults(reqs[1].body).map((x) => x.text),
      ['PROBE-RESULT abc'],
    )
    const log = readJsonLines(logFile)
    const kinds = log.map((l) => l.kind)
    for (const k of ['joined', 'onSessionStart', 'onPreToolUse', 'probe_tool', 'onPostToolUse', 'onAgentStop'])
      assert.ok(kinds.includes(k), k)
    const pre = log.find((l) => l.kind === 'onPreToolUse').data.input
    assert.equal(pre.toolName, 'probe_tool')
    assert.deepEqual(pre.toolArgs, { x: 'abc' })
    assert.equal(pre.workingDirectory, cwd) // SDK hooks: workingDirectory, not cwd
  })
})

describe('Claude Code', { skip: skipReason('claude') }, () => {
  test('hooks fire for a Bash tool call and the tool result reaches the model', { timeout: TEST_MS }, async (t) => {
    const { home, cwd, hooks, server } = await setup('cc-hooks', [ECHO_HELLO_CLAUDE, { text: 'All done.' }])
    installClaudeHooks(cwd, hooks)
    const r = await runClaude({ cwd, home, prompt: 'say hello', server, timeoutMs: RUN_MS })
    diag(t, r)
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.json?.result, 'All done.')

    const ev = (name) => hooks.payloads(name).map((p) => p.payload)
    const [prompt] = ev('UserPromptSubmit')
    assert.equal(prompt.hook_event_name, 'UserPromptSubmit')
    assert.equal(prompt.prompt, 'say hello')
    assert.equal(prompt.cwd, cwd)
    assert.equal(prompt.session_id, r.json.session_id)
    const [pre] = ev('PreToolUse')
    assert.equal(pre.tool_name, 'Bash')
    assert.deepEqual(pre.tool_input, { command: 'echo hello', description: 'Say hello' })
    assert.match(pre.tool_use_id, /^toolu_/)
    const [post] = ev('PostToolUse')
    assert.equal(post.tool_response.stdout, 'hello')
    assert.equal(post.tool_response.interrupted, false)
    const [stop] = ev('Stop')
    assert.equal(stop.stop_hook_active, false)
    assert.equal(stop.last_assistant_message, 'All done.')

    const reqs = server.modelRequests()
    assert.equal(reqs.length, 2)
    assert.match(reqs[0].path, /^\/v1\/messages\?beta=true$/)
    assert.equal(reqs[0].body.stream, true)
    const results = toolResults(reqs[1].body)
    assert.deepEqual(
      results.map((x) => [x.text, x.isError]),
      [['hello', false]],
    )
  })

  test('a Stop block makes the host ask the model again with the reason', { timeout: TEST_MS }, async (t) => {
    const { home, cwd, hooks, server } = await setup('cc-block', [{ text: 'First stop.' }, { text: 'Second stop.' }])
    installClaudeHooks(cwd, hooks)
    hooks.answerOnce('Stop', { decision: 'block', reason: 'KEEP-GOING-MARKER' })
    const r = await runClaude({ cwd, home, prompt: 'say hello', server, timeoutMs: RUN_MS })
    diag(t, r)
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.json?.result, 'Second stop.')
    const reqs = server.modelRequests()
    assert.equal(reqs.length, 2)
    assert.equal(userTexts(reqs[1].body).at(-1), 'Stop hook feedback:\nKEEP-GOING-MARKER')
    assert.deepEqual(
      hooks.payloads('Stop').map((p) => p.payload.stop_hook_active),
      [false, true],
    )
    assert.equal(hooks.payloads('UserPromptSubmit').length, 1, 'the feedback is not a user prompt')
  })

  test('a PreToolUse deny (hookSpecificOutput) reaches the model as an error tool result', {
    timeout: TEST_MS,
  }, async (t) => {
    const { home, cwd, hooks, server } = await setup('cc-deny', [ECHO_HELLO_CLAUDE, { text: 'Understood.' }])
    installClaudeHooks(cwd, hooks)
    hooks.answerOnce('PreToolUse', {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'DENY-MARKER',
      },
    })
    const r = await runClaude({ cwd, home, prompt: 'say hello', server, timeoutMs: RUN_MS })
    diag(t, r)
    assert.equal(r.code, 0, explain(r, server))
    const results = toolResults(server.modelRequests()[1].body)
    assert.deepEqual(
      results.map((x) => [x.text, x.isError]),
      [['DENY-MARKER', true]],
    )
    assert.equal(hooks.payloads('PostToolUse').length, 0)
    assert.deepEqual(
      r.json.permission_denials.map((d) => d.tool_name),
      ['Bash'],
    )
  })

  test('a project .mcp.json stdio server: its tools reach the model as mcp__<server>__<tool>', {
    timeout: TEST_MS,
  }, async (t) => {
    const { root, home, cwd, server } = await setup('cc-mcp', [
      (req) =>
        toolNames(req.body).includes('mcp__goalSystem__goal_system_status')
          ? { toolCalls: [{ name: 'mcp__goalSystem__goal_system_status', args: { verbose: true } }] }
          : { text: 'NO-MCP-TOOL' },
      { text: 'Done.' },
    ])
    const logFile = path.join(root, 'mcp.log')
    mergeJsonFile(path.join(cwd, '.mcp.json'), {
      mcpServers: { goalSystem: { command: process.execPath, args: [MCP_PROBE], env: { MCP_PROBE_LOG: logFile } } },
    })
    const r = await runClaude({
      cwd,
      home,
      prompt: 'status',
      server,
      timeoutMs: RUN_MS,
      args: ['--allowedTools', 'Bash', 'mcp__goalSystem__goal_system_status'],
    })
    diag(t, r)
    assert.equal(r.code, 0, explain(r, server))
    const reqs = server.modelRequests()
    assert.ok(toolNames(reqs[0].body).includes('mcp__goalSystem__goal_system_status'))
    assert.deepEqual(
      toolResults(reqs[1].body).map((x) => [x.text, x.isError]),
      [['MCP-PROBE-RESULT {"verbose":true}', false]],
    )
    const calls = readJsonLines(logFile).filter((l) => l.in?.method === 'tools/call')
    assert.equal(calls[0].in.params.name, 'goal_system_status')
  })
})
