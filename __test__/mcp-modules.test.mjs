// What the MCP server loads as a host starts it: none of our files imports
// zod (only the SDK does, for its own protocol types), and the registered
// server runs the build's one-file bundle instead of the SDK's module graph.
// Each server is driven with the official client through initialize,
// tools/list and one call, with a module hook recording every ESM resolution.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { after, before, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { root } from './helpers.mjs'

const ADAPTER = join(root, 'adapters', 'vscode-chat')
let base
before(() => {
  base = mkdtempSync(join(tmpdir(), 'goal-mcp-modules-'))
  writeFileSync(
    join(base, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context)
  appendFileSync(process.env.GOAL_TEST_RESOLVE_LOG, JSON.stringify({ specifier, parent: context.parentURL ?? null, url: r.url }) + '\\n')
  return r
}
`,
  )
  writeFileSync(
    join(base, 'register.mjs'),
    `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(base, 'hooks.mjs')).href)})\n`,
  )
})
after(() => rmSync(base, { recursive: true, force: true }))

/** Every ESM resolution of `server` started by the official client, after one status call. */
async function resolutions(server, name) {
  const log = join(base, `${name}.log`)
  const cwd = join(base, 'proj')
  mkdirSync(cwd, { recursive: true })
  const client = new Client({ name: 'modules-test', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', pathToFileURL(join(base, 'register.mjs')).href, server],
      env: { ...process.env, GOAL_TEST_RESOLVE_LOG: log, GOAL_SYSTEM_STATE_ROOT: join(base, 'state', 'goal-system') },
      stderr: 'ignore',
    }),
  )
  const { tools } = await client.listTools()
  assert.ok(tools.length >= 5)
  const status = await client.callTool({ name: 'goal_system_status', arguments: { sessionId: 'modules-1', cwd } })
  assert.ok(!status.isError, JSON.stringify(status))
  await client.close()
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
}

test('no file of ours imports zod (read from the sources)', () => {
  const files = []
  const walk = (dir) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.(mjs|js|cjs)$/.test(entry) && !entry.endsWith('.bundle.mjs')) files.push(path)
    }
  }
  for (const dir of ['adapters', 'bin', 'cli']) walk(join(root, dir))
  files.push(join(root, 'index.js'))
  assert.ok(
    files.some((f) => f.endsWith('mcp-server.mjs')),
    'the server source is among them',
  )
  const importsZod = /(?:from\s*|import\s*\(?\s*|require\s*\(\s*)['"]zod(?:\/[^'"]*)?['"]/
  const offenders = files.filter((f) => importsZod.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f))
  assert.deepEqual(offenders, [])
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  assert.equal(pkg.dependencies.zod, undefined, 'zod is no dependency of ours (the SDK brings its own)')
})

/**
 * The server as a clone not yet built runs it: a copy of the server without
 * the SDK bundle beside it, in a package folder under node_modules/.cache (so
 * its SDK import resolves to this repository's node_modules), whose index.js
 * is this repository's addon.
 */
function unbundledServer() {
  const pkgDir = join(root, 'node_modules', '.cache', 'goal-system-test', `mcp-unbundled-${process.pid}`)
  const dir = join(pkgDir, 'adapters', 'vscode-chat')
  mkdirSync(dir, { recursive: true })
  for (const file of ['mcp-server.mjs', 'mcp-sdk.mjs'])
    writeFileSync(join(dir, file), readFileSync(join(ADAPTER, file)))
  writeFileSync(join(pkgDir, 'index.js'), `module.exports = require(${JSON.stringify(join(root, 'index.js'))})\n`)
  return { server: join(dir, 'mcp-server.mjs'), cleanup: () => rmSync(pkgDir, { recursive: true, force: true }) }
}

test("the unbundled server's module graph: zod only from the SDK", async (t) => {
  const copy = unbundledServer()
  t.after(copy.cleanup)
  const seen = await resolutions(copy.server, 'source')
  const zod = seen.filter((r) => /^zod(\/|$)/.test(r.specifier))
  assert.ok(zod.length > 0, 'the hook sees the graph: the SDK imports zod')
  assert.deepEqual(
    // Our copy sits under node_modules/.cache: its files count as ours.
    zod.filter((r) => !r.parent?.includes('/node_modules/') || r.parent.includes('/.cache/goal-system-test/')),
    [],
    'a file of ours imported zod',
  )
  assert.ok(
    seen.some((r) => r.parent === pathToFileURL(copy.server).href && r.url.endsWith('/mcp-sdk.mjs')),
    'the server took the SDK from node_modules through mcp-sdk.mjs',
  )
})

test('the registered server runs the bundle: no module of node_modules is loaded', async () => {
  assert.ok(
    existsSync(join(ADAPTER, 'mcp-sdk.bundle.mjs')),
    'no bundle: run `npm run build:mcp` (the build scripts make it)',
  )
  const seen = await resolutions(join(ADAPTER, 'mcp-server.mjs'), 'bundle')
  assert.ok(
    seen.some((r) => r.url.endsWith('/adapters/vscode-chat/mcp-sdk.bundle.mjs')),
    JSON.stringify(seen),
  )
  assert.deepEqual(
    seen.filter((r) => r.url.includes('/node_modules/')),
    [],
  )
  assert.ok(!seen.some((r) => /^zod(\/|$)/.test(r.specifier)))
})
