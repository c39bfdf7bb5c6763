// extension.mjs loaded with a stand-in for joinSession that records what it
// registers; tools and hooks are then called as Copilot CLI calls them.
import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'

import { tempState, userTypes } from './helpers.mjs'

process.env.GOAL_SYSTEM_EXTENSION_NO_AUTOSTART = '1'
const ext = await import('../extension.mjs')

let state
let registered
const SESSION = 'ext-session-1'

before(async () => {
  state = tempState()
  process.env.HOME = state.home
  process.env.GOAL_SYSTEM_STATE_ROOT = state.stateRoot
  await ext.start(async (config) => {
    registered = config
    return { sessionId: SESSION }
  })
})
after(() => state.cleanup())

const tool = (name) => registered.tools.find((t) => t.name === name)
const invoke = (name, args, extra = {}) =>
  tool(name).handler(args, { sessionId: SESSION, toolCallId: 'call-1', toolName: name, arguments: args, ...extra })

describe('extension registration', () => {
  test('registers the four tools with JSON-Schema parameters covering the record', () => {
    assert.deepEqual(registered.tools.map((t) => t.name).sort(), [
      'context_board',
      'goal_system_close',
      'goal_system_open',
      'goal_system_status',
      'goal_system_update',
      'store_memory', // memory.test.mjs
      'vote_memory',
    ])
    const schema = tool('goal_system_update').parameters
    for (const field of [
      'requirements',
      'doneSoFar',
      'validationProof',
      'remaining',
      'blockers',
      'issueResolutions',
      'completionAudit',
      'statusReason',
    ]) {
      assert.ok(schema.properties[field], `update schema has ${field}`)
    }
    assert.deepEqual(schema.properties.issueResolutions.items.properties.status.enum, [
      'resolved',
      'merged',
      'renamed',
      'duplicate',
      'superseded',
    ])
    assert.deepEqual(tool('goal_system_close').parameters.required, ['status'])
    for (const hook of ['onSessionStart', 'onUserPromptSubmitted', 'onPreToolUse', 'onPostToolUse', 'onAgentStop']) {
      assert.equal(typeof registered.hooks[hook], 'function', hook)
    }
  })

  test('leaves the lifecycle to the CLI shell hooks when they are installed', () => {
    mkdirSync(join(state.home, '.copilot', 'hooks'), { recursive: true })
    writeFileSync(join(state.home, '.copilot', 'hooks', 'goal-system.json'), '{}')
    try {
      assert.equal(ext.shellHooksInstalled(join(state.home, '.copilot')), true)
    } finally {
      rmSync(join(state.home, '.copilot', 'hooks', 'goal-system.json'))
    }
    assert.equal(ext.shellHooksInstalled(join(state.home, 'nowhere')), false)
  })
})

describe('extension tools', () => {
  test('open, refused close with every unmet condition, then status', async () => {
    // The user's /goal makes the draft (typed in Copilot CLI, delivered by the host); the
    // model's open fills and continues it.
    userTypes(state, SESSION, process.cwd(), '/goal ship the CLI')
    const opened = await invoke('goal_system_open', { objective: 'ship the CLI', requirements: ['R1: --help works'] })
    assert.equal(typeof opened, 'string')
    assert.match(opened, /ship the CLI/)
    const refused = await invoke('goal_system_close', { status: 'complete' })
    assert.equal(refused.resultType, 'failure')
    for (const field of [
      'doneSoFar',
      'validationProof',
      'verificationResults',
      'requirementCoverage',
      'completionAudit',
      'toolHistory',
    ]) {
      assert.match(refused.textResultForLlm, new RegExp(`- ${field}:`))
    }
    const status = await invoke('goal_system_status', {})
    assert.match(status, /Completion gate: \d+ unmet/)
  })

  test('errors from the core come back as failure results with their code', async () => {
    const res = await invoke('goal_system_update', {
      issueResolutions: [{ issue: 'all issues', status: 'resolved', evidence: 'done' }],
    })
    assert.equal(res.resultType, 'failure')
    assert.match(res.textResultForLlm, /INVALID_RESOLUTION/)
  })

  test('a real invocation carrying functions and objects is handled', async () => {
    const res = await invoke(
      'goal_system_status',
      {},
      { signal: new AbortController().signal, report: () => {}, when: new Date(), big: 1n },
    )
    assert.equal(typeof res, 'string', JSON.stringify(res))
    assert.match(res, /ship the CLI/)
  })

  test('subagent-looking invocations are refused', async () => {
    for (const marker of [
      { isSubagent: true },
      { parentSessionId: 'p-1' },
      { agentId: 'explore-1' },
      { parent_invocation_id: 'i-9' },
      { sessionId: 'other-session' },
      // Object-valued markers, and an invocation that also carries functions.
      { subagent: { name: 'explore', id: 'sa-1' } },
      { parentInvocation: undefined, agentId: 'a-2', toString: () => 'x' },
      // A number JSON cannot hold does not make the check fail open.
      { agentId: 'a-3', elapsedMs: Number.NaN, limit: Number.POSITIVE_INFINITY },
    ]) {
      const res = await invoke('goal_system_status', {}, marker)
      assert.equal(res.resultType, 'failure', JSON.stringify(marker))
      // The core's authority rule answers, with its code.
      assert.match(res.textResultForLlm, /\(SUBAGENT\): subagents do not own goals/)
    }
  })
})

describe('extension hooks', () => {
  const input = (extra) => ({ sessionId: SESSION, timestamp: new Date(), workingDirectory: process.cwd(), ...extra })

  test('prompt hook injects goal context; a /goal command from outside the host is refused', async () => {
    const out = await registered.hooks.onUserPromptSubmitted(input({ prompt: 'keep going' }), { sessionId: SESSION })
    assert.match(out.additionalContext, /ship the CLI/)
    // This test process is not the host's extension process: a command from it is not the user's.
    await registered.hooks.onUserPromptSubmitted(input({ prompt: '/goal cancel: forged' }), { sessionId: SESSION })
    assert.match(await invoke('goal_system_status', {}), /ship the CLI/)
    assert.doesNotMatch(await invoke('goal_system_status', {}), /cancelled/)
  })

  test('drift is denied at 5 and agentStop is blocked', async () => {
    for (let i = 0; i < 5; i++) {
      await registered.hooks.onPostToolUse(
        input({ toolName: 'bash', toolArgs: { command: `echo ${i}` }, toolResult: {} }),
        { sessionId: SESSION },
      )
    }
    const pre = await registered.hooks.onPreToolUse(input({ toolName: 'bash', toolArgs: { command: 'ls' } }), {
      sessionId: SESSION,
    })
    assert.equal(pre.permissionDecision, 'deny')
    const stop = await registered.hooks.onAgentStop(input({ stopReason: 'end_turn', stopHookActive: false }), {
      sessionId: SESSION,
    })
    assert.equal(stop.decision, 'block')
  })

  test('subagent hook input is not recorded as the main session history', async () => {
    const before = (await invoke('goal_system_status', {})).match(/Tool activity: (\d+) calls/)[1]
    await registered.hooks.onPostToolUse(
      {
        sessionId: 'sub-runtime-7',
        timestamp: new Date(),
        workingDirectory: process.cwd(),
        toolName: 'bash',
        toolArgs: { command: 'rm -rf build' },
      },
      { sessionId: SESSION },
    )
    const afterCount = (await invoke('goal_system_status', {})).match(/Tool activity: (\d+) calls/)[1]
    assert.equal(afterCount, before)
  })
})
