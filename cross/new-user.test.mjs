// As a new user gets it: `npm pack`, then the tarball and this machine's
// platform package installed into a clean folder, with no cargo or rustc on
// the PATH and a temporary HOME. `npx goal-system install`, `doctor` and a hook
// round trip through the installed hooks file must all work.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'

import { claudeWritesDown, spawnAsHost } from '../__test__/helpers.mjs'
import { platformId } from '../cli/install-native.mjs'
import { npmDir, root } from './tools.mjs'

let base, app, home, env, packed

/** PATH without any folder that holds cargo or rustc. */
function pathWithoutRust() {
  return (process.env.PATH ?? '')
    .split(':')
    .filter((d) => d && !existsSync(join(d, 'cargo')) && !existsSync(join(d, 'rustc')))
    .join(':')
}

const sh = (cmd, args, opts = {}) => spawnSync(cmd, args, { encoding: 'utf8', env, timeout: 300_000, ...opts })

before(() => {
  base = mkdtempSync(join(tmpdir(), 'goal-new-user-'))
  app = join(base, 'app')
  home = join(base, 'home')
  mkdirSync(app)
  mkdirSync(home)
  env = {
    PATH: pathWithoutRust(),
    HOME: home,
    LANG: 'C.UTF-8',
    // The user's npm cache, so the dependencies need not be fetched again.
    npm_config_cache: process.env.npm_config_cache || join(homedir(), '.npm'),
    npm_config_update_notifier: 'false',
  }
  const pack = (dir) => {
    const r = sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', base], { cwd: dir })
    assert.equal(r.status, 0, r.stderr)
    return JSON.parse(r.stdout)[0]
  }
  packed = { main: pack(root), platform: pack(npmDir(platformId())) }
})
after(() => rmSync(base, { recursive: true, force: true }))

test('the tarball holds only what a user needs', () => {
  const files = packed.main.files.map((f) => f.path)
  // schema/ and types/ are generated from the Rust types (read at run time, and the typings);
  // plugins/ and the three marketplace files are the host plugin route; agents/ the consolidation agent.
  const allowed =
    /^(index\.js|index\.d\.ts|package\.json|LICENSE|README\.md|CHANGELOG\.md|extension\.mjs|(adapters|agents|bin|cli|schema|types|plugins|hooks|skills)\/.+|\.claude-plugin\/marketplace\.json|\.github\/plugin\/marketplace\.json|\.agents\/plugins\/marketplace\.json)$/
  assert.deepEqual(
    files.filter((f) => !allowed.test(f)),
    [],
  )
  for (const f of [
    'index.js',
    'bin/goal-system.mjs',
    'hooks/hooks.json',
    'adapters/vscode-chat/hook-runner.mjs',
    'adapters/vscode-chat/mcp-sdk.bundle.mjs',
    'extension.mjs',
    'hooks/goal-context.sh',
    'skills/goal/SKILL.md',
    '.agents/plugins/marketplace.json',
    'plugins/codex/goal-system/.codex-plugin/plugin.json',
    'plugins/gemini/goal-system/gemini-extension.json',
    'LICENSE',
  ]) {
    assert.ok(files.includes(f), `${f} is packed`)
  }
  assert.ok(!files.some((f) => f.endsWith('.node') || f.startsWith('native/')), 'no binary in the main package')
  assert.deepEqual(
    packed.platform.files.map((f) => f.path).sort(),
    [`goal-system.${platformId()}.node`, 'goal-hook', 'package.json', 'README.md'].sort(),
  )
})

test('installed with no Rust on PATH: no build runs, install, doctor and a hook round trip work', () => {
  const rust = sh('sh', ['-c', 'command -v cargo || command -v rustc'])
  assert.ok(rust.status !== 0 && rust.stdout === '', `no cargo or rustc on PATH: ${rust.stdout}`)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }))
  const inst = sh(
    'npm',
    ['install', '--no-audit', '--no-fund', join(base, packed.main.filename), join(base, packed.platform.filename)],
    { cwd: app },
  )
  assert.equal(inst.status, 0, inst.stderr)
  const pkg = join(app, 'node_modules', 'goal-system')
  assert.ok(!existsSync(join(pkg, 'target')) && !existsSync(join(pkg, 'native')), 'nothing was built')
  assert.ok(
    !existsSync(join(app, 'node_modules', '@github', 'copilot-sdk')),
    'the Copilot SDK (an optional peer) is not installed',
  )

  const install = sh('npx', ['--no-install', 'goal-system', 'install'], { cwd: app })
  assert.equal(install.status, 0, install.stdout + install.stderr)
  const hook = join(app, 'node_modules', `goal-system-${platformId()}`, 'goal-hook')
  assert.ok(install.stdout.includes(`native hook: ${hook} (platform package)`), install.stdout)

  const doctor = sh('npx', ['--no-install', 'goal-system', 'doctor'], { cwd: app })
  assert.equal(doctor.status, 0, doctor.stdout + doctor.stderr)
  assert.match(doctor.stdout, /All checks passed/)
  assert.match(doctor.stdout, new RegExp(`addon loads for ${platformId()}`))

  // Claude Code's installed hooks: /goal opens a draft, a stop is then blocked.
  const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'))
  const command = (event) =>
    settings.hooks[event].flatMap((g) => g.hooks).find((h) => h.command.includes('goal-hook')).command
  assert.ok(command('Stop').includes(`"${hook}" --host claude Stop`), command('Stop'))
  const cwd = join(base, 'proj')
  mkdirSync(cwd)
  // As Claude Code runs its hooks, writing the prompt down in its transcript (a user command
  // counts only from the host).
  const transcript_path = join(home, '.claude', 'projects', 'proj', 'new-user.jsonl')
  const send = (event, payload) => {
    const sent = { session_id: 'new-user', cwd, transcript_path, hook_event_name: event, ...payload }
    const r = spawnAsHost('claude', ['/bin/sh', '-c', command(event)], { input: JSON.stringify(sent), env, cwd })
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stderr, '', 'the native hook answered (no fallback)')
    const out = JSON.parse(r.stdout)
    claudeWritesDown(sent, out)
    return out
  }
  assert.match(
    send('UserPromptSubmit', { prompt: '/goal ship the greeting', prompt_id: 'p-1' }).hookSpecificOutput
      .additionalContext,
    /opened draft goal/,
  )
  assert.equal(send('Stop', { stop_hook_active: false }).decision, 'block')
  const goals = readdirSync(join(home, '.copilot', 'session-state', 'goal-system', 'by-session'))
  assert.deepEqual(goals, ['new-user.json'])
})
