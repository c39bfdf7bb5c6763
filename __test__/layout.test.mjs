// The seed's layout is the package's: each file the seed names exists at the
// seed's path, is the file the hosts' configuration (the package's templates and
// what `goal-system install` writes) points at, and the JavaScript entry points
// load the native addon themselves, not through another module of ours.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { pathToFileURL } from 'node:url'

import { buildTargets } from '../cli/install-targets.mjs'
import { root } from './helpers.mjs'

/** The seed's files (seed 000, "Adapters"), by host. */
const SEED = {
  'copilot-cli': ['skills/goal/SKILL.md', 'extension.mjs', 'hooks/goal-context.sh'],
  vscode: [
    'adapters/vscode-chat/agents/goal-system.agent.md',
    'adapters/vscode-chat/hooks/goal-system.json',
    'adapters/vscode-chat/hook-runner.mjs',
    'adapters/vscode-chat/mcp-server.mjs',
  ],
}
const abs = (rel) => path.join(root, rel)
const readJson = (rel) => JSON.parse(fs.readFileSync(abs(rel), 'utf8'))
/** Every command string (hooks' `bash`/`command`, a server's args) in a JSON value. */
const strings = (value) =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : []

let base
before(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'goal-layout-'))
})
after(() => fs.rmSync(base, { recursive: true, force: true }))

/** What `goal-system install` would write for `host` (user level, or a project). */
function installed(host, project = null) {
  const env = { HOME: path.join(base, 'home'), GOAL_SYSTEM_VSCODE_USER_DIR: path.join(base, 'vscode-user') }
  return buildTargets({ hosts: [host], project, env, pkg: root }).targets
}
const opValues = (target) => target.ops.flatMap((op) => strings(op.hooks ?? op.value))

test('each seed file exists at its path, and adapters/ holds one folder per host', () => {
  for (const rel of Object.values(SEED).flat()) assert.ok(fs.statSync(abs(rel)).isFile(), `${rel} is missing`)
  const hosts = fs.readdirSync(abs('adapters')).filter((n) => fs.statSync(abs(`adapters/${n}`)).isDirectory())
  assert.deepEqual(hosts.sort(), ['claude', 'codex', 'gemini', 'vscode-chat'])
})

test('Copilot CLI: the hooks file beside goal-context.sh runs it for every event, and install points there', () => {
  const hooks = readJson('hooks/hooks.json').hooks
  assert.ok(Object.keys(hooks).length >= 7)
  for (const [event, [entry]] of Object.entries(hooks))
    assert.ok(entry.bash.includes(`"\${GOAL_SYSTEM_HOME}/hooks/goal-context.sh" ${event}`), `${event}: ${entry.bash}`)
  const file = installed('copilot-cli').find((t) => t.file.endsWith(path.join('hooks', 'goal-system.json')))
  const commands = opValues(file).filter((c) => c.includes('goal-context.sh'))
  assert.equal(commands.length, Object.keys(hooks).length)
  for (const c of commands) assert.ok(c.includes(`"${abs('hooks/goal-context.sh')}"`), c)
})

test('Copilot CLI: the installed extension imports extension.mjs, and the skill is skills/goal/SKILL.md named goal-system', () => {
  const targets = installed('copilot-cli')
  const shim = targets.find((t) => t.file.endsWith(path.join('extensions', 'goal-system', 'extension.mjs')))
  assert.ok(shim.content.includes(`import ${JSON.stringify(pathToFileURL(abs('extension.mjs')).href)}`), shim.content)
  // Copilot CLI keeps /goal for its autopilot: the user skill is typed /goal-system.
  const skill = targets.find((t) => t.file.endsWith(path.join('skills', 'goal-system', 'SKILL.md')))
  const seed = fs.readFileSync(abs('skills/goal/SKILL.md'), 'utf8')
  assert.ok(skill.content.startsWith(seed.replace(/^name: goal$/m, 'name: goal-system').trimEnd()))
  const plugin = 'plugins/copilot-cli/goal-system/skills/goal/SKILL.md'
  assert.equal(fs.readFileSync(abs(plugin), 'utf8'), fs.readFileSync(abs('skills/goal/SKILL.md'), 'utf8'))
})

test('VS Code and Claude Code: every hook and MCP registration names the runner and the server in adapters/vscode-chat/', () => {
  const runner = '${GOAL_SYSTEM_HOME}/adapters/vscode-chat/hook-runner.mjs'
  const server = '${GOAL_SYSTEM_HOME}/adapters/vscode-chat/mcp-server.mjs'
  for (const rel of ['adapters/vscode-chat/hooks/goal-system.json', 'adapters/claude/settings.hooks.json']) {
    const commands = strings(readJson(rel).hooks).filter((c) => c.includes('hook-runner'))
    assert.ok(commands.length >= 8, rel)
    // POSIX commands quote it with ", PowerShell's with '.
    for (const c of commands) assert.ok(c.includes(`"${runner}"`) || c.includes(`'${runner}'`), `${rel}: ${c}`)
  }
  const agent = fs.readFileSync(abs('adapters/vscode-chat/agents/goal-system.agent.md'), 'utf8')
  assert.equal(agent.split(`node "${runner}" vscode `).length - 1, 8, 'the agent-scoped hooks run the runner')
  assert.deepEqual(readJson('adapters/vscode-chat/mcp.json').servers.goalSystem.args, [server])
  assert.deepEqual(readJson('adapters/claude/mcp.json').mcpServers.goalSystem.args, [server])
})

test('VS Code and Claude Code: install writes the seed files and points every entry at them', () => {
  const user = installed('vscode')
  const agent = user.find((t) => t.file.endsWith('goal-system.agent.md'))
  const source = fs.readFileSync(abs('adapters/vscode-chat/agents/goal-system.agent.md'), 'utf8')
  assert.ok(agent.content.startsWith(source.replaceAll('${GOAL_SYSTEM_HOME}', root).trimEnd()))
  const project = installed('vscode', path.join(base, 'project'))
  const hooksFile = project.find((t) => t.file.endsWith(path.join('.github', 'hooks', 'goal-system.json')))
  const template = readJson('adapters/vscode-chat/hooks/goal-system.json').hooks
  assert.deepEqual(Object.keys(hooksFile.ops[0].hooks), Object.keys(template))
  for (const host of ['vscode', 'claude']) {
    const all = [...installed(host), ...installed(host, path.join(base, 'project'))].flatMap(opValues)
    const runners = all.filter((c) => c.includes('hook-runner.mjs'))
    const servers = all.filter((c) => c.includes('mcp-server.mjs'))
    assert.ok(runners.length >= 8 && servers.length >= 2, host)
    for (const c of runners) assert.ok(c.includes(abs('adapters/vscode-chat/hook-runner.mjs')), c)
    for (const c of servers) assert.equal(c, abs('adapters/vscode-chat/mcp-server.mjs'))
  }
})

/**
 * Every module that loaded the addon (index.js or a `.node` file of the
 * package) while `args` ran: [{ request, from }] with `from` relative to the
 * package. A preload records each require as Node's loader sees it.
 */
function addonLoads(args, input = '') {
  const log = path.join(base, `loads-${Math.random().toString(36).slice(2)}.jsonl`)
  const preload = path.join(base, 'record-loads.cjs')
  fs.writeFileSync(
    preload,
    `const Module = require('node:module')
const fs = require('node:fs')
const load = Module._load
Module._load = function (request, parent, isMain) {
  if (/(^|[\\\\/])index\\.js$|\\.node$/.test(request))
    fs.appendFileSync(process.env.GOAL_TEST_LOAD_LOG, JSON.stringify({ request, from: parent && parent.filename }) + '\\n')
  return load.apply(this, arguments)
}
`,
  )
  const r = spawnSync(process.execPath, ['--require', preload, ...args], {
    input,
    encoding: 'utf8',
    timeout: 20_000,
    env: {
      ...process.env,
      GOAL_TEST_LOAD_LOG: log,
      GOAL_SYSTEM_EXTENSION_NO_AUTOSTART: '1',
      GOAL_SYSTEM_STATE_ROOT: path.join(base, 'state', 'goal-system'),
    },
  })
  assert.equal(r.status, 0, r.stderr)
  const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []
  return lines.map((l) => JSON.parse(l)).map(({ request, from }) => ({ request, from: path.relative(root, from) }))
}

test('extension.mjs, hook-runner.mjs and mcp-server.mjs each load the native addon themselves', () => {
  const extension = addonLoads(['--input-type=module', '-e', `await import(${JSON.stringify(abs('extension.mjs'))})`])
  assert.deepEqual(extension[0], { request: './index.js', from: 'extension.mjs' })
  const runner = addonLoads([abs('adapters/vscode-chat/hook-runner.mjs'), 'vscode', 'PreToolUse'], '{}')
  assert.equal(runner[0].from, path.join('adapters', 'vscode-chat', 'hook-runner.mjs'))
  assert.match(runner[0].request, /^\.\.\/\.\.\/(index\.js|goal-system\.[\w-]+\.node)$/)
  // The server exits when its stdin closes: by then it has loaded what it serves with.
  const server = addonLoads([abs('adapters/vscode-chat/mcp-server.mjs')])
  assert.deepEqual(server[0], {
    request: '../../index.js',
    from: path.join('adapters', 'vscode-chat', 'mcp-server.mjs'),
  })
})
