// The interactive-TUI driver (tui.mjs) in each real host, offline: a prompt typed as a person types
// reaches the scripted model, the shell tool runs, the answer is on screen; the host's interrupt key
// during a long tool call shows the host's interrupt text and writes the interrupt to the host's own
// record; the next prompt works again.
//   node --test e2e/tui.test.mjs
// Claude Code versions: the pinned ones (install-hosts.mjs), or GOAL_E2E_TUI_CLAUDE_VERSIONS=a,b,c.
// A missing host or tmux skips (GOAL_E2E_REQUIRE=1: fails).

import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { startModelServer, toolResults, userTexts } from './model-server.mjs'
import { makeTempDir, readEventsFile } from './hosts.mjs'
import { HOST_PACKAGES } from './install-hosts.mjs'
import { startTui, tuiUnavailableReason, SCREEN } from './tui.mjs'

const KEEP = !!process.env.GOAL_E2E_KEEP
const TEST_MS = 180_000

const claudeVersions = process.env.GOAL_E2E_TUI_CLAUDE_VERSIONS
  ? process.env.GOAL_E2E_TUI_CLAUDE_VERSIONS.split(',').map((v) => v.trim())
  : HOST_PACKAGES.claude.versions
const targets = [
  ...claudeVersions.map((version) => ({ host: 'claude', version })),
  { host: 'copilot', version: HOST_PACKAGES.copilot.versions[0] },
]

function skipReason(host, version) {
  const r = tuiUnavailableReason(host, version)
  if (r && process.env.GOAL_E2E_REQUIRE) throw new Error(r)
  return r || false
}

const cleanups = []
after(async () => {
  for (const c of cleanups.reverse()) await c()
})

/** The latest user text of a request holding `needle` (the typed prompt; hosts add reminders around it). */
const promptOf = (req, needle) => [...userTexts(req.body)].reverse().find((u) => u.includes(needle)) || ''

/** Claude's transcript lines, or Copilot's session events, parsed. */
function hostRecord(host, home) {
  const files = []
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.jsonl')) files.push(p)
    }
  }
  walk(host === 'claude' ? path.join(home, '.claude', 'projects') : path.join(home, '.copilot', 'session-state'))
  return files.flatMap((f) => readEventsFile(f))
}

for (const { host, version } of targets) {
  test(`${host} ${version} TUI: typed prompt answered on screen; interrupt during a long tool call`, {
    timeout: TEST_MS,
    skip: skipReason(host, version),
  }, async (t) => {
    const tag = randomUUID().slice(0, 8)
    const shell = host === 'claude' ? 'Bash' : 'bash'
    const call = (command) => ({ toolCalls: [{ name: shell, args: { command, description: 'tui test' } }] })
    // Routed by the prompt each request answers, not by order: hosts may add side requests.
    const script = (req) => {
      const prompt = promptOf(req, `-${tag}`)
      const results = toolResults(req.body)
      if (/PLAIN-/.test(prompt)) {
        return results.some((r) => r.text.includes(`tool-ran-${tag}`))
          ? { text: `ANSWER-${tag} the shell said tool-ran` }
          : call(`echo tool-ran-${tag}`)
      }
      // A command that outlives the interrupt (Claude 2.1.330+ refuse a standalone sleep).
      if (/LONG-/.test(prompt)) return call('node -e "setTimeout(()=>{},150000)"')
      if (/AGAIN-/.test(prompt)) return { text: `AGAIN-ANSWER-${tag}` }
      return undefined
    }
    const server = await startModelServer(
      Array.from({ length: 40 }, () => script),
      { defaultText: 'default answer' },
    )
    const root = makeTempDir(`tui-${host}`)
    const tui = await startTui({
      host,
      version,
      root: path.join(root, 'tui'),
      cwd: path.join(root, 'proj'),
      home: path.join(root, 'home'),
      server,
    })
    cleanups.push(async () => {
      await tui.stop()
      await server.close()
      if (!KEEP) fs.rmSync(root, { recursive: true, force: true })
    })
    const started = Date.now()
    const explain = () => `\n--- screen ---\n${tui.screen()}\n--- requests ---\n${server.requests.length}`

    // 1. A prompt typed at the host's prompt reaches the model; the tool runs; the answer shows.
    await tui.type(`PLAIN-${tag} run echo and tell me`)
    const answered = await tui.waitFor(`ANSWER-${tag}`, { timeoutMs: 60_000 })
    assert.match(answered, new RegExp(`PLAIN-${tag}`), `the typed prompt is on screen${explain()}`)
    const sent = server.modelRequests().find((r) => promptOf(r, `PLAIN-${tag} run echo and tell me`))
    assert.ok(sent, `the model got the typed prompt intact (chunked typing lost nothing)${explain()}`)
    assert.ok(
      server.modelRequests().some((r) => toolResults(r.body).some((x) => x.text.includes(`tool-ran-${tag}`))),
      `the shell tool ran and its output went back to the model${explain()}`,
    )
    await tui.waitIdle()

    // 2. The host's interrupt during a long tool call.
    await tui.type(`LONG-${tag} start the long command`)
    await tui.waitFor((s) => s.includes('setTimeout') && SCREEN[host].busy.test(s), { timeoutMs: 60_000 })
    await new Promise((r) => setTimeout(r, 1500))
    if (host === 'claude') await tui.esc()
    else await tui.escEsc()
    const interrupted = await tui.waitFor(SCREEN[host].interrupted, { timeoutMs: 30_000 })
    await tui.waitIdle()
    t.diagnostic(
      `interrupt shown: ${interrupted
        .split('\n')
        .find((l) => SCREEN[host].interrupted.test(l))
        ?.trim()}`,
    )
    // The host writes the interrupt down (what a later hook event can read).
    const rec = hostRecord(host, tui.home)
    if (host === 'claude') {
      const entry = rec.find(
        (e) => e.type === 'user' && JSON.stringify(e.message?.content).includes('[Request interrupted by user'),
      )
      assert.ok(entry, `the transcript has the interrupt record${explain()}`)
      assert.ok(entry.interruptedMessageId, 'the interrupt record names the interrupted message')
    } else {
      assert.ok(
        rec.some((e) => e.type === 'abort' && e.data?.reason === 'user_abort'),
        `events.jsonl has abort user_abort${explain()}`,
      )
    }

    // 3. The TUI takes the next prompt as usual.
    await tui.type(`AGAIN-${tag} one more`)
    await tui.waitFor(`AGAIN-ANSWER-${tag}`, { timeoutMs: 60_000 })
    t.diagnostic(`${host} ${tui.version}: ${Date.now() - started} ms after ready, ${server.requests.length} requests`)
  })
}
