// The user's commands and interrupts typed as people type them, in the hosts' interactive TUIs
// (issue 32): Claude Code (each pinned version) and Copilot CLI, with the goal system installed
// each documented way (`goal-system install`, and the host's plugin). Every command is typed
// exactly as README.md's table "What to type, per host" spells it for that host and route (the
// table is read from README.md, so the test follows what a user reads), in one TUI session per
// host and route:
//
//   open -> (held stop names the host's pause and cancel) -> work -> interrupt (Esc / Esc Esc)
//   -> a plain prompt (the goal is paused by the interrupt; that stop is free) -> status -> budget
//   -> resume -> work -> interrupt -> pause -> replace (open again) -> work -> interrupt
//   -> cancel (bare after `goal-system install`, with a reason after the plugin) -> a plain prompt
//
// Checked at each step: the goal's stored state; that a command the goal system consumes (pause,
// budget, cancel) reaches the model not at all (no request while it is handled); that a free stop
// gets exactly one model request (nothing held); that no built-in goal of the host runs beside
// the goal system's (Claude Code: no "Goal set:" and no judge request; Copilot CLI: no autopilot
// objective made of a command); and, where the route has one, that the status line shows the
// state.
//
//   node --test e2e/tui-commands.test.mjs
// Claude Code versions: the pinned ones (install-hosts.mjs), or GOAL_E2E_TUI_CLAUDE_VERSIONS=a,b,c.
// Gemini CLI 0.61.0 too (`goal-system install --gemini`, and its extension), in a shorter flow of
// its own below: it has no interrupt record the goal system reads, and a command the hook handles
// still reaches the model once (BeforeAgent is not denied there).
// GOAL_E2E_ONLY=claude|copilot|gemini keeps one host. A missing host or tmux skips (GOAL_E2E_REQUIRE=1: fails).

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { REPO_DIR, geminiCommand, makeTempDir, readEventsFile } from './hosts.mjs'
import { HOST_PACKAGES } from './install-hosts.mjs'
import { isSideRequest, messagesText, startModelServer, toolNames, userTexts } from './model-server.mjs'
import { startTui, tuiUnavailableReason, SCREEN } from './tui.mjs'
import {
  claudeRecordBrief,
  goalSystemOnPath,
  installGoalSystem,
  installPlugin,
  isClaudeGoalEvaluator,
  listGoals,
  readAudit,
  runInstaller,
} from './goal-helpers.mjs'

const KEEP = !!process.env.GOAL_E2E_KEEP
const TEST_MS = 240_000
// Idle: no busy marker, and neither the screen nor the model's request log changed for this long.
const QUIET_MS = 1500
const only = process.env.GOAL_E2E_ONLY
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
/** The replies of a step whose command the goal system consumes (no model work expected). */
const CONSUMED = []

// ---------------------------------------------------------------------------------------------
// README's table: command x host and route -> what to type

const COLUMNS = {
  'claude/user': (h) => /^Claude Code, `goal-system install/.test(h),
  'claude/plugin': (h) => h === 'Claude Code plugin',
  'copilot/user': (h) => /^Copilot CLI, `goal-system install/.test(h),
  'copilot/plugin': (h) => h === 'Copilot CLI plugin',
  'gemini/user': (h) => /^Gemini CLI, `goal-system install/.test(h),
  'gemini/plugin': (h) => h === 'Gemini CLI extension',
}

/** { 'claude/user': { open, status, pause, resume, cancel, budget }, ... } as README.md spells them. */
export function readmeSpellings(readme = fs.readFileSync(path.join(REPO_DIR, 'README.md'), 'utf8')) {
  const at = readme.indexOf('## What to type, per host')
  assert.ok(at >= 0, 'README.md has "What to type, per host"')
  const rows = []
  for (const line of readme.slice(at).split('\n').slice(1)) {
    if (line.startsWith('|')) rows.push(line)
    else if (rows.length) break
  }
  const cells = (line) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim())
  const head = cells(rows[0])
  const out = {}
  for (const [key, match] of Object.entries(COLUMNS)) {
    const col = head.findIndex(match)
    assert.ok(col > 0, `README table has a column for ${key}: ${head.join(' | ')}`)
    out[key] = {}
    for (const row of rows.slice(2)) {
      const c = cells(row)
      const code = /`([^`]+)`/.exec(c[col])?.[1]
      assert.ok(code, `README table: ${c[0]} for ${key} names a command`)
      for (const word of c[0].split('/').map((w) => w.trim())) out[key][word] = code
    }
  }
  for (const [key, words] of Object.entries(out))
    for (const w of ['open', 'status', 'pause', 'resume', 'cancel', 'budget'])
      assert.ok(words[w], `README table: ${w} for ${key}`)
  return out
}

/** What the user types for one command, from the table's spelling. */
function typed(spelling, { objective, reason, tokens } = {}) {
  let s = spelling
  if (objective !== undefined) s = s.replace('<objective>', objective)
  // `cancel[: reason]`: with a reason, or bare; `budget 200k [time 30m]` / `budget …`.
  s = s.replace(/\[([^\]]*)\]/, reason === undefined ? '' : `: ${reason}`)
  if (tokens !== undefined) s = s.replace('…', tokens)
  return s.replace(/\s+/g, ' ').trim()
}

// ---------------------------------------------------------------------------------------------
// Targets

const claudeVersions = process.env.GOAL_E2E_TUI_CLAUDE_VERSIONS
  ? process.env.GOAL_E2E_TUI_CLAUDE_VERSIONS.split(',').map((v) => v.trim())
  : HOST_PACKAGES.claude.versions
const targets = [
  ...claudeVersions.flatMap((version) => [
    { host: 'claude', version, route: 'user' },
    { host: 'claude', version, route: 'plugin' },
  ]),
  { host: 'copilot', version: HOST_PACKAGES.copilot.versions[0], route: 'user' },
  { host: 'copilot', version: HOST_PACKAGES.copilot.versions[0], route: 'plugin' },
].filter((t) => !only || t.host === only)
const geminiRoutes = !only || only === 'gemini' ? ['user', 'plugin'] : []

function skipReason(host, version) {
  const r = tuiUnavailableReason(host, version)
  if (r && process.env.GOAL_E2E_REQUIRE) throw new Error(r)
  return r || false
}

/** The session's goals, newest first. */
const goalsOf = (home) => listGoals(home).sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)))
const goalWith = (home, objective) => goalsOf(home).find((g) => g.objective === objective)

/** Poll the stored goal of `objective` until pred(goal) holds (the hook writes before the model is called). */
async function waitGoal(home, objective, pred, what, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const g = goalWith(home, objective)
    if (g && pred(g)) return g
    if (Date.now() > until)
      throw new Error(
        `stored goal "${objective}": ${what} not reached in ${timeoutMs} ms; it is ${JSON.stringify(g && brief(g))}`,
      )
    await sleep(150)
  }
}
/** Copilot CLI's session events (every session of the run), in order. */
function copilotEvents(home) {
  const dir = path.join(home, '.copilot', 'session-state')
  return fs
    .readdirSync(dir)
    .map((d) => path.join(dir, d, 'events.jsonl'))
    .filter((f) => fs.existsSync(f))
    .flatMap((f) => readEventsFile(f))
}
const brief = (g) => ({
  id: g.id,
  status: g.completionStatus,
  reason: g.statusReason,
  tokenBudget: g.budget?.tokenBudget,
})

// Two sessions at a time: each mostly waits for a host to settle (GOAL_E2E_TUI_CONCURRENCY).
const CONCURRENCY = Number(process.env.GOAL_E2E_TUI_CONCURRENCY) || 2

describe('README commands typed in the TUIs', { concurrency: CONCURRENCY }, () => {
  for (const { host, version, route } of targets) {
    const key = `${host}/${route}`
    test(`${host} ${version} TUI, ${route === 'user' ? 'goal-system install' : 'plugin'}: README's commands as typed, interrupts pause`, {
      timeout: TEST_MS,
      skip: skipReason(host, version),
    }, async (t) => {
      const sp = readmeSpellings()[key]
      const tag = randomUUID().slice(0, 6)
      const shell = host === 'claude' ? 'Bash' : 'bash'
      // Work that outlives the interrupt (Claude Code 2.1.330+ refuse a standalone sleep).
      const LONG = {
        toolCalls: [
          { name: shell, args: { command: 'node -e "setTimeout(()=>{},150000)"', description: 'long work' } },
        ],
      }
      const say = (text) => ({ text })

      // The scripted model answers per step: the test sets `cur` before typing; every model
      // request (side requests and Claude's built-in goal judge aside) is logged under it.
      let cur = { name: 'start', replies: [], reqs: [] }
      const steps = []
      const judge = []
      const autopilotEnded = []
      const server = await startModelServer(
        Array.from({ length: 400 }, () => (entry) => {
          cur.reqs.push(entry)
          if (cur.consumed) {
            // A request while a consumed command is handled: Copilot CLI's autopilot asking to
            // keep working on its objective. A real model keeps working when told so, and ends
            // the autopilot when the goal system says there is no work left.
            return /has no work left/.test(userTexts(entry.body).at(-1) || '')
              ? { toolCalls: [{ name: 'task_complete', args: { summary: 'No work left.' } }] }
              : { toolCalls: [{ name: shell, args: { command: 'echo keeps working', description: 'work' } }] }
          }
          const { keepText, ...reply } = cur.replies.shift() ?? say(`Nothing more to do for ${cur.name}.`)
          // Copilot CLI after `/goal X` stays in its autopilot mode, where a turn ends only with
          // task_complete (offered then): a real model ends its answer that way.
          if (host === 'copilot' && reply.text && !keepText && toolNames(entry.body).includes('task_complete'))
            return { toolCalls: [{ name: 'task_complete', args: { summary: reply.text } }] }
          return reply
        }),
        {
          // The agent's own turns offer tools; a host's side requests (titles, topics) do not.
          consume: (e) => !isSideRequest(e) && !isClaudeGoalEvaluator(e) && e.body?.tools?.length > 0,
          sideReply: (e) => {
            if (!isClaudeGoalEvaluator(e)) return null
            judge.push(e)
            return say(JSON.stringify({ ok: false, reason: 'not met' }))
          },
        },
      )
      const root = makeTempDir(`tui-cmd-${host}-${route}`)
      const home = path.join(root, 'home')
      const cwd = path.join(root, 'proj')
      fs.mkdirSync(home, { recursive: true })
      fs.mkdirSync(cwd, { recursive: true })
      fs.writeFileSync(path.join(cwd, 'README.md'), '# a project\n')
      const env = {}
      const extraArgs = []
      if (route === 'user') {
        installGoalSystem(host, { home, project: cwd })
        // What Claude Code's "New MCP server found in this project" dialog writes when the user
        // picks "Use this MCP server" (the project's .mcp.json that the install wrote).
        if (host === 'claude')
          fs.writeFileSync(
            path.join(home, '.claude.json'),
            JSON.stringify({ projects: { [cwd]: { enabledMcpjsonServers: ['goalSystem'] } } }),
          )
      } else {
        await installPlugin(host, home, version)
        env.PATH = goalSystemOnPath(root)
      }
      const tui = await startTui({ host, version, root: path.join(root, 'tui'), cwd, home, server, env, extraArgs })
      t.after(async () => {
        await tui.stop()
        await server.close()
        if (!KEEP) fs.rmSync(root, { recursive: true, force: true })
      })
      const started = Date.now()
      const explain = () =>
        `\n--- screen ---\n${tui.screen()}\n--- steps ---\n${steps
          .map(
            (s) =>
              `${s.name}: ${s.reqs.length} request(s)${s.reqs
                .map(
                  (r) =>
                    `\n  < ${JSON.stringify((userTexts(r.body).at(-1) || '').slice(0, 160))} > ${JSON.stringify(r.reply).slice(0, 160)}`,
                )
                .join('')}`,
          )
          .join('\n')}\n--- goals ---\n${JSON.stringify(goalsOf(home).map(brief))}`

      /** Type `text` as step `name`; the model answers with `replies` in order. */
      async function step(name, text, replies = []) {
        cur = { name, text, replies: [...replies], reqs: [], consumed: replies === CONSUMED }
        steps.push(cur)
        await tui.clearInput()
        await tui.type(text)
        return cur
      }
      /** The model's work under way (LONG on screen), then the host's interrupt key; idle again. */
      async function interrupt() {
        await tui
          .waitFor((s) => s.includes('setTimeout') && SCREEN[host].busy.test(s), { timeoutMs: 60_000 })
          .catch((e) => {
            e.message += `${explain()}${claudeRecordBrief(home)}`
            throw e
          })
        await sleep(800)
        if (host === 'claude') await tui.esc()
        else await tui.escEsc()
        await tui.waitFor(SCREEN[host].interrupted, { timeoutMs: 30_000 })
        await tui.waitIdle({ quietMs: QUIET_MS })
      }
      /**
       * A consumed command: handled by the hook with no model request. Copilot CLI's autopilot,
       * when an objective of it is still on, asks the model once more: then the only answer the
       * model was led to is task_complete (no work started), and the autopilot is over.
       */
      async function consumed(s) {
        await tui.waitIdle({ quietMs: QUIET_MS })
        const calls = s.reqs.flatMap((r) => (r.reply?.toolCalls || []).map((c) => c.name))
        if (host === 'copilot' && s.reqs.length === 1 && calls.join() === 'task_complete') {
          autopilotEnded.push(s.name)
          return
        }
        assert.equal(
          s.reqs.length,
          0,
          `"${s.text}" is answered by the goal system, with no model work: ${calls}${explain()}`,
        )
      }
      /** A free stop: one model request for the prompt, none held after it. */
      async function freeStop(s) {
        await tui.waitIdle({ quietMs: QUIET_MS })
        assert.equal(s.reqs.length, 1, `"${s.text}": one model request and a free stop${explain()}`)
      }
      /** Claude Code's status line (`goal-system install --claude` sets it) shows the state. */
      async function statusLine(re) {
        if (host !== 'claude' || route !== 'user') return
        await tui.waitFor(re, { timeoutMs: 10_000 })
      }
      const lastUserText = (req) => userTexts(req.body).join('\n')

      const obj1 = `make the greeting louder ${tag}`
      const obj2 = `write the release notes ${tag}`

      // 1. Open: the goal is stored; the stop after the first answer is held, and the held stop
      //    tells the model (and so the user) this host's spelling of pause and cancel.
      const open = await step('open', typed(sp.open, { objective: obj1 }), [
        { ...say('Looking at it first.'), keepText: true },
        LONG,
      ])
      const g1 = await waitGoal(home, obj1, (g) => g.completionStatus === 'draft', 'an open draft')
      await interrupt()
      assert.ok(open.reqs.length >= 2, `the first stop was held${explain()}`)
      const held = lastUserText(open.reqs[1])
      for (const cmd of [typed(sp.pause), typed(sp.cancel)])
        assert.ok(held.includes(cmd), `the held stop names "${cmd}":\n${held.slice(-600)}${explain()}`)
      assert.equal(goalWith(home, obj1).completionStatus, 'draft', 'an interrupt runs no hook: the goal is as it was')

      // 2. The next prompt, whatever it is about: the hook reads the interrupt from the host's own
      //    record, pauses the goal, and holds no stop.
      const plain = await step('after-interrupt', `what does the README say ${tag}`, [say('It says: a project.')])
      const paused = await waitGoal(home, obj1, (g) => g.completionStatus === 'paused', 'paused by the interrupt')
      assert.equal(paused.statusReason, 'interrupted by the user')
      await freeStop(plain)
      assert.match(messagesText(plain.reqs[0].body), /paused: interrupted by the user/, 'the model is told')
      await statusLine(/goal paused · .*\/goal resume · \/goal cancel/)

      // 3. Status: the goal as stored, to the model; nothing changes, the stop is free.
      const status = await step('status', typed(sp.status), [say('The goal is paused.')])
      await freeStop(status)
      assert.match(messagesText(status.reqs[0].body), /Goal status requested by the user/, explain())
      assert.equal(goalWith(home, obj1).completionStatus, 'paused')

      // 4. Budget: consumed.
      const budget = await step('budget', typed(sp.budget, { tokens: '200k' }), CONSUMED)
      await waitGoal(home, obj1, (g) => g.budget?.tokenBudget === 200_000, 'a token budget of 200k')
      await consumed(budget)

      // 5. Resume: the goal works again; the model is called.
      await step('resume', typed(sp.resume), [LONG])
      await waitGoal(home, obj1, (g) => g.completionStatus !== 'paused', 'resumed')
      await statusLine(/goal active · .*200k tokens.*\/goal pause · \/goal cancel/)
      await interrupt()

      // 6. Pause: consumed; the user's pause is what the goal says.
      const pause = await step('pause', typed(sp.pause), CONSUMED)
      await waitGoal(
        home,
        obj1,
        (g) => g.completionStatus === 'paused' && /by the user with/.test(g.statusReason || ''),
        "the user's pause",
      )
      await consumed(pause)

      // 7. Replace: a new objective replaces the paused goal.
      await step('replace', typed(sp.open, { objective: obj2 }), [LONG])
      const g2 = await waitGoal(home, obj2, (g) => g.completionStatus === 'draft', 'the replacing draft')
      assert.notEqual(g2.id, g1.id, 'a new goal')
      await interrupt()

      // 8. Cancel: bare on the `goal-system install` route, with a reason on the plugin route
      //    (the table spells both the same way on both routes): consumed.
      const reason = route === 'plugin' ? `done for today ${tag}` : undefined
      const cancel = await step('cancel', typed(sp.cancel, { reason }), CONSUMED)
      const cancelled = await waitGoal(home, obj2, (g) => g.completionStatus === 'cancelled', 'cancelled')
      if (reason) assert.equal(cancelled.statusReason, reason, 'the reason as typed')
      else assert.match(cancelled.statusReason, /cancelled by the user/)
      await consumed(cancel)

      // 9. A plain prompt after it: answered once, nothing held, the cancel stands (Claude Code
      //     confirms a command against its transcript at this next hook event).
      const bye = await step('after-cancel', `thanks ${tag}`, [say('You are welcome.')])
      await freeStop(bye)
      assert.equal(goalWith(home, obj2).completionStatus, 'cancelled', `the cancel stands${explain()}`)
      await statusLine(/goal cancelled/)

      // Every command typed here was the user's: none was refused or rolled back afterwards.
      const refused = readAudit(home).filter((l) => JSON.parse(l).event === 'command-refused')
      assert.deepEqual(refused, [], `no command of the user refused${explain()}`)
      assert.doesNotMatch(tui.history(), /did not come from you/, 'no refusal shown')

      // No built-in goal of the host ran beside the goal system's.
      const history = tui.history()
      if (host === 'claude') {
        assert.doesNotMatch(history, /Goal set:|\/goal active/, `Claude Code's own /goal was never set${explain()}`)
        assert.equal(judge.length, 0, "Claude Code's built-in goal judge was never asked")
      } else {
        const objectives = [...history.matchAll(/Autopilot objective: (.*)/g)].map((m) => m[1].trim())
        for (const o of objectives)
          assert.doesNotMatch(o, /^(pause|resume|cancel|budget|status)\b/i, `no autopilot on a command: ${objectives}`)
      }
      if (host === 'copilot') {
        // The host's own record: no autopilot objective is left active.
        const changes = copilotEvents(home).filter((e) => e.type === 'session.autopilot_objective_changed')
        assert.notEqual(changes.at(-1)?.data?.status, 'active', `Copilot CLI's autopilot is not left on${explain()}`)
      }
      t.diagnostic(
        `${host} ${tui.version} ${route}: ${steps.length} steps in ${Date.now() - started} ms; requests per step: ${steps
          .map((s) => `${s.name}=${s.reqs.length}`)
          .join(' ')}${autopilotEnded.length ? `; autopilot ended by task_complete after: ${autopilotEnded}` : ''}`,
      )
    })
  }
})

// ---------------------------------------------------------------------------------------------
// Gemini CLI 0.61.0: no built-in /goal. A typed `/goal …` is no command of its own, so the TUI
// sends it to the model as typed and BeforeAgent sees it raw (while an MCP server is still
// starting, the TUI answers "Unknown command" instead and sends nothing; the goal-system server
// is up well before the test types). A command the hook handles is not denied: the model gets
// the answer as context and is asked once, and the stop after it is free. Esc cancels a turn
// ("Request cancelled."); no hook runs on it and Gemini CLI records no interrupt the goal system
// reads, so the goal stays as it was.

describe('README commands typed in the Gemini CLI TUI', { concurrency: 1 }, () => {
  for (const route of geminiRoutes) {
    const key = `gemini/${route}`
    test(`gemini TUI, ${route === 'user' ? 'goal-system install --gemini' : 'the extension'}: README's commands as typed`, {
      timeout: TEST_MS,
      skip: skipReason('gemini'),
    }, async (t) => {
      const sp = readmeSpellings()[key]
      const tag = randomUUID().slice(0, 6)
      const LONG = {
        toolCalls: [
          {
            name: 'run_shell_command',
            args: { command: 'node -e "setTimeout(()=>{},150000)"', description: 'long work' },
          },
        ],
      }
      const say = (text) => ({ text })
      let cur = { name: 'start', replies: [], reqs: [] }
      const steps = []
      const server = await startModelServer(
        Array.from({ length: 200 }, () => (entry) => {
          cur.reqs.push(entry)
          return cur.replies.shift() ?? say(`Nothing more to do for ${cur.name} (${cur.reqs.length}).`)
        }),
        { consume: (e) => /:streamGenerateContent/i.test(e.path) },
      )
      const root = makeTempDir(`tui-cmd-gemini-${route}`)
      const home = path.join(root, 'home')
      const cwd = path.join(root, 'proj')
      fs.mkdirSync(home, { recursive: true })
      fs.mkdirSync(cwd, { recursive: true })
      fs.writeFileSync(path.join(cwd, 'README.md'), '# a project\n')
      const env = {}
      if (route === 'user') {
        const r = runInstaller(home, ['--gemini'])
        assert.equal(r.code, 0, r.stderr || r.stdout)
      } else {
        const ext = path.join(REPO_DIR, 'plugins', 'gemini', 'goal-system')
        const r = await geminiCommand(home, ['extensions', 'install', ext, '--consent'])
        assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`)
        env.PATH = goalSystemOnPath(root)
      }
      const tui = await startTui({ host: 'gemini', root: path.join(root, 'tui'), cwd, home, server, env })
      t.after(async () => {
        await tui.stop()
        await server.close()
        if (!KEEP) fs.rmSync(root, { recursive: true, force: true })
      })
      const started = Date.now()
      const explain = () =>
        `\n--- screen ---\n${tui.screen()}\n--- steps ---\n${steps
          .map((s) => `${s.name}: ${s.reqs.length} request(s)`)
          .join('\n')}\n--- goals ---\n${JSON.stringify(goalsOf(home).map(brief))}`
      // The footer lists the goal-system MCP server (it does so while the server still starts,
      // too). A slash line typed while it starts is "Unknown command" and reaches no hook: the
      // check of the history at the end tells that apart from a hook that missed the command.
      await tui.waitFor(/1 MCP server/, { timeoutMs: 30_000 })

      async function step(name, text, replies = []) {
        cur = { name, text, replies: [...replies], reqs: [] }
        steps.push(cur)
        await tui.clearInput()
        await tui.type(text)
        return cur
      }
      async function interrupt() {
        await tui.waitFor((s) => s.includes('setTimeout') && SCREEN.gemini.busy.test(s), { timeoutMs: 60_000 })
        await sleep(800)
        await tui.esc()
        await tui.waitFor(SCREEN.gemini.interrupted, { timeoutMs: 30_000, history: true })
        await tui.waitIdle({ quietMs: QUIET_MS })
      }
      /** One model request, with the typed line raw and the hook's answer as context; a free stop. */
      async function answered(s, context) {
        await tui.waitIdle({ quietMs: QUIET_MS })
        assert.equal(s.reqs.length, 1, `"${s.text}": one model request and a free stop${explain()}`)
        const last = JSON.stringify(s.reqs[0].body?.contents?.at(-1) ?? '')
        assert.ok(
          last.includes(JSON.stringify(s.text).slice(1, -1)),
          `BeforeAgent got "${s.text}" as typed: ${last.slice(0, 300)}`,
        )
        if (context) assert.match(last, context, explain())
      }

      const obj1 = `make the greeting louder ${tag}`
      const obj2 = `write the release notes ${tag}`

      // 1. Open: the draft is stored; the stop after the first answer is held, and the held stop
      //    names this host's pause and cancel. Esc then cancels the work: the goal is as it was.
      const open = await step('open', typed(sp.open, { objective: obj1 }), [say('Looking at it first.'), LONG])
      const g1 = await waitGoal(home, obj1, (g) => g.completionStatus === 'draft', 'an open draft')
      await interrupt()
      assert.ok(open.reqs.length >= 2, `the first stop was held${explain()}`)
      const held = JSON.stringify(open.reqs[1].body?.contents?.at(-1) ?? '')
      for (const cmd of [typed(sp.pause), typed(sp.cancel)])
        assert.ok(held.includes(cmd), `the held stop names "${cmd}":\n${held.slice(-600)}${explain()}`)
      assert.equal(goalWith(home, obj1).completionStatus, 'draft', 'Esc runs no hook: the goal is as it was')

      // 2. Pause: handled at the hook; the model is told, once; the stop is free.
      const pause = await step('pause', typed(sp.pause), [say('Paused, as you asked.')])
      await waitGoal(
        home,
        obj1,
        (g) => g.completionStatus === 'paused' && /by the user with/.test(g.statusReason || ''),
        "the user's pause",
      )
      await answered(pause, /paused by the user/)

      // 3. Status: the goal as stored, to the model; nothing changes.
      const status = await step('status', typed(sp.status), [say('The goal is paused.')])
      await answered(status, /Goal status requested by the user/)
      assert.equal(goalWith(home, obj1).completionStatus, 'paused')

      // 4. Budget: handled at the hook.
      const budget = await step('budget', typed(sp.budget, { tokens: '200k' }), [say('Budget noted.')])
      await waitGoal(home, obj1, (g) => g.budget?.tokenBudget === 200_000, 'a token budget of 200k')
      await answered(budget)

      // 5. Resume: the goal works again; the model is called and works until Esc.
      await step('resume', typed(sp.resume), [LONG])
      await waitGoal(home, obj1, (g) => g.completionStatus !== 'paused', 'resumed')
      await interrupt()

      // 6. Replace: a new objective replaces the goal.
      await step('replace', typed(sp.open, { objective: obj2 }), [LONG])
      const g2 = await waitGoal(home, obj2, (g) => g.completionStatus === 'draft', 'the replacing draft')
      assert.notEqual(g2.id, g1.id, 'a new goal')
      await interrupt()

      // 7. Cancel, with a reason on the extension route: handled at the hook; a free stop.
      const reason = route === 'plugin' ? `done for today ${tag}` : undefined
      const cancel = await step('cancel', typed(sp.cancel, { reason }), [say('Cancelled.')])
      const cancelled = await waitGoal(home, obj2, (g) => g.completionStatus === 'cancelled', 'cancelled')
      if (reason) assert.equal(cancelled.statusReason, reason, 'the reason as typed')
      else assert.match(cancelled.statusReason, /cancelled by the user/)
      await answered(cancel, /cancelled by the user/)

      // 8. A plain prompt after it: answered once, nothing held, the cancel stands.
      const bye = await step('after-cancel', `thanks ${tag}`, [say('You are welcome.')])
      await tui.waitIdle({ quietMs: QUIET_MS })
      assert.equal(bye.reqs.length, 1, `one request, a free stop${explain()}`)
      assert.equal(goalWith(home, obj2).completionStatus, 'cancelled', `the cancel stands${explain()}`)

      const refused = readAudit(home).filter((l) => JSON.parse(l).event === 'command-refused')
      assert.deepEqual(refused, [], `no command of the user refused${explain()}`)
      const history = tui.history()
      assert.doesNotMatch(history, /Unknown command|did not come from you/, explain())
      t.diagnostic(
        `gemini ${tui.version} ${route}: ${steps.length} steps in ${Date.now() - started} ms; requests per step: ${steps
          .map((s) => `${s.name}=${s.reqs.length}`)
          .join(' ')}`,
      )
    })
  }
})
