// `goal-system install` and `goal-system uninstall`: build the targets, make the
// plan, print it, and (unless --dry-run) apply it.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {
  EXIT,
  HOST_OPTIONS,
  loadAddon,
  parseOptions,
  refused,
  selectedHosts,
  stateError,
  usageError,
} from './cli-common.mjs'
import { timeStamp } from './fs-safe.mjs'
import { applyPlan, makePlan } from './install-plan.mjs'
import { nativeHook } from './install-native.mjs'
import { copyToStable, npxNodeModules } from './install-stable.mjs'
import { HOST_LABELS, PACKAGE_ROOT, PackageFileError, buildTargets } from './install-targets.mjs'

export const INSTALL_OPTIONS = {
  ...HOST_OPTIONS,
  project: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'copilot-mcp': { type: 'boolean' },
  json: { type: 'boolean' },
}

/** --project DIR: an existing folder, made absolute. */
export function resolveProject(dir) {
  if (dir === undefined) return null
  if (dir === '') throw usageError('--project needs a folder')
  const abs = path.resolve(dir)
  let stat
  try {
    stat = fs.statSync(abs)
  } catch {
    throw usageError(`--project ${dir}: no such folder`)
  }
  if (!stat.isDirectory()) throw usageError(`--project ${dir}: not a folder`)
  return abs
}

export function runInstallCommand(mode, argv, io, help) {
  const opts = parseOptions(argv, INSTALL_OPTIONS)
  if (opts.help) {
    io.out(help)
    return EXIT.OK
  }
  const hosts = selectedHosts(opts)
  const project = resolveProject(opts.project)
  if (mode === 'install') {
    if (npxNodeModules(PACKAGE_ROOT) && !opts['dry-run']) return installFromStableCopy(argv, io)
    checkAddonLoads()
  }
  let built
  try {
    built = buildTargets({
      hosts,
      project,
      env: process.env,
      copilotMcp: mode === 'uninstall' || Boolean(opts['copilot-mcp']),
    })
  } catch (err) {
    if (err instanceof PackageFileError) throw stateError(`goal-system ${mode}: ${err.message}`)
    throw err
  }
  const plan = makePlan(mode, built.targets, built.locations.manifest, timeStamp())
  if (plan.errors.length) {
    throw stateError(
      `goal-system ${mode}: refusing to change anything:`,
      plan.errors.map((e) => e.message).concat(['Nothing was changed.']),
    )
  }
  if (plan.conflicts.length) {
    throw refused(
      `goal-system ${mode}: refusing to change anything:`,
      plan.conflicts.map((e) => e.message).concat(['Nothing was changed.']),
    )
  }
  if (!opts.json) printPlan(mode, plan, built, hosts, project, io, opts['dry-run'])
  if (opts['dry-run']) {
    if (opts.json) io.out(JSON.stringify(planJson(mode, plan, built, hosts, project, true), null, 2))
    else io.out('Dry run: nothing was written.')
    return EXIT.OK
  }
  let result
  try {
    result = applyPlan(plan)
  } catch (err) {
    throw stateError(`goal-system ${mode}: writing failed: ${err.message}`, [
      'Files written before the failure keep their new content; run the command again to finish.',
    ])
  }
  const changed = plan.entries.filter((e) => ['create', 'update', 'remove'].includes(e.action)).length
  if (opts.json) {
    io.out(
      JSON.stringify(
        { ...planJson(mode, plan, built, hosts, project, false), changed, backups: result.backups },
        null,
        2,
      ),
    )
    return EXIT.OK
  }
  io.out(`${mode === 'install' ? 'Installed' : 'Uninstalled'}: ${changed} file(s) changed.`)
  if (result.backups.length) io.out(`Backups:\n${result.backups.map((b) => `  ${b}`).join('\n')}`)
  if (mode === 'install') io.out('Check the wiring with: goal-system doctor')
  return EXIT.OK
}

/** The plan as data: what `--json` prints. */
function planJson(mode, plan, built, hosts, project, dryRun) {
  return {
    mode,
    dryRun,
    hosts,
    project,
    package: PACKAGE_ROOT,
    files: plan.entries.map((e) => ({
      action: e.action,
      file: e.file,
      host: e.target.host,
      detail: e.detail ?? e.target.label,
      backup: e.backup ?? null,
    })),
    manifest: { action: plan.manifest.action, file: plan.manifest.file },
    notes: mode === 'install' ? [...built.notes, ...missingPackageFiles(plan)] : [],
  }
}

/**
 * Hooks written while the addon does not load would only ever allow (the Node
 * fallback needs it): refuse, and say how to get a working package.
 */
function checkAddonLoads() {
  try {
    loadAddon().statePaths()
  } catch (err) {
    throw stateError(
      `goal-system install: refusing to install: ${err.message.replace(/^the goal-system addon failed to load: /, 'the goal-system addon does not load: ')}`,
      [
        'Without it no goal rule runs: every hook would only allow.',
        'Install the package with npm on this machine (npm installs the platform package that carries the addon),',
        'or in a clone build it first: npm run build. Then run goal-system install again.',
        'Nothing was changed.',
      ],
    )
  }
}

/** From npm's npx cache: copy the package somewhere stable, then install from the copy. */
function installFromStableCopy(argv, io) {
  let copy
  try {
    copy = copyToStable(PACKAGE_ROOT)
  } catch (err) {
    throw stateError(
      `goal-system install: this copy runs from npm's npx cache (${PACKAGE_ROOT}), which npm may clear at any time, and copying it to a stable folder failed: ${err.message}`,
      [
        'Install the package for good instead: npm install -g goal-system, then run goal-system install.',
        'Nothing was changed.',
      ],
    )
  }
  io.out(`goal-system install: this copy runs from npm's npx cache (${PACKAGE_ROOT}), which npm may clear at any time.`)
  io.out(`${copy.copied ? 'Copied the package to' : 'Using the copy already at'} ${copy.pkg}; installing from there.`)
  const res = spawnSync(process.execPath, [path.join(copy.pkg, 'bin', 'goal-system.mjs'), 'install', ...argv], {
    stdio: 'inherit',
  })
  if (res.error) throw stateError(`goal-system install: could not run ${copy.pkg}: ${res.error.message}`)
  return res.status ?? EXIT.FAILED
}

function printPlan(mode, plan, built, hosts, project, io, dryRun) {
  const where = project ? `project ${project}` : 'user level'
  io.out(`goal-system ${mode}${dryRun ? ' --dry-run' : ''}: ${hosts.map((h) => HOST_LABELS[h]).join(', ')} (${where})`)
  io.out(`package: ${PACKAGE_ROOT}`)
  if (mode === 'install') {
    const hook = nativeHook(PACKAGE_ROOT)
    io.out(
      hook.source
        ? `native hook: ${hook.path} (${hook.source})`
        : `native hook: none for this platform; the hooks run through Node (slower)`,
    )
    if (npxNodeModules(PACKAGE_ROOT))
      io.out(
        `warning: this copy runs from npm's npx cache; without --dry-run install copies it to a stable folder first`,
      )
  }
  const lines = []
  for (const e of plan.entries) {
    lines.push(`  ${e.action.padEnd(9)} ${e.file}`)
    const detail = e.action === 'keep' ? 'still needed by another install; left as is' : (e.detail ?? e.target.label)
    lines.push(`            ${detail}`)
  }
  const m = plan.manifest
  lines.push(`  ${m.action.padEnd(9)} ${m.file}`, '            install manifest (what uninstall removes)')
  io.out(lines.join('\n'))
  const backups = plan.entries.filter((e) => e.backup).map((e) => e.backup)
  if (backups.length) io.out(`Backups (before the change):\n${backups.map((b) => `  ${b}`).join('\n')}`)
  const notes = mode === 'install' ? [...built.notes, ...missingPackageFiles(plan)] : []
  if (notes.length) io.out(`Notes:\n${notes.map((n) => `  - ${n}`).join('\n')}`)
}

/** Package files the installed wiring runs but that are not there (yet). */
function missingPackageFiles(plan) {
  const missing = new Set()
  for (const e of plan.entries) for (const f of e.target.requires) if (!fs.existsSync(f)) missing.add(f)
  return [...missing].map(
    (f) => `warning: ${f} is missing from the package; the host will fail to run it until it exists`,
  )
}
