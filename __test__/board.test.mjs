// The context board as each host meets it: the user's `goal-system board`
// command, the context_board tool through the MCP server (official client) and
// the Copilot CLI extension, and the metadata injected by the real hooks.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { addon, cliHook, root, runnerHook, tempState } from './helpers.mjs'

const BIN = join(root, 'bin', 'goal-system.mjs')
const SERVER = join(root, 'adapters', 'vscode-chat', 'mcp-server.mjs')

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  return r.stdout.trim()
}

/** A real repository (no commits needed: HEAD names the branch). */
function makeRepo(dir, origin = 'git@github.com:acme/widgets.git') {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'remote', 'add', 'origin', origin)
  return dir
}

/** `goal-system board ...` in `cwd`, as the user types it. */
/** The user's `goal-system board` in their own terminal (a pseudo-terminal through util-linux `script`). */
function board(state, cwd, ...args) {
  const env = { ...state.env }
  for (const k of ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'COPILOT_CLI']) delete env[k]
  const quoted = [process.execPath, BIN, 'board', ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  const r = spawnSync('script', ['-qec', quoted, '/dev/null'], { cwd, env, encoding: 'utf8', input: '' })
  const out = r.stdout.replace(/\r\n/g, '\n')
  return { code: r.status, out, err: out }
}

/** The same command run through an agent's shell tool (a pipe): the agent's rights. */
function boardFromAgentShell(state, cwd, ...args) {
  const r = spawnSync(process.execPath, [BIN, 'board', ...args], { cwd, env: state.env, encoding: 'utf8' })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** Every byte under a folder, file by file. */
function everyFile(dir) {
  const out = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...everyFile(path))
    else out.push({ path, text: readFileSync(path, 'latin1') })
  }
  return out
}

/** A GitHub-shaped token assembled at run time, so no fixture holds one. */
const fakeToken = () => ['gh', 'p_', 'Zx9'.repeat(6), 'Qw8'.repeat(6), 'Lm'].join('')

describe('goal-system board (the user)', () => {
  let state
  let repo
  before(() => {
    state = tempState()
    repo = makeRepo(join(state.home, 'widgets'))
  })
  after(() => state.cleanup())

  test("the command run through an agent's shell writes the agent's items and cannot prune the user's", () => {
    assert.equal(board(state, repo, 'add', 'user-rule', '--description', 'Mine', '--content', 'keep it').code, 0)
    const pruned = boardFromAgentShell(state, repo, 'prune', 'user-rule')
    assert.notEqual(pruned.code, 0, pruned.out)
    assert.match(pruned.err, /FORBIDDEN/)
    assert.match(board(state, repo, 'list').out, /user-rule/)
    assert.equal(
      boardFromAgentShell(state, repo, 'add', 'agent-note', '--description', 'Theirs', '--content', 'x').code,
      0,
    )
    assert.match(board(state, repo, 'list').out, /agent\s+agent-note/)
    board(state, repo, 'prune', 'user-rule')
    board(state, repo, 'prune', 'agent-note')
  })

  test('two branches of one repository see different boards', () => {
    assert.equal(
      board(
        state,
        repo,
        'add',
        'run-tests',
        '--description',
        'How to run the tests',
        '--content',
        'npm test -- --watch=false',
      ).code,
      0,
    )
    const main = board(state, repo, 'list')
    assert.match(main.out, /github\.com\/acme\/widgets \(branch main\)/)
    assert.match(main.out, /user\s+run-tests\s+How to run the tests/)
    git(repo, 'checkout', '-q', '-b', 'topic')
    const topic = board(state, join(repo), 'list', '--json')
    assert.equal(topic.code, 0, topic.err)
    const data = JSON.parse(topic.out)
    assert.equal(data.branch, 'topic')
    assert.deepEqual(data.items, [])
    const pinned = JSON.parse(board(state, join(state.home), 'list', '--json', '--repo', repo, '--branch', 'main').out)
    assert.deepEqual(
      pinned.items.map((i) => i.name),
      ['run-tests'],
    )
    git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/main') // main has no commit to check out
  })

  test('show prints the content; bad names and unknown actions are usage errors', () => {
    const shown = board(state, repo, 'show', 'run-tests')
    assert.equal(shown.code, 0, shown.err)
    assert.match(shown.out, /npm test -- --watch=false/)
    const bad = board(state, repo, 'add', 'Run Tests', '--description', 'd', '--content', 'c')
    assert.equal(bad.code, 2)
    assert.match(bad.err, /kebab-case/)
    assert.equal(board(state, repo, 'explode').code, 2)
    assert.equal(board(state, repo, 'show', 'nothing-here').code, 1)
  })

  test('the 26th add fails and the prune request shows from 23', () => {
    const dir = makeRepo(join(state.home, 'full'), 'https://github.com/acme/full.git')
    for (let n = 1; n <= 22; n++) {
      addon.contextBoardSync(
        { cwd: dir, user: true, stateRoot: state.stateRoot },
        { command: 'add', name: `note-${n}`, description: `note ${n}`, context: `body ${n}` },
      )
    }
    assert.doesNotMatch(board(state, dir, 'list').out, /prune/)
    const added = board(state, dir, 'add', 'note-23', '--description', 'd', '--content', 'c')
    assert.match(added.out, /23 of 25 items\. The board holds 23 of 25 items: prune .* down to 18 or fewer/)
    assert.match(board(state, dir, 'list').out, /down to 18 or fewer/)
    for (const n of [24, 25])
      assert.equal(board(state, dir, 'add', `note-${n}`, '--description', 'd', '--content', 'c').code, 0)
    const full = board(state, dir, 'add', 'note-26', '--description', 'd', '--content', 'c')
    assert.notEqual(full.code, 0)
    assert.match(full.err, /full \(25 of 25 items\): prune first/)
    assert.equal(board(state, dir, 'prune', 'note-1').code, 0)
    assert.equal(board(state, dir, 'add', 'note-26', '--description', 'd', '--content', 'c').code, 0)
  })

  test('a secret in an add never reaches disk', () => {
    const token = fakeToken()
    const r = board(
      state,
      repo,
      'add',
      'deploy-key',
      '--description',
      `deploy with ${token}`,
      '--content',
      `GITHUB_TOKEN=${token} npm run deploy`,
    )
    assert.equal(r.code, 0, r.err)
    assert.doesNotMatch(r.out + r.err, new RegExp(token))
    const files = everyFile(state.stateRoot)
    assert.ok(
      files.some((f) => f.path.includes(`${join('goal-system', 'board')}`)),
      'the board was written',
    )
    for (const f of files) assert.ok(!f.text.includes(token), `${f.path} holds the token`)
    assert.match(board(state, repo, 'show', 'deploy-key').out, /REDACTED/)
  })
})

describe('context_board through the MCP server', () => {
  let state
  let repo
  let client
  before(async () => {
    state = tempState()
    repo = makeRepo(join(state.home, 'widgets'))
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER],
      env: state.env,
      stderr: 'pipe',
    })
    client = new Client({ name: 'board-test', version: '1.0.0' })
    await client.connect(transport)
  })
  after(async () => {
    await client?.close()
    state.cleanup()
  })
  const call = (args) =>
    client.callTool({ name: 'context_board', arguments: { cwd: repo, sessionId: 'mcp-1', ...args } })
  const text = (r) => r.content.map((c) => c.text).join('\n')

  test('is listed as a described, write-annotated tool', async () => {
    const { tools } = await client.listTools()
    const tool = tools.find((t) => t.name === 'context_board')
    assert.ok(tool, 'context_board is listed')
    assert.match(tool.description, /get_board/)
    assert.match(tool.description, /[Ss]ubagents may read/)
    assert.deepEqual(tool.inputSchema.properties.command.enum, ['get_board', 'get', 'add', 'prune'])
    assert.deepEqual([...tool.inputSchema.required].sort(), ['command', 'cwd'])
    assert.equal(tool.annotations.readOnlyHint, false)
    assert.equal(tool.annotations.destructiveHint, true)
    // The core's board schema, with the caller's fields added (cwd required).
    const { properties, required, ...rest } = tool.inputSchema
    const { properties: coreProperties, required: coreRequired, ...coreRest } = addon.contextBoardTool().inputSchema
    assert.deepEqual(rest, coreRest)
    assert.deepEqual(required, ['cwd', ...coreRequired])
    for (const [field, schema] of Object.entries(coreProperties))
      assert.deepEqual(properties[field], schema, `${field} is the core's`)
    assert.ok(properties.cwd && properties.sessionId, "the caller's fields are added")
  })

  test("a misspelt or mistyped field gets the core's INVALID_INPUT naming it", async () => {
    const typo = await call({ command: 'add', name: 'x-1', descripton: 'd', context: 'c' })
    assert.equal(typo.isError, true)
    assert.match(text(typo), /^INVALID_INPUT: unknown field "descripton"; did you mean "description"/)
    const mistyped = await call({ command: 'get', name: 3 })
    assert.match(text(mistyped), /^INVALID_INPUT: name: /)
    const noCwd = await client.callTool({ name: 'context_board', arguments: { command: 'get_board' } })
    assert.match(text(noCwd), /^INVALID_INPUT: cwd: required/)
    assert.doesNotMatch(text(await call({ command: 'get_board' })), /x-1/, 'nothing was added')
  })

  test('add, then get returns the content and increments read_count', async () => {
    assert.match(text(await call({ command: 'get_board' })), /is empty/)
    const added = await call({
      command: 'add',
      name: 'module-map',
      description: 'Which crate owns what',
      context: 'rules in goal-core; napi in src/',
    })
    assert.ok(!added.isError, text(added))
    assert.match(text(added), /Added agent item module-map/)
    const first = await call({ command: 'get', src: 'agent', name: 'module-map' })
    assert.match(text(first), /rules in goal-core/)
    await call({ command: 'get', src: 'agent', name: 'module-map' })
    assert.match(
      text(await call({ command: 'get_board' })),
      /\| agent \| module-map \| Which crate owns what \| 2 \| \d+ \|/,
    )
    const missing = await call({ command: 'get', src: 'user', name: 'module-map' })
    assert.equal(missing.isError, true)
    assert.match(text(missing), /NOT_FOUND/)
  })

  test("the agent cannot prune the user's item", async () => {
    assert.equal(
      board(
        state,
        repo,
        'add',
        'house-rules',
        '--description',
        'Ask before pushing',
        '--content',
        'never force-push main',
      ).code,
      0,
    )
    const refused = await call({ command: 'prune', name: 'house-rules' })
    assert.equal(refused.isError, true)
    assert.match(text(refused), /FORBIDDEN/)
    assert.match(board(state, repo, 'list').out, /house-rules/)
    const own = await call({ command: 'prune', name: 'module-map' })
    assert.ok(!own.isError, text(own))
  })

  test('a secret in an add never reaches disk', async () => {
    const token = fakeToken()
    const r = await call({
      command: 'add',
      name: 'ci-token',
      description: 'CI login',
      context: `export GH_TOKEN=${token}`,
    })
    assert.ok(!r.isError, text(r))
    for (const f of everyFile(state.stateRoot)) assert.ok(!f.text.includes(token), `${f.path} holds the token`)
  })

  test('closing a goal as blocked asks for lessons and pruning', async () => {
    const caller = { sessionId: 'mcp-close', cwd: repo }
    // The user's /goal opens it (through the real hook runner); the model works it.
    const opened = runnerHook(state.stateRoot, 'vscode', {
      session_id: 'mcp-close',
      cwd: repo,
      hook_event_name: 'UserPromptSubmit',
      prompt: '/goal ship widgets',
    })
    assert.match(opened.stdout, /opened draft goal/)
    const closed = await client.callTool({
      name: 'goal_system_close',
      arguments: { ...caller, status: 'blocked', reason: 'the registry is down' },
    })
    assert.match(text(closed), /at most 3 lessons with the context_board tool/)
    assert.match(text(closed), /prune agent items that proved stale/)
  })
})

describe('context_board in the Copilot CLI extension', () => {
  let state
  let repo
  let tool
  before(async () => {
    state = tempState()
    repo = makeRepo(join(state.home, 'widgets'))
    process.env.GOAL_SYSTEM_EXTENSION_NO_AUTOSTART = '1'
    process.env.HOME = state.home
    process.env.GOAL_SYSTEM_STATE_ROOT = state.stateRoot
    const ext = await import('../extension.mjs')
    let registered
    await ext.start(async (config) => {
      registered = config
      return { sessionId: 'ext-main' }
    })
    tool = registered.tools.find((t) => t.name === 'context_board')
    tool.cwd = repo
  })
  after(() => state.cleanup())
  const invoke = (args, extra = {}) => {
    const saved = process.cwd()
    process.chdir(repo)
    try {
      return tool.handler(args, {
        sessionId: 'ext-main',
        toolCallId: 'c1',
        toolName: 'context_board',
        arguments: args,
        ...extra,
      })
    } finally {
      process.chdir(saved)
    }
  }

  test('the host asks before the tool runs (no skipPermission)', () => {
    assert.ok(tool, 'context_board is registered')
    assert.notEqual(tool.skipPermission, true)
    assert.equal(tool.overridesBuiltInTool, true, "Copilot CLI's own context_board would answer instead")
    assert.deepEqual(tool.parameters, addon.contextBoardTool().inputSchema, "the core's JSON Schema")
    assert.deepEqual(tool.parameters.required, ['command'])
  })

  test('the main agent adds and reads; a subagent reads but cannot write', async () => {
    const added = await invoke({
      command: 'add',
      name: 'lint-first',
      description: 'Run clippy before tests',
      context: 'cargo clippy -- -D warnings',
    })
    assert.equal(typeof added, 'string', JSON.stringify(added))
    const sub = { parentSessionId: 'ext-main', sessionId: 'ext-sub' }
    const refused = await invoke({ command: 'add', name: 'sneaky', description: 'd', context: 'c' }, sub)
    assert.equal(refused.resultType, 'failure')
    assert.match(refused.textResultForLlm, /SUBAGENT/)
    const read = await invoke({ command: 'get', src: 'agent', name: 'lint-first' }, sub)
    assert.match(read, /cargo clippy/)
    assert.doesNotMatch(await invoke({ command: 'get_board' }), /sneaky/)
  })
})

describe('the board in the hooks', () => {
  let state
  let repo
  before(() => {
    state = tempState()
    repo = makeRepo(join(state.home, 'widgets'))
    assert.equal(
      board(
        state,
        repo,
        'add',
        'run-tests',
        '--description',
        'How to run the tests',
        '--content',
        'SECRET-LESSON-BODY npm test',
      ).code,
      0,
    )
  })
  after(() => state.cleanup())

  test('session start injects the metadata table and no item content', () => {
    const r = cliHook(state, 'sessionStart', { sessionId: 'hook-1', timestamp: Date.now(), cwd: repo, source: 'new' })
    assert.equal(r.code, 0, r.stderr)
    const ctx = r.json.additionalContext
    assert.match(ctx, /<context_board repository="github\.com\/acme\/widgets" branch="main">/)
    assert.match(ctx, /\| src \| name \| description \| read_count \| count \|/)
    assert.match(ctx, /\| user \| run-tests \| How to run the tests \| 0 \| 1 \|/)
    assert.match(ctx, /"command": "get"/)
    assert.doesNotMatch(ctx, /SECRET-LESSON-BODY/)
    // The same session again is not a new sighting.
    const again = cliHook(state, 'sessionStart', {
      sessionId: 'hook-1',
      timestamp: Date.now(),
      cwd: repo,
      source: 'resume',
    })
    assert.match(again.json.additionalContext, /\| run-tests \| How to run the tests \| 0 \| 1 \|/)
  })

  test('a /goal prompt carries the board along with the new goal', () => {
    const { out } = runnerHook(state.stateRoot, 'vscode', {
      session_id: 'hook-2',
      cwd: repo,
      hook_event_name: 'UserPromptSubmit',
      prompt: '/goal make widgets faster',
    })
    const ctx = out.hookSpecificOutput.additionalContext
    assert.match(ctx, /opened draft goal/)
    assert.equal(ctx.match(/<context_board /g).length, 1)
    assert.match(ctx, /\| user \| run-tests \| How to run the tests \| 0 \| 2 \|/)
    assert.doesNotMatch(ctx, /SECRET-LESSON-BODY/)
  })

  test('a corrupt board file leaves every hook answering normally', () => {
    const dir = join(state.stateRoot, 'board')
    for (const name of readdirSync(dir)) writeFileSync(join(dir, name), '{"version": 1, "items": [tor')
    const session = 'hook-3'
    const events = [
      ['sessionStart', { source: 'new' }],
      ['userPromptSubmitted', { prompt: '/goal keep widgets fast' }],
      ['preToolUse', { toolName: 'bash', toolArgs: JSON.stringify({ command: 'ls' }) }],
      [
        'postToolUse',
        {
          toolName: 'bash',
          toolArgs: { command: 'ls' },
          toolResult: { resultType: 'success', textResultForLlm: 'ok' },
        },
      ],
      ['subagentStart', { agentName: 'explore' }],
      ['preCompact', { trigger: 'auto' }],
      ['agentStop', { stopReason: 'end_turn' }],
    ]
    for (const [event, extra] of events) {
      const r = cliHook(state, event, { sessionId: session, timestamp: Date.now(), cwd: repo, ...extra })
      assert.equal(r.code, 0, `${event}: ${r.stderr}`)
      assert.ok(r.json && typeof r.json === 'object', `${event} printed JSON: ${r.stdout}`)
      assert.doesNotMatch(r.stdout, /context_board /, event)
      if (event === 'userPromptSubmitted') assert.match(r.json.additionalContext, /opened draft goal/)
      if (event === 'agentStop') assert.equal(r.json.decision, 'block', 'the open goal still holds the stop')
    }
    const vscode = runnerHook(state.stateRoot, 'vscode', {
      session_id: session,
      cwd: repo,
      hook_event_name: 'SessionStart',
    })
    assert.ok(vscode.out && typeof vscode.out === 'object')
    assert.match(readFileSync(join(state.stateRoot, 'faults.log'), 'utf8'), /context board left out/)
  })
})
