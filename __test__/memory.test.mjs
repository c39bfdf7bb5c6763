// Repository memories as each host meets them: store_memory / vote_memory
// through the MCP server (official client) and the Copilot CLI extension, the
// user's `goal-system memory` command, the hooks' session-start block, recall
// line and consolidation brief (the real hook runner and native hook), and the
// consolidation agent's files in each host's format.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { load as loadYaml } from 'js-yaml'

import { addon, cliHook, root, runnerHook, tempState } from './helpers.mjs'

process.env.GOAL_SYSTEM_EXTENSION_NO_AUTOSTART = '1'
const ext = await import('../extension.mjs')

const BIN = join(root, 'bin', 'goal-system.mjs')
const SERVER = join(root, 'adapters', 'vscode-chat', 'mcp-server.mjs')
const FILE = '.github/copilot-memories.jsonl'

/** A real repository (no commits needed). */
function makeRepo(dir) {
  mkdirSync(dir, { recursive: true })
  const r = spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  return dir
}

/** The memory file's lines as objects. */
const lines = (repo) =>
  readFileSync(join(repo, FILE), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))

/** The user's `goal-system memory` in their own terminal (a pseudo-terminal through util-linux `script`). */
function memory(state, cwd, ...args) {
  const env = { ...state.env }
  for (const k of ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'COPILOT_CLI']) delete env[k]
  const quoted = [process.execPath, BIN, 'memory', ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  const r = spawnSync('script', ['-qec', quoted, '/dev/null'], { cwd, env, encoding: 'utf8', input: '' })
  return { code: r.status, out: r.stdout.replace(/\r\n/g, '\n') }
}

/** The same command through an agent's shell tool (a pipe): the agent's rights. */
function memoryFromAgentShell(state, cwd, ...args) {
  const r = spawnSync(process.execPath, [BIN, 'memory', ...args], { cwd, env: state.env, encoding: 'utf8' })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** A GitHub-shaped token assembled at run time, so no fixture holds one. */
const fakeToken = () => ['gh', 'p_', 'Zx9'.repeat(6), 'Qw8'.repeat(6), 'Lm'].join('')

const fact = (subject, text) => ({ subject, fact: text, citations: 'README.md:1', reason: 'later tasks need it' })

describe('store_memory and vote_memory through the MCP server', () => {
  let state
  let repo
  let client
  before(async () => {
    state = tempState()
    repo = makeRepo(join(state.home, 'widgets'))
    client = new Client({ name: 'memory-test', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [SERVER], env: state.env, stderr: 'ignore' }),
    )
  })
  after(async () => {
    await client.close()
    state.cleanup()
  })

  test('both tools are listed as writes that need the cwd, from the core', async () => {
    const { tools } = await client.listTools()
    for (const name of ['store_memory', 'vote_memory']) {
      const t = tools.find((x) => x.name === name)
      assert.ok(t, name)
      assert.equal(t.annotations.readOnlyHint, false, `${name} is a write: hosts ask before it`)
      assert.ok(t.inputSchema.required.includes('cwd'), name)
      assert.ok(!t.inputSchema.required.includes('sessionId'), name)
      assert.match(t.description, /copilot-memories\.jsonl/)
    }
    const store = tools.find((x) => x.name === 'store_memory').inputSchema.properties
    for (const field of ['subject', 'fact', 'citations', 'reason']) assert.ok(store[field], field)
    const vote = tools.find((x) => x.name === 'vote_memory').inputSchema.properties
    assert.deepEqual(vote.direction.enum, ['upvote', 'downvote'])
  })

  test('a store writes one redacted line at the repository root; a vote counts; bad input names the field', async () => {
    const token = fakeToken()
    const stored = await client.callTool({
      name: 'store_memory',
      arguments: { cwd: join(repo, 'src'), sessionId: 'mcp-1', ...fact('deploy', `Deploy with GITHUB_TOKEN=${token}`) },
    })
    assert.ok(!stored.isError, JSON.stringify(stored))
    assert.match(stored.content[0].text, /^Stored memory mem-[0-9a-f]{10} \(deploy\)/)
    const [line] = lines(repo)
    assert.equal(line.source.session, 'mcp-1')
    assert.ok(!JSON.stringify(line).includes(token), 'the secret never reaches the file')
    assert.match(line.fact, /REDACTED/)
    const voted = await client.callTool({
      name: 'vote_memory',
      arguments: { cwd: repo, fact: line.fact, direction: 'upvote', reason: 'it helped' },
    })
    assert.match(voted.content[0].text, /now \+1\/-0/)
    assert.deepEqual(lines(repo)[0].votes, { up: 1, down: 0 })
    const bad = await client.callTool({ name: 'store_memory', arguments: { cwd: repo, subject: 's', fact: 'f' } })
    assert.equal(bad.isError, true)
    assert.match(bad.content[0].text, /INVALID_INPUT: citations: required/)
    const noCwd = await client.callTool({ name: 'store_memory', arguments: fact('s', 'f') })
    assert.equal(noCwd.isError, true)
    assert.match(noCwd.content[0].text, /cwd: required/)
  })

  test('outside a repository the store says why and writes nothing', async () => {
    const plain = join(state.home, 'plain')
    mkdirSync(plain, { recursive: true })
    const r = await client.callTool({ name: 'store_memory', arguments: { cwd: plain, ...fact('s', 'f') } })
    assert.equal(r.isError, true)
    assert.match(r.content[0].text, /NOT_FOUND: no git repository/)
    assert.equal(existsSync(join(plain, FILE)), false)
  })
})

describe('the memory tools in the Copilot CLI extension', () => {
  let state
  let repo
  let tools
  before(() => {
    state = tempState()
    repo = makeRepo(join(state.home, 'ext-repo'))
    process.env.HOME = state.home
    process.env.GOAL_SYSTEM_STATE_ROOT = state.stateRoot
    tools = ext.buildMemoryTools({ cwd: () => repo, mainSessionId: () => 'main' })
  })
  after(() => state.cleanup())
  const call = (name, args, invocation) => tools.find((t) => t.name === name).handler(args, invocation)

  test('they go through the host permission flow: no skipPermission', () => {
    assert.deepEqual(tools.map((t) => t.name).sort(), ['store_memory', 'vote_memory'])
    for (const t of tools) {
      assert.notEqual(t.skipPermission, true, t.name)
      assert.equal(t.parameters.type, 'object')
    }
  })

  test('the main agent stores; a subagent is refused; the consolidation agent may store', async () => {
    const ok = await call('store_memory', fact('tests', 'Run sh test.sh.'), { sessionId: 'main', toolCallId: 'c1' })
    assert.match(ok, /^Stored memory/)
    assert.equal(lines(repo)[0].source.host, 'copilot-cli')
    const sub = await call('store_memory', fact('x', 'From a helper.'), { sessionId: 'main', agentId: 'helper-1' })
    assert.equal(sub.resultType, 'failure')
    assert.match(sub.textResultForLlm, /SUBAGENT/)
    // The host names the agent in its hook input; the tool invocation carries only the agentId.
    ext.noteAgentType({ agentId: 'rem-1', agentType: 'goal-consolidator', toolName: 'store_memory' })
    const rem = await call('store_memory', fact('y', 'From the consolidator.'), { sessionId: 'main', agentId: 'rem-1' })
    assert.match(rem, /^Stored memory/, JSON.stringify(rem))
    const remVote = await call(
      'vote_memory',
      { fact: 'Run sh test.sh.', direction: 'upvote', reason: 'r' },
      { sessionId: 'main', agentId: 'rem-1' },
    )
    assert.equal(remVote.resultType, 'failure', 'the consolidator may not vote')
    assert.equal(lines(repo).length, 2)
  })
})

describe('goal-system memory (the user)', () => {
  let state
  let repo
  let ids
  before(async () => {
    state = tempState()
    repo = makeRepo(join(state.home, 'cli-repo'))
    const caller = { cwd: repo, stateRoot: state.stateRoot, host: 'claude-code' }
    await addon.storeMemory(caller, fact('tests', 'Run sh test.sh from the root.'))
    await addon.storeMemory(caller, fact('release', 'Tag releases as vX.Y.Z.'))
    ids = lines(repo).map((m) => m.id)
  })
  after(() => state.cleanup())

  test('list, show and vote', () => {
    const listed = memory(state, repo, 'list')
    assert.equal(listed.code, 0, listed.out)
    assert.match(listed.out, /Memories of .*: 2\./)
    assert.match(listed.out, new RegExp(`${ids[0]}\\s+\\+0/-0\\s+\\d{4}-\\d\\d-\\d\\d\\s+tests\\s+Run sh test.sh`))
    const shown = memory(state, repo, 'show', ids[1])
    assert.match(shown.out, /fact: Tag releases as vX\.Y\.Z\./)
    assert.match(shown.out, /source: host claude-code/)
    assert.equal(memory(state, repo, 'vote', ids[1], 'down', '--reason', 'we use dates now').code, 0)
    assert.equal(memory(state, repo, 'vote', ids[1], 'down').code, 0)
    assert.match(memory(state, repo, 'list').out, /\+0\/-2 \(not shown\)/)
    assert.equal(memory(state, repo, 'vote', ids[1], 'sideways').code, 2)
  })

  test("forget and the settings are the user's: the agent's shell is refused", () => {
    const refused = memoryFromAgentShell(state, repo, 'forget', ids[0])
    assert.equal(refused.code, 1, refused.err)
    assert.match(refused.err, /FORBIDDEN/)
    const off = memoryFromAgentShell(state, repo, 'writes', 'off')
    assert.equal(off.code, 1)
    assert.equal(lines(repo).length, 2)
    const forgot = memory(state, repo, 'forget', ids[0])
    assert.equal(forgot.code, 0, forgot.out)
    assert.deepEqual(
      lines(repo).map((m) => m.id),
      [ids[1]],
    )
  })

  test('writes off: the model is refused, with the way back', async () => {
    assert.match(memory(state, repo, 'writes', 'off').out, /memory writes by the model: off/)
    await assert.rejects(
      addon.storeMemory({ cwd: repo, stateRoot: state.stateRoot }, fact('s', 'A new fact.')),
      (e) => {
        assert.equal(e.code, 'FORBIDDEN')
        assert.match(e.message, /goal-system memory writes on/)
        return true
      },
    )
    assert.match(memory(state, repo, 'writes', 'on').out, /memory writes by the model: on/)
    await addon.storeMemory({ cwd: repo, stateRoot: state.stateRoot }, fact('s', 'A new fact.'))
  })
})

describe('what reaches the model through the hooks', () => {
  let state
  let repo
  before(async () => {
    state = tempState()
    repo = makeRepo(join(state.home, 'hook-repo'))
    const caller = { cwd: repo, stateRoot: state.stateRoot }
    await addon.storeMemory(caller, fact('auth tokens', 'Tokens refresh in src/auth/refresh.rs; never log them.'))
    for (let i = 0; i < 30; i++)
      await addon.storeMemory(caller, fact(`topic ${i}`, `Fact ${i}: ${'detail '.repeat(30)}`))
  })
  after(() => state.cleanup())

  test('Claude Code: the session start block is bounded and says how to list the rest', () => {
    const { out } = runnerHook(state.stateRoot, 'claude', {
      hook_event_name: 'SessionStart',
      session_id: 'c1',
      cwd: repo,
      source: 'startup',
    })
    const text = out.hookSpecificOutput.additionalContext
    assert.match(text, /<repository_memories repository=/)
    const shown = text.split('\n').filter((l) => l.startsWith('- ')).length
    assert.ok(shown > 0 && shown < 31, `${shown} shown`)
    assert.match(text, new RegExp(`${31 - shown} more not shown: \`goal-system memory list\``))
  })

  test('Copilot CLI (native hook): a prompt naming a stored subject gets the recall line, another none', () => {
    const hit = cliHook(state, 'userPromptSubmitted', {
      sessionId: 'p1',
      cwd: repo,
      prompt: 'the auth token leaks in logs',
    })
    assert.match(hit.json.additionalContext, /<memory_recall>[\s\S]*memory mem-[0-9a-f]+ \(auth tokens\)/)
    const miss = cliHook(state, 'userPromptSubmitted', { sessionId: 'p1', cwd: repo, prompt: 'say hello' })
    assert.ok(!JSON.stringify(miss.json ?? {}).includes('memory_recall'), miss.stdout)
  })

  test('the consolidation agent gets its brief at its start; other subagents the boundary', () => {
    // Claude Code's transcript, where Claude Code keeps it; the same lines
    // elsewhere (a path a forged payload could name) are not read.
    const config = join(state.home, '.claude')
    const projects = join(config, 'projects', 'p')
    mkdirSync(projects, { recursive: true })
    const lines = ['fix the auth bug', 'add a test', 'note the trap']
      .map((p) => JSON.stringify({ type: 'user', message: { role: 'user', content: p } }))
      .join('\n')
    const transcript = join(projects, 'c1.jsonl')
    const planted = join(state.home, 't.jsonl')
    writeFileSync(transcript, lines)
    writeFileSync(planted, lines)
    const start = (agent, path = transcript) =>
      runnerHook(
        state.stateRoot,
        'claude',
        {
          hook_event_name: 'SubagentStart',
          session_id: 'c1',
          cwd: repo,
          transcript_path: path,
          agent_id: 'a1',
          agent_type: agent,
        },
        { env: { CLAUDE_CONFIG_DIR: config } },
      ).out.hookSpecificOutput.additionalContext
    assert.doesNotMatch(start('goal-system:goal-consolidator', planted), /\[user\] add a test/)
    const brief = start('goal-system:goal-consolidator')
    assert.match(brief, /^<consolidation_brief>/)
    assert.match(brief, /\[user\] add a test/)
    assert.match(start('Explore'), /You are a subagent/)
  })
})

describe("the consolidation agent's files", () => {
  const frontmatter = (rel) => loadYaml(readFileSync(join(root, rel), 'utf8').split('---')[1])

  test('each host gets the agent with the board and store_memory as its only tools', () => {
    const claude = frontmatter('adapters/claude/agents/goal-consolidator.md')
    assert.equal(claude.name, 'goal-consolidator')
    assert.deepEqual(
      claude.tools.split(', ').sort(),
      [
        'mcp__goalSystem__context_board',
        'mcp__goalSystem__store_memory',
        'mcp__plugin_goal-system_goalSystem__context_board',
        'mcp__plugin_goal-system_goalSystem__store_memory',
      ].sort(),
    )
    assert.deepEqual(frontmatter('agents/goal-consolidator.agent.md').tools.sort(), [
      'context_board',
      'goalSystem/context_board',
      'goalSystem/store_memory',
      'store_memory',
    ])
    assert.deepEqual(frontmatter('adapters/vscode-chat/agents/goal-consolidator.agent.md').tools.sort(), [
      'goalSystem/context_board',
      'goalSystem/store_memory',
    ])
    for (const rel of [
      'adapters/claude/agents/goal-consolidator.md',
      'plugins/claude/goal-system/agents/goal-consolidator.md',
      'plugins/copilot-cli/goal-system/agents/goal-consolidator.agent.md',
    ]) {
      const body = readFileSync(join(root, rel), 'utf8')
      assert.match(body, /opaque labels/, rel)
      assert.match(body, /never edit a file/, rel)
    }
  })
})
