// OpenAI Codex CLI's interactive TUI (0.169.0), typed as a person types, with `goal-system install
// --codex` (issue 30): the user's own `/goal X` (Codex's built-in goal) is adopted as the goal
// system's objective, Esc runs Codex's Interrupt hook and pauses the goal, and the goal system's
// commands typed as README.md's table spells them for Codex (`$goal-system pause`, `$goal-system
// status`) reach the prompt hook and act. The TUI runs in tmux inside the loopback-only namespace
// (tui.mjs), hooks trusted for the run (`--dangerously-bypass-hook-trust`).
//
//   node --test e2e/tui-codex.test.mjs
// A missing Codex or tmux skips (GOAL_E2E_REQUIRE=1: fails).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { REPO_DIR, makeTempDir } from './hosts.mjs'
import { messagesText, startModelServer } from './model-server.mjs'
import { startTui, tuiUnavailableReason } from './tui.mjs'
import { listGoals, runInstaller } from './goal-helpers.mjs'

const KEEP = !!process.env.GOAL_E2E_KEEP
const OBJECTIVE = 'make the greeting script print hello twice'
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** README's spelling of `command` for Codex CLI (its column of "What to type, per host"). */
function readmeSpelling(command) {
  const readme = fs.readFileSync(path.join(REPO_DIR, 'README.md'), 'utf8')
  const rows = readme
    .slice(readme.indexOf('## What to type, per host'))
    .split('\n')
    .filter((l) => l.startsWith('|'))
  const cells = (line) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim())
  const col = cells(rows[0]).findIndex((h) => h.startsWith('Codex CLI'))
  assert.ok(col > 0, 'README table has a Codex CLI column')
  const row = rows.find((r) =>
    cells(r)[0]
      .split('/')
      .some((w) => w.trim() === command),
  )
  const code = row && /`([^`]+)`/.exec(cells(row)[col])?.[1]
  assert.ok(code, `README table: ${command} for Codex CLI`)
  return code
}

function skipReason() {
  const r = tuiUnavailableReason('codex')
  if (r && process.env.GOAL_E2E_REQUIRE) throw new Error(r)
  return r || false
}

test("Codex TUI: the user's /goal is adopted, Esc pauses it, $goal-system pause and status act as typed", {
  skip: skipReason(),
  timeout: 180_000,
}, async (t) => {
  const root = makeTempDir('tui-codex')
  const home = path.join(root, 'home')
  const cwd = path.join(root, 'proj')
  fs.mkdirSync(home, { recursive: true })
  fs.mkdirSync(cwd, { recursive: true })
  // Codex's goal turn gets a long command (so there is a turn to interrupt); every other
  // request a plain answer.
  let n = 0
  const server = await startModelServer([], {
    consume: () => false,
    sideReply: () =>
      ++n === 1 ? { toolCalls: [{ name: 'exec_command', args: { cmd: 'sleep 60' } }] } : { text: `answer ${n}` },
  })
  const install = runInstaller(home, ['--codex'])
  assert.equal(install.code, 0, install.stderr || install.stdout)
  const tui = await startTui({ host: 'codex', root: path.join(root, 'tui'), cwd, home, server })
  t.after(async () => {
    await tui.stop()
    await server.close?.()
    if (!KEEP) fs.rmSync(root, { recursive: true, force: true })
  })
  const goal = () => {
    const all = listGoals(home)
    assert.ok(all.length <= 1, JSON.stringify(all))
    return all[0]
  }
  const until = async (pred, what, ms = 20_000) => {
    const end = Date.now() + ms
    while (!pred()) {
      if (Date.now() > end)
        assert.fail(`${what}\n--- screen ---\n${tui.screen()}\n--- goal ---\n${JSON.stringify(goal())}`)
      await sleep(150)
    }
  }

  // 1. Codex's own /goal: no prompt hook sees it; the goal turn's first hook adopts it.
  await tui.type(`/goal ${OBJECTIVE}`)
  await tui.waitFor(/Goal active/, { timeoutMs: 20_000 })
  await until(() => goal()?.objective === OBJECTIVE, "Codex's /goal was adopted")
  assert.equal(goal().source?.kind, 'codex-goal')
  assert.equal(goal().completionStatus, 'draft')
  await tui.waitBusy()

  // 2. Esc: Codex runs its Interrupt hook; the goal system pauses the goal and says so.
  await tui.esc()
  await tui.waitFor(/Conversation interrupted/, { timeoutMs: 15_000 })
  await until(() => goal().completionStatus === 'paused', 'the interrupt paused the goal')
  assert.equal(goal().statusReason, 'interrupted by the user')
  await tui.waitFor(/Hook · \[goal-system\] Goal goal-\S+ paused: interrupted by the user/, { timeoutMs: 10_000 })
  assert.match(tui.screen(), /Goal paused/, 'Codex pauses its own goal on Esc as well')
  await tui.waitIdle({ quietMs: 1500 })

  // 3. `$goal-system pause` as typed: the prompt hook takes it (the rollout confirms it).
  const pause = readmeSpelling('pause')
  assert.equal(pause, '$goal-system pause')
  await tui.type(pause)
  await until(() => /paused by the user/.test(goal().statusReason ?? ''), 'the typed pause acted')
  await tui.waitFor(/Hook · \[goal-system\] Goal goal-\S+ paused by the user/, { timeoutMs: 10_000 })
  await tui.waitIdle({ quietMs: 1500 })
  await until(() => !goal().voice?.pending, "Codex's rollout confirmed the typed pause")
  assert.equal(goal().completionStatus, 'paused')

  // 4. Status as typed: the model is handed the goal's state with the prompt.
  const status = readmeSpelling('status')
  const before = server.modelRequests().length
  await tui.type(status)
  const withPrompt = () =>
    server
      .modelRequests()
      .slice(before)
      .find((q) => messagesText(q.body).includes(status))
  await until(() => withPrompt(), 'the status prompt reached the model as typed')
  assert.match(messagesText(withPrompt().body), new RegExp(`${goal().id}[\\s\\S]*paused`))
  await tui.waitIdle({ quietMs: 1500 })
  assert.equal(goal().completionStatus, 'paused', 'status changes nothing')
  t.diagnostic(`codex ${tui.version}: ${server.modelRequests().length} model requests`)
})
