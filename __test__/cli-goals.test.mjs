// goal-system list / status / show / open / update / close, run as the real command
// against goals created through the addon in a temp state root.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { after, beforeEach, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { userOpens, userTypes } from './helpers.mjs'

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(repo, 'bin', 'goal-system.mjs')
const addon = createRequire(import.meta.url)(path.join(repo, 'index.js'))
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'goal-cli-goals-'))
after(() => fs.rmSync(scratch, { recursive: true, force: true }))

let n = 0
let t // this test's folders: { home, sessionState, stateRoot, projA, projB }
beforeEach(() => {
  const base = path.join(scratch, `t${++n}`)
  t = {
    home: path.join(base, 'home'),
    sessionState: path.join(base, 'session-state'),
    stateRoot: path.join(base, 'session-state', 'goal-system'),
    projA: path.join(base, 'proj-a'),
    projB: path.join(base, 'proj-b'),
  }
  for (const dir of [t.home, t.projA, t.projB]) fs.mkdirSync(dir, { recursive: true })
})

function run(args, { input = '', env = {}, cwd = t.projA } = {}) {
  const base = { ...process.env, HOME: t.home, GOAL_SYSTEM_STATE_ROOT: t.stateRoot }
  for (const k of [
    'GOAL_SYSTEM_SESSION_ID',
    'COPILOT_SESSION_ID',
    'CLAUDE_CODE_SESSION_ID',
    'GOAL_SYSTEM_SESSION_STATE',
  ])
    delete base[k]
  const res = spawnSync(process.execPath, [bin, ...args], { env: { ...base, ...env }, input, cwd, encoding: 'utf8' })
  return { code: res.status, out: res.stdout, err: res.stderr }
}

const caller = (sessionId, cwd) => ({ sessionId, cwd, stateRoot: t.stateRoot })
// Opening and cancelling are the user's: typed as a prompt the host delivers.
const opens = (sessionId, cwd, objective, fields) => userOpens(t, sessionId, cwd, objective, fields)

/** Run the command in a pseudo-terminal, as a user types it (util-linux `script`). */
function runInTerminal(args, { env = {}, cwd = t.projA } = {}) {
  const base = { ...process.env, HOME: t.home, GOAL_SYSTEM_STATE_ROOT: t.stateRoot }
  for (const k of [
    'GOAL_SYSTEM_SESSION_ID',
    'COPILOT_SESSION_ID',
    'CLAUDE_CODE_SESSION_ID',
    'GOAL_SYSTEM_SESSION_STATE',
    'CLAUDECODE',
    'CLAUDE_CODE_ENTRYPOINT',
    'COPILOT_CLI',
  ])
    delete base[k]
  const quoted = [process.execPath, bin, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  const res = spawnSync('script', ['-qec', quoted, '/dev/null'], {
    env: { ...base, ...env },
    cwd,
    encoding: 'utf8',
    input: '',
  })
  return { code: res.status, out: res.stdout, err: res.stdout }
}
const find = (key) => addon.findGoal(key, { stateRoot: t.stateRoot })

/** Two goals in two folders, one with progress recorded. */
function seed() {
  const a = opens('sess-a', t.projA, 'Ship the parser', { requirements: ['parses JSON'] }).goal
  addon.updateGoalSync(caller('sess-a', t.projA), {
    doneSoFar: ['wrote the lexer'],
    remaining: ['error messages', 'docs'],
  })
  const b = opens('sess-b', t.projB, 'Fix the flaky test').goal
  return { a: find(a.id), b: find(b.id) }
}

describe('list', () => {
  test('JSON matches the goals in the store', () => {
    const { a, b } = seed()
    const r = run(['list', '--json'])
    assert.equal(r.code, 0, r.err)
    const listed = JSON.parse(r.out)
    assert.deepEqual(listed.map((g) => g.id).sort(), [a.goal.id, b.goal.id].sort())
    const la = listed.find((g) => g.id === a.goal.id)
    assert.deepEqual(la, {
      id: a.goal.id,
      sessionId: 'sess-a',
      cwd: t.projA,
      objective: 'Ship the parser',
      status: 'active',
      open: true,
      createdAt: a.goal.createdAt,
      updatedAt: a.goal.updatedAt,
      closedAt: null,
      remaining: ['error messages', 'docs'],
      blockers: [],
      statusReason: null,
      budget: { tokenBudget: null, tokensUsed: 0, timeBudgetSeconds: null, timeUsedSeconds: 0, toolCalls: 0, turns: 0 },
      unmet: a.unmet,
    })
    assert.ok(la.unmet.includes('remaining') && la.unmet.includes('validationProof'))

    const onlyB = JSON.parse(run(['list', '--json', '--cwd', t.projB]).out)
    assert.deepEqual(
      onlyB.map((g) => g.id),
      [b.goal.id],
    )
    const bySession = JSON.parse(run(['list', '--json', '--session', 'sess-a']).out)
    assert.deepEqual(
      bySession.map((g) => g.id),
      [a.goal.id],
    )
  })

  test('table: id, session, status, updated, remaining count, tokens, unmet conditions, cwd', () => {
    const { a, b } = seed()
    const r = run(['list'])
    assert.equal(r.code, 0, r.err)
    const [head, ...rows] = r.out.trimEnd().split('\n')
    assert.match(head, /^ID\s+SESSION\s+STATUS\s+UPDATED\s+REMAINING\s+TOKENS\s+UNMET\s+CWD$/)
    assert.equal(rows.length, 2)
    const rowA = rows.find((l) => l.startsWith(a.goal.id))
    const cells = rowA.split(/\s{2,}/)
    assert.equal(cells[1], 'sess-a')
    assert.equal(cells[2], 'active')
    assert.match(cells[3], /^\d{4}-\d\d-\d\d \d\d:\d\dZ$/)
    assert.equal(cells[4], '2')
    assert.equal(cells[5], '0')
    assert.ok(cells[6].startsWith(a.unmet.join(',').slice(0, 40)), cells[6])
    assert.equal(cells[7], t.projA)
    assert.ok(rows.some((l) => l.startsWith(b.goal.id) && l.endsWith(t.projB)))

    // --open drops closed goals; `status` without a session is the list.
    userTypes(t, 'sess-b', t.projB, '/goal cancel: not needed any more')
    const open = run(['list', '--open'])
    assert.ok(!open.out.includes(b.goal.id))
    assert.match(run(['list']).out, new RegExp(`^${b.goal.id}\\s+sess-b\\s+cancelled\\s`, 'm'))
    assert.equal(run(['status']).out, run(['list']).out)
  })

  test('an empty state root says so', () => {
    const r = run(['list'])
    assert.equal(r.code, 0)
    assert.match(r.out, /^No goals in /)
    assert.deepEqual(JSON.parse(run(['list', '--json']).out), [])
  })
})

describe('show', () => {
  test('by goal id or session id: summary, unmet conditions, autopilot objective', () => {
    const { a } = seed()
    const status = addon.goalStatusSync(caller('sess-a', t.projA))
    for (const key of [a.goal.id, 'sess-a']) {
      const r = run(['show', key])
      assert.equal(r.code, 0, r.err)
      assert.ok(r.out.startsWith(`Goal ${a.goal.id} (active)\nSession: sess-a\nCwd: ${t.projA}\n`), r.out)
      assert.match(r.out, /Objective: Ship the parser/)
      for (const u of status.unmet) assert.ok(r.out.includes(`${u.field}: ${u.message}`), `${u.field} in show`)
    }
    const json = JSON.parse(run(['show', 'sess-a', '--json']).out)
    assert.equal(json.id, a.goal.id)
    assert.deepEqual(json.unmet, status.unmet)
    assert.equal(json.autopilot, null)
    assert.deepEqual(json.goal.doneSoFar, ['wrote the lexer'])

    // Copilot CLI's own objective for the session shows beside the goal.
    const dir = path.join(t.sessionState, 'sess-a')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'autopilot-objective.json'),
      JSON.stringify({
        version: 1,
        current: { id: 1, objective: 'Ship the parser', status: 'active', continuationCount: 2 },
      }),
    )
    assert.match(run(['show', a.goal.id]).out, /Copilot CLI autopilot objective: Ship the parser \(status active\)/)
    const withAutopilot = JSON.parse(run(['show', a.goal.id, '--json']).out)
    assert.equal(withAutopilot.autopilot.objective, 'Ship the parser')
    assert.equal(withAutopilot.autopilot.continuationCount, 2)
    // `status` with the session in the environment shows that goal.
    assert.match(run(['status'], { env: { COPILOT_SESSION_ID: 'sess-a' } }).out, new RegExp(`^Goal ${a.goal.id}`))
  })

  test('an unknown goal is refused with exit 1', () => {
    seed()
    const r = run(['show', 'no-such-session'])
    assert.equal(r.code, 1)
    assert.match(r.err, /no goal with id or session "no-such-session"/)
  })
})

describe('open, update, close', () => {
  test('update by --session with field flags, --input-json and --input-json - (stdin)', () => {
    const { a } = seed()
    const r = run([
      'update',
      '--session',
      'sess-a',
      '--done',
      'error messages written',
      '--remaining',
      'docs',
      '--validation',
      'unit tests pass',
    ])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /Changes: .*doneSoFar: \+1/)
    let goal = find(a.goal.id).goal
    assert.deepEqual(goal.doneSoFar, ['wrote the lexer', 'error messages written'])
    assert.deepEqual(goal.remaining, ['docs'])
    assert.deepEqual(goal.validationProof, ['unit tests pass'])

    assert.equal(
      run(['update', '--session', a.goal.id, '--input-json', '{"inspectionEvidence":["read src/lexer.rs"]}']).code,
      0,
    )
    const viaStdin = run(['update', '--input-json', '-', '--no-remaining'], {
      input: JSON.stringify({ verificationResults: ['cargo test: 12 passed'] }),
      env: { CLAUDE_CODE_SESSION_ID: 'sess-a' },
    })
    assert.equal(viaStdin.code, 0, viaStdin.err)
    goal = find(a.goal.id).goal
    assert.deepEqual(goal.inspectionEvidence, ['read src/lexer.rs'])
    assert.deepEqual(goal.verificationResults, ['cargo test: 12 passed'])
    assert.deepEqual(goal.remaining, [])
  })

  test('without a session: the one open goal of the folder, and refusal when there are several', () => {
    const { a } = seed()
    const one = run(['update', '--done', 'docs drafted'], { cwd: t.projA })
    assert.equal(one.code, 0, one.err)
    assert.ok(find(a.goal.id).goal.doneSoFar.includes('docs drafted'))

    const second = opens('sess-c', t.projA, 'Another goal here').goal
    const before = JSON.stringify(find(a.goal.id).goal)
    const r = run(['update', '--done', 'which one?'], { cwd: t.projA })
    assert.equal(r.code, 1)
    assert.match(r.err, /2 open goals in .*proj-a/)
    assert.ok(r.err.includes(a.goal.id) && r.err.includes(second.id), r.err)
    assert.match(r.err, /--session/)
    assert.equal(JSON.stringify(find(a.goal.id).goal), before, 'nothing recorded')
    assert.equal(run(['close', '--status', 'cancelled', '--reason', 'x'], { cwd: t.projA }).code, 1)

    const none = run(['update', '--done', 'x'], { cwd: t.home })
    assert.equal(none.code, 1)
    assert.match(none.err, /no open goal in/)
  })

  test('a refused close lists every unmet condition and exits 1; blocked closes with its reason', () => {
    const { a } = seed()
    const unmet = addon.goalStatusSync(caller('sess-a', t.projA)).unmet
    assert.ok(unmet.length >= 3)
    const r = run(['close', '--session', 'sess-a'])
    assert.equal(r.code, 1)
    assert.match(r.err, /Close refused/)
    for (const u of unmet) assert.ok(r.err.includes(`${u.field}: ${u.message}`), `${u.field} listed`)
    assert.equal(find(a.goal.id).open, true)

    // Evidence sent with a refused close is still recorded.
    assert.equal(run(['close', '--session', 'sess-a', '--audit', 'checked parses JSON']).code, 1)
    assert.deepEqual(find(a.goal.id).goal.completionAudit, ['checked parses JSON'])

    assert.equal(run(['close', '--session', 'sess-a', '--status', 'blocked']).code, 2, 'blocked needs a reason')
    const blocked = run(['close', '--session', 'sess-a', '--status', 'blocked', '--reason', 'needs the vendor API key'])
    assert.equal(blocked.code, 0, blocked.err)
    const closed = find(a.goal.id)
    assert.equal(closed.open, false)
    assert.equal(closed.goal.completionStatus, 'blocked')
    assert.ok(closed.goal.closedAt)
  })

  test('close complete passes once the gate is met', () => {
    opens('sess-d', t.projA, 'Add a flag', { requirements: ['verbose flag'] })
    // Real tool activity, as the hooks record it: an edit and a test run.
    for (const [toolName, toolArgs] of [
      ['view', { path: 'src/cli.rs' }],
      ['edit', { path: 'src/cli.rs' }],
      ['bash', { command: 'cargo test' }],
    ]) {
      const payload = {
        sessionId: 'sess-d',
        cwd: t.projA,
        timestamp: Date.now(),
        toolName,
        toolArgs,
        toolResult: { resultType: 'success', textResultForLlm: 'ok' },
      }
      const prev = process.env.GOAL_SYSTEM_STATE_ROOT
      process.env.GOAL_SYSTEM_STATE_ROOT = t.stateRoot
      try {
        addon.runHook('copilot-cli', 'postToolUse', JSON.stringify(payload))
      } finally {
        if (prev === undefined) delete process.env.GOAL_SYSTEM_STATE_ROOT
        else process.env.GOAL_SYSTEM_STATE_ROOT = prev
      }
    }
    const r = run([
      'close',
      '--session',
      'sess-d',
      '--done',
      'added --verbose',
      '--validation',
      'cargo test covers --verbose',
      '--verification',
      'cargo test: 30 passed',
      '--inspection',
      'read src/cli.rs',
      '--coverage',
      'verbose flag: tested by cli_verbose_test',
      '--audit',
      'verbose flag: present and tested',
    ])
    assert.equal(r.code, 0, r.out + r.err)
    const g = find('sess-d')
    assert.equal(g.goal.completionStatus, 'complete')
    assert.ok(g.goal.closedAt)
  })

  test('open needs a session and an objective; a different objective needs --replace', () => {
    assert.equal(run(['open', '--objective', 'x']).code, 2)
    assert.equal(run(['open', '--session', 's-open']).code, 2)
    // Piped (as an agent's shell tool runs it), open is refused: only the user opens.
    const piped = run(['open', '--session', 's-open', '--objective', 'Write the guide', '--draft'], { cwd: t.projB })
    assert.equal(piped.code, 1, piped.err)
    assert.match(piped.err, /FORBIDDEN/)
    assert.match(piped.err, /only the user/)
    // In an agent host's shell, even with a terminal, it is the agent.
    const agentShell = runInTerminal(['open', '--session', 's-open', '--objective', 'Write the guide'], {
      cwd: t.projB,
      env: { CLAUDECODE: '1' },
    })
    assert.notEqual(agentShell.code, 0, agentShell.out)
    const r = runInTerminal(['open', '--session', 's-open', '--objective', 'Write the guide', '--draft'], {
      cwd: t.projB,
    })
    assert.equal(r.code, 0, r.out)
    const g = find('s-open').goal
    assert.equal(g.completionStatus, 'draft')
    assert.equal(g.cwd, t.projB)
    const again = runInTerminal(['open', '--session', 's-open', '--objective', 'Something else'], { cwd: t.projB })
    assert.equal(again.code, 1)
    assert.match(again.out, /GOAL_EXISTS/)
    assert.equal(
      runInTerminal(['open', '--session', 's-open', '--objective', 'Something else', '--replace'], { cwd: t.projB })
        .code,
      0,
    )
    assert.equal(find('s-open').goal.objective, 'Something else')
  })

  test("budget is the user's: set in the terminal, refused when piped, shown by status and list", () => {
    const { a } = seed()
    const piped = run(['budget', '--session', 'sess-a', '--tokens', '900000'])
    assert.equal(piped.code, 1, piped.err)
    assert.match(piped.err, /FORBIDDEN/)
    assert.equal(run(['budget', '--session', 'sess-a', '--tokens', 'lots']).code, 2)
    const r = runInTerminal(['budget', '--session', 'sess-a', '--tokens', '0', '--minutes', '30'])
    assert.equal(r.code, 0, r.out)
    const g = find('sess-a').goal
    assert.equal(g.budget.tokenBudget, 0)
    assert.equal(g.budget.timeBudgetSeconds, 1800)
    assert.equal(g.completionStatus, 'budget_limited', 'a budget of 0 limits at once')
    const shown = run(['show', 'sess-a'])
    assert.match(shown.out, /Usage: tokens 0 of 0; time \d+ s of 1800 s/)
    assert.match(shown.out, /Why budget-limited: token budget reached/)
    const listed = JSON.parse(run(['list', '--json']).out).find((l) => l.id === a.goal.id)
    assert.equal(listed.budget.tokenBudget, 0)
    assert.equal(listed.status, 'budget_limited')
    // update and close take the expected goal id, as the tools do.
    const stale = run(['update', '--session', 'sess-a', '--done', 'x', '--expected-goal-id', 'goal-000000000000'])
    assert.notEqual(stale.code, 0)
    const closed = run([
      'close',
      '--session',
      'sess-a',
      '--status',
      'blocked',
      '--reason',
      'the budget ran out',
      '--expected-goal-id',
      a.goal.id,
    ])
    assert.equal(closed.code, 0, closed.err)
    assert.match(closed.out, /tokens used: 0 of 0; time used: \d+ s of 1800 s/)
  })

  test('usage and state errors: exit 2 and 3', () => {
    seed()
    assert.equal(run(['update', '--session', 'sess-a', '--bogus', 'x']).code, 2)
    assert.equal(run(['update', '--session', 'sess-a', '--input-json', '{not json']).code, 2)
    assert.equal(run(['update', '--session', 'sess-a', '--input-json', '{"nonsense": 1}']).code, 2)
    assert.equal(run(['close', '--session', 'sess-a', '--status', 'done']).code, 2)
    assert.equal(run(['show', 'a', 'b']).code, 2)
    // A state root that is a file cannot hold goals.
    const file = path.join(t.home, 'not-a-folder')
    fs.writeFileSync(file, 'x')
    const r = runInTerminal(['open', '--session', 's-x', '--objective', 'x'], { env: { GOAL_SYSTEM_STATE_ROOT: file } })
    assert.equal(r.code, 3, r.out)
  })
})

describe('JSON in and out', () => {
  test('--json prints the result of a write as JSON; the request comes with --input-json', () => {
    const { a } = seed()
    const r = run(['update', '--session', 'sess-a', '--input-json', '{"doneSoFar":["docs written"]}', '--json'])
    assert.equal(r.code, 0, r.err)
    const result = JSON.parse(r.out)
    assert.equal(result.goal.id, a.goal.id)
    assert.deepEqual(result.goal.doneSoFar, ['wrote the lexer', 'docs written'])
  })

  test('the old spelling --json <request> still works on writes, with a deprecation note', () => {
    seed()
    const r = run(['update', '--session', 'sess-a', '--json', '{"doneSoFar":["old spelling"]}'])
    assert.equal(r.code, 0, r.err)
    assert.match(r.err, /goal-system update: --json with a request is deprecated; use --input-json/)
    assert.deepEqual(find('sess-a').goal.doneSoFar.at(-1), 'old spelling')
  })

  test('a misspelt record field, as a flag or in the JSON request, gets a suggestion', () => {
    seed()
    const flag = run(['update', '--session', 'sess-a', '--requirment', 'x'])
    assert.equal(flag.code, 2)
    assert.match(flag.err, /^goal-system update: Unknown option '--requirment'\. Did you mean --requirement\?/)
    const json = run(['update', '--session', 'sess-a', '--input-json', '{"doneSofar": ["x"]}'])
    assert.equal(json.code, 2)
    assert.match(json.err, /unknown field "doneSofar".*did you mean "doneSoFar"\?/is)
  })
})

describe('bounded list', () => {
  /** `count` goals in one folder, updated one after another (the last is the newest). */
  function many(count) {
    for (let i = 1; i <= count; i++) opens(`many-${String(i).padStart(3, '0')}`, t.projA, `goal number ${i}`)
  }

  test('the newest page by default, with how to see the rest', () => {
    many(45)
    const r = run(['list'])
    assert.equal(r.code, 0, r.err)
    const rows = r.out.trim().split('\n').slice(1, -1)
    assert.equal(rows.length, 20)
    assert.match(rows[0], /many-045/)
    assert.match(
      r.out,
      /Goals 1-20 of 45 \(newest first, page 1 of 3\); --page 2 for older ones, --all for every one\./,
    )
    const last = run(['list', '--page', '3'])
    assert.match(last.out, /many-005[\s\S]*many-001/)
    assert.match(last.out, /Goals 41-45 of 45 \(newest first, page 3 of 3\); --all for every one\./)
    assert.equal(JSON.parse(run(['list', '--json', '--all']).out).length, 45)
    assert.equal(JSON.parse(run(['list', '--json']).out).length, 20)
    assert.equal(run(['list', '--page', '0']).code, 2)
  })
})

describe('output into a closed pipe', () => {
  test('30 runs of `goal-system list | head -1` end without a stack trace', () => {
    for (let i = 1; i <= 60; i++) opens(`pipe-${i}`, t.projA, `pipe goal ${i} `.repeat(20).trim())
    for (let i = 0; i < 30; i++) {
      const res = spawnSync('bash', ['-c', `node ${JSON.stringify(bin)} list --all | head -1`], {
        env: { ...process.env, HOME: t.home, GOAL_SYSTEM_STATE_ROOT: t.stateRoot },
        encoding: 'utf8',
      })
      assert.match(res.stdout, /^ID\s+SESSION/)
      assert.equal(res.stderr, '', `run ${i}: ${res.stderr}`)
    }
  })
})
