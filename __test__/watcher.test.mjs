// The tree's watcher from the adapters' side: the native hook starts it when
// it has to walk the goal's folder; the Node hook runner (the native hook's
// fallback, in the addon) never starts one but asks one that runs.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { root, runner, tempState, userOpens } from './helpers.mjs'

const native = join(root, 'native', 'goal-hook')
const session = 'watcher-adapters'

const locks = (stateRoot) => {
  const dir = join(stateRoot, 'watch')
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.lock')) : []
}
const alive = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/\) [ZX] /.test(stat)
  } catch {
    return false
  }
}
const waitFor = async (what, check, ms = 15_000) => {
  const start = Date.now()
  for (;;) {
    const value = check()
    if (value) return value
    if (Date.now() - start > ms) throw new Error(`${what}: not within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

test('the native hook starts the watcher, the Node runner only asks it', {
  skip: process.platform !== 'linux',
}, async () => {
  const state = tempState()
  const tree = join(state.home, 'project')
  mkdirSync(tree, { recursive: true })
  writeFileSync(join(tree, 'greet.sh'), 'echo hello\n')
  const env = { ...state.env, GOAL_SYSTEM_WATCH_IDLE_MS: '20000' }
  // The user's /goal goes through the native hook: no watcher from it, this test starts its own.
  userOpens({ ...state, hookEnv: { GOAL_SYSTEM_WATCH: 'off' } }, session, tree, 'make greet.sh greet twice', {
    requirements: ['R1'],
    remaining: ['x'],
  })
  const shell = (command) =>
    JSON.stringify({
      session_id: session,
      cwd: tree,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_response: { stdout: 'done', stderr: '' },
    })
  const run = (argv, command) => {
    const res = spawnSync(argv[0], argv.slice(1), { input: shell(command), env, encoding: 'utf8', timeout: 20_000 })
    assert.equal(res.status, 0, res.stderr)
    return JSON.parse(res.stdout)
  }
  const viaRunner = (command) => run([process.execPath, runner, 'claude', 'PostToolUse'], command)
  const viaNative = (command) => run([native, '--host', 'claude', 'PostToolUse'], command)
  const history = () => state.bySession(session).toolHistory
  try {
    // The Node runner walks (the change is seen) and starts nothing.
    writeFileSync(join(tree, 'greet.sh'), 'echo hello\necho hello\n')
    viaRunner('sed -i p greet.sh')
    viaRunner('sed -i p greet.sh')
    await new Promise((r) => setTimeout(r, 300))
    assert.deepEqual(locks(state.stateRoot), [], 'the addon started a watcher')

    // The native hook starts one.
    viaNative('npm test')
    const [lock] = await waitFor('a watcher', () => locks(state.stateRoot))
    const pid = Number(readFileSync(join(state.stateRoot, 'watch', lock), 'utf8'))
    await waitFor('the watcher running', () => alive(pid))
    // Its first question gives the goal a mark.
    await waitFor('a mark', () => {
      viaNative('npm test')
      return history().tree?.watch
    })

    // The runner asks it: the change is seen through it (the mark moves on).
    const before = history().tree.watch
    writeFileSync(join(tree, 'greet.sh'), 'echo bye\n')
    viaRunner('echo bye > greet.sh')
    const after = history()
    assert.deepEqual(after.lastChangeFiles, ['greet.sh'])
    assert.equal(after.lastChange, 'Bash: echo bye > greet.sh')
    assert.ok(after.tree.watch && after.tree.watch !== before, `${before} -> ${after.tree.watch}`)

    // It leaves with the state folder.
    state.cleanup()
    await waitFor('the watcher gone', () => !alive(pid))
  } finally {
    state.cleanup()
  }
})
