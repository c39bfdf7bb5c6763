// Drive the hosts' INTERACTIVE TUIs (Claude Code, GitHub Copilot CLI, Gemini CLI, OpenAI Codex CLI) the way a person
// does, offline.
//
// The `-p` runs of hosts.mjs do not show what a user sees or what the host does with a line typed at
// its prompt (built-in slash commands, skills, interrupts). This driver runs the host in a tmux pane
// inside the same loopback-only network + PID namespace as hosts.mjs (netns-run.mjs, the scripted
// model server's Unix-socket relay), types into it in small chunks with Enter on its own, presses
// Esc, waits until the host is idle and captures the screen.
//
//   const tui = await startTui({ host: 'claude', version: '2.1.332', root, cwd, home, server })
//   await tui.type('say hello')
//   await tui.waitIdle()
//   tui.screen()          // what is on the screen now
//   await tui.stop()      // kills the namespace's PID 1: nothing survives
//
// How: `unshare ... node netns-run.mjs --relay PORT=SOCK -- tmux -S <sock> -D` keeps a tmux server
// in the foreground as the namespace's child of PID 1; the session is then created from outside
// through the socket (a path socket crosses network namespaces), and the pane runs
// `env -i <host env> <host binary> <args>`, so the host sees a real terminal (200x50) and nothing of
// the caller's environment. Stopping kills the process group of `unshare`: netns-run (PID 1) exits
// and the kernel ends everything in the namespace (tmux, the host, its shells and hooks).

import fs from 'node:fs'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'

import {
  COPILOT_PKG_CACHE,
  DUMMY_API_KEY,
  E2E_DIR,
  geminiOfflineSettings,
  hostUnavailableReason,
  prepareHome,
  resolveHost,
  writeCodexProvider,
} from './hosts.mjs'
import { mergeJsonFile } from './fixtures.mjs'

const NETNS_RUN = path.join(E2E_DIR, 'netns-run.mjs')
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

// Namespaces still running: killed when this process exits, even if a test forgot tui.stop().
const live = new Set()
process.on('exit', () => {
  for (const pgid of live) {
    try {
      process.kill(-pgid, 'SIGKILL')
    } catch {
      /* gone */
    }
  }
})

/** Per-host screen markers (seen in Claude Code 2.1.197-2.1.332, Copilot CLI 1.0.102, Gemini CLI 0.61.0, Codex CLI 0.169.0). */
export const SCREEN = {
  claude: {
    // The spinner footer while a turn runs ("esc to interrupt"); absent when idle. A status
    // line takes that footer's place in 2.1.197: the spinner line itself (`✢ Pouncing… (1m 0s ·
    // ↓ 29 tokens)`) says so there; idle it reads `✻ Crunched for 0s`.
    busy: /esc to interrupt|^\s*\S \S+… \(\d/im,
    // The empty input line between the two rules of the input box.
    ready: /^\s*❯\s*$/m,
    interrupted: /Interrupted/,
  },
  copilot: {
    // The footer while a turn runs: `◉ Working · … esc esc interrupt` (the glyph spins). A shell
    // command left running by an interrupt keeps `● Waiting for background shells · … esc esc
    // interrupt` there while the prompt takes input as usual: that alone is not a running turn.
    busy: /[◉●○◎] Working|^(?!.*Waiting for background shells).*esc esc interrupt/im,
    ready: /^\s*❯\s*$/m,
    interrupted: /Operation cancelled by user/,
  },
  codex: {
    // Codex CLI 0.169.0: `• Working (3s • esc to interrupt)` while a turn runs; the input line `› …`.
    busy: /esc to interrupt/i,
    ready: /^\s*›/m,
    interrupted: /Conversation interrupted/,
  },
  gemini: {
    // Gemini CLI 0.61.0: a turn shows a spinner line ending `(esc to cancel, 2s)`; idle, the
    // input box holds its placeholder.
    busy: /esc to cancel/i,
    ready: /Type your message or @path\/to\/file/,
    interrupted: /Request cancelled/i,
  },
}

function findOnPath(cmd) {
  for (const d of (process.env.PATH || '').split(':').concat(['/usr/bin', '/bin', '/usr/local/bin'])) {
    const p = path.join(d, cmd)
    try {
      fs.accessSync(p, fs.constants.X_OK)
      return p
    } catch {
      /* next */
    }
  }
  return null
}

/**
 * The binary of `host` at `version` (default: the version hosts.mjs would pick). hosts.mjs reads
 * the version from GOAL_E2E_<HOST>_VERSION when it resolves; set it for the one synchronous call.
 */
export function resolveHostVersion(host, version) {
  if (!version) return resolveHost(host)
  const key = `GOAL_E2E_${host.toUpperCase()}_VERSION`
  const before = process.env[key]
  process.env[key] = version
  try {
    return resolveHost(host)
  } finally {
    if (before === undefined) delete process.env[key]
    else process.env[key] = before
  }
}

/** Why the TUI of `host` (at `version`) cannot run here, or null. */
export function tuiUnavailableReason(host, version) {
  if (!findOnPath('tmux')) return 'tmux not found: needed to drive the interactive TUI (apt-get install tmux)'
  const key = `GOAL_E2E_${host.toUpperCase()}_VERSION`
  const before = process.env[key]
  if (version) process.env[key] = version
  try {
    return hostUnavailableReason(host)
  } finally {
    if (before === undefined) delete process.env[key]
    else process.env[key] = before
  }
}

/** Files a first start would otherwise ask about (onboarding, API key, trust, theme). */
export function prepareTuiHome(host, { home, cwd, version, server }) {
  if (host === 'codex') {
    // The model provider (no sign-in) and the project trusted (no trust dialog).
    writeCodexProvider(home, server, { trust: cwd })
  } else if (host === 'gemini') {
    geminiOfflineSettings(home)
  } else if (host === 'claude') {
    const file = path.join(home, '.claude.json')
    let cur = {}
    try {
      cur = JSON.parse(fs.readFileSync(file, 'utf8'))
    } catch {
      /* new */
    }
    const projects = { ...(cur.projects || {}) }
    projects[cwd] = { ...(projects[cwd] || {}), hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true }
    mergeJsonFile(file, {
      hasCompletedOnboarding: true,
      lastOnboardingVersion: version || '2.1.197',
      theme: 'dark',
      customApiKeyResponses: { approved: [DUMMY_API_KEY.slice(-20)], rejected: [] },
      bypassPermissionsModeAccepted: true,
      hasAcknowledgedCostThreshold: true,
      projects,
    })
  } else {
    const file = path.join(home, '.copilot', 'config.json')
    let cur = {}
    try {
      cur = JSON.parse(fs.readFileSync(file, 'utf8'))
    } catch {
      /* new */
    }
    const trusted = new Set([...(cur.trustedFolders || []), cwd])
    mergeJsonFile(file, { trustedFolders: [...trusted] })
  }
}

/** The host's environment inside the pane (nothing inherited from the caller but PATH). */
export function tuiEnv(host, { dirs, server, env = {} }) {
  const base = {
    PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'xterm-256color',
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
    NO_PROXY: '*',
    no_proxy: '*',
  }
  const perHost =
    host === 'codex'
      ? { CODEX_HOME: path.join(dirs.home, '.codex') }
      : host === 'gemini'
        ? {
            GEMINI_API_KEY: DUMMY_API_KEY,
            GOOGLE_GEMINI_BASE_URL: server.url.replace(/\/$/, ''),
            GEMINI_CLI_NO_RELAUNCH: 'true',
          }
        : host === 'claude'
          ? {
              ANTHROPIC_BASE_URL: server.url,
              ANTHROPIC_API_KEY: DUMMY_API_KEY,
              CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
              DISABLE_AUTOUPDATER: '1',
              DISABLE_TELEMETRY: '1',
              DISABLE_ERROR_REPORTING: '1',
              CLAUDE_CODE_TMPDIR: dirs.tmp,
            }
          : {
              COPILOT_OFFLINE: 'true',
              COPILOT_AUTO_UPDATE: 'false',
              COPILOT_PKG_CACHE_HOME: COPILOT_PKG_CACHE,
              COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
              COPILOT_PROVIDER_API_KEY: DUMMY_API_KEY,
              COPILOT_MODEL: 'gpt-4.1',
              USE_TGREP: 'false',
            }
  return { ...base, ...perHost, ...env }
}

/** Default command-line arguments per host for an interactive session. */
export function tuiArgs(host) {
  // Claude Code 2.1.330+ would start in auto mode, whose safety check cannot run offline.
  if (host === 'gemini') return ['--yolo', '-m', 'gemini-e2e']
  // Codex: hooks run without the /hooks trust dialog for this run (a user trusts them once).
  if (host === 'codex') return ['--dangerously-bypass-hook-trust']
  return host === 'claude'
    ? ['--permission-mode', 'default', '--allowedTools', 'Bash']
    : ['--allow-all', '--no-auto-update']
}

const shq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`

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

/**
 * Start the interactive TUI of `host` in tmux inside the loopback-only namespace.
 * @param {object} o
 * @param {'claude'|'copilot'|'gemini'|'codex'} o.host
 * @param {string} [o.version]     a cached version (default: the one hosts.mjs picks)
 * @param {string} o.root          a temp folder of the test (tmux socket, config, pane script)
 * @param {string} o.cwd           project folder (created if missing)
 * @param {string} o.home          HOME (created if missing; onboarding/trust files are merged in)
 * @param {object} o.server        startModelServer() result
 * @param {object} [o.env]         extra or overriding environment variables for the host
 * @param {string[]} [o.args]      command-line arguments (default tuiArgs(host))
 * @param {string[]} [o.extraArgs] appended to args
 * @param {number} [o.cols=200]
 * @param {number} [o.rows=50]
 * @param {number} [o.readyTimeoutMs=60000]
 */
export async function startTui({
  host,
  version,
  root,
  cwd,
  home,
  server,
  env = {},
  args,
  extraArgs = [],
  cols = 200,
  rows = 50,
  readyTimeoutMs = 60_000,
}) {
  const bin = resolveHostVersion(host, version)
  if (!bin) throw new Error(tuiUnavailableReason(host, version) || `${host} ${version || ''} not found`)
  const tmux = findOnPath('tmux')
  if (!tmux) throw new Error(tuiUnavailableReason(host, version))
  fs.mkdirSync(cwd, { recursive: true })
  fs.mkdirSync(root, { recursive: true })
  const dirs = prepareHome(home)
  if (host === 'copilot') fs.mkdirSync(COPILOT_PKG_CACHE, { recursive: true })
  prepareTuiHome(host, { home, cwd, version: bin.version, server })

  const sock = path.join(root, 'tmux.sock')
  const conf = path.join(root, 'tmux.conf')
  fs.writeFileSync(conf, 'set -g remain-on-exit on\nset -g history-limit 20000\nset -g status off\n')
  const hostEnv = tuiEnv(host, { dirs, server, env })
  // Gemini CLI is a Node bundle: node runs its script.
  const argv = [...(host === 'gemini' ? [process.execPath] : []), bin.bin, ...(args || tuiArgs(host)), ...extraArgs]
  const paneScript = path.join(root, 'pane.sh')
  fs.writeFileSync(
    paneScript,
    `cd ${shq(cwd)} || exit 1\nexec env -i ${Object.entries(hostEnv)
      .map(([k, v]) => shq(`${k}=${v}`))
      .join(' ')} ${argv.map(shq).join(' ')}\n`,
  )
  // The tmux clients run outside the namespace with a minimal environment (nothing to leak into
  // the session: the pane script starts from env -i anyway).
  const clientEnv = { PATH: process.env.PATH || '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: root }
  const tmuxCmd = (...a) => {
    const r = spawnSync(tmux, ['-S', sock, ...a], { env: clientEnv, encoding: 'utf8', timeout: 10_000 })
    if (r.status !== 0) {
      const err = new Error(`tmux ${a[0]} failed (${r.status}): ${(r.stderr || r.error?.message || '').trim()}`)
      err.status = r.status
      throw err
    }
    return r.stdout
  }

  const prefix = nsPrefix()
  const relay = server?.socketPath ? ['--relay', `${server.port}=${server.socketPath}`] : []
  // tmux -D: the server stays in the foreground (netns-run's child) and does not exit when empty.
  const nsArgs = [...prefix.slice(1), process.execPath, NETNS_RUN, ...relay, '--', tmux, '-S', sock, '-f', conf, '-D']
  const child = spawn(prefix[0], nsArgs, {
    cwd: root,
    env: { ...clientEnv, TERM: 'xterm-256color' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const pgid = child.pid
  live.add(pgid)
  let nsOutput = ''
  child.stdout.setEncoding('utf8').on('data', (d) => {
    nsOutput += d
  })
  child.stderr.setEncoding('utf8').on('data', (d) => {
    nsOutput += d
  })
  let exited = false
  child.on('exit', () => {
    exited = true
  })

  const started = Date.now()
  const tui = {
    host,
    version: bin.version,
    bin: bin.bin,
    root,
    cwd,
    home,
    server,
    socket: sock,
    startedAt: started,
    /** Raw tmux command against this session's server. */
    tmux: tmuxCmd,
    /** The visible screen (200x50 by default), trailing blanks trimmed. */
    screen() {
      return tmuxCmd('capture-pane', '-p', '-t', 'main').replace(/\s+$/, '')
    },
    /** Everything the pane ever showed (scrollback included). */
    history() {
      return tmuxCmd('capture-pane', '-p', '-S', '-', '-t', 'main').replace(/\s+$/, '')
    },
    /** PID of the host (namespace numbering, as its hooks see it) and whether it still runs. */
    paneInfo() {
      const [pid, dead, status] = tmuxCmd('display', '-p', '-t', 'main', '#{pane_pid} #{pane_dead} #{pane_dead_status}')
        .trim()
        .split(' ')
      return { pid: Number(pid), dead: dead === '1', status: status ? Number(status) : null }
    },
    /** Type `text` as a person does: 4 characters at a time, ~30 ms apart (no Enter). */
    async typeText(text, { chunk = 4, delayMs = 30 } = {}) {
      for (let i = 0; i < text.length; i += chunk) {
        // `--`: a chunk starting with `-` would otherwise be read as flags (and dropped).
        tmuxCmd('send-keys', '-t', 'main', '-l', '--', text.slice(i, i + chunk))
        await sleep(delayMs)
      }
    },
    /** Press keys by tmux name: 'Enter', 'Escape', 'C-c', 'Up', ... */
    async key(...names) {
      for (const k of names) tmuxCmd('send-keys', '-t', 'main', k)
    },
    /** Type a line, wait for the host's input handling (menus, paste detection), then Enter alone. */
    async type(text, { settleMs = 700, ...o } = {}) {
      await tui.typeText(text, o)
      await sleep(settleMs)
      await tui.key('Enter')
    },
    /** Empty the input line (Ctrl+U, as in a shell); a host may hand a refused prompt back there. */
    async clearInput() {
      await tui.key('C-u')
      await sleep(200)
    },
    /** One Esc (Claude Code's interrupt). */
    async esc() {
      await tui.key('Escape')
    },
    /** Esc Esc ~0.3 s apart (Copilot CLI's interrupt). */
    async escEsc(gapMs = 300) {
      await tui.key('Escape')
      await sleep(gapMs)
      await tui.key('Escape')
    },
    /** Wait until the screen (or the scrollback with { history: true }) matches. Returns the text. */
    async waitFor(match, { timeoutMs = 30_000, history = false, intervalMs = 150 } = {}) {
      const until = Date.now() + timeoutMs
      let last = ''
      for (;;) {
        if (exited) throw new Error(`${host} TUI: the namespace ended\n${nsOutput}\n${last}`)
        try {
          last = history ? tui.history() : tui.screen()
        } catch (err) {
          last = String(err.message)
        }
        const hit =
          typeof match === 'function' ? match(last) : match instanceof RegExp ? match.test(last) : last.includes(match)
        if (hit) return last
        if (Date.now() > until) {
          throw new Error(`${host} TUI: timed out after ${timeoutMs} ms waiting for ${match}\n--- screen ---\n${last}`)
        }
        await sleep(intervalMs)
      }
    },
    /**
     * Wait until the host is idle: no busy marker on screen and neither the screen nor the model
     * server's request log changed for quietMs. ready: also require an empty input line (not
     * after a prompt the host handed back for editing, as Claude Code does with a blocked one).
     */
    async waitIdle({ quietMs = 2500, timeoutMs = 60_000, minMs = 0, ready = false } = {}) {
      const marks = SCREEN[host]
      const from = Date.now()
      const until = from + timeoutMs
      let lastScreen = null
      let lastReqs = -1
      let since = Date.now()
      for (;;) {
        if (exited) throw new Error(`${host} TUI: the namespace ended\n${nsOutput}`)
        let s = ''
        try {
          s = tui.screen()
        } catch (err) {
          s = String(err.message)
        }
        const reqs = server ? server.requests.length : 0
        // Elapsed-time counters (Claude's "◎ /goal active (1m 5s)", "Worked for 6s") tick while
        // nothing happens: compare the screen without them.
        const still = s.replace(/\d+(?:\.\d+)?[hms]\b/g, 'N')
        if (still !== lastScreen || reqs !== lastReqs) {
          lastScreen = still
          lastReqs = reqs
          since = Date.now()
        }
        const calm = !marks.busy.test(s) && (!ready || marks.ready.test(s))
        if (calm && Date.now() - since >= quietMs && Date.now() - from >= minMs) return s
        if (Date.now() > until) throw new Error(`${host} TUI: not idle after ${timeoutMs} ms\n--- screen ---\n${s}`)
        await sleep(200)
      }
    },
    /** Wait until a turn is running (the busy marker is on screen). */
    async waitBusy({ timeoutMs = 30_000 } = {}) {
      return tui.waitFor((s) => SCREEN[host].busy.test(s), { timeoutMs })
    },
    /** End everything: SIGTERM to the namespace's process group, SIGKILL after graceMs. */
    async stop({ graceMs = 3000 } = {}) {
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
      while (groupAlive(pgid) && Date.now() < until + 2000) await sleep(50)
      live.delete(pgid)
      return { nsOutput }
    },
  }

  try {
    // The tmux server is up once its socket answers.
    const upUntil = Date.now() + 15_000
    for (;;) {
      if (exited) throw new Error(`tmux server ended at once:\n${nsOutput}`)
      const r = spawnSync(tmux, ['-S', sock, 'list-sessions'], { env: clientEnv, encoding: 'utf8' })
      // "no server running" until it listens; "no sessions" (exit 1) once it does.
      if (fs.existsSync(sock) && !/no server running|error connecting/i.test(r.stderr || '')) break
      if (Date.now() > upUntil) throw new Error(`tmux server did not start:\n${nsOutput}\n${r.stderr}`)
      await sleep(50)
    }
    tmuxCmd(
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      String(cols),
      '-y',
      String(rows),
      '-c',
      cwd,
      `bash ${shq(paneScript)}`,
    )
    // Ready: the input prompt is on screen and the screen stopped changing.
    await tui.waitIdle({ quietMs: 1500, timeoutMs: readyTimeoutMs, ready: true })
  } catch (err) {
    let screen = ''
    try {
      screen = tui.screen()
    } catch {
      /* none */
    }
    await tui.stop()
    err.message += `\n--- screen ---\n${screen}\n--- namespace ---\n${nsOutput}`
    throw err
  }
  return tui
}
