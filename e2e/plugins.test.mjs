// The Goal System installed as a host PLUGIN (not by `goal-system install`), in the real Claude
// Code, GitHub Copilot CLI and OpenAI Codex CLI, and as a Gemini CLI extension (`gemini extensions
// install DIR`), offline, against the scripted model server (see NOTES.md).
//
// Each test starts from an empty temp HOME, installs the plugin the host's documented way from this
// repository (`<host> plugin marketplace add <repo>` + `<host> plugin install
// goal-system@goal-system`, `codex plugin add …` in Codex, run inside the loopback-only namespace), and puts the `goal-system`
// command on PATH the way `npm install -g` / `npm link` would (a bin folder with a symlink to
// bin/goal-system.mjs): the plugins find the package through it. Then the core scenarios run
// through the plugin's hooks and MCP server: `/goal X` opens a draft, a stop is blocked while the
// goal is open, a premature close is refused and the model sees why, the honest loop closes it.
//
//   node --test --test-concurrency=1 e2e/plugins.test.mjs

import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import {
  REPO_DIR,
  codexRollouts,
  geminiCommand,
  makeTempDir,
  resolveHost,
  runClaude,
  runCodex,
  runCopilot,
  runGemini,
} from './hosts.mjs'
import { HOST_PACKAGES } from './install-hosts.mjs'
import {
  OBJECTIVE,
  GOAL_TOOLS,
  setupRun,
  skipReason,
  explain,
  writeGreetingProject,
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
  goalSystemOnPath,
  hostPluginCommand,
  installPlugin,
} from './goal-helpers.mjs'

const RUN_MS = 60_000
const TEST_MS = 150_000
const FIX_GREETING = "printf '#!/bin/sh\\necho hello\\necho hello\\n' > greet.sh"
const DIRECTIVE = '[goal-system] Do not stop'

/** Claude Code names a plugin's MCP tools mcp__plugin_<plugin>_<server>__<tool>. */
const CLAUDE_PLUGIN_TOOL = (bare) => `mcp__plugin_goal-system_goalSystem__${bare}`
/** Copilot CLI names MCP tools <server>-<tool>. */
const COPILOT_PLUGIN_TOOL = (bare) => `goalSystem-${bare}`

const caller = (req) => callerFromContext(req.body) || { sessionId: 'NOT-IN-CONTEXT', cwd: 'NOT-IN-CONTEXT' }
const lastUser = (req) => userTexts(req.body).at(-1) || ''
const greetingOutput = (cwd) => execFileSync('sh', ['greet.sh'], { cwd, encoding: 'utf8' })

// ---------------------------------------------------------------------------------------------

// Every pinned Claude Code version, whichever one this run drives: a plugin whose skill
// frontmatter does not parse fails `claude plugin validate` in 2.1.197, while later versions
// pass it and load the skill without its description and argument hint.
describe('claude plugin validate', { skip: skipReason('claude') }, () => {
  for (const version of HOST_PACKAGES.claude.versions) {
    const missing =
      !resolveHost('claude', version) && `Claude Code ${version} not installed: run node e2e/install-hosts.mjs`
    if (missing && process.env.GOAL_E2E_REQUIRE) throw new Error(missing)
    test(`plugins/claude/goal-system validates in Claude Code ${version}`, {
      skip: missing,
      timeout: 90_000,
    }, async (t) => {
      const root = makeTempDir('plug-validate')
      t.after(() => fs.rmSync(root, { recursive: true, force: true }))
      const home = path.join(root, 'home')
      fs.mkdirSync(home)
      const r = await hostPluginCommand(
        'claude',
        home,
        ['plugin', 'validate', path.join(REPO_DIR, 'plugins', 'claude', 'goal-system')],
        { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
        version,
      )
      t.diagnostic(`claude ${version} plugin validate: exit ${r.code}`)
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`)
      assert.match(r.stdout, /Validation passed/)
      assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, /✘|Found \d+ errors?/)
    })
  }
})

describe('Goal System as a Claude Code plugin', { skip: skipReason('claude') }, () => {
  const T = CLAUDE_PLUGIN_TOOL
  const goal =
    (bare, fields = {}) =>
    (req) => ({ toolCalls: [{ name: T(bare), args: { ...caller(req), ...fields } }] })
  const bash = (command) => ({ toolCalls: [{ name: 'Bash', args: { command } }] })
  const agentRequests = (server) => server.modelRequests().filter((q) => !isClaudeGoalEvaluator(q))
  const offersTool = (body, name) =>
    toolNames(body).includes(name) ||
    new RegExp(`deferred tools are now available via ToolSearch[\\s\\S]*${name.replace(/[-_]/g, '.')}`).test(
      messagesText(body),
    )

  test('installed with claude plugin marketplace add + install: /goal X opens a draft, the stop is blocked, a premature close is refused, the honest loop closes it complete', {
    timeout: TEST_MS,
  }, async (t) => {
    let project = null
    let snapshot = null
    let home = null
    const script = [
      () => {
        snapshot = listGoals(home)
        return { text: 'I will stop here.' }
      },
      goal('goal_system_close', { status: 'complete', reason: 'I believe it is done.' }),
      bash('cat greet.sh'),
      bash(FIX_GREETING),
      bash(RUN_AND_TEST),
      goal('goal_system_update', { status: 'active', ...honestEvidence() }),
      goal('goal_system_close', { status: 'complete', reason: 'verified: sh greet.sh prints hello twice' }),
      { text: 'Done: greet.sh prints hello twice.' },
    ]
    const ctx = await setupRun(
      'plug-claude',
      script,
      claudeServerOpts(() => project),
    )
    t.after(ctx.cleanup)
    project = ctx.cwd
    home = ctx.home
    writeGreetingProject(ctx.cwd)
    const steps = await installPlugin('claude', ctx.home)
    assert.match(steps[1].stdout, /Successfully installed plugin: goal-system@goal-system/)
    assert.match(steps[2].stdout, /goal-system@goal-system[\s\S]*enabled/)
    // Nothing of `goal-system install`: no project hooks, no .mcp.json, no command file.
    for (const f of ['.claude/settings.json', '.mcp.json', '.claude/commands/goal.md'])
      assert.equal(fs.existsSync(path.join(ctx.cwd, f)), false, `${f} not written`)

    const r = await runClaude({
      cwd: ctx.cwd,
      home: ctx.home,
      prompt: `/goal ${OBJECTIVE}`,
      server: ctx.server,
      timeoutMs: RUN_MS,
      env: { PATH: goalSystemOnPath(ctx.root) },
      // -p mode cannot ask: the plugin's goal tools are allowed on the command line.
      args: GOAL_TOOLS.map(T),
    })
    t.diagnostic(
      `claude ${r.version}: exit ${r.code}, ${r.stoppedBy}, ${r.durationMs} ms, ${agentRequests(ctx.server).length} agent model requests`,
    )
    const dump = debugDump('plug-claude', ctx.server, `${r.stdout}\n--- stderr\n${r.stderr}`)
    if (dump) t.diagnostic(`transcript: ${dump}`)
    const { server, cwd } = ctx
    assert.equal(r.code, 0, explain(r, server))
    assert.equal(r.json?.result, 'Done: greet.sh prints hello twice.', explain(r, server))
    const sid = r.json.session_id
    const reqs = agentRequests(server)
    assert.equal(reqs.length, script.length, 'one agent request per scripted step')

    // `/goal X` opened a draft through the plugin's UserPromptSubmit hook.
    assert.equal(snapshot?.length, 1, 'one goal persisted before the first model request')
    assert.equal(snapshot[0].objective, OBJECTIVE)
    assert.equal(snapshot[0].completionStatus, 'draft')
    assert.equal(snapshot[0].sessionId, sid)
    const g = readGoal(ctx.home, sid)
    assert.ok(g, 'goal state exists')
    const first = messagesText(reqs[0].body)
    assert.ok(
      first.includes(`[goal-system] The user's explicit /goal opened draft goal ${g.id}`),
      'open context reached the model',
    )
    assert.deepEqual(callerFromContext(reqs[0].body), { sessionId: sid, cwd })
    // 2.1.330 defers MCP tools and may list a plugin's only once its server is up: any request.
    for (const bare of GOAL_TOOLS)
      assert.ok(
        reqs.some((q) => offersTool(q.body, T(bare))),
        `${T(bare)} offered`,
      )

    // The first stop was blocked by the plugin's Stop hook.
    assert.ok(
      lastUser(reqs[1]).includes(`${DIRECTIVE}: goal ${g.id} is still open`),
      `directive reached the model:\n${lastUser(reqs[1]).slice(0, 500)}`,
    )

    const [premature, cat, fix, run, update, close] = modelCalls(server)
    assert.equal(premature.name, T('goal_system_close'))
    const pc = resultOf(server, premature)
    assert.equal(pc?.isError, true, pc?.text)
    assert.match(pc.text, /refused/i)
    assert.match(pc.text, /doneSoFar/)
    assert.match(resultOf(server, cat).text, /echo hello/)
    void fix
    assert.match(resultOf(server, run).text, /^hello\nhello\nok 1 - greet.sh prints hello twice/)
    assert.equal(resultOf(server, update)?.isError, false, resultOf(server, update)?.text)
    const hc = resultOf(server, close)
    assert.equal(hc?.isError, false, hc?.text)

    const done = readGoal(ctx.home, sid)
    assert.equal(done.completionStatus, 'complete')
    assert.ok(done.closedAt)
    // The plugin-prefixed tool names count as goal tools, the shell calls as evidence.
    assert.equal(done.toolHistory.verifications >= 1, true, JSON.stringify(done.toolHistory))
    assert.ok(readAudit(ctx.home).some((l) => JSON.parse(l).event === 'open'))
    assert.equal(greetingOutput(cwd), 'hello\nhello\n')
  })
  test("the plugin's namespaced skill /goal-system:goal X opens the same draft, and the skill's instructions reach the model", {
    timeout: TEST_MS,
  }, async (t) => {
    let snapshot = null
    let home = null
    const script = [
      () => {
        snapshot = listGoals(home)
        return { text: 'Looking at the goal.' }
      },
      goal('goal_system_close', { status: 'blocked', reason: 'e2e: the draft was checked' }),
      { text: 'Stopping.' },
    ]
    const ctx = await setupRun('plug-claude-skill', script)
    t.after(ctx.cleanup)
    home = ctx.home
    writeGreetingProject(ctx.cwd)
    await installPlugin('claude', ctx.home)
    const r = await runClaude({
      cwd: ctx.cwd,
      home: ctx.home,
      prompt: `/goal-system:goal ${OBJECTIVE}`,
      server: ctx.server,
      timeoutMs: RUN_MS,
      env: { PATH: goalSystemOnPath(ctx.root) },
      args: GOAL_TOOLS.map(T),
    })
    const { server, cwd } = ctx
    t.diagnostic(
      `claude ${r.version}: exit ${r.code}, ${r.durationMs} ms, ${server.modelRequests().length} model requests`,
    )
    assert.equal(r.code, 0, explain(r, server))
    const sid = r.json?.session_id
    assert.equal(snapshot?.length, 1, 'one goal persisted before the first model request')
    assert.equal(snapshot[0].objective, OBJECTIVE)
    assert.equal(snapshot[0].completionStatus, 'draft')
    assert.equal(snapshot[0].sessionId, sid)
    const first = server.modelRequests()[0]
    const text = messagesText(first.body)
    assert.ok(text.includes(`[goal-system] The user's explicit /goal opened draft goal ${snapshot[0].id}`))
    assert.ok(
      text.includes(`The user started a goal with /goal: ${OBJECTIVE}`),
      'the skill body with $ARGUMENTS reached the model',
    )
    // The host read the skill's frontmatter: its description is what the model is shown for it.
    const description = /^description: (.*)$/m.exec(
      fs.readFileSync(path.join(REPO_DIR, 'plugins/claude/goal-system/skills/goal/SKILL.md'), 'utf8'),
    )[1]
    const sent = JSON.stringify(server.modelRequests().map((q) => q.body))
    assert.ok(sent.includes(description), `the skill's description (${description}) reached the model`)
    assert.deepEqual(callerFromContext(first.body), { sessionId: sid, cwd })
    // Stops were blocked until the model closed the goal (blocked is the agent's to choose).
    assert.ok(lastUser(server.modelRequests()[1]).includes(`${DIRECTIVE}: goal ${snapshot[0].id} is still open`))
    const g = readGoal(home, sid)
    assert.equal(g.completionStatus, 'blocked')
  })
})

describe('Goal System as a Copilot CLI plugin', { skip: skipReason('copilot') }, () => {
  const T = COPILOT_PLUGIN_TOOL
  const goal =
    (bare, fields = {}) =>
    (req) => ({ toolCalls: [{ name: T(bare), args: { ...caller(req), ...fields } }] })
  const bash = (command, description = 'run a command') => ({
    toolCalls: [{ name: 'bash', args: { command, description } }],
  })

  test('installed with copilot plugin marketplace add + install: /goal X opens a draft, the stop is blocked, a premature close is refused, the honest loop closes it complete', {
    timeout: TEST_MS,
  }, async (t) => {
    let snapshot = null
    let home = null
    const script = [
      () => {
        snapshot = listGoals(home)
        return { text: 'I will stop here.' }
      },
      goal('goal_system_close', { status: 'complete', reason: 'I believe it is done.' }),
      bash('cat greet.sh', 'inspect the script'),
      bash(FIX_GREETING, 'print hello twice'),
      bash(RUN_AND_TEST, 'run the script and its test'),
      goal('goal_system_update', { status: 'active', ...honestEvidence() }),
      goal('goal_system_close', { status: 'complete', reason: 'verified: sh greet.sh prints hello twice' }),
      { toolCalls: [{ name: 'task_complete', args: { summary: 'greet.sh prints hello twice (verified).' } }] },
    ]
    const ctx = await setupRun('plug-copilot', script)
    t.after(ctx.cleanup)
    home = ctx.home
    writeGreetingProject(ctx.cwd)
    const steps = await installPlugin('copilot', ctx.home)
    assert.match(steps[1].stdout, /Plugin "goal-system" installed successfully/)
    assert.match(steps[2].stdout, /goal-system@goal-system .*\(enabled\)/)
    assert.equal(fs.existsSync(path.join(ctx.home, '.copilot', 'hooks', 'goal-system.json')), false)

    const r = await runCopilot({
      cwd: ctx.cwd,
      home: ctx.home,
      prompt: `/goal ${OBJECTIVE}`,
      server: ctx.server,
      timeoutMs: RUN_MS,
      env: { PATH: goalSystemOnPath(ctx.root) },
      stopWhen: 'task_complete',
    })
    const { server, cwd } = ctx
    t.diagnostic(
      `copilot ${r.version}: exit ${r.code}, ${r.stoppedBy}, ${r.durationMs} ms, ${server.modelRequests().length} model requests`,
    )
    const dump = debugDump('plug-copilot', server, `${r.stdout}\n--- stderr\n${r.stderr}`)
    if (dump) t.diagnostic(`transcript: ${dump}`)
    assert.equal(r.stoppedBy, 'stopWhen', `the run ended by task_complete${explain(r, server)}`)
    const reqs = server.modelRequests()

    assert.equal(snapshot?.length, 1, 'one goal persisted before the first model request')
    assert.equal(snapshot[0].objective, OBJECTIVE)
    assert.equal(snapshot[0].completionStatus, 'draft')
    assert.equal(snapshot[0].sessionId, r.sessionId)
    const g = readGoal(ctx.home, r.sessionId)
    assert.ok(g, 'goal state exists')
    assert.ok(
      messagesText(reqs[0].body).includes(`[goal-system] The user's explicit /goal opened draft goal ${g.id}`),
      'open context reached the model',
    )
    assert.deepEqual(callerFromContext(reqs[0].body), { sessionId: r.sessionId, cwd })
    const offered = toolNames(reqs[0].body)
    for (const bare of GOAL_TOOLS) assert.ok(offered.includes(T(bare)), `${T(bare)} offered`)

    // The text-only stop was blocked by the plugin's agentStop hook.
    assert.ok(
      lastUser(reqs[1]).includes(`${DIRECTIVE}: goal ${g.id} is still open`),
      `directive reached the model:\n${lastUser(reqs[1]).slice(0, 600)}`,
    )

    const [premature, cat, fix, run, update, close] = modelCalls(server)
    assert.equal(premature.name, T('goal_system_close'))
    const pc = resultOf(server, premature)
    assert.ok(pc, 'premature close answered')
    assert.match(pc.text, /refused/i)
    assert.match(pc.text, /doneSoFar/)
    assert.match(resultOf(server, cat).text, /echo hello/)
    void fix
    assert.match(resultOf(server, run).text, /^hello\nhello\nok 1 - greet.sh prints hello twice/)
    assert.doesNotMatch(resultOf(server, update)?.text || '', /error/i)
    const hc = resultOf(server, close)
    assert.ok(hc, 'honest close answered')
    assert.doesNotMatch(hc.text, /Close refused|Unmet conditions/)
    assert.match(hc.text, new RegExp(`${g.id} — complete`))

    const done = readGoal(ctx.home, r.sessionId)
    assert.equal(done.completionStatus, 'complete')
    assert.ok(done.closedAt)
    assert.ok(done.toolHistory.verifications >= 1, JSON.stringify(done.toolHistory))
    assert.equal(greetingOutput(cwd), 'hello\nhello\n')
  })
})

describe('Goal System as a Codex CLI plugin', { skip: skipReason('codex') }, () => {
  /** Codex offers an MCP server's tools in a namespace: server `goal-system` -> `mcp__goal_system__<tool>`. */
  const T = (bare) => `mcp__goal_system__${bare}`
  const goal =
    (bare, fields = {}) =>
    (req) => ({ toolCalls: [{ name: T(bare), args: { ...caller(req), ...fields } }] })
  const shell = (cmd) => ({ toolCalls: [{ name: 'exec_command', args: { cmd } }] })

  test('installed with codex plugin marketplace add + add: its hooks and MCP server run; /goal X opens a draft, the stop is held, a premature close is refused, the honest loop closes it complete', {
    timeout: TEST_MS,
  }, async (t) => {
    let snapshot = null
    let home = null
    const script = [
      () => {
        snapshot = listGoals(home)
        return { text: 'I will stop here.' }
      },
      goal('goal_system_close', { status: 'complete', reason: 'I believe it is done.' }),
      shell('cat greet.sh'),
      shell(FIX_GREETING),
      shell(RUN_AND_TEST),
      goal('goal_system_update', { status: 'active', ...honestEvidence() }),
      goal('goal_system_close', { status: 'complete', reason: 'verified: sh greet.sh prints hello twice' }),
      { text: 'greet.sh prints hello twice (verified).' },
    ]
    const ctx = await setupRun('plug-codex', script)
    t.after(ctx.cleanup)
    home = ctx.home
    writeGreetingProject(ctx.cwd)
    const steps = await installPlugin('codex', ctx.home)
    assert.match(steps[0].stdout, /Added marketplace `goal-system`/)
    assert.match(steps[1].stdout, /Added plugin `goal-system` from marketplace `goal-system`/)
    assert.match(steps[2].stdout, /goal-system@goal-system\s+installed, enabled/)
    assert.equal(fs.existsSync(path.join(ctx.home, '.codex', 'hooks.json')), false, 'no install --codex')

    const r = await runCodex({
      cwd: ctx.cwd,
      home: ctx.home,
      prompt: `/goal ${OBJECTIVE}`,
      server: ctx.server,
      timeoutMs: RUN_MS,
      env: { PATH: goalSystemOnPath(ctx.root) },
    })
    const { server, cwd } = ctx
    t.diagnostic(
      `codex ${r.version}: exit ${r.code}, ${r.stoppedBy}, ${r.durationMs} ms, ${server.modelRequests().length} model requests`,
    )
    const dump = debugDump('plug-codex', server, `${r.stdout}\n--- stderr\n${r.stderr}`)
    if (dump) t.diagnostic(`transcript: ${dump}`)
    assert.equal(r.code, 0, explain(r, server))
    assert.doesNotMatch(r.stderr, /hook returned invalid|failed to parse plugin hooks|clamping/)
    const sid = codexRollouts(ctx.home)
      .at(-1)
      ?.file.match(/-([0-9a-f-]{36})\.jsonl$/)?.[1]
    const reqs = server.modelRequests()

    // The plugin's UserPromptSubmit hook opened the draft before the first model request.
    assert.equal(snapshot?.length, 1, 'one goal persisted before the first model request')
    assert.equal(snapshot[0].objective, OBJECTIVE)
    assert.equal(snapshot[0].completionStatus, 'draft')
    assert.equal(snapshot[0].sessionId, sid)
    const g = readGoal(ctx.home, sid)
    assert.ok(
      messagesText(reqs[0].body).includes(`[goal-system] The user's explicit /goal opened draft goal ${g.id}`),
      'open context reached the model',
    )
    assert.deepEqual(callerFromContext(reqs[0].body), { sessionId: sid, cwd })
    // The plugin's MCP server: Codex started it and offered its tools.
    const offered = toolNames(reqs[0].body)
    for (const bare of GOAL_TOOLS) assert.ok(offered.includes(T(bare)), `${T(bare)} offered: ${offered.join(', ')}`)

    // The plugin's Stop hook held the text-only stop.
    assert.ok(
      messagesText(reqs[1].body).includes(`${DIRECTIVE}: goal ${g.id} is still open`),
      `directive reached the model:\n${messagesText(reqs[1].body).slice(-600)}`,
    )
    const [premature, cat, fix, run, update, close] = modelCalls(server)
    assert.equal(premature.name, T('goal_system_close'))
    assert.match(resultOf(server, premature)?.text ?? '', /refused/i)
    assert.match(resultOf(server, cat).text, /echo hello/)
    void fix
    assert.match(resultOf(server, run).text, /hello\nhello\nok 1 - greet.sh prints hello twice/)
    assert.doesNotMatch(resultOf(server, update)?.text || '', /error/i)
    assert.match(resultOf(server, close)?.text ?? '', new RegExp(`${g.id} — complete`))
    const done = readGoal(ctx.home, sid)
    assert.equal(done.completionStatus, 'complete')
    assert.equal(done.voice?.pending ?? null, null, "Codex's rollout confirmed the user's /goal")
    assert.ok(done.toolHistory.verifications >= 1, JSON.stringify(done.toolHistory))
    assert.equal(greetingOutput(cwd), 'hello\nhello\n')
  })
})

describe('Goal System as a Gemini CLI extension', { skip: skipReason('gemini') }, () => {
  const extension = path.join(REPO_DIR, 'plugins', 'gemini', 'goal-system')
  /** Gemini CLI offers an MCP tool as mcp_<server>_<tool>; the extension's server is `goal-system`. */
  const T = (bare) => `mcp_goal-system_${bare}`
  const goal =
    (bare, fields = {}) =>
    (req) => ({ toolCalls: [{ name: T(bare), args: { ...caller(req), ...fields } }] })
  const shell = (command) => ({ toolCalls: [{ name: 'run_shell_command', args: { command, description: 'e2e' } }] })
  const mainTurns = (server) => server.modelRequests().filter((q) => /:streamGenerateContent/i.test(q.path))
  const lastContent = (req) => JSON.stringify(req.body?.contents?.at(-1) ?? '')

  test('plugins/gemini/goal-system validates (gemini extensions validate)', { timeout: 60_000 }, async (t) => {
    const root = makeTempDir('plug-gemini-validate')
    t.after(() => fs.rmSync(root, { recursive: true, force: true }))
    const home = path.join(root, 'home')
    fs.mkdirSync(home)
    const r = await geminiCommand(home, ['extensions', 'validate', extension])
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`)
    assert.match(`${r.stdout}\n${r.stderr}`, /has been successfully validated/)
    assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, /Warning|failed/i)
  })

  for (const how of ['install', 'link']) {
    test(`gemini extensions ${how} ${how === 'install' ? '(a copy)' : '(the folder itself)'}: its hooks and MCP server run; /goal X opens a draft, the stop is held, a premature close is refused, the honest loop closes it complete`, {
      timeout: TEST_MS,
    }, async (t) => {
      let snapshot = null
      let home = null
      const script = [
        () => {
          snapshot = listGoals(home)
          return { text: 'I will stop here.' }
        },
        goal('goal_system_close', { status: 'complete', reason: 'I believe it is done.' }),
        shell('cat greet.sh'),
        shell(FIX_GREETING),
        shell(RUN_AND_TEST),
        goal('goal_system_update', { status: 'active', ...honestEvidence() }),
        goal('goal_system_close', { status: 'complete', reason: 'verified: sh greet.sh prints hello twice' }),
        { text: 'Done: greet.sh prints hello twice.' },
      ]
      const ctx = await setupRun(`plug-gemini-${how}`, script, {
        consume: (req) => /:streamGenerateContent/i.test(req.path),
      })
      t.after(ctx.cleanup)
      home = ctx.home
      writeGreetingProject(ctx.cwd)
      // `link` asks nothing; `install` asks to trust the source folder unless folder trust is off
      // (the offline settings turn it off), then for consent to its hooks and MCP server (--consent).
      const step = await geminiCommand(ctx.home, ['extensions', how, extension, '--consent'])
      assert.equal(step.code, 0, `${step.stdout}\n${step.stderr}`)
      assert.match(`${step.stdout}\n${step.stderr}`, /Extension "goal-system" (installed|linked) successfully/)
      const installed = path.join(ctx.home, '.gemini', 'extensions', 'goal-system')
      assert.equal(
        fs.existsSync(path.join(installed, 'hooks', 'hooks.json')),
        how === 'install',
        'install copies the extension; link records its source folder',
      )
      const settings = JSON.parse(fs.readFileSync(path.join(ctx.home, '.gemini', 'settings.json'), 'utf8'))
      assert.equal(settings.hooks, undefined, 'nothing of goal-system install --gemini')
      assert.equal(settings.mcpServers, undefined, 'nothing of goal-system install --gemini')

      const r = await runGemini({
        cwd: ctx.cwd,
        home: ctx.home,
        prompt: `/goal ${OBJECTIVE}`,
        server: ctx.server,
        timeoutMs: RUN_MS,
        env: { PATH: goalSystemOnPath(ctx.root) },
      })
      const { server, cwd } = ctx
      t.diagnostic(
        `gemini ${r.version}: exit ${r.code}, ${r.stoppedBy}, ${r.durationMs} ms, ${server.modelRequests().length} model requests`,
      )
      const dump = debugDump(`plug-gemini-${how}`, server, `${r.stdout}\n--- stderr\n${r.stderr}`)
      if (dump) t.diagnostic(`transcript: ${dump}`)
      assert.equal(r.code, 0, explain(r, server))
      const reqs = mainTurns(server)

      // The extension's BeforeAgent hook opened the draft before the first model request.
      assert.equal(snapshot?.length, 1, 'one goal persisted before the first model request')
      assert.equal(snapshot[0].objective, OBJECTIVE)
      assert.equal(snapshot[0].completionStatus, 'draft')
      const g = readGoal(ctx.home, snapshot[0].sessionId)
      assert.match(messagesText(reqs[0].body), new RegExp(`The user's explicit /goal opened draft goal ${g.id}`))
      assert.equal(caller(reqs[0]).cwd, cwd)
      // The extension's MCP server (goal-system mcp, found on PATH) offers every goal tool.
      const offered = toolNames(reqs[0].body)
      for (const bare of GOAL_TOOLS) assert.ok(offered.includes(T(bare)), `${T(bare)} offered`)
      // AfterAgent held the text-only stop: the directive came back as the next prompt.
      assert.match(lastContent(reqs[1]), /\[goal-system\] Do not stop/)
      // The premature close was refused, and the model read why.
      assert.match(lastContent(reqs[2]), /refused/i)
      assert.match(lastContent(reqs[2]), /doneSoFar/)

      const done = readGoal(ctx.home, g.sessionId)
      assert.equal(done.completionStatus, 'complete', JSON.stringify(done.statusReason ?? done))
      assert.ok(done.toolHistory.verifications >= 1, JSON.stringify(done.toolHistory))
      assert.equal(greetingOutput(cwd), 'hello\nhello\n')
    })
  }
})
