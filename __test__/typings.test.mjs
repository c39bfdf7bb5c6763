// The typings generated from the Rust types, as an adapter author meets them:
// a sample adapter compiles under `tsc --strict`, each wrong sample fails to
// compile with the error that names its mistake, and the JS adapters pass
// `// @ts-check` against the typed index.d.ts.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { FIELD_ALIASES, LIST_FIELDS } from '../cli/record-fields.mjs'

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

/** Declarations without their comments (doc comments say "any" in plain English). */
const code = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')

test('no `any` in index.d.ts or types/: every value that crosses is a named type', () => {
  const files = ['index.d.ts', ...readdirSync(join(root, 'types')).map((f) => join('types', f))]
  assert.ok(files.length >= 2, files.join())
  for (const file of files) {
    const lines = code(readFileSync(join(root, file), 'utf8')).split('\n')
    const offenders = lines.filter((l) => /\bany\b/.test(l))
    assert.deepEqual(offenders, [], `${file} declares any`)
  }
  assert.equal(code('  x: any // y\n/** any */').match(/\bany\b/g)?.length, 1, 'the check sees an any')
})

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

test("the command's help names every list field of the core's update schema, each with its flag", () => {
  const update = JSON.parse(readFileSync(join(root, 'schema', 'goal-tools.json'), 'utf8')).find(
    (d) => d.name === 'goal_system_update',
  )
  const fields = Object.entries(update.inputSchema.properties)
    .filter(([, s]) => s.type === 'array' && s.items?.type === 'string')
    .map(([name]) => name)
  assert.ok(fields.length >= 16, fields.join())
  for (const cmd of ['open', 'update', 'close']) {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'goal-system.mjs'), cmd, '--help'], { encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    for (const field of fields) assert.match(r.stdout, new RegExp(`--${field}\\b`), `${cmd} --help lacks --${field}`)
    for (const [flag, field] of Object.entries(FIELD_ALIASES)) assert.ok(r.stdout.includes(`--${flag} (${field})`))
  }
})
