// Run the real hosts (GitHub Copilot CLI, Claude Code) offline against the scripted model server.
//
// Safety: every host process runs in a fresh network namespace that has only loopback
// (`unshare --net`), inside its own PID namespace (so everything it starts dies with it), with a
// minimal environment (nothing inherited but PATH and locale: no tokens leak in), HOME, TMPDIR and
// XDG/cache folders inside a temporary folder, the hosts' offline switches on, and a hard timeout
// after which the whole process group is killed. The model server is reached through a
// TCP->Unix-socket relay (netns-run.mjs) on the same 127.0.0.1 port inside the namespace.
//
// Binaries come from the hosts cache that install-hosts.mjs fills (pinned versions, one npm
// prefix each; `npm run test:e2e` installs what is missing first), or from $GOAL_E2E_HOSTS_DIR
// (a folder with node_modules/) when set.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { HOST_PACKAGES, hostPrefix, hostVersion } from './install-hosts.mjs'

export const E2E_DIR = path.dirname(fileURLToPath(import.meta.url))
export const REPO_DIR = path.resolve(E2E_DIR, '..')
const NETNS_RUN = path.join(E2E_DIR, 'netns-run.mjs')

/** Fake credentials: clearly not secrets. */
export const DUMMY_API_KEY = 'e2e-dummy-not-a-key'

/** Shared Copilot package cache: the first run unpacks ~235 MB there, later runs reuse it. */
export const COPILOT_PKG_CACHE = process.env.GOAL_E2E_COPILOT_CACHE || path.join(os.tmpdir(), 'e2e-copilot-pkg-cache')

// ---------------------------------------------------------------------------------------------
// Locating the binaries

/**
 * Where `host` is looked for: $GOAL_E2E_HOSTS_DIR when set (and no version is asked for),
 * else the cache prefix of `version` (by default the run's pinned version).
 */
function searchRoots(host, version) {
  const extra = process.env.GOAL_E2E_HOSTS_DIR
  if (extra && !version) return [path.join(extra, 'node_modules'), extra]
  return [path.join(hostPrefix(host, version || hostVersion(host)), 'node_modules')]
}

function isMusl() {
  if (process.platform !== 'linux') return false
  const r = process.report?.getReport?.()
  return !!r && r.header?.glibcVersionRuntime === undefined
}

function readVersion(pkgDir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

function isRealBinary(p) {
  try {
    const st = fs.statSync(p)
    return st.isFile() && st.size > 1_000_000
  } catch {
    return false
  }
}

/**
 * Find a host binary. host: 'copilot' | 'claude'; `version`: one of its pinned versions (default:
 * the run's). Returns { bin, version, pkgDir } or null.
 * The native platform binaries are used directly (no Node wrapper process).
 */
export function resolveHost(host, version = undefined) {
  const arch = process.arch
  const plat = process.platform
  const candidates =
    host === 'copilot'
      ? [...(isMusl() ? [`@github/copilot-linuxmusl-${arch}/copilot`] : []), `@github/copilot-${plat}-${arch}/copilot`]
      : host === 'claude'
        ? [
            `@anthropic-ai/claude-code-${plat}-${arch}${isMusl() ? '-musl' : ''}/claude`,
            '@anthropic-ai/claude-code/bin/claude.exe',
          ]
        : host === 'codex'
          ? [
              `@openai/codex-${plat}-${arch}/vendor/${arch === 'arm64' ? 'aarch64' : 'x86_64'}-unknown-${plat}-musl/bin/codex`,
            ]
          : host === 'gemini'
            ? ['@google/gemini-cli/bundle/gemini.js']
            : []
  for (const root of searchRoots(host, version)) {
    for (const rel of candidates) {
      const bin = path.join(root, rel)
      // Gemini CLI is a Node bundle: its entry script is small.
      if (host === 'gemini' ? fs.existsSync(bin) : isRealBinary(bin)) {
        if (host === 'codex' || host === 'gemini') {
          const pkgDir = path.join(root, HOST_PACKAGES[host].name)
          return { bin, version: readVersion(pkgDir), pkgDir }
        }
        const pkgDir = path.dirname(bin).endsWith(`${path.sep}bin`)
          ? path.dirname(path.dirname(bin))
          : path.dirname(bin)
        return { bin, version: readVersion(pkgDir), pkgDir }
      }
    }
  }
  return null
}

/** Why a host cannot run here (for test skips), or null when it can. */
export function hostUnavailableReason(host) {
  if (process.platform !== 'linux') return 'e2e hosts run only on Linux (network namespaces)'
  const onPath = (cmd) =>
    (process.env.PATH || '')
      .split(':')
      .concat(['/usr/sbin', '/sbin', '/usr/bin', '/bin'])
      .some((d) => {
        try {
          fs.accessSync(path.join(d, cmd), fs.constants.X_OK)
          return true
        } catch {
          return false
        }
      })
  if (!onPath('unshare')) return 'unshare (util-linux) not found: needed for the loopback-only namespace'
  if (!onPath('ip')) return 'ip (iproute2) not found: needed to bring loopback up in the namespace'
  if (!resolveHost(host)) {
    return `${host} ${HOST_PACKAGES[host] ? hostVersion(host) : ''} not installed: run node e2e/install-hosts.mjs (npm run test:e2e does), or set GOAL_E2E_HOSTS_DIR to a folder with node_modules/ holding it`
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// Temp folders

/** A fresh temp folder /tmp/e2e-<prefix>-XXXX (or under $GOAL_E2E_TMP). */
export function makeTempDir(prefix = 'run') {
  const base = process.env.GOAL_E2E_TMP || os.tmpdir()
  fs.mkdirSync(base, { recursive: true })
  return fs.mkdtempSync(path.join(base, `e2e-${prefix}-`))
}

/** Create HOME with its tmp/cache/config folders; returns the folder paths. */
export function prepareHome(home) {
  const dirs = {
    home,
    tmp: path.join(home, 'tmp'),
    cache: path.join(home, '.cache'),
    config: path.join(home, '.config'),
    data: path.join(home, '.local', 'share'),
    state: path.join(home, '.local', 'state'),
  }
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true })
  return dirs
}

function baseEnv(dirs) {
  return {
    PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    HOME: dirs.home,
    USER: 'e2e',
    TMPDIR: dirs.tmp,
    TMP: dirs.tmp,
    TEMP: dirs.tmp,
    XDG_CACHE_HOME: dirs.cache,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_STATE_HOME: dirs.state,
    npm_config_cache: path.join(dirs.cache, 'npm'),
    // A tree's watcher that a hook starts leaves 5 s after its last question
    // (15 minutes by default), so no run leaves one behind for long.
    GOAL_SYSTEM_WATCH_IDLE_MS: '5000',
    // No proxies: everything goes to 127.0.0.1.
    NO_PROXY: '*',
    no_proxy: '*',
  }
}

// ---------------------------------------------------------------------------------------------
// Running a command inside the namespace

function nsPrefix() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  return [
    'unshare',
    ...(isRoot ? [] : ['--map-root-user']),
    '--net',
    '--pid',
    '--fork',
    '--kill-child=SIGTERM',
    '--mount-proc',
  ]
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * Spawn `bin args` in a loopback-only namespace with the relay to `server` (a startModelServer
 * result, or null). Resolves { code, signal, stdout, stderr, timedOut, stoppedBy, durationMs }.
 * poll: optional async () => boolean, called every pollMs; true ends the run (stoppedBy 'stopWhen').
 */
export async function runIsolated({
  bin,
  args = [],
  cwd,
  env,
  server,
  timeoutMs = 60_000,
  poll,
  pollMs = 250,
  graceMs = 3000,
}) {
  if (process.platform !== 'linux') throw new Error('runIsolated needs Linux')
  const relay = server && server.socketPath ? ['--relay', `${server.port}=${server.socketPath}`] : []
  const prefix = nsPrefix()
  const argv = [...prefix.slice(1), process.execPath, NETNS_RUN, ...relay, '--', bin, ...args]
  const started = Date.now()
  const child = spawn(prefix[0], argv, {
    cwd,
    env,
    detached: true, // own process group: we kill the group
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const pgid = child.pid
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d
  })
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d
  })

  let stoppedBy = null
  const exited = new Promise((resolve) => {
    child.on('error', (err) => {
      stderr += `\n[e2e] spawn error: ${err.message}`
      resolve({ code: null, signal: null })
    })
    child.on('exit', (code, signal) => resolve({ code, signal }))
  })

  async function stop(reason) {
    if (stoppedBy) return
    stoppedBy = reason
    try {
      process.kill(-pgid, 'SIGTERM')
    } catch {
      /* gone */
    }
    const until = Date.now() + graceMs
    while (groupAlive(pgid) && Date.now() < until) await sleep(50)
    if (groupAlive(pgid)) {
      try {
        process.kill(-pgid, 'SIGKILL')
      } catch {
        /* gone */
      }
    }
  }

  const timer = setTimeout(() => {
    stop('timeout')
  }, timeoutMs)
  let polling = true
  const poller = (async () => {
    if (!poll) return
    while (polling) {
      await sleep(pollMs)
      if (!polling) break
      let hit = false
      try {
        hit = await poll()
      } catch {
        hit = false
      }
      if (hit && polling) {
        await stop('stopWhen')
        break
      }
    }
  })()

  const { code, signal } = await exited
  polling = false
  clearTimeout(timer)
  // Make sure nothing of the run survives (the PID namespace dies with its PID 1 anyway).
  const until = Date.now() + graceMs
  while (groupAlive(pgid) && Date.now() < until) await sleep(50)
  if (groupAlive(pgid)) {
    try {
      process.kill(-pgid, 'SIGKILL')
    } catch {
      /* gone */
    }
  }
  await poller
  // Let the pipes drain.
  await Promise.race([
    Promise.all([new Promise((r) => child.stdout.once('close', r)), new Promise((r) => child.stderr.once('close', r))]),
    sleep(1000),
  ])
  return {
    code,
    signal,
    stdout,
    stderr,
    timedOut: stoppedBy === 'timeout',
    stoppedBy: stoppedBy || 'exit',
    durationMs: Date.now() - started,
  }
}

// ---------------------------------------------------------------------------------------------
// Copilot CLI

/**
 * Run `copilot -p PROMPT` offline against `server`.
 * @param {object} o
 * @param {string} o.cwd           project folder (created if missing)
 * @param {string} [o.home]        HOME (created if missing; default: a fresh /tmp/e2e-copilot-home-* folder,
 *        returned as `home`, which the caller removes)
 * @param {string} o.prompt
 * @param {object} o.server        startModelServer() result
 * @param {object} [o.env]         extra/overriding environment variables
 * @param {number} [o.timeoutMs=60000]
 * @param {'task_complete'|Function} [o.stopWhen]  end the run once events.jsonl has a
 *        session.task_complete event, or when fn({ events, sessionId, sessionDir, elapsedMs })
 *        returns true (autopilot `/goal` runs never exit by themselves)
 * @param {string[]} [o.args]      extra CLI arguments
 * @param {boolean} [o.trustFolder=true]  pass --trust-folder (loads .github/hooks etc.)
 * @param {boolean} [o.allowAllTools=true]  pass --allow-all-tools; false leaves each tool to the
 *        host's permission rules (give `--allow-tool NAME` in `args`)
 * @param {string} [o.sessionId]   pass --session-id (Copilot refuses it together with
 *        --trust-folder, so it implies trustFolder: false); by default the session id is found
 *        as the new folder under ~/.copilot/session-state
 */
export async function runCopilot({
  cwd,
  home,
  prompt,
  server,
  env = {},
  timeoutMs = 60_000,
  stopWhen,
  args = [],
  trustFolder,
  sessionId,
  model = 'e2e-model',
  allowAllTools = true,
}) {
  if (trustFolder === undefined) trustFolder = !sessionId
  if (trustFolder && sessionId) throw new Error('runCopilot: copilot refuses --session-id with --trust-folder')
  const host = resolveHost('copilot')
  if (!host) throw new Error(hostUnavailableReason('copilot'))
  if (!server) throw new Error('runCopilot: server (startModelServer result) is required')
  home = home || makeTempDir('copilot-home')
  fs.mkdirSync(cwd, { recursive: true })
  const dirs = prepareHome(home)
  fs.mkdirSync(COPILOT_PKG_CACHE, { recursive: true })
  const fullEnv = {
    ...baseEnv(dirs),
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PKG_CACHE_HOME: COPILOT_PKG_CACHE,
    COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
    COPILOT_PROVIDER_API_KEY: DUMMY_API_KEY,
    COPILOT_MODEL: model,
    USE_TGREP: 'false',
    ...env,
  }
  const argv = [
    '-p',
    prompt,
    ...(allowAllTools ? ['--allow-all-tools'] : []),
    '--no-auto-update',
    ...(sessionId ? ['--session-id', sessionId] : []),
    ...(trustFolder ? ['--trust-folder'] : []),
    ...args,
  ]
  const stateRoot = path.join(home, '.copilot', 'session-state')
  const before = new Set(listDirs(stateRoot))
  // The run's session: the given id, else the (first) session folder that appeared during the run.
  const findSession = () => {
    if (sessionId) return sessionId
    const fresh = listDirs(stateRoot).filter(
      (d) => !before.has(d) && fs.existsSync(path.join(stateRoot, d, 'events.jsonl')),
    )
    if (!fresh.length) return null
    fresh.sort((a, b) => statMtime(path.join(stateRoot, a)) - statMtime(path.join(stateRoot, b)))
    return fresh[0]
  }
  let poll
  if (stopWhen) {
    const started = Date.now()
    const pred = stopWhen === 'task_complete' ? taskCompleteSettled() : stopWhen
    poll = async () => {
      const id = findSession()
      const dir = id ? path.join(stateRoot, id) : null
      const events = dir ? readEventsFile(path.join(dir, 'events.jsonl')) : []
      return pred({ events, sessionId: id, sessionDir: dir, elapsedMs: Date.now() - started })
    }
  }
  const res = await runIsolated({ bin: host.bin, args: argv, cwd, env: fullEnv, server, timeoutMs, poll })
  const id = findSession()
  const sessionDir = id ? path.join(stateRoot, id) : null
  return {
    ...res,
    host: 'copilot',
    version: host.version,
    home,
    sessionId: id,
    sessionDir,
    events: () => (sessionDir ? readEventsFile(path.join(sessionDir, 'events.jsonl')) : []),
  }
}

/**
 * The default `stopWhen: 'task_complete'` predicate. `session.task_complete` is written before
 * the agentStop/sessionEnd hooks run (and an agentStop block may even start another turn), so
 * stopping at once would cut them off. Settled means: a task_complete was seen, every hook.start
 * after it has its hook.end, and events.jsonl has not grown for `quietMs`; or a session.shutdown
 * followed it; or `maxSettleMs` passed since it was seen. (After task_complete the host switches
 * back to interactive mode and waits for input for ever: it never exits by itself.)
 */
export function taskCompleteSettled({ quietMs = 750, maxSettleMs = 10_000 } = {}) {
  let seenAt = null
  let lastLen = -1
  let lastChange = 0
  return ({ events }) => {
    if (events.length !== lastLen) {
      lastLen = events.length
      lastChange = Date.now()
    }
    const i = events.findIndex((e) => e.type === 'session.task_complete')
    if (i < 0) return false
    if (seenAt === null) seenAt = Date.now()
    const after = events.slice(i + 1)
    if (after.some((e) => e.type === 'session.shutdown')) return true
    if (Date.now() - seenAt >= maxSettleMs) return true
    const open = new Set()
    for (const e of after) {
      if (e.type === 'hook.start') open.add(e.data?.hookInvocationId)
      if (e.type === 'hook.end') open.delete(e.data?.hookInvocationId)
    }
    return open.size === 0 && Date.now() - lastChange >= quietMs
  }
}

/** Copilot's persisted autopilot objective (`/goal X` = `/autopilot X`), or null. */
export function readAutopilotObjective(home, sessionId) {
  try {
    return JSON.parse(
      fs.readFileSync(path.join(home, '.copilot', 'session-state', sessionId, 'autopilot-objective.json'), 'utf8'),
    )
  } catch {
    return null
  }
}

function listDirs(dir) {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
  } catch {
    return []
  }
}

function statMtime(p) {
  try {
    return fs.statSync(p).mtimeMs
  } catch {
    return 0
  }
}

/** Parse a JSONL file, skipping partial/bad lines. Missing file -> []. */
export function readEventsFile(file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return []
  }
  const out = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      out.push(JSON.parse(line))
    } catch {
      /* partial last line */
    }
  }
  return out
}

/** Copilot session events: for one session id, or all sessions under HOME (flattened). */
export function readCopilotEvents(home, sessionId) {
  const root = path.join(home, '.copilot', 'session-state')
  const ids = sessionId
    ? [sessionId]
    : (() => {
        try {
          return fs.readdirSync(root)
        } catch {
          return []
        }
      })()
  return ids.flatMap((id) => readEventsFile(path.join(root, id, 'events.jsonl')))
}

/** hook.start / hook.end events of a Copilot session. */
export function copilotHookEvents(home, sessionId) {
  return readCopilotEvents(home, sessionId).filter((e) => e.type === 'hook.start' || e.type === 'hook.end')
}

// ---------------------------------------------------------------------------------------------
// Claude Code

/**
 * Run `claude -p PROMPT` offline against `server`.
 * Default arguments: --output-format json --allowedTools Bash (replace them with defaultArgs).
 * @param {object} o  same as runCopilot, plus args (appended), defaultArgs
 */
export async function runClaude({
  cwd,
  home,
  prompt,
  server,
  env = {},
  timeoutMs = 60_000,
  args = [],
  defaultArgs = ['--output-format', 'json', '--allowedTools', 'Bash'],
}) {
  const host = resolveHost('claude')
  if (!host) throw new Error(hostUnavailableReason('claude'))
  if (!server) throw new Error('runClaude: server (startModelServer result) is required')
  home = home || makeTempDir('claude-home')
  fs.mkdirSync(cwd, { recursive: true })
  const dirs = prepareHome(home)
  const fullEnv = {
    ...baseEnv(dirs),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: DUMMY_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_TMPDIR: dirs.tmp,
    ...env,
  }
  const argv = ['-p', prompt, ...defaultArgs, ...args]
  const res = await runIsolated({ bin: host.bin, args: argv, cwd, env: fullEnv, server, timeoutMs })
  let json = null
  try {
    json = JSON.parse(res.stdout.trim().split('\n').pop())
  } catch {
    /* not json */
  }
  return { ...res, host: 'claude', version: host.version, home, json }
}

// ---------------------------------------------------------------------------------------------
// OpenAI Codex CLI

/**
 * `$HOME/.codex/config.toml` with the scripted model server as Codex's model provider (no key, no
 * sign-in), keeping what an install put there (top-level keys must come before any table: the
 * provider goes first). `trust` also marks `trust` (a project folder) trusted, so the TUI asks
 * nothing at start. Returns CODEX_HOME.
 */
export function writeCodexProvider(home, server, { trust } = {}) {
  const codexHome = path.join(home, '.codex')
  fs.mkdirSync(codexHome, { recursive: true })
  const config = path.join(codexHome, 'config.toml')
  const installed = fs.existsSync(config) ? fs.readFileSync(config, 'utf8') : ''
  if (!installed.includes('[model_providers.e2e]')) {
    const provider = [
      'model = "e2e-model"',
      'model_provider = "e2e"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      '',
      '[model_providers.e2e]',
      'name = "e2e"',
      `base_url = "${server.url.replace(/\/$/, '')}/v1"`,
      'wire_api = "responses"',
      '',
      ...(trust ? [`[projects.${JSON.stringify(trust)}]`, 'trust_level = "trusted"', ''] : []),
    ].join('\n')
    fs.writeFileSync(config, `${provider}\n${installed}`)
  }
  return codexHome
}

/**
 * Run `codex exec PROMPT` offline against `server` (the Responses API on loopback), hooks trusted
 * for the run (`--dangerously-bypass-hook-trust`: a user trusts them once in /hooks). Writes
 * `$CODEX_HOME/config.toml`'s model provider first, keeping what the install put there.
 */
export async function runCodex({ cwd, home, prompt, server, env = {}, timeoutMs = 60_000, args = [] }) {
  const host = resolveHost('codex')
  if (!host) throw new Error(hostUnavailableReason('codex'))
  fs.mkdirSync(cwd, { recursive: true })
  const dirs = prepareHome(home)
  const codexHome = writeCodexProvider(home, server)
  const fullEnv = { ...baseEnv(dirs), CODEX_HOME: codexHome, ...env }
  const argv = ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', ...args, prompt]
  const res = await runIsolated({ bin: host.bin, args: argv, cwd, env: fullEnv, server, timeoutMs })
  return { ...res, host: 'codex', version: host.version, home }
}

/** Codex's rollouts under HOME, newest last, each parsed. */
export function codexRollouts(home) {
  const root = path.join(home, '.codex', 'sessions')
  const files = []
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (/^rollout-.*\.jsonl$/.test(e.name)) files.push(p)
    }
  }
  try {
    walk(root)
  } catch {
    return []
  }
  return files.sort().map((file) => ({ file, lines: readEventsFile(file) }))
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI

/**
 * The settings an offline Gemini CLI run needs, merged into `~/.gemini/settings.json` (what an
 * install put there is kept): API-key auth, no folder-trust prompt, no usage statistics.
 */
export function geminiOfflineSettings(home) {
  const settingsFile = path.join(home, '.gemini', 'settings.json')
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true })
  let settings = {}
  try {
    settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'))
  } catch {
    /* none yet */
  }
  settings.security = {
    ...settings.security,
    auth: { selectedType: 'gemini-api-key' },
    folderTrust: { enabled: false },
  }
  settings.privacy = { usageStatisticsEnabled: false }
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2))
}

/**
 * Run `gemini --yolo -p PROMPT` offline against `server` (the Gemini API on loopback), with the
 * offline settings (`geminiOfflineSettings`).
 */
export async function runGemini({ cwd, home, prompt, server, env = {}, timeoutMs = 60_000, args = [] }) {
  const host = resolveHost('gemini')
  if (!host) throw new Error(hostUnavailableReason('gemini'))
  fs.mkdirSync(cwd, { recursive: true })
  const dirs = prepareHome(home)
  geminiOfflineSettings(home)
  const fullEnv = {
    ...baseEnv(dirs),
    GEMINI_API_KEY: DUMMY_API_KEY,
    GOOGLE_GEMINI_BASE_URL: server.url.replace(/\/$/, ''),
    GEMINI_CLI_NO_RELAUNCH: 'true',
    ...env,
  }
  const argv = [host.bin, '--yolo', '-m', 'gemini-e2e', ...args, '-p', prompt]
  const res = await runIsolated({ bin: process.execPath, args: argv, cwd, env: fullEnv, server, timeoutMs })
  return { ...res, host: 'gemini', version: host.version, home }
}

/**
 * `gemini <args>` (e.g. `extensions install DIR --consent`) in the namespace with the run's HOME
 * and the offline settings; returns the runIsolated result.
 */
export async function geminiCommand(home, args, { cwd = home, env = {} } = {}) {
  const host = resolveHost('gemini')
  if (!host) throw new Error(hostUnavailableReason('gemini'))
  const dirs = prepareHome(home)
  geminiOfflineSettings(home)
  return runIsolated({
    bin: process.execPath,
    args: [host.bin, ...args],
    cwd,
    env: { ...baseEnv(dirs), GEMINI_CLI_NO_RELAUNCH: 'true', ...env },
    server: null,
    timeoutMs: 60_000,
  })
}
