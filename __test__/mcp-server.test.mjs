// The stdio MCP server as a host sees it: the SDK client spawns
// adapters/vscode-chat/mcp-server.mjs and calls the four goal tools.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { addon } from './helpers.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SERVER = join(ROOT, 'adapters/vscode-chat/mcp-server.mjs')
const RUNNER = join(ROOT, 'adapters/vscode-chat/hook-runner.mjs')
const TOOLS = ['goal_system_open', 'goal_system_status', 'goal_system_update', 'goal_system_close']

// State root one level down: the store's session-local copy goes to its parent.
let base
let stateRoot
let cwd
let client
let serverLog = ''
before(async () => {
  base = mkdtempSync(join(tmpdir(), 'goal-mcp-'))
  stateRoot = join(base, 'goal-system')
  cwd = join(base, 'proj')
  mkdirSync(cwd)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot },
    stderr: 'pipe',
  })
  transport.stderr.on('data', (d) => (serverLog += d))
  client = new Client({ name: 'goal-system-test', version: '1.0.0' })
  await client.connect(transport)
})
after(async () => {
  await client?.close()
  rmSync(base, { recursive: true, force: true })
})

const call = (name, args) => client.callTool({ name, arguments: args })
const text = (r) => r.content.map((c) => c.text).join('\n')
const readGoal = (session) => JSON.parse(readFileSync(join(stateRoot, 'by-session', `${session}.json`), 'utf8'))

/** A PostToolUse as VS Code reports it, through the real hook runner. */
function postToolUse(session, tool_name, tool_input) {
  const r = spawnSync(process.execPath, [RUNNER, 'vscode', 'PostToolUse'], {
    input: JSON.stringify({
      session_id: session,
      cwd,
      hook_event_name: 'PostToolUse',
      tool_name,
      tool_input,
      tool_response: 'ok',
    }),
    encoding: 'utf8',
    env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot },
  })
  assert.equal(r.status, 0, r.stderr)
}

/** The user's `/goal <objective>` in VS Code, through the real hook runner: only the user opens. */
function userGoal(session, objective) {
  const r = spawnSync(process.execPath, [RUNNER, 'vscode', 'UserPromptSubmit'], {
    input: JSON.stringify({
      session_id: session,
      cwd,
      hook_event_name: 'UserPromptSubmit',
      prompt: `/goal ${objective}`,
    }),
    encoding: 'utf8',
    env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot },
  })
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /opened draft goal/)
}

test('tools/list: four described goal tools, each requiring sessionId and cwd', async () => {
  const { tools: all } = await client.listTools()
  // The board is tested in board.test.mjs, the memory tools in memory.test.mjs.
  const tools = all.filter((t) => !['context_board', 'store_memory', 'vote_memory'].includes(t.name))
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort())
  for (const tool of tools) {
    assert.ok(tool.description.length > 80, `${tool.name} is described`)
    assert.match(tool.description, /[Ss]ubagent/, `${tool.name} warns subagents off`)
    assert.equal(tool.inputSchema.type, 'object')
    assert.ok(tool.inputSchema.required.includes('sessionId'), tool.name)
    assert.ok(tool.inputSchema.required.includes('cwd'), tool.name)
  }
  const update = tools.find((t) => t.name === 'goal_system_update').inputSchema.properties
  for (const field of [
    'objective',
    'requirements',
    'scope',
    'mustNotRegress',
    'constraints',
    'currentEnvironment',
    'requiredTools',
    'validationProof',
    'verificationResults',
    'requirementCoverage',
    'inspectionEvidence',
    'discoveredIssues',
    'resolvedIssues',
    'doneSoFar',
    'completionAudit',
    'remaining',
    'blockers',
    'issueResolutions',
    'status',
    'statusReason',
    'expectedGoalId',
  ]) {
    assert.ok(update[field], `update takes ${field}`)
  }
  assert.deepEqual(update.issueResolutions.items.properties.status.enum, [
    'resolved',
    'merged',
    'renamed',
    'duplicate',
    'superseded',
  ])
  const close = tools.find((t) => t.name === 'goal_system_close')
  assert.deepEqual(close.inputSchema.properties.status.enum, ['complete', 'blocked', 'cancelled'])
  assert.match(close.description, /completion gate/)
  const open = tools.find((t) => t.name === 'goal_system_open').inputSchema
  assert.deepEqual(open.properties.status.enum, ['draft', 'active'])
  assert.ok(open.properties.replace && open.properties.tokenBudget)
})

test("a missing or mistyped sessionId or cwd is the core's INVALID_INPUT naming it", async () => {
  for (const [name, args, field] of [
    ['goal_system_status', { cwd }, 'sessionId'],
    ['goal_system_status', { sessionId: 'mcp-x' }, 'cwd'],
    ['goal_system_open', { cwd, objective: 'x' }, 'sessionId'],
    ['goal_system_update', { sessionId: 'mcp-x', doneSoFar: ['y'] }, 'cwd'],
    ['goal_system_close', { sessionId: 'mcp-x', status: 'cancelled', reason: 'z' }, 'cwd'],
    ['goal_system_status', { sessionId: 42, cwd }, 'sessionId'],
  ]) {
    const r = await call(name, args)
    assert.equal(r.isError, true, `${name} without ${field}`)
    assert.equal(r.structuredContent.error.code, 'INVALID_INPUT')
    assert.match(text(r), new RegExp(`^INVALID_INPUT: ${field}:`))
  }
})

test("a misspelt or mistyped field is the core's INVALID_INPUT naming it, and nothing is written", async () => {
  const s = 'mcp-typo'
  userGoal(s, 'typo objective')
  const before = readGoal(s)
  const typo = await call('goal_system_update', { sessionId: s, cwd, doneSoFat: ['x'] })
  assert.equal(typo.structuredContent.error.code, 'INVALID_INPUT')
  assert.match(text(typo), /unknown field "doneSoFat"; did you mean "doneSoFar"/)
  const mistyped = await call('goal_system_update', { sessionId: s, cwd, doneSoFar: [1] })
  assert.equal(mistyped.structuredContent.error.code, 'INVALID_INPUT')
  assert.match(text(mistyped), /^INVALID_INPUT: doneSoFar: /)
  const statusField = await call('goal_system_status', { sessionId: s, cwd, verbose: true })
  assert.equal(statusField.structuredContent.error.code, 'INVALID_INPUT')
  assert.match(text(statusField), /unknown field "verbose"/)
  assert.deepEqual(readGoal(s).doneSoFar, before.doneSoFar)
  const unknownTool = await call('goal_system_explode', { sessionId: s, cwd })
  assert.equal(unknownTool.isError, true)
  assert.match(text(unknownTool), /^INVALID_INPUT: no tool named "goal_system_explode"/)
})

test("tools/list is the core's MCP definitions, verbatim but for the addon function", async () => {
  const { tools } = await client.listTools()
  const core = addon.mcpToolDefinitions()
  assert.deepEqual(
    tools.map((t) => t.name),
    core.map((d) => d.name),
  )
  for (const [i, tool] of tools.entries()) {
    const { operation, ...def } = core[i]
    assert.ok(operation, `${def.name} names its addon function`)
    assert.deepEqual(tool, def)
  }
})

test('full lifecycle: open, update, refused close listing every condition, evidence, accepted close', async () => {
  const s = 'mcp-life'
  userGoal(s, 'make the greeting print twice')
  const opened = await call('goal_system_open', {
    sessionId: s,
    cwd,
    objective: 'make the greeting print twice',
    status: 'draft',
  })
  assert.ok(!opened.isError, text(opened))
  assert.equal(opened.structuredContent.created, false, "the model's open continues the user's draft")
  assert.equal(opened.structuredContent.goal.completionStatus, 'draft')
  const goalId = opened.structuredContent.goal.id

  const updated = await call('goal_system_update', {
    sessionId: s,
    cwd,
    expectedGoalId: goalId,
    status: 'active',
    requirements: ['R1: greeting prints twice', 'R2: exit code is zero'],
    scope: ['greet.sh'],
    remaining: ['change greet.sh', 'run the tests'],
    doneSoFar: ['read greet.sh'],
    discoveredIssues: ['help text has a typo'],
  })
  assert.ok(!updated.isError, text(updated))
  assert.equal(updated.structuredContent.goal.completionStatus, 'active')
  assert.ok(updated.structuredContent.changes.some((c) => c.startsWith('requirements')))
  // The model reads the summary first and the long goal record last, without
  // the recent tool-call window the stored record keeps for the hooks.
  const keys = Object.keys(updated.structuredContent)
  assert.deepEqual(keys.slice(0, 2), ['summary', 'unmet'])
  assert.equal(keys.at(-1), 'goal')
  const stored = readGoal(s)
  assert.ok(Array.isArray(stored.toolHistory.recent))
  assert.deepEqual(
    Object.keys(updated.structuredContent.goal.toolHistory).sort(),
    Object.keys(stored.toolHistory)
      .filter((k) => k !== 'recent')
      .sort(),
  )
  assert.ok(text(updated).startsWith(updated.structuredContent.summary))
  assert.match(text(updated), /^Changes: requirements/m)

  const refused = await call('goal_system_close', { sessionId: s, cwd, status: 'complete' })
  assert.equal(refused.isError, true)
  assert.equal(refused.structuredContent.closed, false)
  const fields = refused.structuredContent.unmet.map((u) => u.field)
  for (const field of [
    'validationProof',
    'verificationResults',
    'inspectionEvidence',
    'requirementCoverage',
    'completionAudit',
    'remaining',
    'discoveredIssues',
    'toolHistory',
  ]) {
    assert.ok(fields.includes(field), `unmet lists ${field}`)
    assert.ok(text(refused).includes(`- ${field}:`), `the text lists ${field}`)
  }
  assert.equal(fields.filter((f) => f === 'requirementCoverage').length, 2, 'one per requirement')
  assert.equal(readGoal(s).completionStatus, 'active', 'still open on disk')

  // Evidence without tool activity is still refused: only toolHistory is left.
  const evidence = {
    sessionId: s,
    cwd,
    remaining: [],
    doneSoFar: ['greet.sh now loops twice'],
    inspectionEvidence: ['greet.sh printed the greeting once'],
    validationProof: ['two greeting lines in the output'],
    verificationResults: ['npm test: 3 passed'],
    requirementCoverage: ['R1 covered by test_twice passing', 'R2 covered by exit status check printing 0'],
    completionAudit: ['R1 and R2 checked against the npm test run'],
    issueResolutions: [
      { issue: 'help text has a typo', status: 'resolved', evidence: 'help text fixed, test_help passes' },
    ],
  }
  const almost = await call('goal_system_close', { ...evidence, status: 'complete' })
  assert.equal(almost.isError, true)
  assert.deepEqual(
    almost.structuredContent.unmet.map((u) => u.field),
    ['toolHistory'],
  )
  assert.match(text(almost), /toolHistory/)

  // The PostToolUse hook records a real verification call for this session.
  postToolUse(s, 'run_in_terminal', { command: 'npm test' })
  assert.equal(readGoal(s).toolHistory.verifications, 1)

  const closed = await call('goal_system_close', {
    sessionId: s,
    cwd,
    status: 'complete',
    reason: 'all requirements verified',
  })
  assert.ok(!closed.isError, text(closed))
  assert.equal(closed.structuredContent.closed, true)
  assert.equal(closed.structuredContent.goal.completionStatus, 'complete')
  const onDisk = readGoal(s)
  assert.equal(onDisk.completionStatus, 'complete')
  assert.ok(onDisk.closedAt)

  // Closed stays closed.
  const again = await call('goal_system_update', { sessionId: s, cwd, doneSoFar: ['more'] })
  assert.equal(again.isError, true)
  assert.match(text(again), /^GOAL_CLOSED: /)
})

test('two sessions in one cwd stay isolated', async () => {
  userGoal('mcp-iso-a', 'objective of session A')
  userGoal('mcp-iso-b', 'objective of session B')
  const a = await call('goal_system_open', { sessionId: 'mcp-iso-a', cwd, objective: 'objective of session A' })
  const b = await call('goal_system_open', { sessionId: 'mcp-iso-b', cwd, objective: 'objective of session B' })
  assert.ok(!a.isError && !b.isError)
  assert.notEqual(a.structuredContent.goal.id, b.structuredContent.goal.id)
  await call('goal_system_update', {
    sessionId: 'mcp-iso-b',
    cwd,
    doneSoFar: ['only B did this'],
    remaining: ['B next'],
  })

  const sa = await call('goal_system_status', { sessionId: 'mcp-iso-a', cwd })
  const sb = await call('goal_system_status', { sessionId: 'mcp-iso-b', cwd })
  assert.equal(sa.structuredContent.goal.objective, 'objective of session A')
  assert.deepEqual(sa.structuredContent.goal.doneSoFar, [])
  assert.deepEqual(sa.structuredContent.goal.remaining, [])
  assert.equal(sb.structuredContent.goal.objective, 'objective of session B')
  assert.deepEqual(sb.structuredContent.goal.doneSoFar, ['only B did this'])

  // A session with no goal sees none, even in a cwd that has two.
  const none = await call('goal_system_status', { sessionId: 'mcp-iso-c', cwd })
  assert.ok(!none.isError)
  assert.equal(none.structuredContent.open, false)
  assert.equal(none.structuredContent.goal, undefined)
  const upd = await call('goal_system_update', { sessionId: 'mcp-iso-c', cwd, doneSoFar: ['x'] })
  assert.equal(upd.isError, true)
  assert.equal(upd.structuredContent.error.code, 'NO_GOAL')
})

test('errors from Rust come back as isError with their code', async () => {
  const s = 'mcp-err'
  userGoal(s, 'error objective')
  await call('goal_system_open', {
    sessionId: s,
    cwd,
    objective: 'error objective',
    discoveredIssues: ['login fails on empty password'],
  })

  const wildcard = await call('goal_system_update', {
    sessionId: s,
    cwd,
    issueResolutions: [{ issue: 'all issues', status: 'resolved', evidence: 'fixed everything' }],
  })
  assert.equal(wildcard.isError, true)
  assert.match(text(wildcard), /^INVALID_RESOLUTION: .*wildcard/)
  assert.equal(wildcard.structuredContent.error.code, 'INVALID_RESOLUTION')
  assert.deepEqual(readGoal(s).issueResolutions, [], 'nothing recorded')

  // The model cannot replace the user's goal, even when it asks to.
  const replace = await call('goal_system_open', { sessionId: s, cwd, objective: 'print hello', replace: true })
  assert.equal(replace.structuredContent.error.code, 'FORBIDDEN')
  assert.match(text(replace), /only the user can replace the goal/)
  assert.equal(readGoal(s).objective, 'error objective')
  // Nor open one the user never asked for.
  const unasked = await call('goal_system_open', { sessionId: 'mcp-unasked', cwd, objective: 'print hello' })
  assert.equal(unasked.structuredContent.error.code, 'FORBIDDEN')
  // Nor reach session s from another directory.
  const elsewhere = await call('goal_system_status', { sessionId: s, cwd: join(base, 'other') })
  assert.equal(elsewhere.structuredContent.error.code, 'FORBIDDEN')

  const stale = await call('goal_system_update', { sessionId: s, cwd, expectedGoalId: 'goal-0000', doneSoFar: ['x'] })
  assert.equal(stale.structuredContent.error.code, 'STALE_GOAL')

  const badStatus = await call('goal_system_update', { sessionId: s, cwd, status: 'complete' })
  assert.equal(badStatus.structuredContent.error.code, 'INVALID_INPUT')
  assert.match(text(badStatus), /goal_system_close/, "Rust's message reaches the model")

  const cancel = await call('goal_system_close', { sessionId: s, cwd, status: 'cancelled', reason: 'changed my mind' })
  assert.equal(cancel.structuredContent.error.code, 'FORBIDDEN', 'only the user cancels')
  assert.match(text(cancel), /\/goal cancel/)
  const noReason = await call('goal_system_close', { sessionId: s, cwd, status: 'blocked' })
  assert.equal(noReason.structuredContent.error.code, 'INVALID_INPUT')
  assert.match(text(noReason), /reason/)

  const badSession = await call('goal_system_status', { sessionId: '../escape', cwd })
  assert.equal(badSession.structuredContent.error.code, 'INVALID_SESSION_ID')

  // Nothing but protocol on stdout: the client would have failed to parse it.
  assert.match(serverLog, /ready/)
})

test('tools/list: each tool says what it does to the world (annotations)', async () => {
  const { tools } = await client.listTools()
  const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]))
  assert.equal(byName.goal_system_status.readOnlyHint, true, 'status only reads')
  for (const name of ['goal_system_open', 'goal_system_update', 'goal_system_close']) {
    assert.equal(byName[name].readOnlyHint, false, `${name} writes`)
  }
  assert.equal(byName.goal_system_close.destructiveHint, true, 'a closed goal never reopens')
  assert.equal(byName.goal_system_close.idempotentHint, false, 'a second close is refused')
  assert.equal(byName.goal_system_open.idempotentHint, true, 'the same objective continues the goal')
  for (const t of tools) assert.equal(t.annotations.openWorldHint, false, `${t.name} stays in the state folder`)
})

test('outputSchema types the goal record from the Rust record, and results match it', async () => {
  const { tools } = await client.listTools()
  const goal = tools.find((t) => t.name === 'goal_system_status').outputSchema.properties.goal
  assert.equal(goal.type, 'object')
  assert.deepEqual(goal.properties.completionStatus.enum, [
    'draft',
    'active',
    'blocked',
    'paused',
    'budget_limited',
    'complete',
    'cancelled',
  ])
  assert.equal(goal.properties.doneSoFar.type, 'array')
  assert.equal(goal.properties.objective.type, 'string')
  // The client validates structuredContent against the schema: a call passing
  // proves the typed schema fits what the server returns.
  userGoal('mcp-schema', 'schema check')
  const r = await call('goal_system_open', {
    sessionId: 'mcp-schema',
    cwd,
    objective: 'schema check',
    status: 'active',
  })
  assert.equal(r.isError, undefined, text(r))
  assert.equal(r.structuredContent.goal.completionStatus, 'active')
})

test('without the addon the tools are still listed, and each call says why it fails', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    // The addon's loader takes this path first and fails on it.
    env: { ...process.env, GOAL_SYSTEM_STATE_ROOT: stateRoot, NAPI_RS_NATIVE_LIBRARY_PATH: join(base, 'missing.node') },
    stderr: 'pipe',
  })
  let log = ''
  transport.stderr.on('data', (d) => (log += d))
  const bare = new Client({ name: 'goal-system-test', version: '1.0.0' })
  await bare.connect(transport)
  try {
    const { tools } = await bare.listTools()
    assert.deepEqual(
      tools.map((t) => t.name),
      addon.mcpToolDefinitions().map((d) => d.name),
      'from schema/mcp-tools.json',
    )
    const r = await bare.callTool({ name: 'goal_system_status', arguments: { sessionId: 'mcp-bare', cwd } })
    assert.equal(r.isError, true)
    assert.equal(r.structuredContent.error.code, 'ADDON_UNAVAILABLE')
    assert.match(log, /addon failed to load/)
  } finally {
    await bare.close()
  }
})
