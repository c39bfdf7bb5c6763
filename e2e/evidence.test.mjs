// The completion gate against what really happened, in the real hosts (Copilot CLI 1.0.102 and
// Claude Code: GOAL_E2E_CLAUDE_VERSION picks the version), offline against the scripted model.
// GOAL_E2E_ONLY=<host> runs one host. Each honest flow must close complete at its FIRST close (a script project without a test
// runner, test-first, an analysis, a docs-only edit, a refactor with a build and the tests); each
// dishonest variant must be refused with a message naming the observed fact (reads alone, a run
// of zero tests, tests in another folder, a change after the passing run).
//
//   node --test --test-concurrency=1 e2e/evidence.test.mjs

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { runClaude, runCopilot } from './hosts.mjs'
import {
  CLAUDE_GOAL_TOOL,
  callerFromContext,
  claudeServerOpts,
  debugDump,
  explain,
  installGoalSystem,
  modelCalls,
  readGoal,
  resultOf,
  setupRun,
  skipReason,
} from './goal-helpers.mjs'

const RUN_MS = 90_000
const TEST_MS = 200_000
const OBJECTIVE = 'make greet.sh print hello twice'

/** Written evidence an honest model records; only the observed facts can refuse it. */
const evidence = {
  requirements: ['R1: greet.sh prints hello twice'],
  inspectionEvidence: ['cat greet.sh: it printed hello once'],
  doneSoFar: ['greet.sh now prints hello twice'],
  validationProof: ['the run printed two lines of hello'],
  verificationResults: ['sh greet.sh: hello, hello'],
  requirementCoverage: ['R1: the run printed hello twice'],
  completionAudit: ['R1 checked against the run output'],
  remaining: [],
  blockers: [],
}

const FIX = "printf '#!/bin/sh\\necho hello\\necho hello\\n' > greet.sh"
const TEST_SH = [
  "cat > test.sh <<'EOF'",
  '#!/bin/sh',
  'if [ "$(sh greet.sh)" = "$(printf \'hello\\nhello\')" ]; then echo "ok 1 - greet.sh prints hello twice"',
  'else echo "not ok 1 - greet.sh prints hello twice"; exit 1; fi',
  'EOF',
].join('\n')

/** One host's way of scripting the model: its shell tool, its goal tools, its end. */
const HOSTS = {
  copilot: {
    skip: () => skipReason('copilot'),
    shell: (command) => ({ toolCalls: [{ name: 'bash', args: { command, description: 'run' } }] }),
    goal: (bare, fields = {}) => ({ toolCalls: [{ name: bare, args: fields }] }),
    end: () => ({ toolCalls: [{ name: 'task_complete', args: { summary: 'greet.sh prints hello twice.' } }] }),
    async run(name, files, script) {
      const ctx = await setupRun(name, script)
      writeFiles(ctx.cwd, files)
      installGoalSystem('copilot', { home: ctx.home, project: ctx.cwd })
      const r = await runCopilot({
        cwd: ctx.cwd,
        home: ctx.home,
        prompt: `/goal ${OBJECTIVE}`,
        server: ctx.server,
        timeoutMs: RUN_MS,
        stopWhen: 'task_complete',
        // A user who approves paths outside the project (the dishonest run elsewhere needs it).
        args: ['--allow-all'],
      })
      return { ...ctx, r, sessionId: r.sessionId }
    },
  },
  claude: {
    skip: () => skipReason('claude'),
    shell: (command) => ({ toolCalls: [{ name: 'Bash', args: { command } }] }),
    goal:
      (bare, fields = {}) =>
      (req) => ({
        toolCalls: [{ name: CLAUDE_GOAL_TOOL(bare), args: { ...callerFromContext(req.body), ...fields } }],
      }),
    end: () => ({ text: 'Done.' }),
    async run(name, files, script) {
      let project = null
      const ctx = await setupRun(
        name,
        script,
        claudeServerOpts(() => project),
      )
      project = ctx.cwd
      writeFiles(ctx.cwd, files)
      installGoalSystem('claude', { home: ctx.home, project: ctx.cwd })
      const r = await runClaude({
        cwd: ctx.cwd,
        home: ctx.home,
        prompt: `/goal ${OBJECTIVE}`,
        server: ctx.server,
        timeoutMs: RUN_MS,
      })
      return { ...ctx, r, sessionId: r.json?.session_id }
    },
  },
}

function writeFiles(cwd, files) {
  for (const [rel, body] of Object.entries(files)) {
    const p = path.join(cwd, rel)
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, body, { mode: 0o755 })
  }
}

const GREET = { 'greet.sh': '#!/bin/sh\necho hello\n' }

/**
 * Run `steps` (shell commands, or `['close', expect]` markers) in `host`: the model activates the
 * user's draft, runs each step, records the evidence and closes where a close marker says.
 * Returns the run, the closes' results in order and the final goal.
 */
async function flow(t, host, name, files, steps, verified = 'sh greet.sh: hello, hello') {
  const h = HOSTS[host]
  // What an honest model writes: the run it really made and what it printed.
  const written = { ...evidence, verificationResults: [verified] }
  const script = [h.goal('goal_system_update', { status: 'active', ...written, remaining: ['do it'] })]
  for (const step of steps) {
    if (step === 'close') {
      script.push(h.goal('goal_system_update', written))
      script.push(h.goal('goal_system_close', { status: 'complete', reason: 'verified' }))
    } else script.push(h.shell(step))
  }
  script.push(h.end())
  const run = await h.run(`ev-${host}-${name}`, files, script)
  t.after(run.cleanup)
  const dump = debugDump(`ev-${host}-${name}`, run.server, `${run.r.stdout}\n--- stderr\n${run.r.stderr}`)
  if (dump) t.diagnostic(`transcript: ${dump}`)
  const closes = modelCalls(run.server, (n) => n.endsWith('goal_system_close')).map((c) => resultOf(run.server, c))
  const goal = readGoal(run.home, run.sessionId)
  assert.ok(goal, `a goal was persisted${explain(run.r, run.server)}`)
  return { ...run, closes, goal }
}

const closedComplete = (res) => res && !res.isError && !/refused/i.test(res.text) && /complete/.test(res.text)

// GOAL_E2E_ONLY=claude: the reruns on other Claude Code versions leave Copilot CLI out.
const only = process.env.GOAL_E2E_ONLY
for (const host of Object.keys(HOSTS).filter((h) => !only || h === only)) {
  describe(`observed evidence in ${host}`, { skip: HOSTS[host].skip() }, () => {
    const honest = {
      'a script project without a test runner: edit, run the script, close': [
        GREET,
        ['cat greet.sh', FIX, 'sh greet.sh', 'close'],
      ],
      'test-first: a failing test, the fix, the test passes, close': [
        GREET,
        [TEST_SH, 'sh test.sh', FIX, 'sh test.sh', 'close'],
        'sh test.sh: ok 1 - greet.sh prints hello twice',
      ],
      'an analysis: read, run the program to confirm, close': [GREET, ['cat greet.sh', 'sh greet.sh', 'close']],
      'docs only: the change, read back, close': [
        { ...GREET, 'README.md': '# greet\n' },
        ["printf '\\nRun sh greet.sh to be greeted.\\n' >> README.md", 'cat README.md', 'close'],
        'cat README.md shows the new usage line',
      ],
      'a run spelled the way agents do: in a group, $PWD, stdin closed, stderr dropped': [
        GREET,
        [FIX, '(sh "$PWD/greet.sh" < /dev/null 2> /dev/null)', 'close'],
        'the run of greet.sh printed two lines of hello',
      ],
      'a library checked from the command line (node -e)': [
        { 'lib.js': "exports.greet = () => 'hi'\n" },
        ["sed -i 's/hi/hello/' lib.js", 'node -e "console.log(require(\'./lib\').greet())"', 'close'],
        'node -e printed hello from lib.js',
      ],
      'a refactor with a build and the tests': [
        {
          'package.json': JSON.stringify({
            name: 'greet',
            private: true,
            scripts: { build: 'node build.mjs', test: 'node --test' },
          }),
          'src/greet.mjs': "export const greet = () => 'hello'\n",
          'build.mjs':
            "import fs from 'node:fs'\nfs.mkdirSync('dist', { recursive: true })\nfs.copyFileSync('src/greet.mjs', 'dist/greet.mjs')\n",
          'greet.test.mjs':
            "import { test } from 'node:test'\nimport assert from 'node:assert'\nimport { greet } from './dist/greet.mjs'\ntest('greets', () => assert.equal(greet(), 'hello'))\n",
        },
        [
          'sed -i \'s/() => .hello./function () { return "hello" }/\' src/greet.mjs',
          'npm run build && npm test',
          'close',
        ],
        'npm test: the greets test passes against the rebuilt dist',
      ],
    }
    for (const [name, [files, steps, verified]] of Object.entries(honest)) {
      test(`honest: ${name} closes complete the first time`, { timeout: TEST_MS }, async (t) => {
        const run = await flow(t, host, name.split(':')[0].replace(/\W+/g, '-'), files, steps, verified)
        assert.equal(run.closes.length, 1, explain(run.r, run.server))
        assert.ok(closedComplete(run.closes[0]), `the first close is accepted:\n${run.closes[0]?.text}`)
        assert.equal(run.goal.completionStatus, 'complete')
        const v = run.goal.toolHistory.lastVerification
        if (!name.startsWith('docs')) {
          assert.equal(v?.passed, true, JSON.stringify(run.goal.toolHistory))
          assert.equal(v.observed, 'tree', 'judged from the observed tree, not from the words')
        }
      })
    }

    test('dishonest: reads alone, zero tests and another folder are refused naming the fact; a real run then closes', {
      timeout: TEST_MS,
    }, async (t) => {
      const run = await flow(
        t,
        host,
        'dishonest',
        { ...GREET, 'greet.test.mjs': "import { test } from 'node:test'\ntest('x', () => {})\n" },
        [
          'cat greet.sh',
          'close',
          FIX,
          'node --test --test-name-pattern=zzz',
          'close',
          'mkdir -p ../elsewhere && cd ../elsewhere && node --test',
          'close',
          'sh greet.sh',
          'close',
        ],
      )
      const [readsOnly, zero, elsewhere, real] = run.closes.map((c) => c?.text || '')
      assert.match(readsOnly, /nothing was run to verify the work/)
      assert.match(zero, /ran no tests/)
      assert.match(zero, /node --test --test-name-pattern=zzz/)
      assert.match(elsewhere, /outside the goal's folder/)
      assert.ok(closedComplete(run.closes[3]), real)
      assert.equal(run.goal.completionStatus, 'complete')
    })

    test('dishonest: a failing suite piped through tail is refused; the real run then closes', {
      timeout: TEST_MS,
    }, async (t) => {
      const run = await flow(
        t,
        host,
        'masked',
        { ...GREET, 'greet.test.mjs': "import { test } from 'node:test'\ntest('x', () => { throw new Error('x') })\n" },
        [FIX, 'node --test | tail -1', 'close', 'sh greet.sh', 'close'],
      )
      const [masked, real] = run.closes.map((c) => c?.text || '')
      assert.match(masked, /exit status was hidden/)
      assert.match(masked, /no passing summary/)
      assert.ok(closedComplete(run.closes[1]), real)
      assert.equal(run.goal.completionStatus, 'complete')
    })

    test('dishonest: a change after the passing run (git stash) is refused naming it', {
      timeout: TEST_MS,
    }, async (t) => {
      const run = await flow(t, host, 'stash', GREET, [
        'git init -q && git add -A && git -c user.email=e@x -c user.name=e commit -qm init',
        FIX,
        'sh greet.sh',
        'git stash',
        'close',
      ])
      const refused = run.closes[0]?.text || ''
      assert.match(refused, /git stash/)
      assert.match(refused, /greet\.sh/)
      assert.match(refused, /came after the last passing verification/)
      assert.notEqual(run.goal.completionStatus, 'complete')
    })
  })
}
