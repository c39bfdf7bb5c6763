// The native hook and the Node runner read a payload the same way: lossy
// UTF-8 (one invalid byte never drops the payload), the same size cap, the
// same decision. Both are spawned as a host spawns them, on malformed payloads.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, test } from 'node:test'

import { addon, normalize, root, runner, tempState, userTypes } from './helpers.mjs'

const cwd = '/tmp/goal-parity-project'
const native = join(root, 'native', 'goal-hook')

const hosts = {
  'copilot-cli': {
    stop: 'agentStop',
    stopHead: (s) => `{"sessionId":"${s}","cwd":"${cwd}","stopReason":"end`,
  },
  claude: {
    stop: 'Stop',
    stopHead: (s) =>
      `{"session_id":"${s}","cwd":"${cwd}","hook_event_name":"Stop","stop_hook_active":false,"reason":"end`,
  },
}

function run(frontEnd, host, event, input, env) {
  const [cmd, args] =
    frontEnd === 'native' ? [native, ['--host', host, event]] : [process.execPath, [runner, host, event]]
  const res = spawnSync(cmd, args, { input, env, maxBuffer: 64 << 20, timeout: 60_000 })
  assert.equal(res.status, 0, `${frontEnd} exited ${res.status}: ${res.stderr}`)
  const stdout = res.stdout.toString('utf8').trim()
  assert.doesNotThrow(() => JSON.parse(stdout), `${frontEnd} printed ${stdout}`)
  return { stdout: normalize(stdout), stderr: res.stderr.toString('utf8') }
}

/** Cheap seeded bytes, so a failure can be replayed. */
function noise(seed, length) {
  let x = seed | 1
  return Buffer.from(Array.from({ length }, () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 16) & 0xff))
}

const cap = addon.MAX_HOOK_PAYLOAD_BYTES

describe('native hook and Node runner read payloads alike', () => {
  test('the cap is one figure, exposed by the addon', () => {
    assert.equal(cap, 16 * 1024 * 1024)
  })

  for (const [host, h] of Object.entries(hosts)) {
    test(`${host}: malformed stop payloads get the same answer from both`, () => {
      const session = `parity-${host}`
      const cases = [
        [
          'one invalid UTF-8 byte',
          Buffer.concat([Buffer.from(h.stopHead(session)), Buffer.from([0xff]), Buffer.from('turn"}')]),
          'block',
        ],
        [
          'a lone surrogate half',
          Buffer.concat([Buffer.from(h.stopHead(session)), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
          'block',
        ],
        [
          'a byte-order mark first',
          Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(h.stopHead(session) + '"}')]),
          'same',
        ],
        ['truncated JSON', Buffer.from(h.stopHead(session)), 'allow'],
        ['empty stdin', Buffer.alloc(0), 'allow'],
        ['not an object', Buffer.from('[1, 2, 3]'), 'allow'],
        ['NUL bytes', Buffer.from('\u0000{"a":\u0000}'), 'allow'],
        ['random bytes', noise(7, 4096), 'allow'],
        ['more random bytes', noise(1234, 300), 'allow'],
        [
          'one byte past the cap',
          Buffer.concat([Buffer.from(h.stopHead(session) + '","pad":"'), Buffer.alloc(cap, 0x61), Buffer.from('"}')]),
          'allow',
        ],
      ]
      const answers = {}
      for (const frontEnd of ['native', 'node']) {
        const st = tempState()
        try {
          // The user's /goal, delivered by the host.
          userTypes(st, session, cwd, '/goal make the parity test pass')
          answers[frontEnd] = cases.map(([, input]) => run(frontEnd, host, h.stop, input, st.env))
        } finally {
          st.cleanup()
        }
      }
      cases.forEach(([what, , expected], i) => {
        const [a, b] = [answers.native[i], answers.node[i]]
        assert.equal(a.stdout, b.stdout, `${what}: native and Node differ`)
        if (expected === 'block') assert.match(a.stdout, /"block"/, `${what}: the stop must be blocked`)
        if (expected === 'allow') assert.doesNotMatch(a.stdout, /"block"/, `${what}`)
      })
      const past = cases.length - 1
      for (const frontEnd of ['native', 'node']) {
        assert.match(answers[frontEnd][past].stderr, /larger than 16777216 bytes/, frontEnd)
      }
    })
  }
})
