// Unit test of the scripted model server (no host needed, runs in well under a second).
//   node --test e2e/model-server.test.mjs
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { startModelServer, toolResults, userTexts, toolNames, messagesText } from './model-server.mjs'

function sseEvents(text) {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const ev = {}
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) ev.event = line.slice(7)
        if (line.startsWith('data: ')) ev.data = line.slice(6) === '[DONE]' ? '[DONE]' : JSON.parse(line.slice(6))
      }
      return ev
    })
}

async function post(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer e2e-dummy' },
    body: JSON.stringify(body),
  })
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
}

test('OpenAI wire: streamed tool call, usage chunk, [DONE]; then text; then default end of turn', async () => {
  const s = await startModelServer([
    { toolCalls: [{ name: 'bash', args: { command: 'echo hello' } }] },
    { text: 'Bye.' },
  ])
  try {
    const body = {
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'bash' } }],
    }
    const r1 = await post(`${s.url}/v1/chat/completions`, body)
    assert.equal(r1.status, 200)
    assert.match(r1.type, /text\/event-stream/)
    const ev = sseEvents(r1.text)
    assert.equal(ev.at(-1).data, '[DONE]')
    const chunks = ev.slice(0, -1).map((e) => e.data)
    const args = chunks
      .flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls || []))
      .map((tc) => tc.function.arguments)
      .join('')
    assert.deepEqual(JSON.parse(args), { command: 'echo hello' })
    assert.equal(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason, 'tool_calls')
    assert.deepEqual(chunks.at(-1).choices, [])
    assert.equal(chunks.at(-1).usage.total_tokens, 110)

    const r2 = await post(`${s.url}/v1/chat/completions`, { ...body, stream: false })
    const j = JSON.parse(r2.text)
    assert.equal(j.choices[0].message.content, 'Bye.')
    assert.equal(j.choices[0].finish_reason, 'stop')

    const r3 = JSON.parse((await post(`${s.url}/v1/chat/completions`, { ...body, stream: false })).text)
    assert.equal(r3.choices[0].message.content, 'Done.')
    assert.equal(s.requests.length, 3)
    assert.equal(s.requests[0].headers.authorization, '<elided>')
  } finally {
    await s.close()
  }
})

test('Anthropic wire: event sequence, input_json_delta, stop reasons; side routes answer JSON', async () => {
  const seen = []
  const s = await startModelServer([
    (req) => {
      seen.push(req.wire)
      return { text: 'Checking.', toolCalls: [{ name: 'Bash', args: { command: 'ls' } }] }
    },
  ])
  try {
    const body = {
      model: 'claude-x',
      stream: true,
      max_tokens: 1000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 'Bash' }],
    }
    const r = await post(`${s.url}/v1/messages?beta=true`, body)
    const ev = sseEvents(r.text)
    assert.deepEqual(
      ev.map((e) => e.event),
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    )
    for (const e of ev) assert.equal(e.data.type, e.event)
    const json = ev
      .filter((e) => e.data.delta?.type === 'input_json_delta')
      .map((e) => e.data.delta.partial_json)
      .join('')
    assert.deepEqual(JSON.parse(json), { command: 'ls' })
    assert.equal(ev[4].data.content_block.type, 'tool_use')
    assert.match(ev[4].data.content_block.id, /^toolu_/)
    assert.equal(ev.at(-2).data.delta.stop_reason, 'tool_use')
    assert.deepEqual(seen, ['anthropic'])

    const plain = JSON.parse((await post(`${s.url}/v1/messages`, { ...body, stream: false })).text)
    assert.equal(plain.stop_reason, 'end_turn')
    assert.equal(plain.content[0].text, 'Done.')

    const count = JSON.parse((await post(`${s.url}/v1/messages/count_tokens`, body)).text)
    assert.ok(count.input_tokens > 0)
    const models = await (await fetch(`${s.url}/v1/models`)).json()
    assert.equal(models.data[0].id, 'e2e-model')
    const missing = await fetch(`${s.url}/v1/nothing`)
    assert.equal(missing.status, 404)
    assert.equal((await missing.json()).type, 'error')
  } finally {
    await s.close()
  }
})

test('scripted error reply, unix socket, waitFor and request helpers', async () => {
  const s = await startModelServer([{ error: { status: 529, message: 'overloaded' } }])
  try {
    const r = await post(`${s.url}/v1/messages`, { messages: [] })
    assert.equal(r.status, 529)
    // The same handler answers on the Unix socket (used by the namespace relay).
    const viaSocket = await new Promise((resolve, reject) => {
      const req = http.request({ socketPath: s.socketPath, path: '/v1/models', method: 'GET' }, (res) => {
        let d = ''
        res.on('data', (c) => {
          d += c
        })
        res.on('end', () => resolve(JSON.parse(d)))
      })
      req.on('error', reject)
      req.end()
    })
    assert.equal(viaSocket.object, 'list')
    const waiting = s.waitFor((reqs) => reqs.find((q) => messagesText(q.body).includes('MARKER')), 5000)
    const body = {
      messages: [
        { role: 'user', content: 'hello MARKER' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'out' },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'res' }], is_error: true },
            { type: 'text', text: 'more' },
          ],
        },
      ],
      tools: [{ type: 'function', function: { name: 'bash' } }, { name: 'Read' }],
    }
    await post(`${s.url}/v1/chat/completions`, body)
    const hit = await waiting
    assert.ok(hit)
    assert.deepEqual(toolResults(body), [
      { id: 'c1', text: 'out', isError: false },
      { id: 't1', text: 'res', isError: true },
    ])
    assert.deepEqual(userTexts(body), ['hello MARKER', 'more'])
    assert.deepEqual(toolNames(body), ['bash', 'Read'])
    assert.equal(s.requestsContaining('MARKER').length, 1)
  } finally {
    await s.close()
  }
})
