// goal-system install / uninstall / doctor, run as the real command against a temp
// HOME. The command runs from a copy of the package in a temp folder (as an install
// from a clone would), so every path it writes must point there.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { parseJsonObject } from '../cli/json-merge.mjs'
import { foreignElf } from './helpers.mjs'

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'goal-cli-install-'))
const pkg = path.join(scratch, 'pkg')

/** A copy of the package: real files copied (so tests can break them), big binaries linked. */
function makePackage() {
  fs.mkdirSync(pkg)
  for (const name of [
    'bin',
    'cli',
    'extension.mjs',
    'hooks',
    'skills',
    'agents',
    'adapters',
    'schema',
    'types',
    'package.json',
  ]) {
    fs.cpSync(path.join(repo, name), path.join(pkg, name), { recursive: true })
  }
  for (const name of ['index.js', 'goal-system.linux-x64-gnu.node', 'native', 'node_modules']) {
    if (fs.existsSync(path.join(repo, name))) fs.symlinkSync(path.join(repo, name), path.join(pkg, name))
  }
}

let homeCount = 0
/** A fresh HOME (and state root outside it) with the given files. */
function makeHome(files = {}) {
  const base = path.join(scratch, `h${++homeCount}`)
  const home = path.join(base, 'home')
  fs.mkdirSync(home, { recursive: true })
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true })
    fs.writeFileSync(path.join(home, rel), text)
  }
  return { home, stateRoot: path.join(base, 'state', 'goal-system'), file: (rel) => path.join(home, rel) }
}

function run(h, args, { input = '' } = {}) {
  const env = { ...process.env, HOME: h.home, GOAL_SYSTEM_STATE_ROOT: h.stateRoot }
  for (const k of [
    'XDG_CONFIG_HOME',
    'COPILOT_HOME',
    'CLAUDE_CONFIG_DIR',
    'GOAL_SYSTEM_VSCODE_USER_DIR',
    'GOAL_SYSTEM_SESSION_ID',
    'COPILOT_SESSION_ID',
    'CLAUDE_CODE_SESSION_ID',
  ])
    delete env[k]
  const res = spawnSync(process.execPath, [path.join(pkg, 'bin', 'goal-system.mjs'), ...args], {
    env,
    input,
    encoding: 'utf8',
  })
  return { code: res.status, out: res.stdout, err: res.stderr }
}

/** Every file under a folder (relative path -> content), and every folder. */
function snapshot(dir) {
  const files = {}
  const dirs = []
  const walk = (d) => {
    for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name)
      if (ent.isDirectory()) {
        dirs.push(path.relative(dir, p))
        walk(p)
      } else files[path.relative(dir, p)] = fs.readFileSync(p, 'utf8')
    }
  }
  walk(dir)
  return { files, dirs: dirs.sort() }
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'))
const isBackup = (rel) => /\.goal-system\.bak-\d{8}T\d{6}Z(-\d+)?$/.test(rel)

/** Files as a user might already have them: unrelated settings, hooks and servers. */
const EXISTING = {
  '.claude/settings.json': JSON.stringify({
    model: 'opus',
    hooks: {
      Stop: [{ hooks: [{ type: 'command', command: 'echo my-stop-hook' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo my-bash-check' }] }],
    },
    permissions: { allow: ['Bash(ls)'], deny: ['Read(.env)'] },
  }),
  '.claude.json':
    JSON.stringify(
      { numStartups: 3, mcpServers: { other: { command: 'other-server' } }, projects: { '/x': { a: 1 } } },
      null,
      2,
    ) + '\n',
  '.copilot/settings.json': '{\n    "theme": "dark"\n}\n',
  '.copilot/mcp-config.json': JSON.stringify(
    { mcpServers: { github: { type: 'local', command: 'gh-mcp', tools: ['*'] } } },
    null,
    2,
  ),
  '.copilot/hooks/other.json': JSON.stringify({
    version: 1,
    hooks: { preToolUse: [{ type: 'command', bash: 'echo other', timeoutSec: 5 }] },
  }),
  '.config/Code/User/mcp.json': JSON.stringify(
    { servers: { mine: { type: 'stdio', command: 'mine' } }, inputs: [] },
    null,
    '\t',
  ),
}

before(makePackage)
after(() => fs.rmSync(scratch, { recursive: true, force: true }))

describe('command surface', () => {
  test('--help, <command> --help and --version', () => {
    const h = makeHome()
    const main = run(h, ['--help'])
    assert.equal(main.code, 0)
    assert.match(main.out, /Exit codes:[\s\S]*2 {2}usage error[\s\S]*3 {2}state or file error/)
    for (const cmd of ['install', 'uninstall', 'doctor', 'list', 'status', 'show', 'open', 'update', 'close', 'mcp']) {
      assert.match(main.out, new RegExp(`\\n  ${cmd}\\b`), `${cmd} in --help`)
      const r = run(h, [cmd, '--help'])
      assert.equal(r.code, 0, `${cmd} --help`)
      assert.match(r.out, new RegExp(`^Usage: goal-system ${cmd}`), `${cmd} --help`)
    }
    for (const flag of ['--version', '-V']) {
      const version = run(h, [flag])
      assert.equal(version.code, 0)
      assert.equal(version.out.trim(), readJson(path.join(repo, 'package.json')).version)
    }
  })

  test('a misspelt command or option suggests the right one, briefly, with the program and command named', () => {
    const h = makeHome()
    const cmd = run(h, ['instal'])
    assert.equal(cmd.code, 2)
    assert.equal(
      cmd.err,
      'goal-system: unknown command "instal". Did you mean "install"?\nRun goal-system --help for the commands.\n',
    )
    assert.equal(cmd.out, '')
    const opt = run(h, ['install', '--dryrun'])
    assert.equal(opt.code, 2)
    assert.match(opt.err, /^goal-system install: Unknown option '--dryrun'\. Did you mean --dry-run\?/)
    assert.match(run(h, ['uninstall', '--project']).err, /^goal-system uninstall: /)
  })

  test('colour only on a terminal, or when FORCE_COLOR asks; NO_COLOR turns it off', async () => {
    const { colourEnabled } = await import('../cli/cli-ui.mjs')
    assert.equal(colourEnabled({ isTTY: true }, {}), true)
    assert.equal(colourEnabled({ isTTY: false }, {}), false)
    assert.equal(colourEnabled({ isTTY: true }, { NO_COLOR: '1' }), false)
    assert.equal(colourEnabled({ isTTY: false }, { FORCE_COLOR: '1' }), true)
    assert.equal(colourEnabled({ isTTY: true }, { FORCE_COLOR: '0' }), false)
    assert.equal(colourEnabled({ isTTY: true }, { TERM: 'dumb' }), false)
    // Through the command: FORCE_COLOR paints the error, NO_COLOR leaves it plain.
    const h = makeHome()
    const forced = spawnSync(
      process.execPath,
      [path.join(pkg, 'bin', 'goal-system.mjs'), 'install', '--project', '/nowhere/at/all'],
      { env: { ...process.env, HOME: h.home, FORCE_COLOR: '1' }, encoding: 'utf8' },
    )
    assert.match(forced.stderr, /\x1b\[31mgoal-system install: --project/)
    const plain = spawnSync(
      process.execPath,
      [path.join(pkg, 'bin', 'goal-system.mjs'), 'install', '--project', '/nowhere/at/all'],
      { env: { ...process.env, HOME: h.home, NO_COLOR: '1', FORCE_COLOR: '' }, encoding: 'utf8' },
    )
    assert.doesNotMatch(plain.stderr, /\x1b\[/)
  })

  test('30 runs of `install --dry-run | head -c 10` end without a stack trace', () => {
    const h = makeHome()
    for (let i = 0; i < 30; i++) {
      const res = spawnSync(
        'bash',
        ['-c', `node ${JSON.stringify(path.join(pkg, 'bin', 'goal-system.mjs'))} install --dry-run | head -c 10`],
        {
          env: { ...process.env, HOME: h.home, GOAL_SYSTEM_STATE_ROOT: h.stateRoot },
          encoding: 'utf8',
        },
      )
      assert.equal(res.stdout, 'goal-syste')
      assert.equal(res.stderr, '', `run ${i}: ${res.stderr}`)
    }
  })

  test('install --json prints the plan as data', () => {
    const h = makeHome()
    const r = run(h, ['install', '--claude', '--dry-run', '--json'])
    assert.equal(r.code, 0, r.err)
    const plan = JSON.parse(r.out)
    assert.equal(plan.dryRun, true)
    assert.deepEqual(plan.hosts, ['claude'])
    assert.ok(
      plan.files.some((f) => f.file === h.file('.claude/settings.json') && f.action === 'create'),
      r.out,
    )
    assert.deepEqual(snapshot(h.home).files, {})
  })

  test('the checkout itself: its templates load and --dry-run plans every file', () => {
    const h = makeHome()
    const res = spawnSync(process.execPath, [path.join(repo, 'bin', 'goal-system.mjs'), 'install', '--dry-run'], {
      env: { ...process.env, HOME: h.home, GOAL_SYSTEM_STATE_ROOT: h.stateRoot, XDG_CONFIG_HOME: '' },
      encoding: 'utf8',
    })
    assert.equal(res.status, 0, res.stderr)
    assert.ok(res.stdout.includes(`package: ${repo}`), res.stdout)
    assert.equal(res.stdout.match(/^\s+create\s/gm).length, 14, res.stdout)
    assert.deepEqual(snapshot(h.home), { files: {}, dirs: [] })
  })

  test('usage errors exit 2', () => {
    const h = makeHome()
    assert.equal(run(h, ['frobnicate']).code, 2)
    assert.equal(run(h, ['install', '--bogus']).code, 2)
    const r = run(h, ['install', '--project', path.join(h.home, 'nope')])
    assert.equal(r.code, 2)
    assert.match(r.err, /no such folder/)
    assert.deepEqual(snapshot(h.home).files, {})
  })
})

describe('install', () => {
  test('--dry-run prints the plan and writes nothing', () => {
    const h = makeHome(EXISTING)
    const before = snapshot(h.home)
    const r = run(h, ['install', '--dry-run'])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, new RegExp(`create\\s+${h.file('.copilot/hooks/goal-system.json')}`))
    assert.match(r.out, new RegExp(`update\\s+${h.file('.copilot/settings.json')}`))
    assert.match(r.out, /"experimental": true/)
    assert.match(r.out, new RegExp(`update\\s+${h.file('.claude/settings.json')}`))
    assert.match(r.out, /Dry run: nothing was written/)
    assert.deepEqual(snapshot(h.home), before)
  })

  test('merges into existing settings, is idempotent, and uninstall restores the originals', () => {
    const h = makeHome(EXISTING)
    const original = snapshot(h.home)

    const first = run(h, ['install'])
    assert.equal(first.code, 0, first.err)

    // Claude Code: our hooks added once per event, the stale one replaced, the user's kept.
    const claude = readJson(h.file('.claude/settings.json'))
    assert.equal(claude.model, 'opus')
    assert.deepEqual(claude.permissions.deny, ['Read(.env)'])
    assert.deepEqual(claude.permissions.allow, [
      'Bash(ls)',
      'mcp__goalSystem__goal_system_open',
      'mcp__goalSystem__goal_system_status',
      'mcp__goalSystem__goal_system_update',
      'mcp__goalSystem__goal_system_close',
    ])
    assert.deepEqual(claude.hooks.Stop[0], { hooks: [{ type: 'command', command: 'echo my-stop-hook' }] })
    assert.deepEqual(claude.hooks.PreToolUse[0], {
      matcher: 'Bash',
      hooks: [{ type: 'command', command: 'echo my-bash-check' }],
    })
    const commands = Object.values(claude.hooks)
      .flat()
      .flatMap((g) => g.hooks.map((e) => e.command))
    const runner = path.join(pkg, 'adapters', 'vscode-chat', 'hook-runner.mjs')
    const hook = path.join(pkg, 'native', 'goal-hook')
    for (const event of ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']) {
      const ours = commands.filter(
        (c) => c.includes(`"${hook}" --host claude ${event} ||`) && c.includes(`"${runner}" claude ${event} ||`),
      )
      assert.equal(ours.length, 1, `one ${event} hook`)
    }
    const claudeJson = readJson(h.file('.claude.json'))
    assert.equal(claudeJson.numStartups, 3)
    assert.deepEqual(claudeJson.projects, { '/x': { a: 1 } })
    assert.deepEqual(claudeJson.mcpServers.other, { command: 'other-server' })
    assert.deepEqual(claudeJson.mcpServers.goalSystem.args, [
      path.join(pkg, 'adapters', 'vscode-chat', 'mcp-server.mjs'),
    ])

    // Copilot CLI: hooks file, MCP server beside the user's, experimental flag, shim, skill.
    const hooks = readJson(h.file('.copilot/hooks/goal-system.json'))
    assert.equal(hooks.version, 1)
    for (const event of [
      'sessionStart',
      'userPromptSubmitted',
      'preToolUse',
      'postToolUse',
      'agentStop',
      'subagentStart',
      'preCompact',
    ]) {
      const [entry, ...more] = hooks.hooks[event]
      assert.equal(more.length, 0)
      // The native hook first, exec'd; when the exec fails, the seed's
      // hooks/goal-context.sh, told where the native hook is (it falls back to
      // Node, then an allow); an allow when the script cannot run.
      assert.equal(
        entry.bash,
        `set +e; shopt -s execfail 2>/dev/null && exec "${hook}" --host copilot-cli ${event};` +
          ` GOAL_SYSTEM_HOOK="${hook}" sh "${path.join(pkg, 'hooks', 'goal-context.sh')}" ${event} || echo '{}'`,
      )
      assert.ok(entry.powershell.includes(`& '${hook}' --host copilot-cli ${event}`), entry.powershell)
    }
    assert.equal(fs.readFileSync(h.file('.copilot/hooks/other.json'), 'utf8'), EXISTING['.copilot/hooks/other.json'])
    assert.deepEqual(readJson(h.file('.copilot/settings.json')), { theme: 'dark', experimental: true })
    assert.match(
      fs.readFileSync(h.file('.copilot/settings.json'), 'utf8'),
      /^\{\n {4}"theme"/,
      'keeps the 4-space indent',
    )
    // The extension offers the goal tools; Copilot's MCP registration is opt-in.
    assert.equal(fs.readFileSync(h.file('.copilot/mcp-config.json'), 'utf8'), EXISTING['.copilot/mcp-config.json'])
    // Claude Code's built-in /goal is replaced by ours.
    assert.match(fs.readFileSync(h.file('.claude/commands/goal.md'), 'utf8'), /\$ARGUMENTS/)
    const shim = fs.readFileSync(h.file('.copilot/extensions/goal-system/extension.mjs'), 'utf8')
    assert.match(shim, /generated by goal-system install/)
    assert.ok(shim.includes(`import ${JSON.stringify(pathToFileURL(path.join(pkg, 'extension.mjs')).href)}`), shim)
    // Copilot CLI keeps /goal for its autopilot: the skill is typed /goal-system.
    assert.ok(
      fs.readFileSync(h.file('.copilot/skills/goal-system/SKILL.md'), 'utf8').startsWith(
        fs
          .readFileSync(path.join(pkg, 'skills/goal/SKILL.md'), 'utf8')
          .replace(/^name: goal$/m, 'name: goal-system')
          .trimEnd(),
      ),
    )
    assert.equal(fs.existsSync(h.file('.copilot/skills/goal/SKILL.md')), false)

    // VS Code: user MCP server beside the user's; agent in the user prompts folder.
    const vscode = readJson(h.file('.config/Code/User/mcp.json'))
    assert.deepEqual(vscode.servers.mine, { type: 'stdio', command: 'mine' })
    assert.deepEqual(vscode.inputs, [])
    assert.equal(vscode.servers.goalSystem.command, 'node')
    assert.ok(fs.existsSync(h.file('.config/Code/User/prompts/goal-system.agent.md')))
    assert.ok(
      !JSON.stringify(snapshot(h.home).files).includes('${GOAL_SYSTEM_HOME}'),
      'placeholder replaced everywhere',
    )

    // One backup per changed pre-existing file, holding the original bytes.
    const afterFirst = snapshot(h.home)
    const backups = Object.keys(afterFirst.files).filter(isBackup)
    for (const rel of [
      '.claude/settings.json',
      '.claude.json',
      '.copilot/settings.json',
      '.config/Code/User/mcp.json',
    ]) {
      const mine = backups.filter((b) => b.startsWith(rel + '.goal-system.bak-'))
      assert.equal(mine.length, 1, `one backup of ${rel}`)
      assert.equal(afterFirst.files[mine[0]], original.files[rel])
    }

    // Second run: every file unchanged, byte for byte, and no new backup.
    const second = run(h, ['install'])
    assert.equal(second.code, 0, second.err)
    assert.doesNotMatch(second.out, /^\s+(create|update)\s/m)
    assert.match(second.out, /Installed: 0 file\(s\) changed/)
    assert.deepEqual(snapshot(h.home), afterFirst)

    // Uninstall: pre-existing files back to their original bytes (their backups, now
    // redundant, go too); created files and folders gone.
    const un = run(h, ['uninstall'])
    assert.equal(un.code, 0, un.err)
    assert.deepEqual(snapshot(h.home), original)
  })

  test('stale goal-system entries (an older clone) are replaced, not duplicated', () => {
    const stale = (event) => ({
      type: 'command',
      command: `node "/old/clone/adapters/vscode-chat/hook-runner.mjs" claude ${event}`,
      timeout: 10,
    })
    const h = makeHome({
      '.claude/settings.json': JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'echo keep-me' }, stale('PreToolUse')] }],
          Stop: [{ hooks: [stale('Stop')] }],
        },
      }),
      '.copilot/hooks/goal-system.json': JSON.stringify({
        version: 1,
        hooks: {
          agentStop: [{ type: 'command', bash: 'bash /old/clone/hooks/goal-context.sh agentStop', timeoutSec: 10 }],
        },
      }),
    })
    assert.equal(run(h, ['install', '--claude', '--copilot-cli']).code, 0)
    const text =
      fs.readFileSync(h.file('.claude/settings.json'), 'utf8') +
      fs.readFileSync(h.file('.copilot/hooks/goal-system.json'), 'utf8')
    assert.ok(!text.includes('/old/clone'), text)
    const claude = readJson(h.file('.claude/settings.json'))
    assert.deepEqual(claude.hooks.PreToolUse[0], {
      matcher: '*',
      hooks: [{ type: 'command', command: 'echo keep-me' }],
    })
    assert.equal(claude.hooks.PreToolUse.length, 2)
    assert.equal(claude.hooks.Stop.length, 1)
    assert.equal(readJson(h.file('.copilot/hooks/goal-system.json')).hooks.agentStop.length, 1)
  })

  test('an install written by the older layout (root hooks/, adapters/vscode-chat/, root extension.mjs) is uninstalled cleanly', () => {
    // What an install from the package before the adapters were split by host wrote;
    // its manifest is gone, so uninstall goes by the paths alone.
    const old = '/old/pkg'
    const oldRunner = (host, event) => `node "${old}/adapters/vscode-chat/hook-runner.mjs" ${host} ${event}`
    const oldServer = { command: 'node', args: [`${old}/adapters/vscode-chat/mcp-server.mjs`] }
    const userSettings = JSON.parse(EXISTING['.claude/settings.json'])
    const h = makeHome({
      '.claude/settings.json': JSON.stringify({
        ...userSettings,
        hooks: {
          Stop: [
            ...userSettings.hooks.Stop,
            { hooks: [{ type: 'command', command: oldRunner('claude', 'Stop'), timeout: 10 }] },
          ],
          PreToolUse: [
            ...userSettings.hooks.PreToolUse,
            { matcher: '*', hooks: [{ type: 'command', command: oldRunner('claude', 'PreToolUse'), timeout: 10 }] },
          ],
        },
      }),
      '.claude.json': JSON.stringify({
        numStartups: 3,
        mcpServers: { other: { command: 'x' }, goalSystem: oldServer },
      }),
      '.copilot/hooks/goal-system.json': JSON.stringify({
        version: 1,
        hooks: {
          preToolUse: [{ type: 'command', bash: `bash ${old}/hooks/goal-context.sh preToolUse`, timeoutSec: 10 }],
          agentStop: [{ type: 'command', bash: `bash ${old}/hooks/goal-context.sh agentStop`, timeoutSec: 10 }],
        },
      }),
      '.copilot/extensions/goal-system/extension.mjs': [
        '// generated by goal-system install: Copilot CLI loads this user extension, which runs the',
        `// Package: ${old}`,
        `import ${JSON.stringify(pathToFileURL(`${old}/extension.mjs`).href)}`,
        '',
      ].join('\n'),
    })
    const un = run(h, ['uninstall', '--claude', '--copilot-cli'])
    assert.equal(un.code, 0, un.err)
    assert.deepEqual(readJson(h.file('.claude/settings.json')), userSettings)
    assert.deepEqual(readJson(h.file('.claude.json')), { numStartups: 3, mcpServers: { other: { command: 'x' } } })
    assert.equal(fs.existsSync(h.file('.copilot/hooks/goal-system.json')), false)
    assert.equal(fs.existsSync(h.file('.copilot/extensions/goal-system/extension.mjs')), false)
    // Only the backups uninstall made of the files it changed still name the old package.
    const left = Object.entries(snapshot(h.home).files).filter(([rel, text]) => !isBackup(rel) && text.includes(old))
    assert.deepEqual(left, [])
  })

  test("an install of the previous release's layout (adapters/shared/, adapters/copilot-cli/) is uninstalled cleanly without its manifest", () => {
    const old = '/prev/pkg'
    const userSettings = JSON.parse(EXISTING['.claude/settings.json'])
    const h = makeHome({
      '.claude/settings.json': JSON.stringify({
        ...userSettings,
        hooks: {
          ...userSettings.hooks,
          SessionStart: [
            {
              hooks: [
                {
                  type: 'command',
                  command: `o=$("${old}/native/goal-hook" --host claude SessionStart) && printf '%s\\n' "$o" || node "${old}/adapters/shared/hook-runner.mjs" claude SessionStart || echo '{}'`,
                },
              ],
            },
          ],
        },
      }),
      '.claude.json': JSON.stringify({
        mcpServers: {
          other: { command: 'x' },
          goalSystem: { command: 'node', args: [`${old}/adapters/shared/mcp-server.mjs`] },
        },
      }),
      '.copilot/mcp-config.json': JSON.stringify({
        mcpServers: { goalSystem: { type: 'local', command: 'node', args: [`${old}/adapters/shared/mcp-server.mjs`] } },
      }),
      '.copilot/extensions/goal-system/extension.mjs': [
        '// generated by goal-system install: Copilot CLI loads this user extension, which runs the',
        `import ${JSON.stringify(pathToFileURL(`${old}/adapters/copilot-cli/extension.mjs`).href)}`,
        '',
      ].join('\n'),
    })
    const un = run(h, ['uninstall', '--claude', '--copilot-cli'])
    assert.equal(un.code, 0, un.err)
    assert.deepEqual(readJson(h.file('.claude/settings.json')), userSettings)
    assert.deepEqual(readJson(h.file('.claude.json')), { mcpServers: { other: { command: 'x' } } })
    // Not written by a recorded install: the file stays, without our server.
    assert.deepEqual(readJson(h.file('.copilot/mcp-config.json')), {})
    assert.equal(fs.existsSync(h.file('.copilot/extensions/goal-system/extension.mjs')), false)
  })

  test("an install of the previous release's layout (adapters/shared/, adapters/copilot-cli/) is migrated by install: doctor names it, install moves every entry, keeps the rest and its comments, and a second install changes nothing", () => {
    // The same package folder upgraded in place (npm install -g): the settings still name the
    // files where the previous release had them. Its manifest is there, as that install wrote it.
    const h = makeHome(EXISTING)
    assert.equal(run(h, ['install', '--copilot-mcp']).code, 0)
    const moved = {
      'adapters/vscode-chat/hook-runner.mjs': 'adapters/shared/hook-runner.mjs',
      'adapters/vscode-chat/mcp-server.mjs': 'adapters/shared/mcp-server.mjs',
      'hooks/goal-context.sh': 'adapters/copilot-cli/hooks/goal-context.sh',
    }
    const previous = (text) =>
      Object.entries(moved).reduce((t, [now, then]) => t.replaceAll(path.join(pkg, now), path.join(pkg, then)), text)
    const files = [
      '.claude/settings.json',
      '.claude.json',
      '.copilot/hooks/goal-system.json',
      '.copilot/mcp-config.json',
      '.config/Code/User/mcp.json',
      '.config/Code/User/prompts/goal-system.agent.md',
    ]
    // What the previous release wrote: its paths; and a user comment in a JSONC settings file.
    for (const rel of files) fs.writeFileSync(h.file(rel), previous(fs.readFileSync(h.file(rel), 'utf8')))
    // Copilot CLI's hooks of that release ran the native hook inline, then its runner.
    const copilotHooks = readJson(h.file('.copilot/hooks/goal-system.json'))
    for (const [event, [entry]] of Object.entries(copilotHooks.hooks))
      entry.bash = `o=$("${path.join(pkg, 'native', 'goal-hook')}") && printf '%s\\n' "$o" || node "${path.join(pkg, 'adapters/shared/hook-runner.mjs')}" copilot-cli ${event} || echo '{}'`
    fs.writeFileSync(h.file('.copilot/hooks/goal-system.json'), JSON.stringify(copilotHooks, null, 2))
    const claudeText = fs.readFileSync(h.file('.claude/settings.json'), 'utf8')
    fs.writeFileSync(h.file('.claude/settings.json'), `// my Claude settings\n${claudeText}`)
    fs.writeFileSync(
      h.file('.copilot/extensions/goal-system/extension.mjs'),
      fs
        .readFileSync(h.file('.copilot/extensions/goal-system/extension.mjs'), 'utf8')
        .replace(
          pathToFileURL(path.join(pkg, 'extension.mjs')).href,
          () => pathToFileURL(path.join(pkg, 'adapters/copilot-cli/extension.mjs')).href,
        ),
    )
    // That release's Copilot CLI skill was named "goal" (Copilot CLI's autopilot took /goal).
    const oldSkill = h.file('.copilot/skills/goal/SKILL.md')
    fs.mkdirSync(path.dirname(oldSkill), { recursive: true })
    fs.copyFileSync(h.file('.copilot/skills/goal-system/SKILL.md'), oldSkill)
    fs.rmSync(h.file('.copilot/skills/goal-system'), { recursive: true })
    const stale = () =>
      [...files, '.copilot/extensions/goal-system/extension.mjs'].filter((rel) =>
        /adapters[\\/](shared|copilot-cli)[\\/]/.test(fs.readFileSync(h.file(rel), 'utf8')),
      )
    assert.equal(stale().length, files.length + 1, 'every file names the previous layout')

    const before = run(h, ['doctor'])
    assert.equal(before.code, 1)
    assert.match(
      before.out,
      /adapters\/shared\/hook-runner\.mjs does not exist \(an earlier release's layout: goal-system install points it at adapters\/vscode-chat\/hook-runner\.mjs\)/,
    )
    assert.match(before.out, /adapters\/shared\/mcp-server\.mjs does not exist \(an earlier release's layout/)

    assert.match(before.out, /skills\/goal\/SKILL\.md: an earlier release's file/)

    // Without --copilot-mcp: the Copilot CLI server an earlier install registered moves too.
    const migrate = run(h, ['install'])
    assert.equal(migrate.code, 0, migrate.err)
    assert.deepEqual(stale(), [])
    assert.equal(fs.existsSync(oldSkill), false, 'the old skill is gone')
    assert.ok(fs.existsSync(h.file('.copilot/skills/goal-system/SKILL.md')))
    const text = fs.readFileSync(h.file('.claude/settings.json'), 'utf8')
    assert.ok(text.startsWith('// my Claude settings\n'), text)
    const claude = JSON.parse(text.slice(text.indexOf('\n')))
    assert.deepEqual(claude.hooks.Stop[0], JSON.parse(EXISTING['.claude/settings.json']).hooks.Stop[0])
    assert.equal(claude.hooks.Stop.length, 2, 'the old entry replaced, not kept beside the new one')
    assert.equal(claude.model, 'opus')
    assert.deepEqual(readJson(h.file('.copilot/mcp-config.json')).mcpServers.goalSystem.args, [
      path.join(pkg, 'adapters', 'vscode-chat', 'mcp-server.mjs'),
    ])
    assert.deepEqual(Object.keys(readJson(h.file('.copilot/mcp-config.json')).mcpServers), ['github', 'goalSystem'])
    assert.ok(
      readJson(h.file('.copilot/hooks/goal-system.json')).hooks.preToolUse[0].bash.includes(
        path.join(pkg, 'hooks', 'goal-context.sh'),
      ),
    )
    const after = run(h, ['doctor'])
    assert.equal(after.code, 0, after.out)

    const again = run(h, ['install'])
    assert.equal(again.code, 0, again.err)
    assert.match(again.out, /Installed: 0 file\(s\) changed/)
  })

  test('a fresh HOME: uninstall removes everything install created', () => {
    const h = makeHome()
    assert.equal(run(h, ['install']).code, 0)
    assert.ok(fs.existsSync(h.file('.copilot/goal-system-install.json')))
    const un = run(h, ['uninstall'])
    assert.equal(un.code, 0, un.err)
    assert.deepEqual(snapshot(h.home), { files: {}, dirs: [] })
  })

  // Copilot CLI's bash execs the native hook and runs nothing after it: a hook
  // that does not run on this machine must not be exec'd.
  test("a native hook that does not run here is not exec'd: Copilot CLI's command starts at the script, and answers", () => {
    const other = path.join(scratch, 'pkg-foreign-hook')
    fs.cpSync(pkg, other, { recursive: true, verbatimSymlinks: true })
    fs.rmSync(path.join(other, 'native'), { recursive: true, force: true })
    fs.mkdirSync(path.join(other, 'native'))
    const hook = foreignElf(path.join(other, 'native', 'goal-hook'))
    const h = makeHome()
    const env = { ...process.env, HOME: h.home, GOAL_SYSTEM_STATE_ROOT: h.stateRoot }
    delete env.COPILOT_HOME
    const cli = (args) =>
      spawnSync(process.execPath, [path.join(other, 'bin', 'goal-system.mjs'), ...args], { env, encoding: 'utf8' })
    const r = cli(['install', '--copilot-cli'])
    assert.equal(r.status, 0, r.stderr)
    const bash = readJson(h.file('.copilot/hooks/goal-system.json')).hooks.preToolUse[0].bash
    assert.equal(
      bash,
      `GOAL_SYSTEM_HOOK="${hook}" sh "${path.join(other, 'hooks', 'goal-context.sh')}" preToolUse || echo '{}'`,
    )
    // As Copilot CLI runs it: the script tries the hook, then Node answers.
    const payload = JSON.stringify({
      sessionId: 's-foreign',
      cwd: h.home,
      toolName: 'bash',
      toolArgs: { command: 'ls' },
    })
    const answer = spawnSync('/bin/bash', ['-c', bash], { input: payload, env, encoding: 'utf8' })
    assert.equal(answer.status, 0, answer.stderr)
    assert.ok(answer.stdout.startsWith('{'), answer.stdout)
    assert.match(answer.stderr, /falling back to Node/)
    // doctor holds the installed command to the same plan.
    const doctor = cli(['doctor'])
    assert.doesNotMatch(doctor.stdout, /preToolUse hook runs/, doctor.stdout)
  })

  test('--copilot-mcp registers the MCP server with Copilot CLI; uninstall removes it', () => {
    const h = makeHome({ '.copilot/mcp-config.json': EXISTING['.copilot/mcp-config.json'] })
    assert.equal(run(h, ['install', '--copilot-cli', '--copilot-mcp']).code, 0)
    const mcp = readJson(h.file('.copilot/mcp-config.json'))
    assert.deepEqual(Object.keys(mcp.mcpServers), ['github', 'goalSystem'])
    assert.equal(mcp.mcpServers.goalSystem.type, 'local')
    assert.deepEqual(mcp.mcpServers.goalSystem.tools, ['*'])
    const un = run(h, ['uninstall', '--copilot-cli'])
    assert.equal(un.code, 0, un.err)
    assert.equal(fs.readFileSync(h.file('.copilot/mcp-config.json'), 'utf8'), EXISTING['.copilot/mcp-config.json'])
  })

  test('a settings file that is not valid JSONC: refuses, names it, exit 3, nothing changed', () => {
    const h = makeHome({ ...EXISTING, '.claude.json': '{"numStartups": 3,\n  "mcpServers": {\n' })
    const before = snapshot(h.home)
    const r = run(h, ['install'])
    assert.equal(r.code, 3)
    assert.ok(r.err.includes(`${h.file('.claude.json')} is not valid JSONC`), r.err)
    assert.match(r.err, /at line 3, column 1/)
    assert.match(r.err, /Nothing was changed/)
    assert.deepEqual(snapshot(h.home), before)
  })

  test('VS Code JSONC files keep their comments and trailing commas through install, and uninstall restores their bytes', () => {
    const mcp = [
      '{',
      '  // My servers: keep this note',
      '  "servers": {',
      '    "mine": {',
      '      "type": "stdio",',
      '      "command": "mine", // trailing comment',
      '    },',
      '  },',
      '  /* inputs stay too */',
      '  "inputs": [],',
      '}',
      '',
    ].join('\n')
    const settings = '{\n\t// editor\n\t"editor.tabSize": 4,\n\t"chat.agent.enabled": true,\n}\n'
    const h = makeHome({ '.config/Code/User/mcp.json': mcp, '.config/Code/User/settings.json': settings })
    const r = run(h, ['install', '--vscode'])
    assert.equal(r.code, 0, r.err)
    const after = fs.readFileSync(h.file('.config/Code/User/mcp.json'), 'utf8')
    for (const line of mcp.split('\n').filter((l) => l.includes('//') || l.includes('/*')))
      assert.ok(after.includes(line), `kept: ${line}\n${after}`)
    assert.match(after, /"goalSystem": \{\n {6}"type": "stdio",/, "our server laid out in the file's indentation")
    assert.ok(after.includes(`${path.join(pkg, 'adapters', 'vscode-chat', 'mcp-server.mjs')}`), after)
    // The agent carries the hooks; VS Code runs them once its setting is on.
    assert.equal(
      fs.readFileSync(h.file('.config/Code/User/settings.json'), 'utf8'),
      settings.replace(
        '\t"chat.agent.enabled": true,\n',
        '\t"chat.agent.enabled": true,\n\t"chat.useCustomAgentHooks": true,\n',
      ),
    )
    const agent = fs.readFileSync(h.file('.config/Code/User/prompts/goal-system.agent.md'), 'utf8')
    assert.match(
      agent,
      new RegExp(
        `^  PreToolUse:\n    - type: command\n      command: 'node "${pkg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/adapters/vscode-chat/hook-runner\\.mjs" vscode PreToolUse'`,
        'm',
      ),
    )

    // Install again: nothing changes; then uninstall gives back the original bytes.
    assert.equal(run(h, ['install', '--vscode']).code, 0)
    assert.equal(fs.readFileSync(h.file('.config/Code/User/mcp.json'), 'utf8'), after)
    const un = run(h, ['uninstall', '--vscode'])
    assert.equal(un.code, 0, un.err)
    assert.equal(fs.readFileSync(h.file('.config/Code/User/mcp.json'), 'utf8'), mcp)
    assert.equal(fs.readFileSync(h.file('.config/Code/User/settings.json'), 'utf8'), settings)
  })

  test('a JSONC settings file edited by the user after install: uninstall removes only our entries and keeps their edits and comments', () => {
    const claude =
      '{\n  // permissions I chose\n  "permissions": {\n    "allow": [\n      "Bash(ls)", // listing is fine\n    ],\n  },\n}\n'
    const h = makeHome({ '.claude/settings.json': claude })
    assert.equal(run(h, ['install', '--claude']).code, 0)
    const installed = fs.readFileSync(h.file('.claude/settings.json'), 'utf8')
    assert.ok(installed.includes('"Bash(ls)", // listing is fine'), installed)
    assert.match(installed, /mcp__goalSystem__goal_system_status/)
    // The user adds a key of their own, with a comment.
    fs.writeFileSync(h.file('.claude/settings.json'), installed.replace('{\n', '{\n  // mine\n  "model": "opus",\n'))
    assert.equal(run(h, ['uninstall', '--claude']).code, 0)
    const left = fs.readFileSync(h.file('.claude/settings.json'), 'utf8')
    assert.equal(left, claude.replace('{\n', '{\n  // mine\n  "model": "opus",\n'))
  })

  test('a file of the same name that is not ours is refused (exit 1), nothing changed', () => {
    const h = makeHome({ '.copilot/skills/goal-system/SKILL.md': '---\nname: goal-system\n---\nmy own skill\n' })
    const before = snapshot(h.home)
    const r = run(h, ['install', '--copilot-cli'])
    assert.equal(r.code, 1)
    assert.ok(
      r.err.includes(`${h.file('.copilot/skills/goal-system/SKILL.md')} exists and was not written by goal-system`),
      r.err,
    )
    assert.deepEqual(snapshot(h.home), before)
  })

  test('--project writes the workspace layout; uninstall --project restores it', () => {
    const h = makeHome({ '.claude/settings.json': '{"permissions":{"allow":["Bash(ls)"]}}' })
    const proj = path.join(path.dirname(h.home), 'proj')
    fs.mkdirSync(proj)
    fs.writeFileSync(
      path.join(proj, '.mcp.json'),
      JSON.stringify({ mcpServers: { db: { command: 'db-mcp' } } }, null, 2) + '\n',
    )
    const projBefore = snapshot(proj)
    const homeBefore = snapshot(h.home)

    const r = run(h, ['install', '--project', proj])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /Copilot CLI is installed at user level/)
    const runner = path.join(pkg, 'adapters', 'vscode-chat', 'hook-runner.mjs')
    const vsHooks = readJson(path.join(proj, '.github/hooks/goal-system.json'))
    assert.ok(vsHooks.hooks.PreToolUse[0].command.includes(`"${runner}" vscode PreToolUse`))
    assert.ok(
      readJson(path.join(proj, '.claude/settings.json')).hooks.Stop[0].hooks[0].command.includes(
        `"${runner}" claude Stop`,
      ),
    )
    assert.deepEqual(Object.keys(readJson(path.join(proj, '.mcp.json')).mcpServers), ['db', 'goalSystem'])
    assert.ok(readJson(path.join(proj, '.vscode/mcp.json')).servers.goalSystem)
    assert.ok(fs.existsSync(path.join(proj, '.github/agents/goal-system.agent.md')))
    assert.doesNotMatch(
      fs.readFileSync(path.join(proj, '.github/agents/goal-system.agent.md'), 'utf8'),
      /^hooks:/m,
      'the workspace hooks file runs them; the agent must not run them again',
    )
    // Claude's MCP permissions are honoured only in the user settings; no user hooks there.
    const userClaude = readJson(h.file('.claude/settings.json'))
    assert.equal(userClaude.permissions.allow.length, 5)
    assert.equal(userClaude.hooks, undefined)
    assert.equal(fs.existsSync(h.file('.claude.json')), false)
    assert.equal(fs.existsSync(h.file('.config/Code/User/mcp.json')), false)
    assert.ok(fs.existsSync(h.file('.copilot/hooks/goal-system.json')))

    // A user-level install too: the shared permissions stay until the last install goes.
    assert.equal(run(h, ['install', '--claude']).code, 0)
    assert.equal(run(h, ['uninstall', '--project', proj]).code, 0)
    assert.deepEqual(snapshot(proj), projBefore)
    assert.equal(readJson(h.file('.claude/settings.json')).permissions.allow.length, 5)
    assert.ok(readJson(h.file('.claude/settings.json')).hooks.Stop)
    assert.equal(run(h, ['uninstall', '--claude']).code, 0)
    const homeAfter = snapshot(h.home)
    // The second install changed the file again, so its backup of that state stays.
    assert.deepEqual(Object.keys(homeAfter.files).filter(isBackup).length, 1)
    assert.deepEqual(
      { ...homeAfter, files: Object.fromEntries(Object.entries(homeAfter.files).filter(([f]) => !isBackup(f))) },
      homeBefore,
    )
  })
})

describe('doctor', () => {
  test('passes after install; fails with the fix once a path is broken', () => {
    const h = makeHome(EXISTING)
    assert.equal(run(h, ['install']).code, 0)
    const ok = run(h, ['doctor'])
    assert.equal(ok.code, 0, ok.out + ok.err)
    assert.match(ok.out, /All checks passed/)
    assert.match(ok.out, /native hook answers \{\}/)
    const json = JSON.parse(run(h, ['doctor', '--json']).out)
    assert.equal(json.ok, true)
    assert.equal(json.package, pkg)

    // The Copilot CLI hooks file deleted.
    fs.rmSync(h.file('.copilot/hooks/goal-system.json'))
    const missing = run(h, ['doctor'])
    assert.equal(missing.code, 1)
    assert.ok(
      missing.out.includes(`FAIL  Copilot CLI: ${h.file('.copilot/hooks/goal-system.json')}: missing`),
      missing.out,
    )
    assert.match(missing.out, /fix: goal-system install --copilot-cli/)
    assert.equal(run(h, ['install', '--copilot-cli']).code, 0)
    assert.equal(run(h, ['doctor']).code, 0)

    // A Claude hook pointed at a script that does not exist.
    const settings = readJson(h.file('.claude/settings.json'))
    const group = settings.hooks.PreToolUse.find((g) => g.hooks[0].command.includes('hook-runner.mjs'))
    group.hooks[0].command = 'node "/nowhere/adapters/vscode-chat/hook-runner.mjs" claude PreToolUse'
    fs.writeFileSync(h.file('.claude/settings.json'), JSON.stringify(settings))
    const broken = run(h, ['doctor', '--json'])
    assert.equal(broken.code, 1)
    const finding = JSON.parse(broken.out).findings.find((f) => f.status === 'fail')
    assert.equal(finding.area, 'Claude Code')
    assert.match(finding.message, /\/nowhere\/adapters\/vscode-chat\/hook-runner\.mjs does not exist/)
    assert.equal(finding.fix, 'goal-system install --claude')

    // The experimental flag turned off, and a hooks file that is not JSON.
    assert.equal(run(h, ['install']).code, 0)
    fs.writeFileSync(h.file('.copilot/settings.json'), '{"experimental": false}')
    fs.writeFileSync(h.file('.copilot/hooks/goal-system.json'), '{"version": 1, "hooks": ')
    const flags = run(h, ['doctor'])
    assert.equal(flags.code, 1)
    assert.match(flags.out, /experimental is false, expected true/)
    assert.match(flags.out, /goal-system\.json: not valid JSONC/)
  })

  test('nothing installed, and state files readable by others, are failures', () => {
    const h = makeHome()
    const none = run(h, ['doctor'])
    assert.equal(none.code, 1)
    assert.match(none.out, /not installed for any host/)

    assert.equal(run(h, ['install', '--claude']).code, 0)
    fs.mkdirSync(path.join(h.stateRoot, 'by-session'), { recursive: true, mode: 0o700 })
    fs.chmodSync(h.stateRoot, 0o700)
    fs.writeFileSync(path.join(h.stateRoot, 'by-session', 'x.json'), '{}', { mode: 0o644 })
    const loose = run(h, ['doctor', '--claude'])
    assert.equal(loose.code, 1)
    assert.match(loose.out, /state files readable by others: .*x\.json \(644, want 600\)/)
    assert.match(loose.out, /fix: chmod -R go-rwx/)
    fs.chmodSync(path.join(h.stateRoot, 'by-session', 'x.json'), 0o600)
    assert.equal(run(h, ['doctor', '--claude']).code, 0)
  })
})

describe('Codex CLI and Gemini CLI', () => {
  test('install --codex: hooks.json and a marked MCP block in config.toml; idempotent; doctor; uninstall gives the bytes back', () => {
    const mine = '# my settings\nmodel = "gpt-5.5"\n\n[mcp_servers.other]\ncommand = "x"'
    const h = makeHome({ '.codex/config.toml': mine })
    assert.equal(run(h, ['install', '--codex']).code, 0)
    const config = fs.readFileSync(h.file('.codex/config.toml'), 'utf8')
    assert.ok(config.startsWith(`${mine}\n\n# generated by goal-system install`), config)
    assert.match(
      config,
      /\[mcp_servers\.goal-system\]\ncommand = "node"\nargs = \[".*\/adapters\/vscode-chat\/mcp-server\.mjs"\]/,
    )
    assert.ok(config.includes(pkg), 'the MCP server of this package')
    const hooks = readJson(h.file('.codex/hooks.json')).hooks
    assert.deepEqual(Object.keys(hooks), [
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'PreCompact',
      'SubagentStart',
      'SubagentStop',
      'Stop',
      'Interrupt',
    ])
    // Codex clamps an Interrupt hook's timeout to 3 s (and warns at each start for a longer one).
    assert.equal(hooks.Interrupt[0].hooks[0].timeout, 3)
    assert.match(hooks.Stop[0].hooks[0].command, /goal-hook" --host codex Stop \|\|/)
    const before = snapshot(h.home)
    assert.equal(run(h, ['install', '--codex']).code, 0)
    assert.deepEqual(snapshot(h.home).files, before.files, 'a second install changes nothing')
    const doctor = run(h, ['doctor', '--codex'])
    assert.match(doctor.out, /config\.toml: Codex CLI MCP server/)
    assert.doesNotMatch(doctor.out, /config\.toml: (missing|has no|out of date)/)
    // A block edited by hand is out of date for doctor, and install puts it right.
    fs.writeFileSync(h.file('.codex/config.toml'), config.replace('command = "node"', 'command = "nodejs"'))
    assert.match(run(h, ['doctor', '--codex']).out, /config\.toml: out of date/)
    assert.equal(run(h, ['install', '--codex']).code, 0)
    assert.equal(fs.readFileSync(h.file('.codex/config.toml'), 'utf8'), config)
    assert.equal(run(h, ['uninstall', '--codex']).code, 0)
    assert.equal(fs.readFileSync(h.file('.codex/config.toml'), 'utf8'), mine, 'config.toml byte for byte')
    assert.equal(fs.existsSync(h.file('.codex/hooks.json')), false)
  })

  test('install --codex refuses a [mcp_servers.goal-system] of the user; a fresh HOME is cleaned up entirely', () => {
    const h = makeHome({ '.codex/config.toml': '[mcp_servers.goal-system]\ncommand = "mine"\n' })
    const r = run(h, ['install', '--codex'])
    assert.notEqual(r.code, 0)
    assert.match(r.out + r.err, /already has \[mcp_servers\.goal-system\]/)
    const fresh = makeHome()
    assert.equal(run(fresh, ['install', '--codex', '--gemini']).code, 0)
    assert.ok(fs.existsSync(fresh.file('.codex/config.toml')))
    assert.equal(run(fresh, ['uninstall', '--codex', '--gemini']).code, 0)
    assert.deepEqual(snapshot(fresh.home), { files: {}, dirs: [] })
  })

  test('install --gemini merges hooks and mcpServers into settings.json and leaves the default hosts alone', () => {
    const mine = '{\n  // mine\n  "ui": { "theme": "GitHub" },\n}\n'
    const h = makeHome({ '.gemini/settings.json': mine })
    assert.equal(run(h, ['install', '--gemini']).code, 0)
    const settings = parseJsonObject(fs.readFileSync(h.file('.gemini/settings.json'), 'utf8'))
    assert.deepEqual(Object.keys(settings.hooks), [
      'SessionStart',
      'BeforeAgent',
      'BeforeTool',
      'AfterTool',
      'PreCompress',
      'AfterAgent',
    ])
    assert.equal(settings.hooks.BeforeTool[0].matcher, '.*')
    assert.match(settings.hooks.AfterAgent[0].hooks[0].command, /--host gemini AfterAgent/)
    assert.equal(settings.mcpServers['goal-system'].command, 'node')
    assert.equal(fs.existsSync(h.file('.claude/settings.json')), false, 'no other host was wired')
    assert.equal(run(h, ['doctor', '--gemini']).code, 0)
    assert.equal(run(h, ['uninstall', '--gemini']).code, 0)
    assert.equal(fs.readFileSync(h.file('.gemini/settings.json'), 'utf8'), mine)
  })
})
