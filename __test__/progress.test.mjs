// Progress views: the status line (native executable, the command, and the
// command install writes), the timeline (`goal-system log`) and the HTML report
// rendered in headless Chromium. Goals are built the way hosts build them: the
// command for open/update/close, the native Copilot CLI hook for tool calls,
// drift and stops.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'

import { claudeStatusLineOp } from '../cli/install-targets.mjs'
import { ensureChromium } from '../scripts/ensure-chromium.mjs'
import { renderPage } from './chromium.mjs'
import { cliHook, root, tempState } from './helpers.mjs'

const cli = path.join(root, 'bin', 'goal-system.mjs')
const nativeHook = path.join(root, 'native', 'goal-hook')
const artifacts = path.join(root, 'target', 'artifacts')
const CWD = '/work/greeting'

function run(state, args, { input, env = {} } = {}) {
  const res = spawnSync(process.execPath, [cli, ...args], {
    input,
    encoding: 'utf8',
    env: { ...state.env, ...env },
    timeout: 30_000,
  })
  return { code: res.status, stdout: res.stdout, stderr: res.stderr }
}

/** As the user types it in their own terminal (a pseudo-terminal through util-linux `script`). */
function userOk(state, args) {
  const env = { ...state.env }
  for (const k of ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'COPILOT_CLI']) delete env[k]
  const quoted = [process.execPath, cli, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  const res = spawnSync('script', ['-qec', quoted, '/dev/null'], { input: '', encoding: 'utf8', env, timeout: 30_000 })
  assert.equal(res.status, 0, `goal-system ${args.join(' ')}: ${res.stdout}`)
  return res.stdout
}

function ok(state, args) {
  const res = run(state, args)
  assert.equal(res.code, 0, `goal-system ${args.join(' ')}: ${res.stderr}`)
  return res.stdout
}

/** Claude Code's statusLine payload for a session. */
function statusPayload(session) {
  return JSON.stringify({
    hook_event_name: 'Status',
    session_id: session,
    transcript_path: `/tmp/${session}.jsonl`,
    cwd: CWD,
    model: { id: 'claude-opus', display_name: 'Opus' },
    workspace: { current_dir: CWD, project_dir: CWD },
    version: '2.1.330',
    cost: { total_cost_usd: 0.01 },
  })
}

function tool(state, session, toolName, toolArgs) {
  const payload = {
    sessionId: session,
    cwd: CWD,
    timestamp: Date.now(),
    toolName,
    toolArgs,
    toolResult: { resultType: 'success', textResultForLlm: 'ok' },
  }
  const res = cliHook(state, 'postToolUse', payload)
  assert.equal(res.code, 0, res.stderr)
}

const preTool = (state, session, toolName, toolArgs) =>
  cliHook(state, 'preToolUse', { sessionId: session, cwd: CWD, toolName, toolArgs })

const EVIDENCE = [
  '--requirement',
  'R1: prints hello twice',
  '--done',
  'greet.sh prints hello twice',
  '--validation',
  'output compared with the expected two lines',
  '--verification',
  'npm test: 3 passed',
  '--inspection',
  'read greet.sh before editing',
  '--coverage',
  'R1: prints hello twice, checked by test_twice',
  '--audit',
  'R1 checked against the output',
]

/** A goal in each status, one session each; `none` has no goal. */
function buildGoals(state) {
  userOk(state, ['open', '--session', 'draft', '--cwd', CWD, '--objective', 'draft goal', '--draft'])
  userOk(state, [
    'open',
    '--session',
    'active',
    '--cwd',
    CWD,
    '--objective',
    'make the greeting print twice',
    '--remaining',
    'edit greet.sh',
    '--remaining',
    'add a test',
  ])
  for (let i = 0; i < 4; i++) tool(state, 'active', 'view', { path: `src/file${i}.sh` })
  userOk(state, ['open', '--session', 'blocked', '--cwd', CWD, '--objective', 'deploy to staging'])
  // A resumable blocker is the user's (the model's blocked is a terminal close).
  userOk(state, ['update', '--session', 'blocked', '--status', 'blocked', '--reason', 'needs the staging password'])
  userOk(state, ['open', '--session', 'complete', '--cwd', CWD, '--objective', 'greeting twice, done'])
  tool(state, 'complete', 'edit', { path: 'greet.sh' })
  tool(state, 'complete', 'bash', { command: 'npm test' })
  ok(state, ['close', '--session', 'complete', ...EVIDENCE])
  userOk(state, ['open', '--session', 'cancelled', '--cwd', CWD, '--objective', 'abandoned idea'])
  userOk(state, ['close', '--session', 'cancelled', '--status', 'cancelled', '--reason', 'the user changed plans'])
}

describe('statusline', () => {
  let state
  let created
  before(() => {
    state = tempState()
    buildGoals(state)
    created = Date.parse(state.bySession('active').createdAt)
  })
  after(() => state.cleanup())

  // Pinned clock: 1h05m after the active goal opened.
  const pinned = () => ({ GOAL_SYSTEM_FAKE_NOW_MS: String(created + 3_900_000) })

  const native = (session) => {
    const res = spawnSync(nativeHook, ['statusline'], {
      input: statusPayload(session),
      encoding: 'utf8',
      env: { ...state.env, ...pinned() },
    })
    assert.equal(res.status, 0, res.stderr)
    assert.equal(res.stderr, '')
    return res.stdout
  }

  test('an active goal shows remaining items, unmet conditions, drift and elapsed time', () => {
    const line = native('active')
    assert.match(
      line,
      /^goal active · 2 left · \d+ unmet · drift 4\/5 ! · 1h 0[45]m · make the greeting print twice · \/goal pause · \/goal cancel\n$/,
    )
  })

  test('each status reads as itself, on exactly one line', () => {
    const expected = {
      draft: /^goal draft · 0 left · \d+ unmet · drift 0\/5 · .* · draft goal · \/goal pause · \/goal cancel\n$/,
      blocked:
        /^goal blocked \(resumable\) · 0 left · \d+ unmet · drift 0\/5 · .* · deploy to staging · \/goal resume · \/goal cancel\n$/,
      complete: /^goal complete ✓ · \d+s · greeting twice, done\n$/,
      cancelled: /^goal cancelled · \d+s · abandoned idea\n$/,
    }
    for (const [session, re] of Object.entries(expected)) assert.match(native(session), re, session)
  })

  test('a session without a goal prints nothing', () => {
    assert.equal(native('no-such-session'), '')
    const res = spawnSync(nativeHook, ['statusline'], { input: 'not json', encoding: 'utf8', env: state.env })
    assert.equal(res.status, 0)
    assert.equal(res.stdout, '')
  })

  test('the command prints the same line as the native executable', () => {
    for (const session of ['draft', 'active', 'blocked', 'complete', 'cancelled', 'no-such-session']) {
      const res = run(state, ['statusline'], { input: statusPayload(session), env: pinned() })
      assert.equal(res.code, 0, res.stderr)
      assert.equal(res.stdout, native(session), session)
    }
  })

  test('the command prints nothing, and no error, for input it cannot use', () => {
    for (const input of ['', 'garbage', '[]', '{"session_id": 7}']) {
      const res = run(state, ['statusline'], { input })
      assert.deepEqual([res.code, res.stdout, res.stderr], [0, '', ''], JSON.stringify(input))
    }
  })

  test('the status line command that install writes runs the native executable', () => {
    const { command } = claudeStatusLineOp(root).value
    assert.match(command, /native\/goal-hook statusline/)
    const res = spawnSync('sh', ['-c', command], {
      input: statusPayload('active'),
      encoding: 'utf8',
      env: { ...state.env, ...pinned() },
    })
    assert.equal(res.stdout, native('active'))
  })

  test('a budget shows its use', () => {
    // The budget is the user's to set; write it into every copy as a newer revision.
    // A hand-written copy is only read as a legacy record (no seal, no journal
    // entry for the session); otherwise it would be set aside as tampered.
    const g = state.bySession('draft')
    g.budget = { tokenBudget: 200000, tokensUsed: 50000 }
    g.revision += 1
    delete g.seal
    fs.rmSync(path.join(state.stateRoot, 'journal', 'draft.jsonl'), { force: true })
    const files = [
      path.join(state.stateRoot, 'by-session', 'draft.json'),
      path.join(path.dirname(state.stateRoot), 'draft', 'goal-state.json'),
    ]
    for (const f of files) fs.writeFileSync(f, JSON.stringify(g))
    assert.match(native('draft'), / · 50k\/200k tokens \(25%\) · /)
  })
})

/** A goal with a long history: drift warnings and a denial, blocked stops, a refused close, updates, the close. */
function buildHistory(state, session) {
  userOk(state, [
    'open',
    '--session',
    session,
    '--cwd',
    CWD,
    '--objective',
    'make the <greeting> print "hello" twice',
    '--requirement',
    'R1: prints hello twice',
    '--requirement',
    'R2: exits zero',
    '--remaining',
    'edit greet.sh',
  ])
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 3; i++) tool(state, session, 'view', { path: `src/part${round}-${i}.sh` })
    assert.match(preTool(state, session, 'view', { path: 'src/more.sh' }).stdout, /additionalContext/) // drift warning
    tool(state, session, 'edit', { path: `greet${round}.sh` })
    tool(state, session, 'bash', { command: 'npm test' })
    const denied = preTool(state, session, 'bash', { command: 'ls' })
    assert.equal(denied.json?.permissionDecision, 'deny', denied.stdout)
    const stop = cliHook(state, 'agentStop', { sessionId: session, cwd: CWD, stopReason: 'end_turn' })
    assert.equal(stop.json?.decision, 'block', stop.stdout)
    ok(state, ['update', '--session', session, '--done', `round ${round} done`])
  }
  const refused = run(state, ['close', '--session', session])
  assert.equal(refused.code, 1)
  ok(state, [
    'update',
    '--session',
    session,
    '--no-remaining',
    ...EVIDENCE,
    '--coverage',
    'R2: exits zero, checked by test_exit',
  ])
  ok(state, ['close', '--session', session])
}

describe('log', () => {
  let state
  before(() => {
    state = tempState()
    buildHistory(state, 'hist')
  })
  after(() => state.cleanup())

  test('the timeline shows activation, updates, tool activity, drift, stops, the refused close and the close in order', () => {
    const text = ok(state, ['log', 'hist'])
    const order = ['opened', 'drift-warning', 'drift-denied', 'stop-blocked', 'updated', 'close-refused', 'closed']
    let at = -1
    for (const word of order) {
      const next = text.indexOf(`  ${word} `, at + 1)
      assert.ok(next > at, `${word} after position ${at} in:\n${text}`)
      at = next
    }
    assert.match(text, /close-refused\s+.*requirementCoverage/)
    assert.match(text, /updated\s+doneSoFar: \+1/)
    assert.match(text, /Tool calls: 20 \(12 inspection, 4 action, 4 verification/)
    assert.match(text, /tool verification bash: npm test \(success\)/)
  })

  test('--json lists every event with its kind and the gate condition by condition', () => {
    const out = JSON.parse(ok(state, ['log', '--json', '--session', 'hist']))
    const kinds = new Set(out.timeline.events.map((e) => e.kind))
    for (const k of [
      'opened',
      'updated',
      'tool',
      'drift-warning',
      'drift-denied',
      'stop-blocked',
      'close-refused',
      'closed',
    ])
      assert.ok(kinds.has(k), k)
    const toolKinds = new Set(out.timeline.events.filter((e) => e.kind === 'tool').map((e) => e.toolKind))
    assert.deepEqual([...toolKinds].sort(), ['action', 'inspection', 'verification'])
    assert.ok(
      out.checklist.every((c) => c.met),
      JSON.stringify(out.checklist.filter((c) => !c.met)),
    )
    const times = out.timeline.events.map((e) => e.atMs)
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    )
  })

  test('an unknown goal is refused with exit 1', () => {
    const res = run(state, ['log', 'nobody-here'])
    assert.equal(res.code, 1)
    assert.match(res.stderr, /no goal with id or session/)
  })
})

describe('report', () => {
  let state
  let chromium
  before(() => {
    chromium = ensureChromium()
    state = tempState()
    buildHistory(state, 'report')
    userOk(state, [
      'open',
      '--session',
      'open-report',
      '--cwd',
      CWD,
      '--objective',
      'still going',
      '--requirement',
      'R1: <b>escaped</b>',
      '--remaining',
      'write docs',
    ])
    tool(state, 'open-report', 'view', { path: 'README.md' })
  })
  after(() => state.cleanup())

  test('-o writes one self-contained page with mode 0600', () => {
    const file = path.join(state.home, 'r.html')
    const out = ok(state, ['report', 'report', '-o', file])
    assert.match(out, /written to/)
    assert.equal(fs.statSync(file).mode & 0o777, 0o600)
    const html = fs.readFileSync(file, 'utf8')
    assert.doesNotMatch(html, /<script|<link|https?:\/\/(?!www\.w3\.org\/2000\/svg)/)
  })

  test('a long history renders in headless Chromium: no console errors, no network, checklist and timeline in the DOM', async () => {
    const file = path.join(state.home, 'report.html')
    ok(state, ['report', '--session', 'report', '-o', file])
    fs.mkdirSync(artifacts, { recursive: true })
    const page = await renderPage(chromium, pathToFileURL(file).href, {
      screenshot: path.join(artifacts, 'goal-report.png'),
      pdf: path.join(artifacts, 'goal-report.pdf'),
      probe: `JSON.stringify({
        gate: document.querySelectorAll('#gate .checklist > li').length,
        met: document.querySelectorAll('#gate .checklist > li.met').length,
        svg: !!document.querySelector('#timeline svg#timeline-chart'),
        ticks: document.querySelectorAll('#timeline-chart rect.tool').length,
        marks: [...document.querySelectorAll('#timeline-chart circle.event')].map((c) => c.getAttribute('class')),
        rows: document.querySelectorAll('#timeline ol.events li').length,
        requirements: document.querySelectorAll('#requirements tbody tr').length,
        status: document.querySelector('#status').textContent,
        objective: document.querySelector('#objective').textContent,
        scripts: document.scripts.length,
        width: document.documentElement.scrollWidth,
      })`,
    })
    assert.deepEqual(page.consoleErrors, [])
    assert.deepEqual(
      page.requests.filter((u) => u !== pathToFileURL(file).href),
      [],
    )
    const dom = JSON.parse(page.probe)
    assert.equal(dom.gate, 11)
    assert.equal(dom.met, 11)
    assert.equal(dom.svg, true)
    assert.equal(dom.ticks, 20)
    for (const kind of [
      'ev-opened',
      'ev-updated',
      'ev-drift-warning',
      'ev-drift-denied',
      'ev-stop-blocked',
      'ev-close-refused',
      'ev-closed',
    ]) {
      assert.ok(
        dom.marks.some((c) => c.includes(kind)),
        kind,
      )
    }
    assert.equal(dom.rows, 40) // every audit line and tool call of the goal
    assert.equal(dom.requirements, 2)
    assert.equal(dom.status, 'complete')
    assert.equal(dom.objective, 'make the <greeting> print "hello" twice')
    assert.equal(dom.scripts, 0)
    assert.ok(fs.statSync(path.join(artifacts, 'goal-report.png')).size > 10_000)
    assert.ok(fs.readFileSync(path.join(artifacts, 'goal-report.pdf')).subarray(0, 5).toString() === '%PDF-')
  })

  test('an open goal shows its unmet conditions and the uncovered requirement', async () => {
    const file = path.join(state.home, 'open.html')
    ok(state, ['report', 'open-report', '-o', file])
    const page = await renderPage(chromium, pathToFileURL(file).href, {
      probe: `JSON.stringify({
        unmet: [...document.querySelectorAll('#gate li.unmet')].map((li) => li.dataset.field),
        uncovered: document.querySelector('#requirements tr.uncovered td').textContent,
      })`,
    })
    assert.deepEqual(page.consoleErrors, [])
    const dom = JSON.parse(page.probe)
    assert.ok(dom.unmet.includes('remaining') && dom.unmet.includes('requirementCoverage'), dom.unmet.join(','))
    assert.equal(dom.uncovered, 'R1: <b>escaped</b>')
  })
})

describe('status --watch', () => {
  let state
  before(() => {
    state = tempState()
    buildGoals(state)
  })
  after(() => state.cleanup())

  test('prints once and exits when stdout is not a terminal', () => {
    const res = run(state, ['status', '--watch', 'active'])
    assert.equal(res.code, 0, res.stderr)
    assert.match(res.stdout, /^goal active · 2 left/)
    assert.match(res.stdout, /Latest:\n.*opened/)
    assert.doesNotMatch(res.stdout, /\x1b\[/)
  })

  test('redraws in place on a terminal and exits cleanly on Ctrl-C', async () => {
    const { spawn } = await import('node:child_process')
    // exec: a shell that does not exec the last command (dash) would itself die of
    // the SIGINT meant for the watch and report 130.
    const cmd = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} status --watch --interval 0.2 active`
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env: state.env, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    await new Promise((resolve) => {
      const check = setInterval(() => {
        if ((out.match(/\x1b\[H\x1b\[2J/g) ?? []).length >= 2) {
          clearInterval(check)
          resolve()
        }
      }, 50)
    })
    child.stdin.write('\x03') // Ctrl-C on the terminal: SIGINT to the watch
    const code = await new Promise((resolve) => child.on('exit', resolve))
    assert.equal(code, 0)
    assert.match(out, /\x1b\[\?1049h/) // alternate screen on
    assert.match(out, /\x1b\[\?1049l/) // and off again
    assert.match(out, /goal active · 2 left/)
  })
})
