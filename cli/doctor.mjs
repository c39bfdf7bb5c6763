// `goal-system doctor`: is each installed host wired to this package, do the
// files it runs exist and answer, and is the state folder private and writable?
// Each finding names its fix.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import { loadAddon } from './cli-common.mjs'
import { commandStrings, deepEqual, getIn, isPlainObject, parseJsonObject } from './json-merge.mjs'
import { findBlock, readManifest } from './install-plan.mjs'
import {
  DEFAULT_HOSTS,
  HOST_LABELS,
  MOVED_FILES,
  PACKAGE_ROOT,
  TEXT_MARKER,
  buildTargets,
  hostLocations,
  isOurString,
} from './install-targets.mjs'
import { readTextOrNull } from './fs-safe.mjs'
import { nativeHook, platformId, platformPackageDir } from './install-native.mjs'

const HOST_FLAG = {
  'copilot-cli': '--copilot-cli',
  vscode: '--vscode',
  claude: '--claude',
  codex: '--codex',
  gemini: '--gemini',
}

function installCommand(host, scope) {
  const project = scope.startsWith('project:') ? ` --project ${scope.slice('project:'.length)}` : ''
  return `goal-system install ${HOST_FLAG[host]}${project}`
}

/**
 * Run every check. `hosts` (or null: those the manifest records) and `project`
 * narrow the wiring checks. Returns { ok, package, findings: [{ status, area,
 * message, fix? }] } with status 'ok' | 'fail'.
 */
export function runChecks({ hosts = null, project = null, env = process.env } = {}) {
  const findings = []
  const ok = (area, message) => findings.push({ status: 'ok', area, message })
  const fail = (area, message, fix) => findings.push({ status: 'fail', area, message, fix })
  const loc = hostLocations(env)

  const stateRoot = checkAddon(ok, fail)
  const pairs = wiringToCheck(loc.manifest, hosts, project, ok, fail)
  const checkedHosts = new Set(pairs.map(([h]) => h))
  if (checkedHosts.has('copilot-cli')) {
    checkCommandOnPath('bash', 'Copilot CLI', 'install bash: the Copilot CLI hooks run it', ok, fail)
  }
  if (checkedHosts.size) checkNativeHook(ok, fail)
  if (checkedHosts.size)
    checkCommandOnPath(
      'node',
      'general',
      'install Node.js (>= 20.17) and put it on PATH: the MCP server and hook runner need it',
      ok,
      fail,
    )
  if (checkedHosts.has('vscode') || checkedHosts.has('claude')) checkHookRunner(ok, fail)
  for (const [host, scope] of pairs) checkWiring(host, scope, env, ok, fail)
  checkStateRoot(stateRoot ?? fallbackStateRoot(env, loc), ok, fail)
  return { ok: findings.every((f) => f.status === 'ok'), package: PACKAGE_ROOT, findings }
}

/** Host and scope pairs: asked for, or recorded in the manifest. */
function wiringToCheck(manifestFile, hosts, project, ok, fail) {
  const scope = project ? `project:${project}` : null
  let recorded = []
  try {
    const files = readManifest(manifestFile).value.files ?? {}
    for (const rec of Object.values(files)) {
      for (const opRec of Object.values(rec.ops ?? {})) for (const s of opRec.scopes ?? []) recorded.push([rec.host, s])
    }
  } catch (err) {
    fail(
      'general',
      `install manifest: ${err.message}`,
      `repair or delete ${manifestFile}, then run goal-system install`,
    )
  }
  recorded = uniquePairs(recorded).filter(([h, s]) => (!hosts || hosts.includes(h)) && (!scope || s === scope))
  const wanted = hosts ?? (scope ? DEFAULT_HOSTS : [])
  for (const h of wanted) if (!recorded.some(([rh]) => rh === h)) recorded.push([h, scope ?? 'user'])
  if (!recorded.length) {
    fail(
      'general',
      'goal-system is not installed for any host',
      'goal-system install (or --copilot-cli, --vscode, --claude)',
    )
  } else {
    ok(
      'general',
      `wiring checked for: ${uniquePairs(recorded)
        .map(([h, s]) => `${HOST_LABELS[h]} (${s})`)
        .join(', ')}`,
    )
  }
  return uniquePairs(recorded)
}

function uniquePairs(pairs) {
  const seen = new Map()
  for (const p of pairs) seen.set(p.join('\0'), p)
  return [...seen.values()]
}

// ---- general checks ----

function checkAddon(ok, fail) {
  try {
    const addon = loadAddon()
    const root = addon.statePaths().root
    const local = path.join(PACKAGE_ROOT, `goal-system.${platformId()}.node`)
    const from = fs.existsSync(local)
      ? local
      : (platformPackageDir(PACKAGE_ROOT) ?? path.join(PACKAGE_ROOT, 'index.js'))
    ok('general', `addon loads for ${platformId()} (${from})`)
    return root
  } catch (err) {
    fail(
      'general',
      `the addon does not load for ${platformId()}: ${err.message.split('\n')[0]} (no goal rule runs: every hook only allows)`,
      `reinstall the package with npm on this machine (npm picks the package goal-system-${platformId()}), or run npm run build in a clone`,
    )
    return null
  }
}

function fallbackStateRoot(env, loc) {
  if (env.GOAL_SYSTEM_STATE_ROOT) return path.resolve(env.GOAL_SYSTEM_STATE_ROOT)
  return path.join(loc.home, '.copilot', 'session-state', 'goal-system')
}

function onPath(cmd) {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)
  return dirs.some((d) => {
    try {
      fs.accessSync(path.join(d, cmd), fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

function checkCommandOnPath(cmd, area, fix, ok, fail) {
  if (onPath(cmd)) ok(area, `${cmd} is on PATH`)
  else fail(area, `${cmd} is not on PATH`, fix)
}

/** A hook command must answer an empty payload with an allow: `{}` and exit 0. */
function answersAllow(command, args) {
  const res = spawnSync(command, args, { input: '', encoding: 'utf8', timeout: 10_000 })
  if (res.error) return `could not run: ${res.error.message}`
  if (res.status !== 0) return `exited with ${res.status ?? res.signal}`
  if (res.stdout.trim() !== '{}') return `answered ${JSON.stringify(res.stdout.trim().slice(0, 200))} instead of {}`
  return null
}

function checkNativeHook(ok, fail) {
  const { path: hook, source } = nativeHook(PACKAGE_ROOT)
  const rebuild = `reinstall the package with npm on this machine (goal-system-${platformId()} carries it), or npm run build in a clone`
  if (!source)
    return fail(
      'general',
      `no native hook for ${platformId()} (${hook} is missing): the hooks fall back to Node, slower`,
      rebuild,
    )
  try {
    fs.accessSync(hook, fs.constants.X_OK)
  } catch {
    return fail(
      'general',
      `native hook ${hook} is not executable (the hooks fall back to Node, slower)`,
      `chmod +x ${hook}`,
    )
  }
  const problem = answersAllow(hook, ['--host', 'copilot-cli', 'preToolUse'])
  if (problem) fail('general', `native hook ${hook} ${problem} (the hooks fall back to Node, slower)`, rebuild)
  else ok('general', `native hook answers {} to an empty payload (${hook}, ${source})`)
}

function checkHookRunner(ok, fail) {
  const runner = path.join(PACKAGE_ROOT, 'adapters', 'vscode-chat', 'hook-runner.mjs')
  if (!fs.existsSync(runner)) return // reported with the wiring that needs it
  const problem = answersAllow(process.execPath, [runner, 'vscode', 'PreToolUse'])
  if (problem) fail('general', `hook runner ${runner} ${problem}`, 'reinstall the package')
  else ok('general', `hook runner answers {} to an empty payload (${runner})`)
}

function checkStateRoot(root, ok, fail) {
  if (!fs.existsSync(root)) {
    let parent = path.dirname(root)
    while (!fs.existsSync(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent)
    try {
      fs.accessSync(parent, fs.constants.W_OK)
      ok('state', `state folder ${root} does not exist yet; it will be created (0700) on first use`)
    } catch {
      fail(
        'state',
        `state folder ${root} cannot be created: ${parent} is not writable`,
        `make ${parent} writable, or set GOAL_SYSTEM_STATE_ROOT`,
      )
    }
    return
  }
  const stat = fs.lstatSync(root)
  if (!stat.isDirectory())
    return fail('state', `state folder ${root} is not a folder`, `move it away; goal-system recreates the folder`)
  try {
    fs.accessSync(root, fs.constants.W_OK)
  } catch {
    return fail('state', `state folder ${root} is not writable`, `chown/chmod it so this user can write it`)
  }
  const loose = looseModes(root)
  if (loose.length) {
    const shown = loose.slice(0, 5).map(([p, m, want]) => `${p} (${m.toString(8)}, want ${want.toString(8)})`)
    fail(
      'state',
      `state files readable by others: ${shown.join(', ')}${loose.length > 5 ? ', ...' : ''}`,
      `chmod -R go-rwx ${root}`,
    )
  } else {
    ok('state', `state folder ${root} is writable and private (0700 folders, 0600 files)`)
  }
}

/** Folders not 0700 and files not 0600 in the state folder (two levels deep). */
function looseModes(root) {
  const loose = []
  const visit = (p, depth) => {
    const st = fs.lstatSync(p)
    const mode = st.mode & 0o777
    if (st.isDirectory()) {
      if (mode !== 0o700) loose.push([p, mode, 0o700])
      if (depth < 2) for (const name of fs.readdirSync(p)) visit(path.join(p, name), depth + 1)
    } else if (st.isFile() && mode & 0o077) {
      loose.push([p, mode, 0o600])
    }
  }
  visit(root, 0)
  return loose
}

// ---- wiring ----

function checkWiring(host, scope, env, ok, fail) {
  const area = HOST_LABELS[host]
  const fix = installCommand(host, scope)
  let built
  try {
    built = buildTargets({ hosts: [host], project: scope.startsWith('project:') ? scope.slice(8) : null, env })
  } catch (err) {
    return fail(area, err.message, 'reinstall the package (or restore the clone)')
  }
  for (const target of built.targets) {
    if (target.kind === 'retired') {
      const text = readTextOrNull(target.file)
      if (text?.includes(TEXT_MARKER)) fail(area, `${target.file}: an earlier release's file, no longer used`, fix)
      continue
    }
    const problems =
      target.kind === 'json'
        ? jsonProblems(target)
        : target.kind === 'block'
          ? blockProblems(target)
          : textProblems(target)
    for (const req of target.requires) {
      if (!fs.existsSync(req)) problems.push(`it runs ${req}, which is missing from the package`)
    }
    if (problems.length) fail(area, `${target.file}: ${problems.join('; ')}`, fix)
    else ok(area, `${target.file}: ${target.label}`)
    if (target.kind === 'json') statusLineAdvice(target, ok)
  }
}

function blockProblems(target) {
  const text = readTextOrNull(target.file)
  if (text === null) return ['missing']
  const at = findBlock(text, target.content)
  if (!at) return [`has no ${target.header} written by goal-system`]
  if (text.slice(at[0], at[1]) !== target.content) return ['out of date (the package changed or moved)']
  return []
}

function textProblems(target) {
  const text = readTextOrNull(target.file)
  if (text === null) return ['missing']
  if (!text.includes(TEXT_MARKER)) return ['exists but was not written by goal-system']
  if (text !== target.content) return ['out of date (the package changed or moved)']
  return []
}

function jsonProblems(target) {
  const text = readTextOrNull(target.file)
  if (text === null) return ['missing']
  let value
  try {
    value = parseJsonObject(text, target.file)
  } catch (err) {
    return [`not valid JSONC: ${err.detail ?? err.message}`]
  }
  const problems = []
  for (const op of target.ops) {
    if (op.type === 'hooks') problems.push(...hookProblems(value, op))
    else if (op.type === 'key') {
      const cur = getIn(value, op.path)
      if (op.keepExisting && cur !== undefined && !op.recognize?.(cur)) continue // theirs: see statusLineAdvice
      if (cur === undefined) problems.push(`${op.path.join('.')} is missing`)
      else if (!deepEqual(cur, op.value)) {
        problems.push(
          `${op.path.join('.')} is ${JSON.stringify(cur).slice(0, 200)}, expected ${JSON.stringify(op.value).slice(0, 200)}`,
        )
        problems.push(...missingReferences(JSON.stringify(cur)))
      }
    } else if (op.type === 'items') {
      const list = getIn(value, op.path)
      const missing = op.items.filter((i) => !Array.isArray(list) || !list.includes(i))
      if (missing.length) problems.push(`${op.path.join('.')} lacks ${missing.join(', ')}`)
    }
  }
  return problems
}

/** A status line of the user's own stays; say how to show the goal line beside it. */
function statusLineAdvice(target, ok) {
  const op = target.ops.find((o) => o.keepExisting)
  if (!op) return
  let cur
  try {
    cur = getIn(parseJsonObject(readTextOrNull(target.file) ?? '{}', target.file), op.path)
  } catch {
    return
  }
  if (cur === undefined || op.recognize?.(cur)) return
  const theirs = typeof cur?.command === 'string' ? cur.command : JSON.stringify(cur)
  const goalLine = op.value.command.split(' || ')[0].replace(' 2>/dev/null', '')
  ok(
    'Claude Code',
    `${target.file}: statusLine is yours (${theirs.slice(0, 120)}), so goal-system left it. To show the goal line too, ` +
      `make your status line command print both from the same stdin, e.g. a script: ` +
      `input=$(cat); mine=$(printf '%s' "$input" | ${theirs}); goal=$(printf '%s' "$input" | ${goalLine}); ` +
      `printf '%s\\n' "$mine\${goal:+ | $goal}"`,
  )
}

function ourCommands(list) {
  if (!Array.isArray(list)) return []
  const entries = list.flatMap((item) => (isPlainObject(item) && Array.isArray(item.hooks) ? item.hooks : [item]))
  return entries.flatMap(commandStrings).filter((c) => isOurString(c))
}

function hookProblems(value, op) {
  const problems = []
  const missingEvents = []
  for (const [event, entries] of Object.entries(op.hooks)) {
    const have = ourCommands(value.hooks?.[event])
    const want = ourCommands(entries)
    if (!have.length) missingEvents.push(event)
    else if (!want.every((w) => have.includes(w))) {
      problems.push(`the ${event} hook runs ${JSON.stringify(have[0])}, expected ${JSON.stringify(want[0])}`)
      problems.push(...missingReferences(have.join(' ')))
    }
  }
  if (missingEvents.length) problems.unshift(`no goal-system hook for ${missingEvents.join(', ')}`)
  return [...new Set(problems)]
}

/** Absolute paths to goal-system scripts named in a text that do not exist. */
function missingReferences(text) {
  const re =
    /(?:[A-Za-z]:)?[\\/][^\s"'<>|]*?(?:goal-context\.sh|hook-runner\.mjs|mcp-server\.mjs|goal-hook|extension\.mjs)/g
  const missing = new Set()
  for (const m of text.matchAll(re)) if (!fs.existsSync(m[0])) missing.add(m[0])
  return [...missing].map((p) => {
    const old = Object.keys(MOVED_FILES).find((rel) => p.replace(/\\/g, '/').endsWith(`/${rel}`))
    return old
      ? `${p} does not exist (an earlier release's layout: goal-system install points it at ${MOVED_FILES[old]})`
      : `${p} does not exist`
  })
}

export function formatFindings(report, paint = (style, text) => text) {
  const lines = [`goal-system doctor: package ${report.package}`]
  for (const f of report.findings) {
    lines.push(`  ${f.status === 'ok' ? paint('green', 'ok  ') : paint('red', 'FAIL')}  ${f.area}: ${f.message}`)
    if (f.fix) lines.push(`        fix: ${f.fix}`)
  }
  const failed = report.findings.filter((f) => f.status !== 'ok').length
  lines.push(failed ? `${failed} problem(s) found.` : 'All checks passed.')
  return lines.join('\n')
}
