// `goal-system install` from copies of the package as users get it: without an
// addon for this machine (refused), and from npm's npx cache (copied to a
// stable folder first, and the hooks point there).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'

import { root, spawnAsHost } from './helpers.mjs'
import { platformId } from '../cli/install-native.mjs'

const PACKAGE_FILES = [
  'package.json',
  'index.js',
  'index.d.ts',
  'extension.mjs',
  'hooks',
  'skills',
  'agents',
  'bin',
  'cli',
  'adapters',
  'schema',
  'types',
]

let base
before(() => {
  base = mkdtempSync(join(tmpdir(), 'goal-pkg-'))
})
after(() => rmSync(base, { recursive: true, force: true }))

/** A copy of the package's user files at `dir`; with the addon and hook linked in when `native`. */
function packageCopy(dir, { native }) {
  mkdirSync(dir, { recursive: true })
  for (const f of PACKAGE_FILES) cpSync(join(root, f), join(dir, f), { recursive: true })
  // The runtime dependencies npm would have installed beside it.
  const deps = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {})
  for (const dep of deps) {
    mkdirSync(join(dir, 'node_modules', dep, '..'), { recursive: true })
    symlinkSync(join(root, 'node_modules', dep), join(dir, 'node_modules', dep))
  }
  if (native) {
    const addon = `goal-system.${platformId()}.node`
    symlinkSync(join(root, addon), join(dir, addon))
    mkdirSync(join(dir, 'native'))
    symlinkSync(join(root, 'native', 'goal-hook'), join(dir, 'native', 'goal-hook'))
  }
  return dir
}

function install(pkg, home, args = ['--copilot-cli']) {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
  }
  return spawnSync(process.execPath, [join(pkg, 'bin', 'goal-system.mjs'), 'install', ...args], {
    env,
    encoding: 'utf8',
  })
}

test('install refuses, changing nothing, when the addon for this machine does not load', () => {
  const pkg = packageCopy(join(base, 'no-addon', 'goal-system'), { native: false })
  const home = join(base, 'no-addon-home')
  mkdirSync(home)
  const r = install(pkg, home)
  assert.equal(r.status, 3, r.stdout + r.stderr)
  assert.match(r.stderr, /refusing to install: the goal-system addon does not load/)
  assert.match(r.stderr, /every hook would only allow/)
  assert.match(r.stderr, /Nothing was changed/)
  assert.equal(existsSync(join(home, '.copilot')), false)
})

test('install from npx cache copies the package to a stable folder and points the hooks there', () => {
  const npxModules = join(base, 'npm-cache', '_npx', '0123abcd', 'node_modules')
  const pkg = packageCopy(join(npxModules, 'goal-system'), { native: true })
  const home = join(base, 'npx-home')
  mkdirSync(home)
  const r = install(pkg, home)
  assert.equal(r.status, 0, r.stdout + r.stderr)
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version
  const stable = join(home, '.local', 'share', 'goal-system', version, 'node_modules', 'goal-system')
  assert.match(r.stdout, /runs from npm's npx cache/)
  assert.ok(r.stdout.includes(`Copied the package to ${stable}`), r.stdout)
  assert.ok(existsSync(join(stable, 'bin', 'goal-system.mjs')))

  const hooks = readFileSync(join(home, '.copilot', 'hooks', 'goal-system.json'), 'utf8')
  assert.ok(hooks.includes(join(stable, 'native', 'goal-hook')), hooks)
  assert.ok(hooks.includes(join(stable, 'hooks', 'goal-context.sh')), hooks)
  assert.ok(!hooks.includes('_npx'), 'no path into the npx cache')
  const shim = readFileSync(join(home, '.copilot', 'extensions', 'goal-system', 'extension.mjs'), 'utf8')
  assert.ok(!shim.includes('_npx'), shim)

  // Again: the stable copy is reused, nothing changes.
  const again = install(pkg, home)
  assert.equal(again.status, 0, again.stderr)
  assert.ok(again.stdout.includes(`Using the copy already at ${stable}`), again.stdout)
  assert.match(again.stdout, /Installed: 0 file\(s\) changed/)
})

test('a package folder with spaces and quotes still gives hook commands that run', () => {
  const pkg = packageCopy(join(base, "it's a dir", 'goal-system'), { native: true })
  const home = join(base, 'quote-home')
  mkdirSync(home)
  const r = install(pkg, home, ['--claude'])
  assert.equal(r.status, 0, r.stdout + r.stderr)
  const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'))
  const command = settings.hooks.UserPromptSubmit[0].hooks[0].command
  const cwd = join(base, 'quote-proj')
  mkdirSync(cwd)
  const state = join(base, 'quote-state', 'goal-system')
  const payload = JSON.stringify({
    session_id: 'quoted',
    cwd,
    hook_event_name: 'UserPromptSubmit',
    transcript_path: join(home, '.claude', 'projects', 'quote-proj', 'quoted.jsonl'),
    prompt_id: 'prompt-1',
    prompt: '/goal quoted paths work',
  })
  // Run as Claude Code runs a hooks-file command.
  const run = spawnAsHost('claude', ['/bin/sh', '-c', command], {
    input: payload,
    env: { ...process.env, HOME: home, GOAL_SYSTEM_STATE_ROOT: state },
  })
  assert.equal(run.status, 0, run.stderr)
  assert.equal(run.stderr, '', 'the native hook ran (no fallback)')
  assert.match(JSON.parse(run.stdout).hookSpecificOutput.additionalContext, /opened draft goal/)
})
