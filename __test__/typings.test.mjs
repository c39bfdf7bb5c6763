// The typings generated from the Rust types, as an adapter author meets them:
// a sample adapter compiles under `tsc --strict`, each wrong sample fails to
// compile with the error that names its mistake, and the JS adapters pass
// `// @ts-check` against the typed index.d.ts.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { FIELD_ALIASES, LIST_FIELDS } from '../cli/goals-cli.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const base = [
  '--noEmit',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--target',
  'es2022',
  '--types',
  'node',
]

function compile(args) {
  const r = spawnSync(process.execPath, [tsc, ...base, ...args], { cwd: root, encoding: 'utf8' })
  return { code: r.status, out: `${r.stdout}${r.stderr}` }
}

test('a sample adapter compiles under tsc --strict against the generated typings', () => {
  const r = compile(['--strict', '__test__/typings/positive.ts'])
  assert.equal(r.code, 0, r.out)
})

for (const [file, expected] of [
  ['negative-field.ts', /'doneSoFat' does not exist in type 'UpdateRequest'/],
  ['negative-status.ts', /"finished"/],
  ['negative-event.ts', /"PreTooluse"' is not assignable to parameter of type 'HookEvent'/],
  ['negative-host.ts', /"cursor"' is not assignable to parameter of type 'Host'/],
]) {
  test(`${file} fails to compile, naming its mistake`, () => {
    const r = compile(['--strict', `__test__/typings/${file}`])
    assert.notEqual(r.code, 0, `${file} compiled`)
    assert.match(r.out, expected)
  })
}

test('the JS adapters pass @ts-check against the typed index.d.ts', () => {
  const files = [
    'extension.mjs',
    'adapters/vscode-chat/mcp-server.mjs',
    'adapters/vscode-chat/mcp-sdk.mjs',
    'adapters/vscode-chat/hook-runner.mjs',
    'cli/tool-definitions.mjs',
  ]
  const r = compile(['--allowJs', '--checkJs', ...files])
  assert.equal(r.code, 0, r.out)
})

test("the command's short field flags each name a field of the core's schema", () => {
  assert.ok(LIST_FIELDS.includes('doneSoFar') && LIST_FIELDS.length >= 16, LIST_FIELDS.join(', '))
  for (const [flag, field] of Object.entries(FIELD_ALIASES)) {
    assert.ok(LIST_FIELDS.includes(field), `--${flag} maps to ${field}, which the core does not know`)
  }
})
