// Shared helpers of the Goal System end-to-end suites (copilot.test.mjs, claude.test.mjs):
// installing the product into a temp HOME, reading the goal state it persisted, and building the
// scripted model's tool calls with the real tool names each host offers.
//
// Nothing here decides a test: the suites assert on what the host did (the model server's request
// log, the host's exit code and output, the state files).

import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import {
  REPO_DIR,
  COPILOT_PKG_CACHE,
  makeTempDir,
  hostUnavailableReason,
  prepareHome,
  resolveHost,
  runIsolated,
} from './hosts.mjs'
import { startModelServer, messagesText, toolResults, userTexts, toolNames } from './model-server.mjs'

export const KEEP = !!process.env.GOAL_E2E_KEEP // keep temp folders for inspection
export const INSTALLER = path.join(REPO_DIR, 'bin', 'goal-system.mjs')

/** The objective used by the scenarios (issue 8 names it). */
export const OBJECTIVE = 'make the greeting script print hello twice'

/** The four goal tools by bare name. */
export const GOAL_TOOLS = ['goal_system_open', 'goal_system_status', 'goal_system_update', 'goal_system_close']
/** Claude Code's names for them (project .mcp.json server "goalSystem"). */
export const CLAUDE_GOAL_TOOL = (bare) => `mcp__goalSystem__${bare}`

// ---------------------------------------------------------------------------------------------
// Test plumbing

/** Skip reason for a host (GOAL_E2E_REQUIRE=1 turns a skip into a failure). */
export function skipReason(host) {
  const r = hostUnavailableReason(host)
  if (r && process.env.GOAL_E2E_REQUIRE) throw new Error(r)
  return r || false
}

/**
 * A fresh temp root with home/ and proj/, plus a model server running `script`. The returned
 * `cleanup` closes the server and removes the folder (unless GOAL_E2E_KEEP).
 */
export async function setupRun(name, script, serverOpts) {
  const root = makeTempDir(name)
  const home = path.join(root, 'home')
  const cwd = path.join(root, 'proj')
  fs.mkdirSync(home, { recursive: true })
  fs.mkdirSync(cwd, { recursive: true })
  const server = await startModelServer(script, serverOpts)
  const cleanup = async () => {
    await server.close()
    if (!KEEP) fs.rmSync(root, { recursive: true, force: true })
  }
  return { root, home, cwd, server, cleanup }
}

/** Last part of a host run's output, for assertion messages. */
export function explain(r, server) {
  const reqs = server ? server.modelRequests() : []
  const tail = reqs
    .slice(-3)
    .map((q) => `#${q.index} reply=${JSON.stringify(q.reply).slice(0, 300)}`)
    .join('\n')
  return (
    `\nexit ${r.code} signal ${r.signal} stoppedBy ${r.stoppedBy} ${r.durationMs} ms` +
    `\nstdout:\n${(r.stdout || '').slice(-1500)}\nstderr:\n${(r.stderr || '').slice(-1500)}` +
    `\nmodel requests: ${reqs.length}\n${tail}`
  )
}

// ---------------------------------------------------------------------------------------------
// Installing the product

/** A greeting script for the scenarios: prints hello once (the goal is to make it print twice). */
export function writeGreetingProject(cwd) {
  fs.writeFileSync(path.join(cwd, 'greet.sh'), '#!/bin/sh\necho hello\n', { mode: 0o755 })
  // The project's test: the gate needs a passing verification after the last change, and
  // running the script alone is not one (it could do anything).
  fs.writeFileSync(
    path.join(cwd, 'test.sh'),
    [
      '#!/bin/sh',
      'if [ "$(sh greet.sh)" = "$(printf \'hello\\nhello\')" ]; then echo "ok 1 - greet.sh prints hello twice"',
      'else echo "not ok 1 - greet.sh prints hello twice"; exit 1; fi',
      '',
    ].join('\n'),
    { mode: 0o755 },
  )
}

/** Run the script, then its test: what an honest agent does after the fix. */
export const RUN_AND_TEST = 'sh greet.sh && sh test.sh'

/** What a Copilot CLI install must leave in HOME (checked after either install method). */
export function copilotInstallFiles(home) {
  return {
    hooks: path.join(home, '.copilot', 'hooks', 'goal-system.json'),
    extension: path.join(home, '.copilot', 'extensions', 'goal-system', 'extension.mjs'),
    settings: path.join(home, '.copilot', 'settings.json'),
  }
}

/** What a Claude Code install must leave in the project and HOME. */
export function claudeInstallFiles(home, project) {
  return {
    settings: path.join(project, '.claude', 'settings.json'),
    mcp: path.join(project, '.mcp.json'),
    userSettings: path.join(home, '.claude', 'settings.json'),
  }
}

/** Run the real installer with HOME=home. Returns { ok, code, stdout, stderr }. */
export function runInstaller(home, args) {
  const r = spawnSync(process.execPath, [INSTALLER, 'install', ...args], {
    cwd: REPO_DIR,
    env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  })
  return {
    ok: r.status === 0,
    code: r.status,
    stdout: r.stdout || '',
    stderr: (r.stderr || '') + (r.error ? String(r.error) : ''),
  }
}

function installLooksDone(files) {
  return Object.values(files).every((p) => fs.existsSync(p))
}

/**
 * Install the goal system for `host` ('copilot' | 'claude') into `home` (and `project` for
 * Claude) with the product's own installer, as a user would; a failing or incomplete install
 * fails the test. Returns { method, note }.
 */
export function installGoalSystem(host, { home, project }) {
  const args = host === 'copilot' ? ['--copilot-cli'] : ['--claude', '--project', project]
  const files = host === 'copilot' ? copilotInstallFiles(home) : claudeInstallFiles(home, project)
  const r = runInstaller(home, args)
  if (!r.ok || !installLooksDone(files)) {
    throw new Error(
      `goal-system install ${args.join(' ')} ${r.ok ? 'left files missing' : `exited ${r.code}`}: ${(r.stderr || r.stdout).trim()}`,
    )
  }
  return { method: 'installer', note: '' }
}

// ---------------------------------------------------------------------------------------------
// Installing the product as a host plugin

/** A bin folder holding `goal-system` -> bin/goal-system.mjs (what npm install -g leaves). */
export function goalSystemOnPath(root) {
  const bin = path.join(root, 'bin')
  fs.mkdirSync(bin, { recursive: true })
  fs.symlinkSync(path.join(REPO_DIR, 'bin', 'goal-system.mjs'), path.join(bin, 'goal-system'))
  return `${bin}:${process.env.PATH || '/usr/local/bin:/usr/bin:/bin'}`
}

/**
 * Run `<host> plugin ...` in the namespace with the run's HOME (the host's binary of `version`,
 * default the run's); returns the runIsolated result.
 */
export async function hostPluginCommand(host, home, args, env = {}, version = undefined) {
  const dirs = prepareHome(home)
  return runIsolated({
    bin: resolveHost(host, version).bin,
    args,
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      TMPDIR: dirs.tmp,
      XDG_CACHE_HOME: dirs.cache,
      XDG_CONFIG_HOME: dirs.config,
      XDG_DATA_HOME: dirs.data,
      XDG_STATE_HOME: dirs.state,
      LANG: 'C.UTF-8',
      NO_COLOR: '1',
      TERM: 'dumb',
      ...env,
    },
    server: null,
    timeoutMs: 60_000,
  })
}

/**
 * The documented plugin install: marketplace add <repo>, then install goal-system@goal-system
 * (and list), with the host's binary of `version` (default the run's). A failing step throws.
 */
export async function installPlugin(host, home, version = undefined) {
  const env =
    host === 'copilot'
      ? { COPILOT_OFFLINE: 'true', COPILOT_AUTO_UPDATE: 'false', COPILOT_PKG_CACHE_HOME: COPILOT_PKG_CACHE }
      : host === 'codex'
        ? { CODEX_HOME: path.join(home, '.codex') }
        : { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' }
  if (host === 'codex') fs.mkdirSync(env.CODEX_HOME, { recursive: true })
  const steps = []
  // Codex CLI's verb is `plugin add`.
  for (const args of [
    ['plugin', 'marketplace', 'add', REPO_DIR],
    ['plugin', host === 'codex' ? 'add' : 'install', 'goal-system@goal-system'],
    ['plugin', 'list'],
  ]) {
    const r = await hostPluginCommand(host, home, args, env, version)
    steps.push({ args, ...r })
    if (r.code !== 0) throw new Error(`${host} ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`)
  }
  return steps
}

// ---------------------------------------------------------------------------------------------
// Goal state (what the product persisted)

export function goalStateRoot(home) {
  return path.join(home, '.copilot', 'session-state', 'goal-system')
}

/** The goal record of a session (by-session/<id>.json), or null. */
export function readGoal(home, sessionId) {
  if (!sessionId) return null
  try {
    return JSON.parse(fs.readFileSync(path.join(goalStateRoot(home), 'by-session', `${sessionId}.json`), 'utf8'))
  } catch {
    return null
  }
}

/** Every goal record under by-session/ ([] when none). */
export function listGoals(home) {
  const dir = path.join(goalStateRoot(home), 'by-session')
  let names = []
  try {
    names = fs.readdirSync(dir).filter((f) => f.endsWith('.json'))
  } catch {
    return []
  }
  return names.map((f) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))
    } catch {
      return { file: f, corrupt: true }
    }
  })
}

/** audit.log lines (text), [] when missing. */
export function readAudit(home) {
  try {
    return fs
      .readFileSync(path.join(goalStateRoot(home), 'audit.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
  } catch {
    return []
  }
}

// ---------------------------------------------------------------------------------------------
// Reading requests

export { messagesText, toolResults, userTexts, toolNames }

/**
 * Every tool call the scripted model made, in order: [{ req (the request it answered), id, name,
 * args }]. pred(name, args) filters.
 */
export function modelCalls(server, pred = () => true) {
  const out = []
  for (const req of server.modelRequests()) {
    for (const c of req.reply?.toolCalls || [])
      if (pred(c.name, c.args)) out.push({ req, id: c.id, name: c.name, args: c.args })
  }
  return out
}

/**
 * What the host sent back to the model for one tool call: the first later model request whose
 * history holds that call's result. Returns { text, isError, req } or null (never answered).
 */
export function resultOf(server, call) {
  if (!call) return null
  const alt = `toolu_${String(call.id).replace(/^call_/, '')}`
  for (const req of server.modelRequests()) {
    if (req.index <= call.req.index) continue
    const hit = toolResults(req.body).find((x) => x.id === call.id || x.id === alt)
    if (hit) return { text: hit.text, isError: hit.isError, req }
  }
  return null
}

/** The model request that came right after `req` (null if none). */
export function nextRequest(server, req) {
  return server.modelRequests().find((q) => q.index > req.index) || null
}

/** The `sessionId "<id>", cwd "<cwd>"` the goal-system hook context shows, from a request. */
export function callerFromContext(body) {
  const text = messagesText(body)
  const m = text.match(/sessionId\s+("(?:[^"\\]|\\.)*"),\s*cwd\s+("(?:[^"\\]|\\.)*")/)
  if (!m) return null
  try {
    return { sessionId: JSON.parse(m[1]), cwd: JSON.parse(m[2]) }
  } catch {
    return null
  }
}

/** Claude Code puts its session id in metadata.user_id (a JSON string). */
export function claudeSessionFromMetadata(body) {
  try {
    return JSON.parse(body.metadata.user_id).session_id || null
  } catch {
    return null
  }
}

/** Claude Code's built-in /goal asks the model to judge its stop condition (no tools). */
export function isClaudeGoalEvaluator(entry) {
  const sys = entry?.body?.system
  const text = Array.isArray(sys) ? sys.map((s) => s.text || '').join('\n') : String(sys || '')
  return /evaluating a stop-condition hook/.test(text)
}

// ---------------------------------------------------------------------------------------------
// Full evidence for an honest close

/** Update fields that meet the completion gate for OBJECTIVE (after real bash calls). */
export function honestEvidence() {
  return {
    requirements: ['R1: greet.sh prints hello twice'],
    inspectionEvidence: ['cat greet.sh: it ran echo hello once'],
    doneSoFar: ['greet.sh now runs echo hello twice'],
    validationProof: ['sh greet.sh prints two lines: hello, hello'],
    verificationResults: ['sh test.sh: ok 1 - greet.sh prints hello twice'],
    requirementCoverage: ['R1: sh greet.sh printed hello twice (verified with wc -l = 2)'],
    completionAudit: ['R1 checked: greet.sh output is hello twice'],
    remaining: [],
    blockers: [],
  }
}

/**
 * A compact transcript of the model requests (for GOAL_E2E_DEBUG=1): per request the last
 * message (or the tool results) and the scripted reply.
 */
export function transcript(server, width = 400) {
  const short = (s) => String(s).replace(/\s+/g, ' ').slice(0, width)
  return server
    .modelRequests()
    .map((q) => {
      const msgs = q.body?.messages || []
      const last = msgs.at(-1)
      const results = toolResults({ messages: [last].filter(Boolean) })
      const seen = results.length
        ? results.map((x) => `result${x.isError ? '(error)' : ''}: ${short(x.text)}`).join(' | ')
        : `${last?.role}: ${short(typeof last?.content === 'string' ? last.content : messagesText({ messages: [last] }))}`
      const reply = q.reply?.toolCalls?.length
        ? q.reply.toolCalls.map((c) => `${c.name}(${short(JSON.stringify(c.args)).slice(0, 120)})`).join(', ')
        : `text: ${short(q.reply?.text ?? '')}`
      return `#${q.index} <- ${seen}\n    -> ${reply}`
    })
    .join('\n')
}

/**
 * Claude Code's own record of the sessions under `home`, one short line per entry (type, prompt
 * id, origin, the start of its text), for a failure's message: which entries came in what order.
 */
export function claudeRecordBrief(home, width = 70) {
  const root = path.join(home, '.claude', 'projects')
  if (!fs.existsSync(root)) return ''
  const files = fs
    .readdirSync(root, { recursive: true })
    .filter((f) => String(f).endsWith('.jsonl'))
    .map((f) => path.join(root, String(f)))
  return files
    .map((file) => {
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
      const brief = lines.map((line, i) => {
        let e
        try {
          e = JSON.parse(line)
        } catch {
          return `${i} (not JSON, ${line.length} bytes)`
        }
        const content = e.message?.content ?? e.content ?? e.attachment?.type ?? ''
        const text = Array.isArray(content) ? content.map((b) => b.text ?? b.type).join(' ') : String(content)
        const kind = [e.type, e.subtype, e.isMeta && 'meta', e.origin?.kind].filter(Boolean).join('/')
        return `${i} ${kind} ${e.promptId?.slice(0, 8) ?? '-'} ${JSON.stringify(text.slice(0, width))}`
      })
      return `\n--- ${path.basename(file)} ---\n${brief.join('\n')}`
    })
    .join('')
}

/** GOAL_E2E_DEBUG=<folder>: write the run's transcript to <folder>/<name>.txt; returns the path. */
export function debugDump(name, server, extra = '') {
  const dir = process.env.GOAL_E2E_DEBUG
  if (!dir) return null
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${name}.txt`)
  fs.writeFileSync(file, `${transcript(server, 1200)}\n${extra}`)
  return file
}

// ---------------------------------------------------------------------------------------------
// Claude Code's built-in /goal

/** Does greet.sh in `cwd` print hello twice (the objective really met)? */
export function greetingFixed(cwd) {
  const r = spawnSync('sh', ['greet.sh'], { cwd, encoding: 'utf8', timeout: 10_000 })
  return r.status === 0 && r.stdout === 'hello\nhello\n'
}

/**
 * Model-server options for Claude Code runs. Claude Code 2.1.197 has a built-in `/goal <condition>`
 * that adds a session Stop hook of type "prompt": at every stop the host asks the model (no tools,
 * system prompt "You are evaluating a stop-condition hook") whether the condition holds. Those judge
 * requests do not consume script entries; they get an HONEST answer: ok only when the objective
 * is really met (greet.sh prints hello twice in `cwd`), as a real model judging the transcript
 * would (it says "insufficient evidence" until the work is shown). `cwd`: a folder or a function
 * returning it.
 */
export function claudeServerOpts(cwd, extra = {}) {
  return {
    consume: (e) => !isClaudeGoalEvaluator(e),
    sideReply: (e) => {
      if (!isClaudeGoalEvaluator(e)) return null
      const ok = greetingFixed(typeof cwd === 'function' ? cwd() : cwd)
      return {
        text: JSON.stringify(
          ok
            ? { ok: true, reason: 'sh greet.sh prints hello twice' }
            : { ok: false, reason: 'insufficient evidence in transcript' },
        ),
      }
    },
    ...extra,
  }
}
