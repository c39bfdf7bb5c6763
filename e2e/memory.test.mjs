// Repository memories, the consolidation agent and the recall line inside the real hosts
// (GitHub Copilot CLI 1.0.102, Claude Code 2.1.197 / 2.1.330 / the newest via
// GOAL_E2E_CLAUDE_VERSION), offline, against the scripted model (see NOTES.md). One project, one
// temp HOME, one installed goal system, seven sessions in a row:
//
//   0. the model's store_memory meets the host's permission flow without the user's grant: refused,
//      nothing written (Copilot CLI: a deny rule `custom-tool(store_memory)`; Claude Code: the MCP
//      tool not approved);
//   1. with the user's grant (Copilot CLI `--allow-tool custom-tool(store_memory)` without
//      --allow-all-tools; Claude Code `--allowedTools mcp__goalSystem__store_memory`) it is stored
//      in .github/copilot-memories.jsonl;
//   2. a new session sees it at session start, and stores a second one;
//   3. the next session sees both (the newer first) and votes the older one up;
//   4. the next session sees the older one first: the vote changed its rank;
//   5. `/goal consolidate`: the main agent starts goal-consolidator, which receives the core's
//      brief at its start and adds one board item and prunes a stale one;
//   6. a prompt naming a stored subject gets the recall line (the memory and the new board item).
//
//   node --test --test-concurrency=1 e2e/memory.test.mjs   (GOAL_E2E_ONLY=claude|copilot: one host)

import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { runClaude, runCopilot, REPO_DIR } from './hosts.mjs'
import {
  setupRun,
  skipReason,
  explain,
  writeGreetingProject,
  installGoalSystem,
  goalStateRoot,
  messagesText,
  toolNames,
  userTexts,
  modelCalls,
  resultOf,
  debugDump,
} from './goal-helpers.mjs'

const addon = createRequire(import.meta.url)(path.join(REPO_DIR, 'index.js'))
const RUN_MS = 90_000
const FILE = '.github/copilot-memories.jsonl'
const SUB_MARKER = 'SUBTASK-5e1d'
const STALE = 'stale-note'
const FACT_A = 'Run sh test.sh from the project root to test the greeting.'
const FACT_B = 'Releases are tagged vX.Y.Z after the tests pass.'

const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim()

/** The first user text of a request: the session's prompt, or a subagent's task. */
const firstUser = (req) => userTexts(req.body)[0] || ''
/** The memory file's records. */
const memories = (cwd) =>
  fs.existsSync(path.join(cwd, FILE))
    ? fs
        .readFileSync(path.join(cwd, FILE), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : []
/** The subjects of the session-start block, in the order shown. */
function shownOrder(text) {
  const block = text.match(/<repository_memories[^>]*>([\s\S]*?)<\/repository_memories>/)
  if (!block) return null
  return block[1]
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .map((l) => l.slice(2, l.indexOf(' (mem-')))
}

/** What each host calls the tools, and how it runs a session with or without the user's grant. */
const HOSTS = {
  copilot: {
    tool: (bare) => bare, // the extension's tools
    args: (_cwd, args) => args,
    launch: (prompt) => ({
      name: 'task',
      args: {
        agent_type: 'goal-consolidator',
        name: 'goal-consolidate',
        description: 'Consolidate session learnings',
        prompt,
        mode: 'sync',
      },
    }),
    finish: () => ({ toolCalls: [{ name: 'task_complete', args: { summary: 'Consolidated.' } }] }),
    run: ({ cwd, home, server, prompt, grant }) =>
      runCopilot({
        cwd,
        home,
        server,
        prompt,
        timeoutMs: RUN_MS,
        stopWhen: prompt.startsWith('/goal') ? 'task_complete' : undefined,
        // Without the grant: every tool allowed but a deny rule on the memory tool (a prompt
        // nobody answers in -p mode waits ~30 s before it is denied). With it: no
        // --allow-all-tools, only the user's rules for the extension and each tool.
        ...(grant
          ? {
              allowAllTools: false,
              args: [
                '--allow-tool',
                'extension-permission-access',
                '--allow-tool',
                'shell',
                ...['store_memory', 'vote_memory', 'context_board'].flatMap((t) => [
                  '--allow-tool',
                  `custom-tool(${t})`,
                ]),
              ],
            }
          : { args: ['--deny-tool', 'custom-tool(store_memory)'] }),
      }),
    denied: /Permission to run this tool was denied due to the following rules: `custom-tool\(store_memory\)`/,
  },
  claude: {
    tool: (bare) => `mcp__goalSystem__${bare}`,
    args: (cwd, args) => ({ cwd, ...args }), // the MCP tools name the caller's cwd
    launch: (prompt) => ({
      name: 'Agent',
      args: { subagent_type: 'goal-consolidator', description: 'Consolidate session learnings', prompt },
    }),
    finish: () => ({ text: 'The consolidation agent is done.' }),
    run: ({ cwd, home, server, prompt, grant }) =>
      runClaude({
        cwd,
        home,
        server,
        prompt,
        timeoutMs: RUN_MS,
        args: grant
          ? ['Agent', ...['store_memory', 'vote_memory', 'context_board'].map((t) => `mcp__goalSystem__${t}`)]
          : [],
      }),
    denied: /haven't granted it yet/,
  },
}

async function scenario(t, hostName) {
  const host = HOSTS[hostName]
  let handler = () => ({ text: 'Done.' })
  // Every request goes to the current session's handler.
  const ctx = await setupRun(
    `mem-${hostName}`,
    Array.from({ length: 200 }, () => (req) => handler(req)),
  )
  t.after(ctx.cleanup)
  const { home, cwd, server } = ctx
  writeGreetingProject(cwd)
  git(cwd, 'init', '-q', '-b', 'main')
  git(cwd, 'remote', 'add', 'origin', 'https://github.com/acme/greeting.git')
  const install = installGoalSystem(hostName === 'copilot' ? 'copilot' : 'claude', { home, project: cwd })
  t.diagnostic(`install: ${install.method}`)

  const T = host.tool
  const call = (bare, args) => ({ name: T(bare), args: host.args(cwd, args) })
  const store = (subject, fact) => ({
    toolCalls: [
      call('store_memory', { subject, fact, citations: 'test.sh:2', reason: 'later sessions run the tests' }),
    ],
  })
  /** Run one session: `main` and `sub` are the replies, in order, of the main agent and the subagent. */
  const session = async (label, prompt, main, { grant = true, sub = [] } = {}) => {
    const before = server.modelRequests().length
    const queues = { main: [...main], sub: [...sub] }
    handler = (req) => {
      const q = firstUser(req).includes(SUB_MARKER) ? queues.sub : queues.main
      const item = q.shift() ?? { text: 'Done.' }
      return typeof item === 'function' ? item(req) : item
    }
    const r = await host.run({ cwd, home, server, prompt, grant })
    debugDump(`mem-${hostName}-${label}`, server, `${r.stdout}\n--- stderr\n${r.stderr}`)
    const reqs = server.modelRequests().slice(before)
    t.diagnostic(
      `${label}: ${r.version} exit ${r.code} ${r.stoppedBy} ${r.durationMs} ms, ${reqs.length} model requests`,
    )
    assert.ok(reqs.length > 0, `${label}: the model was asked${explain(r, server)}`)
    return { r, reqs, first: messagesText(reqs[0].body) }
  }
  const callsIn = (reqs, bare) => modelCalls(server, (n) => n === T(bare)).filter((c) => reqs.includes(c.req))

  // 0. No grant: the host's permission flow refuses the write.
  const s0 = await session(
    'no-grant',
    'remember how to run the tests',
    [store('test command', FACT_A), { text: 'Could not store it.' }],
    { grant: false },
  )
  const [denied] = callsIn(s0.reqs, 'store_memory')
  assert.ok(denied, 'the model called store_memory')
  assert.match(resultOf(server, denied)?.text ?? '', host.denied)
  assert.equal(fs.existsSync(path.join(cwd, FILE)), false, 'nothing written without the grant')

  // 1. The user's grant: stored at the repository root.
  const s1 = await session('store', 'remember how to run the tests', [
    store('test command', FACT_A),
    { text: 'Stored.' },
  ])
  const [stored] = callsIn(s1.reqs, 'store_memory')
  assert.match(
    resultOf(server, stored)?.text ?? '',
    /Stored memory mem-[0-9a-f]{10} \(test command\)/,
    explain(s1.r, server),
  )
  const [a] = memories(cwd)
  assert.equal(a.fact, FACT_A)
  assert.equal(a.source.host, hostName === 'copilot' ? 'copilot-cli' : 'claude-code')

  // 2. A new session sees it at session start, and stores another.
  const s2 = await session('second', 'remember how releases are tagged', [
    store('release tags', FACT_B),
    { text: 'Stored.' },
  ])
  assert.deepEqual(shownOrder(s2.first), ['test command'], s2.first.slice(0, 3000))
  assert.equal(memories(cwd).length, 2)

  // 3. Both shown, the newer first; the model votes the older up.
  // (A prompt about a memory's subject ranks it higher at session start: keep this one neutral.)
  const s3 = await session('vote', 'good morning', [
    { toolCalls: [call('vote_memory', { fact: FACT_A, direction: 'upvote', reason: 'it ran the tests' })] },
    { text: 'Voted.' },
  ])
  assert.deepEqual(shownOrder(s3.first), ['release tags', 'test command'])
  const [vote] = callsIn(s3.reqs, 'vote_memory')
  assert.match(resultOf(server, vote)?.text ?? '', /now \+1\/-0/)

  // 4. The vote changed the rank.
  const s4 = await session('rank', 'say hello', [{ text: 'Hello.' }])
  assert.deepEqual(shownOrder(s4.first), ['test command', 'release tags'])

  // 5. /goal consolidate: the consolidation agent adds a board item and prunes a stale one.
  addon.contextBoardSync(
    { cwd, stateRoot: goalStateRoot(home) },
    { command: 'add', name: STALE, description: 'An outdated note', context: 'old' },
  )
  let sid = null
  const s5 = await session(
    'consolidate',
    '/goal consolidate',
    [
      (req) => {
        sid = messagesText(req.body).match(/Consolidate session ([^."]+)\./)?.[1] ?? 'unknown'
        return { toolCalls: [host.launch(`Consolidate session ${sid}. ${SUB_MARKER}`)] }
      },
      host.finish(),
    ],
    {
      sub: [
        {
          toolCalls: [
            call('context_board', {
              command: 'add',
              name: 'run-the-tests',
              description: 'How to run the greeting tests',
              context: 'sh test.sh from the project root',
            }),
          ],
        },
        { toolCalls: [call('context_board', { command: 'prune', name: STALE })] },
        { text: 'Added run-the-tests; pruned stale-note.' },
      ],
    },
  )
  assert.match(s5.first, /Start the goal-consolidator agent exactly once/, 'the hook told the main agent')
  const subReqs = s5.reqs.filter((q) => firstUser(q).includes(SUB_MARKER))
  assert.ok(subReqs.length >= 3, `the consolidation agent ran (${subReqs.length} requests)${explain(s5.r, server)}`)
  const brief = messagesText(subReqs[0].body)
  assert.match(brief, /<consolidation_brief>/, 'the core brief reached the agent')
  assert.match(brief, new RegExp(`- ${STALE} \\(agent`), 'with the board')
  assert.match(brief, /<conversation_turns[^>]*>[^<]*\[user\] /, "and the session's turns, from the host's own record")
  // Its only tools are the board and store_memory (Claude Code 2.1.330+ add the meta-tools
  // ToolSearch / DeferredToolPlaceholder for its deferred MCP tools).
  const offered = [...new Set(subReqs.flatMap((q) => toolNames(q.body)))].sort()
  t.diagnostic(`tools offered to goal-consolidator: ${offered.join(', ')}`)
  assert.ok(offered.length > 0, 'tools were offered')
  for (const name of offered)
    assert.ok(
      [T('context_board'), T('store_memory'), 'ToolSearch', 'DeferredToolPlaceholder'].includes(name),
      `${name} offered`,
    )
  const subCalls = modelCalls(server, (n) => n === T('context_board')).filter((c) => subReqs.includes(c.req))
  assert.equal(subCalls.length, 2)
  for (const c of subCalls) {
    const res = resultOf(server, c)
    assert.ok(
      res && !/Refused|SUBAGENT|denied/i.test(res.text),
      `the board accepted the agent's ${c.args.command}: ${res?.text}`,
    )
  }
  const board = addon.contextBoardSync({ cwd, stateRoot: goalStateRoot(home), user: true }, { command: 'get_board' })
  const names = board.items.map((i) => `${i.src}:${i.name}`)
  assert.ok(names.includes('agent:run-the-tests'), names.join(', '))
  assert.ok(!names.includes(`agent:${STALE}`), names.join(', '))

  // 6. A prompt naming a stored subject gets the recall line.
  const s6 = await session('recall', 'which test command should I run for the greeting?', [{ text: 'sh test.sh' }])
  const recall = s6.first.match(/<memory_recall>([\s\S]*?)<\/memory_recall>/)
  assert.ok(recall, `the recall block: ${s6.first.slice(-2500)}`)
  assert.match(recall[1], new RegExp(`memory ${a.id} \\(test command\\)`))
  assert.match(recall[1], /context board item run-the-tests \(agent\)/)
  assert.ok(!recall[1].includes('release tags'), 'only what the prompt is about')
}

// GOAL_E2E_ONLY=claude: the reruns on other Claude Code versions leave Copilot CLI out.
const only = process.env.GOAL_E2E_ONLY
const TITLES = {
  copilot: [
    'repository memories in GitHub Copilot CLI',
    'store through the permission flow, seen next session, reranked by a vote, consolidated, recalled',
  ],
  claude: [
    'repository memories in Claude Code',
    'store through the MCP approval, seen next session, reranked by a vote, consolidated, recalled',
  ],
}
for (const host of Object.keys(HOSTS).filter((h) => !only || h === only)) {
  describe(TITLES[host][0], { skip: skipReason(host) }, () => {
    test(TITLES[host][1], { timeout: 600_000 }, (t) => scenario(t, host))
  })
}
