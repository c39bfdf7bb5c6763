// JSONC edits in place: what install and uninstall write into a user's settings.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { JsonFileError, editJsonc, parseJsonObject } from '../cli/json-merge.mjs'

/** Edit `text` to hold `change(value)`; returns the new text. */
function rewrite(text, change) {
  const current = parseJsonObject(text, 'f.json')
  const next = structuredClone(current)
  change(next)
  const out = editJsonc(text, current, next)
  assert.deepEqual(parseJsonObject(out, 'f.json'), next, 'the text holds the new value')
  return out
}

describe('JSONC settings edited in place', () => {
  test('a new key lands after a trailing comma and its comment, and removing it gives the bytes back', () => {
    const text = '{\n  "a": 1, // about a\n}\n'
    const added = rewrite(text, (v) => (v.b = { c: [1] }))
    assert.equal(added, '{\n  "a": 1, // about a\n  "b": {\n    "c": [\n      1\n    ]\n  },\n}\n')
    assert.equal(
      rewrite(added, (v) => delete v.b),
      text,
    )
  })

  test('tabs and CRLF line ends are kept for inserted values', () => {
    const text = '{\r\n\t"a": 1\r\n}\r\n'
    const added = rewrite(text, (v) => (v.b = { x: true }))
    assert.equal(added, '{\r\n\t"a": 1,\r\n\t"b": {\r\n\t\t"x": true\r\n\t}\r\n}\r\n')
    assert.equal(
      rewrite(added, (v) => delete v.b),
      text,
    )
  })

  test('list items are appended and removed one by one, leaving the others and their comments alone', () => {
    const text = '{\n  "allow": [\n    "Bash(ls)", // mine\n    "Read",\n  ],\n}\n'
    const added = rewrite(text, (v) => v.allow.push('x', 'y'))
    assert.ok(added.includes('"Bash(ls)", // mine\n    "Read",\n    "x",\n    "y",\n  ]'), added)
    assert.equal(
      rewrite(added, (v) => (v.allow = v.allow.filter((i) => i !== 'x' && i !== 'y'))),
      text,
    )
  })

  test('the last, first and only items of a list on one line are removed without breaking the file', () => {
    const text = '{"hooks":{"Stop":[{"h":[1]},{"h":[2]}],"Pre":[{"h":[3]},{"h":[4]}],"Only":[{"h":[5]}]}}'
    const out = rewrite(text, (v) => {
      v.hooks.Stop.pop()
      v.hooks.Pre.shift()
      v.hooks.Only.pop()
    })
    assert.equal(out, '{"hooks":{"Stop":[{"h":[1]}],"Pre":[{"h":[4]}],"Only":[]}}')
  })

  test('an empty object gets its first key on a line of its own', () => {
    assert.equal(
      rewrite('{}\n', (v) => (v.a = 1)),
      '{\n  "a": 1\n}\n',
    )
    assert.equal(
      rewrite('{\n  "s": {}\n}\n', (v) => (v.s.k = 'v')),
      '{\n  "s": {\n    "k": "v"\n  }\n}\n',
    )
  })

  test('a byte-order mark and an empty file are handled', () => {
    assert.equal(
      rewrite('\ufeff{"a": 1}', (v) => (v.a = 2)),
      '\ufeff{"a": 2}',
    )
    assert.deepEqual(parseJsonObject('  \n', 'f.json'), {})
  })

  test('text that is not JSONC is refused with the line and column', () => {
    assert.throws(
      () => parseJsonObject('{\n  "a": 1\n  "b": 2\n}', '/x/settings.json'),
      (err) =>
        err instanceof JsonFileError &&
        /\/x\/settings\.json is not valid JSONC: CommaExpected at line 3, column 3/.test(err.message),
    )
    assert.throws(() => parseJsonObject('[1]', 'f.json'), /expected an object at the top level, found a list/)
  })
})
