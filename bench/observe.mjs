#!/usr/bin/env node
// What observing the working tree adds to a hook, at 1,000, 10,000 and
// 100,000 files (bench/tree.mjs): Claude Code's UserPromptSubmit, and its
// PostToolUse after a shell call and after an edit (the file really written
// before each call), run through the native hook three ways in one
// interleaved run: text only (a goal whose folder does not exist: nothing
// is observed, the words decide), walking the tree on every call
// (GOAL_SYSTEM_WATCH=off), and with the tree's watcher (started by the first
// hook, as in use). Each observing way has a tree of its own (one goal per
// tree, as in use: an edit is not another session's outside change).
// Against the floor program of bench/hooks.mjs.
// Usage: node bench/observe.mjs [iterations]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { addon, floorProgram, nativeHook, openAsUser } from './common.mjs'
import { makeTree } from './tree.mjs'

const iterations = Number(process.argv[2] ?? 20)
const native = nativeHook()
const floor = floorProgram()

const home = mkdtempSync(join(tmpdir(), 'goal-bench-observe-'))
const stateRoot = join(home, '.copilot', 'session-state', 'goal-system')
process.env.GOAL_SYSTEM_STATE_ROOT = stateRoot
const env = { ...process.env, HOME: home, GOAL_SYSTEM_STATE_ROOT: stateRoot }
const modes = {
  'text only': { env, tree: false },
  walk: { env: { ...env, GOAL_SYSTEM_WATCH: 'off' }, tree: true },
  watcher: { env, tree: true },
}

const stat = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const hook = (cwd, session, modeEnv, event, extra) => {
  const input = JSON.stringify({ session_id: session, cwd, hook_event_name: event, ...extra })
  const res = spawnSync(native, ['--host', 'claude', event], { input, env: modeEnv, encoding: 'utf8' })
  if (res.status !== 0 || !res.stdout.startsWith('{')) throw new Error(`${event}: ${res.status} ${res.stderr}`)
}

console.log(`Claude Code hooks, native, ${iterations} interleaved runs each (ms, medians)`)
console.log(
  'files'.padStart(7),
  'hook'.padEnd(22),
  'floor'.padStart(7),
  'text only'.padStart(10),
  'walk'.padStart(8),
  'watcher'.padStart(8),
  'walk/text'.padStart(10),
  'watch/text'.padStart(11),
  'watch/floor'.padStart(12),
)
for (const files of [1_000, 10_000, 100_000]) {
  const sessions = Object.fromEntries(
    Object.entries(modes).map(([mode, spec]) => {
      const name = mode.replace(' ', '-')
      const session = `bench-${files}-${name}`
      const cwd = spec.tree ? makeTree(join(home, `tree-${files}-${name}`), files) : join(home, `no-such-${files}`)
      openAsUser({ stateRoot, home }, session, cwd, 'observe the tree', {
        status: 'active',
        requirements: ['r'],
        remaining: ['x'],
      })
      return [mode, { ...spec, session, cwd, edited: join(cwd, 'src', 'm00', 'f0000', 'file0.js') }]
    }),
  )
  const events = [
    ['UserPromptSubmit', 'UserPromptSubmit', () => ({ prompt: 'carry on' })],
    [
      'PostToolUse (shell)',
      'PostToolUse',
      () => ({
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        tool_response: { stdout: 'ℹ tests 3\nℹ pass 3\nℹ fail 0', stderr: '' },
      }),
    ],
    [
      'PostToolUse (edit)',
      'PostToolUse',
      (i, s) => ({
        tool_name: 'Write',
        tool_input: { file_path: s.edited, content: `edit ${i}\n` },
        tool_response: {},
      }),
    ],
  ]
  const call = (mode, [, event, payload], i) => {
    const s = sessions[mode]
    const extra = payload(i, s)
    if (extra.tool_name === 'Write' && s.tree) writeFileSync(s.edited, extra.tool_input.content)
    return () => hook(s.cwd, s.session, s.env, event, extra)
  }
  // Warm up: the watcher starts with the first hook that walks, and the
  // hooks' kept trees are made; then it has time to make its watches.
  for (let i = 0; i < 3; i++) for (const mode of Object.keys(modes)) for (const e of events) call(mode, e, i)()
  await new Promise((r) => setTimeout(r, files >= 100_000 ? 3000 : 500))
  for (const mode of Object.keys(modes)) for (const e of events) call(mode, e, 3)()

  const times = {}
  const time = (name, fn) => {
    const t = process.hrtime.bigint()
    fn()
    ;(times[name] ??= []).push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  for (let i = 0; i < iterations; i++) {
    time('floor', () => spawnSync(floor, [join(home, 'floor.json')], { input: '{}' }))
    for (const e of events) {
      for (const mode of Object.keys(modes)) {
        const run = call(mode, e, 10 + i)
        time(`${e[0]}|${mode}`, run)
      }
    }
    // Progress is recorded now and then, as a model does (drift stays low).
    for (const { session, cwd } of Object.values(sessions))
      addon.updateGoalSync({ sessionId: session, cwd }, { doneSoFar: [`step ${i}`] })
  }
  const floorMs = stat(times.floor)
  for (const [name] of events) {
    const [text, walk, watch] = Object.keys(modes).map((m) => stat(times[`${name}|${m}`]))
    console.log(
      String(files).padStart(7),
      name.padEnd(22),
      floorMs.toFixed(2).padStart(7),
      text.toFixed(2).padStart(10),
      walk.toFixed(2).padStart(8),
      watch.toFixed(2).padStart(8),
      (walk / text).toFixed(2).padStart(10),
      (watch / text).toFixed(2).padStart(11),
      (watch / floorMs).toFixed(2).padStart(12),
    )
  }
  for (const { tree, cwd } of Object.values(sessions)) if (tree) rmSync(cwd, { recursive: true, force: true })
}
console.log(
  'At 100,000 files the tree is past the walk\'s cap (50,000 entries): the walk gives up there and the words decide; the watcher says "too big" at once.',
)
rmSync(home, { recursive: true, force: true })
