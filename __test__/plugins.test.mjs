// The Claude Code, Copilot CLI and Codex CLI plugins and the Gemini CLI extension of this repository:
// generated from
// the package templates (never stale), their hook commands run as the hosts run
// them, and their MCP server starts through `goal-system mcp`.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { root, spawnAsHost } from './helpers.mjs'

const claudePlugin = path.join(root, 'plugins', 'claude', 'goal-system')
const copilotPlugin = path.join(root, 'plugins', 'copilot-cli', 'goal-system')
const codexPlugin = path.join(root, 'plugins', 'codex', 'goal-system')
const geminiExtension = path.join(root, 'plugins', 'gemini', 'goal-system')
/** A Gemini extension hook's command as Gemini CLI loads it: `${extensionPath}` replaced. */
const geminiHook = (event) =>
  JSON.parse(fs.readFileSync(path.join(geminiExtension, 'hooks', 'hooks.json'), 'utf8')).hooks[
    event
  ][0].hooks[0].command.replaceAll('${extensionPath}', geminiExtension)
let base
let stateRoot
let binDir
before(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'goal-plugins-'))
  stateRoot = path.join(base, 'state', 'goal-system')
  // A `goal-system` command on PATH, as `npm install -g` or `npm link` leaves it.
  binDir = path.join(base, 'bin')
  fs.mkdirSync(binDir)
  fs.symlinkSync(path.join(root, 'bin', 'goal-system.mjs'), path.join(binDir, 'goal-system'))
})
after(() => fs.rmSync(base, { recursive: true, force: true }))

const envWith = (extra = {}, { onPath = true } = {}) => {
  const env = {
    ...process.env,
    HOME: base,
    COPILOT_HOME: path.join(base, 'copilot'),
    GOAL_SYSTEM_STATE_ROOT: stateRoot,
    ...extra,
  }
  for (const k of ['GOAL_SYSTEM_HOME', 'COPILOT_CLI', 'CLAUDECODE']) if (!(k in extra)) delete env[k]
  env.PATH = onPath
    ? `${binDir}:${path.dirname(process.execPath)}:/usr/bin:/bin`
    : `${path.dirname(process.execPath)}:/usr/bin:/bin`
  return env
}

/** Run a plugin's hook command as `host` ('copilot' | 'claude' | 'gemini') runs it. */
function runCommand(command, payload, env, host = 'copilot') {
  const res = spawnAsHost(host, ['sh', '-c', command], { input: JSON.stringify(payload), env })
  assert.equal(res.status, 0, res.stderr)
  return { out: JSON.parse(res.stdout), stderr: res.stderr }
}

describe('plugin files', () => {
  test('are what scripts/build-plugins.mjs makes from the package templates', () => {
    const res = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-plugins.mjs'), '--check'], {
      encoding: 'utf8',
    })
    assert.equal(res.status, 0, res.stderr)
  })

  test('each host finds its manifest and marketplace, and the plugins carry hooks, MCP server and the goal skill', () => {
    const claude = JSON.parse(fs.readFileSync(path.join(claudePlugin, '.claude-plugin', 'plugin.json'), 'utf8'))
    assert.equal(claude.name, 'goal-system')
    const copilot = JSON.parse(fs.readFileSync(path.join(copilotPlugin, 'plugin.json'), 'utf8'))
    assert.equal(copilot.name, 'goal-system')
    for (const [dir, market] of [
      [claudePlugin, '.claude-plugin/marketplace.json'],
      [copilotPlugin, '.github/plugin/marketplace.json'],
    ]) {
      const m = JSON.parse(fs.readFileSync(path.join(root, market), 'utf8'))
      assert.equal(path.resolve(root, m.plugins[0].source), dir, market)
      assert.match(fs.readFileSync(path.join(dir, 'skills', 'goal', 'SKILL.md'), 'utf8'), /^---\nname: goal\n/)
      assert.equal(
        JSON.parse(fs.readFileSync(path.join(dir, '.mcp.json'), 'utf8')).mcpServers.goalSystem.args[0],
        'mcp',
      )
    }
    const events = Object.keys(JSON.parse(fs.readFileSync(path.join(root, 'hooks', 'hooks.json'), 'utf8')).hooks)
    assert.deepEqual(
      Object.keys(JSON.parse(fs.readFileSync(path.join(copilotPlugin, 'hooks.json'), 'utf8')).hooks),
      events,
    )
  })

  test("the Gemini CLI extension: manifest, the settings route's events and server name, no /goal command", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(geminiExtension, 'gemini-extension.json'), 'utf8'))
    assert.equal(manifest.name, 'goal-system')
    assert.equal(manifest.version, JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version)
    // The same server name as install --gemini: the model sees mcp_goal-system_<tool> either way.
    assert.deepEqual(manifest.mcpServers, { 'goal-system': { command: 'goal-system', args: ['mcp'] } })
    const settings = JSON.parse(fs.readFileSync(path.join(root, 'adapters', 'gemini', 'hooks.json'), 'utf8')).hooks
    const hooks = JSON.parse(fs.readFileSync(path.join(geminiExtension, 'hooks', 'hooks.json'), 'utf8')).hooks
    assert.deepEqual(Object.keys(hooks), Object.keys(settings))
    for (const [event, groups] of Object.entries(hooks)) {
      assert.equal(groups[0].matcher, settings[event][0].matcher, event)
      assert.match(
        groups[0].hooks[0].command,
        new RegExp(`\\$\\{extensionPath\\}/bin/goal-hook\\.sh.* gemini ${event};`),
      )
    }
    // A custom command would be expanded before BeforeAgent sees the typed /goal.
    assert.equal(fs.existsSync(path.join(geminiExtension, 'commands')), false)
  })
})

test('Codex CLI finds its manifest and marketplace; the plugin carries every Codex hook event and the MCP server', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(codexPlugin, '.codex-plugin', 'plugin.json'), 'utf8'))
  assert.equal(manifest.name, 'goal-system')
  // Codex takes manifest paths only as `./…` inside the plugin.
  for (const key of ['hooks', 'mcpServers']) {
    assert.match(manifest[key], /^\.\//, key)
    assert.ok(fs.existsSync(path.join(codexPlugin, manifest[key])), manifest[key])
  }
  const market = JSON.parse(fs.readFileSync(path.join(root, '.agents', 'plugins', 'marketplace.json'), 'utf8'))
  assert.equal(path.resolve(root, market.plugins[0].source.path), codexPlugin)
  assert.equal(market.plugins[0].name, manifest.name)
  const hooks = JSON.parse(fs.readFileSync(path.join(codexPlugin, manifest.hooks), 'utf8')).hooks
  const installed = JSON.parse(fs.readFileSync(path.join(root, 'adapters', 'codex', 'hooks.json'), 'utf8')).hooks
  assert.deepEqual(Object.keys(hooks), Object.keys(installed), 'the same events as install --codex')
  assert.ok('Interrupt' in hooks)
  for (const [event, groups] of Object.entries(hooks)) {
    assert.equal(groups[0].hooks[0].timeout, installed[event][0].hooks[0].timeout, event)
    assert.equal(groups[0].matcher, installed[event][0].matcher, event)
  }
  const mcp = JSON.parse(fs.readFileSync(path.join(codexPlugin, manifest.mcpServers), 'utf8'))
  assert.deepEqual(mcp.mcpServers['goal-system'], { command: 'goal-system', args: ['mcp'] })
  assert.ok(!fs.existsSync(path.join(codexPlugin, 'skills')), 'no skill takes the $goal-system mention')
})

describe('plugin hook commands', () => {
  test("Copilot CLI: a /goal prompt through the plugin entry opens a draft; the answer is Copilot's", () => {
    const hooks = JSON.parse(fs.readFileSync(path.join(copilotPlugin, 'hooks.json'), 'utf8')).hooks
    const prompt =
      'The user set this explicit autopilot objective with /autopilot:\n\nship the plugin\n\nWork autonomously toward this objective in clear checkpoints.'
    const cwd = path.join(base, 'proj')
    fs.mkdirSync(cwd, { recursive: true })
    const env = envWith({ PLUGIN_ROOT: copilotPlugin, COPILOT_CLI: '1' })
    const { out } = runCommand(
      hooks.userPromptSubmitted[0].bash,
      { sessionId: 'plug-cp', timestamp: Date.now(), cwd, prompt },
      env,
    )
    assert.match(out.additionalContext, /goal-system/)
    const stop = runCommand(
      hooks.agentStop[0].bash,
      { sessionId: 'plug-cp', timestamp: Date.now(), cwd, stopReason: 'end_turn', stop_hook_active: false },
      env,
    )
    assert.equal(stop.out.decision, 'block')
  })

  test("Claude Code: the plugin entry answers in Claude Code's shape", () => {
    const hooks = JSON.parse(fs.readFileSync(path.join(claudePlugin, 'hooks', 'hooks.json'), 'utf8')).hooks
    const cwd = path.join(base, 'proj')
    const env = envWith({ CLAUDE_PLUGIN_ROOT: claudePlugin, CLAUDECODE: '1' })
    const payload = {
      session_id: 'plug-cl',
      cwd,
      transcript_path: path.join(base, '.claude', 'projects', 'proj', 'plug-cl.jsonl'),
      prompt_id: 'prompt-1',
      hook_event_name: 'UserPromptSubmit',
      prompt: '/goal-system:goal ship the plugin',
    }
    const { out } = runCommand(hooks.UserPromptSubmit[0].hooks[0].command, payload, env, 'claude')
    assert.equal(out.hookSpecificOutput.hookEventName, 'UserPromptSubmit')
  })

  test("Codex CLI: the plugin entry (PLUGIN_ROOT) runs the native hook in Codex's process shape and answers in Codex's shape", () => {
    const hooks = JSON.parse(fs.readFileSync(path.join(codexPlugin, 'hooks', 'hooks.json'), 'utf8')).hooks
    const cwd = path.join(base, 'proj')
    fs.mkdirSync(cwd, { recursive: true })
    const env = envWith({ PLUGIN_ROOT: codexPlugin, CODEX_HOME: '' })
    const payload = {
      session_id: '01a218ff-1c2e-7231-9461-58277246a01b',
      turn_id: '01a218ff-1c44-7251-8a16-2b2f2cd0a0a9',
      transcript_path: null,
      cwd,
      hook_event_name: 'UserPromptSubmit',
      model: 'e2e-model',
      permission_mode: 'bypassPermissions',
      prompt: '$goal-system',
    }
    const { out } = runCommand(hooks.UserPromptSubmit[0].hooks[0].command, payload, env, 'codex')
    assert.equal(out.hookSpecificOutput.hookEventName, 'UserPromptSubmit')
    assert.match(out.hookSpecificOutput.additionalContext, /goal-system/)
    const interrupt = { ...payload, hook_event_name: 'Interrupt' }
    delete interrupt.prompt
    assert.deepEqual(runCommand(hooks.Interrupt[0].hooks[0].command, interrupt, env, 'codex').out, {})
  })

  test("Gemini CLI: /goal X through the extension's BeforeAgent opens a draft; AfterAgent denies the stop", () => {
    const cwd = path.join(base, 'proj')
    fs.mkdirSync(cwd, { recursive: true })
    const env = envWith()
    const common = {
      session_id: 'plug-gm',
      transcript_path: path.join(base, '.gemini', 'tmp', 'proj', 'chats', 'session-plug-gm.jsonl'),
      cwd,
      timestamp: new Date().toISOString(),
    }
    const { out } = runCommand(
      geminiHook('BeforeAgent'),
      { ...common, hook_event_name: 'BeforeAgent', prompt: '/goal ship the extension' },
      env,
      'gemini',
    )
    assert.equal(out.hookSpecificOutput.hookEventName, 'BeforeAgent')
    assert.match(out.hookSpecificOutput.additionalContext, /explicit \/goal opened draft goal/)
    const stop = runCommand(
      geminiHook('AfterAgent'),
      {
        ...common,
        hook_event_name: 'AfterAgent',
        prompt: '/goal ship the extension',
        prompt_response: 'done',
        stop_hook_active: false,
      },
      env,
      'gemini',
    )
    assert.equal(stop.out.decision, 'deny')
    assert.match(stop.out.reason, /\[goal-system\]/)
  })

  test('without the package, or without the plugin root, a hook allows ({}) and exits 0', () => {
    const hooks = JSON.parse(fs.readFileSync(path.join(copilotPlugin, 'hooks.json'), 'utf8')).hooks
    const payload = { sessionId: 'plug-none', cwd: base, toolName: 'bash', toolArgs: { command: 'ls' } }
    const noPackage = runCommand(
      hooks.preToolUse[0].bash,
      payload,
      envWith({ PLUGIN_ROOT: copilotPlugin }, { onPath: false }),
    )
    assert.deepEqual(noPackage.out, {})
    assert.match(noPackage.stderr, /goal-system package was not found/)
    assert.deepEqual(runCommand(hooks.preToolUse[0].bash, payload, envWith()).out, {})
  })
})

test('goal-system mcp serves the goal tools over stdio', async () => {
  const transport = new StdioClientTransport({
    command: path.join(binDir, 'goal-system'),
    args: ['mcp'],
    env: envWith(),
    stderr: 'ignore',
  })
  const client = new Client({ name: 'plugin-test', version: '1.0.0' })
  await client.connect(transport)
  try {
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'context_board',
      'goal_system_close',
      'goal_system_open',
      'goal_system_status',
      'goal_system_update',
      'store_memory',
      'vote_memory',
    ])
  } finally {
    await client.close()
  }
})
