// The context board inside the real GitHub Copilot CLI, offline, against the scripted model
// (see copilot.test.mjs and NOTES.md). The scripted model adds an item with the extension's
// context_board tool in one session; a new session in the same repository and branch sees the
// board's metadata in its context (never the content); a session on another branch does not.
//
//   node --test --test-concurrency=1 e2e/board.test.mjs

import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { runCopilot } from './hosts.mjs'
import {
  setupRun,
  skipReason,
  explain,
  writeGreetingProject,
  installGoalSystem,
  goalStateRoot,
  messagesText,
  modelCalls,
  resultOf,
  debugDump,
} from './goal-helpers.mjs'

const RUN_MS = 60_000
const CONTENT = 'BOARD-CONTENT-7f3a: run sh greet.sh from the project folder'

const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim()

describe('context board in GitHub Copilot CLI', { skip: skipReason('copilot') }, () => {
  test('an item added in one session is shown to the next session on the same branch, not on another branch', {
    timeout: 240_000,
  }, async (t) => {
    const script = [
      {
        toolCalls: [
          {
            name: 'context_board',
            args: {
              command: 'add',
              name: 'run-greeting',
              description: 'How to run the greeting script',
              context: CONTENT,
            },
          },
        ],
      },
      { text: 'Noted on the board.' },
    ]
    const ctx = await setupRun('cop-board', script)
    t.after(ctx.cleanup)
    const { home, cwd, server } = ctx
    writeGreetingProject(cwd)
    git(cwd, 'init', '-q', '-b', 'main')
    git(cwd, 'remote', 'add', 'origin', 'https://github.com/acme/greeting.git')
    const install = installGoalSystem('copilot', { home, project: cwd })
    t.diagnostic(`install: ${install.method}`)

    // Session 1: the model adds an item.
    const r1 = await runCopilot({
      cwd,
      home,
      prompt: 'remember how to run the greeting script',
      server,
      timeoutMs: RUN_MS,
    })
    debugDump('cop-board-1', server, `${r1.stdout}\n--- stderr\n${r1.stderr}`)
    assert.equal(r1.code, 0, explain(r1, server))
    const [add] = modelCalls(server, (n) => n === 'context_board')
    assert.ok(add, 'the model called context_board')
    assert.match(resultOf(server, add).text, /Added agent item run-greeting/)
    const boards = fs.readdirSync(path.join(goalStateRoot(home), 'board')).filter((n) => n.endsWith('.json'))
    assert.equal(boards.length, 1, 'one board file')

    // Session 2, same repository and branch: the metadata is in the context, the content is not.
    const before2 = server.modelRequests().length
    server.push({ text: 'Hello.' })
    const r2 = await runCopilot({ cwd, home, prompt: 'say hello', server, timeoutMs: RUN_MS })
    assert.equal(r2.code, 0, explain(r2, server))
    const seen = server
      .modelRequests()
      .slice(before2)
      .map((q) => messagesText(q.body))
      .join('\n')
    assert.match(seen, /<context_board repository="github\.com\/acme\/greeting" branch="main">/)
    assert.match(seen, /\| agent \| run-greeting \| How to run the greeting script \| 0 \| 1 \|/)
    assert.ok(!seen.includes('BOARD-CONTENT-7f3a'), 'the content is fetched on demand, never injected')

    // Session 3 on another branch: no board.
    git(cwd, 'symbolic-ref', 'HEAD', 'refs/heads/topic')
    const before3 = server.modelRequests().length
    server.push({ text: 'Hello again.' })
    const r3 = await runCopilot({ cwd, home, prompt: 'say hello', server, timeoutMs: RUN_MS })
    assert.equal(r3.code, 0, explain(r3, server))
    const other = server
      .modelRequests()
      .slice(before3)
      .map((q) => messagesText(q.body))
      .join('\n')
    assert.ok(other.length > 0, 'session 3 asked the model')
    assert.ok(!other.includes('<context_board '), 'another branch has its own (empty) board')
  })
})
