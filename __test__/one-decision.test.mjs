// One decision per event: Copilot CLI also runs a repository's
// `.github/hooks/*.json` (VS Code's workspace hooks) and `.claude/settings.json`
// (Claude Code's). Each stop below goes through every entry Copilot CLI would
// run, as the installed files run them (the shell hook, the Node hook runner,
// the native hook), with the payloads and environment Copilot CLI really sends;
// exactly one entry may decide it.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { claudeWritesDown, root, runner, spawnAsHost } from './helpers.mjs'

const nativeHook = path.join(root, 'native', 'goal-hook')
let base
let stateRoot
let copilotHome
before(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'goal-one-decision-'))
  stateRoot = path.join(base, 'state', 'goal-system')
  copilotHome = path.join(base, 'copilot')
})
after(() => fs.rmSync(base, { recursive: true, force: true }))

/** A host's process environment: what Copilot CLI or Claude Code set for hooks. */
function hostEnv(host) {
  const env = { ...process.env, HOME: base, COPILOT_HOME: copilotHome, GOAL_SYSTEM_STATE_ROOT: stateRoot }
  for (const k of ['COPILOT_CLI', 'CLAUDECODE', 'CLAUDE_PROJECT_DIR']) delete env[k]
  if (host === 'copilot-cli')
    Object.assign(env, { COPILOT_CLI: '1', COPILOT_PROJECT_DIR: '/x', CLAUDE_PROJECT_DIR: '/x' })
  if (host === 'claude') Object.assign(env, { CLAUDECODE: '1', CLAUDE_PROJECT_DIR: '/x' })
  return env
}

/** The entries, each run as its hooks file runs it. */
const ENTRIES = {
  'copilot-cli': (event) => ['bash', [path.join(root, 'hooks', 'goal-context.sh'), event]],
  vscode: (event) => [process.execPath, [runner, 'vscode', event]],
  claude: (event) => [process.execPath, [runner, 'claude', event]],
  'vscode (native)': (event) => [nativeHook, ['--host', 'vscode', event]],
  'claude (native)': (event) => [nativeHook, ['--host', 'claude', event]],
}

/** Run an entry as `host` runs its hooks (from the host's process shape). */
function runEntry(entry, event, payload, host) {
  const [cmd, args] = ENTRIES[entry](event)
  const shape = { 'copilot-cli': 'copilot', claude: 'claude' }[host]
  const res = spawnAsHost(shape, [cmd, ...args], { input: JSON.stringify(payload), env: hostEnv(host) })
  assert.equal(res.status, 0, res.stderr)
  return JSON.parse(res.stdout)
}

/** A project folder, with VS Code's workspace hooks file or not. */
function project(name, { vscodeHooks }) {
  const cwd = path.join(base, name)
  fs.mkdirSync(path.join(cwd, '.github', 'hooks'), { recursive: true })
  if (vscodeHooks) fs.writeFileSync(path.join(cwd, '.github', 'hooks', 'goal-system.json'), '{"hooks": {}}')
  return cwd
}

function copilotHooksInstalled(yes) {
  const file = path.join(copilotHome, 'hooks', 'goal-system.json')
  if (yes) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, '{"version": 1, "hooks": {}}')
  } else fs.rmSync(file, { force: true })
}

/** Open a goal through Copilot CLI's own entry, as `/goal X` (the host's autopilot prompt) does. */
function openGoal(session, cwd) {
  const prompt =
    'The user set this explicit autopilot objective with /autopilot:\n\nmake the greeting print twice\n\nWork autonomously toward this objective in clear checkpoints.'
  runEntry(
    'copilot-cli',
    'userPromptSubmitted',
    { sessionId: session, timestamp: Date.now(), cwd, prompt },
    'copilot-cli',
  )
}

const copilotStop = (session, cwd) => ({
  sessionId: session,
  timestamp: Date.now(),
  cwd,
  transcriptPath: path.join(copilotHome, 'session-state', session, 'events.jsonl'),
  stopReason: 'end_turn',
  stop_hook_active: false,
})

const blockedStops = (session) =>
  JSON.parse(fs.readFileSync(path.join(stateRoot, 'by-session', `${session}.json`), 'utf8')).stopGuard.totalBlocked

/** Send one Copilot CLI stop through the given entries; the ones that blocked it. */
function stopThrough(entries, session, cwd) {
  const answers = Object.fromEntries(
    entries.map((e) => [
      e,
      runEntry(e, e === 'copilot-cli' ? 'agentStop' : 'Stop', copilotStop(session, cwd), 'copilot-cli'),
    ]),
  )
  return { answers, deciding: entries.filter((e) => JSON.stringify(answers[e]) !== '{}') }
}

describe('under Copilot CLI, with the project files of all three hosts', () => {
  test('the Copilot CLI hooks decide; the VS Code and Claude Code entries stand down', () => {
    copilotHooksInstalled(true)
    const cwd = project('all-three', { vscodeHooks: true })
    openGoal('cp-all', cwd)
    const { answers, deciding } = stopThrough(Object.keys(ENTRIES), 'cp-all', cwd)
    assert.deepEqual(deciding, ['copilot-cli'])
    assert.equal(answers['copilot-cli'].decision, 'block')
    assert.equal(blockedStops('cp-all'), 1, 'one stop, one blocked stop counted')
  })

  test("without the Copilot CLI hooks, the VS Code entry decides once, in Copilot CLI's answer shape", () => {
    copilotHooksInstalled(false)
    const cwd = project('vscode-claude', { vscodeHooks: true })
    openGoal('cp-vc', cwd)
    const { answers, deciding } = stopThrough(['vscode', 'claude'], 'cp-vc', cwd)
    assert.deepEqual(deciding, ['vscode'])
    assert.equal(answers.vscode.decision, 'block', JSON.stringify(answers.vscode))
    assert.equal(answers.vscode.hookSpecificOutput, undefined)
    assert.equal(blockedStops('cp-vc'), 1)
  })

  test("with only Claude Code's project hooks, the Claude entry decides, in Copilot CLI's answer shape", () => {
    copilotHooksInstalled(false)
    const cwd = project('claude-only', { vscodeHooks: false })
    openGoal('cp-cl', cwd)
    const { answers, deciding } = stopThrough(['claude (native)'], 'cp-cl', cwd)
    assert.deepEqual(deciding, ['claude (native)'])
    assert.equal(answers['claude (native)'].decision, 'block')
    assert.equal(blockedStops('cp-cl'), 1)
  })
})

describe('in their own hosts', () => {
  test("a Claude Code stop is decided by the Claude entry, in Claude Code's shape, even with Copilot CLI hooks installed", () => {
    copilotHooksInstalled(true)
    const cwd = project('claude-own', { vscodeHooks: true })
    const session = 'cl-own'
    const transcript = path.join(base, '.claude', 'projects', 'claude-own', `${session}.jsonl`)
    const prompt = {
      session_id: session,
      transcript_path: transcript,
      prompt_id: 'prompt-1',
      cwd,
      hook_event_name: 'UserPromptSubmit',
      prompt: '/goal make the greeting print twice',
    }
    claudeWritesDown(prompt, runEntry('claude', 'UserPromptSubmit', prompt, 'claude'))
    const stop = {
      session_id: session,
      transcript_path: transcript,
      cwd,
      hook_event_name: 'Stop',
      stop_hook_active: false,
    }
    assert.equal(runEntry('claude', 'Stop', stop, 'claude').decision, 'block')
    assert.equal(blockedStops(session), 1)
  })

  test('the host role the addon reports for each entry', async () => {
    const { addon } = await import('./helpers.mjs')
    const claudePayload = JSON.stringify({ session_id: 's', hook_event_name: 'Stop', cwd: base })
    assert.equal(addon.hostRole('claude', claudePayload), 'claude')
    assert.equal(addon.hostRole('copilot-cli', '{}'), 'copilot-cli')
  })
})
