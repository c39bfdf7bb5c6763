// Scripted model server for end-to-end tests of the real hosts (Copilot CLI, Claude Code).
//
// node:http only, no dependencies. It speaks two wires on the same port:
//   - OpenAI chat completions: POST /v1/chat/completions (SSE when body.stream, with a final
//     usage chunk when stream_options.include_usage; plain JSON otherwise). Copilot CLI uses this.
//   - Anthropic Messages: POST /v1/messages (?beta=true), SSE when body.stream (message_start,
//     content_block_start/delta/stop, message_delta with stop_reason, message_stop; tool_use
//     input as input_json_delta), plain JSON otherwise. Claude Code uses this.
//   Also: POST /v1/messages/count_tokens, GET /v1/models[/id], HEAD/GET / (health), anything
//   else answers a JSON 404 (never hangs).
//
// A script is an array of replies consumed in order, one per model request (see `consume`):
//   { text: "..." }                                  plain text, end of turn
//   { toolCalls: [{ name, args, id? }], text? }      tool call(s) (optional text before them)
//   ... usage: { input, output }                     the tokens the answer reports (Gemini API;
//                                                    100 in, 10 out when not given)
//   { error: { status, message } }                   an HTTP error answer
//   (request) => reply | undefined | Promise<...>    decide from the request; undefined = default
// When the script runs out, every further request gets { text: defaultText } (end of turn).
//
// Each request is logged in `requests` as { index, wire, method, path, headers (auth elided),
// body (parsed JSON or raw string), reply (what was answered, or null), consumed, time }.
//
// Network namespaces: a host started in a loopback-only namespace (see hosts.mjs) cannot reach a
// TCP port of the parent namespace. So the same server also listens on a Unix socket
// (`socketPath`); hosts.mjs runs a tiny TCP->Unix relay on 127.0.0.1:<port> inside the namespace.

import http from 'node:http'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'

const DEFAULT_TEXT = 'Done.'

/**
 * @param {Array|undefined} script  scripted replies (see above)
 * @param {object} [opts]
 * @param {string} [opts.defaultText]  text used once the script is exhausted
 * @param {(req) => boolean} [opts.consume]  which model requests consume a script entry;
 *        default: every model request (chat/completions, messages) except obvious side requests
 *        (see isSideRequest). Side requests get the default text.
 * @param {boolean} [opts.unixSocket=true]  also listen on a Unix socket for namespace relays
 * @param {number} [opts.chunkDelayMs=0]  delay between SSE events
 * @param {(req) => object} [opts.sideReply]  reply for requests that do not consume a script
 *        entry (default: { text: defaultText })
 */
export async function startModelServer(script = [], opts = {}) {
  const queue = Array.isArray(script) ? [...script] : [script]
  const requests = []
  const defaultText = opts.defaultText ?? DEFAULT_TEXT
  const consume = opts.consume ?? ((req) => !isSideRequest(req))
  const chunkDelayMs = opts.chunkDelayMs ?? 0
  const waiters = new Set()
  let counter = 0

  const handler = async (req, res) => {
    try {
      const chunks = []
      for await (const c of req) chunks.push(c)
      const raw = Buffer.concat(chunks).toString('utf8')
      let body = raw
      if (raw.length) {
        try {
          body = JSON.parse(raw)
        } catch {
          /* keep raw */
        }
      } else body = null
      const url = new URL(req.url, 'http://127.0.0.1')
      const p = url.pathname.replace(/\/+$/, '') || '/'
      const wire = p.endsWith('/chat/completions')
        ? 'openai'
        : p.endsWith('/messages')
          ? 'anthropic'
          : p.endsWith('/responses')
            ? 'openai-responses'
            : /:(stream)?generatecontent$/i.test(p)
              ? 'gemini'
              : 'other'
      const entry = {
        index: requests.length,
        wire,
        method: req.method,
        path: req.url,
        headers: redactHeaders(req.headers),
        body,
        reply: null,
        consumed: false,
        time: Date.now(),
      }
      requests.push(entry)

      if (
        req.method === 'POST' &&
        (wire === 'openai' || wire === 'anthropic' || wire === 'openai-responses' || wire === 'gemini')
      ) {
        let reply
        if (body && typeof body === 'object' && consume(entry) && queue.length) {
          entry.consumed = true
          let item = queue.shift()
          if (typeof item === 'function') item = await item(entry, { requests, remaining: queue.length })
          reply = item ?? { text: defaultText }
        } else {
          reply = (opts.sideReply && body && typeof body === 'object' && opts.sideReply(entry)) || { text: defaultText }
        }
        reply = normalizeReply(reply)
        entry.reply = reply
        notify()
        if (reply.error) return sendError(res, wire, reply.error)
        const stream = !!(body && body.stream)
        const model = (body && body.model) || 'e2e-model'
        if (wire === 'openai-responses') return responsesStream(res, reply, chunkDelayMs, ++counter)
        if (wire === 'gemini') return geminiAnswer(res, reply, /:streamgeneratecontent$/i.test(p), chunkDelayMs)
        if (wire === 'openai') {
          const includeUsage = !!(body && body.stream_options && body.stream_options.include_usage)
          return stream
            ? openaiStream(res, reply, model, includeUsage, chunkDelayMs, ++counter)
            : openaiJson(res, reply, model, ++counter)
        }
        return stream
          ? anthropicStream(res, reply, model, chunkDelayMs, ++counter)
          : anthropicJson(res, reply, model, ++counter)
      }
      notify()
      if (req.method === 'POST' && p.endsWith('/messages/count_tokens')) {
        return sendJson(res, 200, { input_tokens: estimateTokens(raw) })
      }
      if ((req.method === 'GET' || req.method === 'HEAD') && /\/models$/.test(p)) {
        const now = Math.floor(Date.now() / 1000)
        return sendJson(res, 200, {
          object: 'list',
          data: [
            {
              id: 'e2e-model',
              object: 'model',
              created: now,
              owned_by: 'e2e',
              type: 'model',
              display_name: 'E2E scripted model',
              created_at: new Date().toISOString(),
            },
          ],
          has_more: false,
          first_id: 'e2e-model',
          last_id: 'e2e-model',
        })
      }
      if ((req.method === 'GET' || req.method === 'HEAD') && /\/models\/[^/]+$/.test(p)) {
        const id = decodeURIComponent(p.split('/').pop())
        return sendJson(res, 200, {
          id,
          object: 'model',
          type: 'model',
          display_name: id,
          created_at: new Date().toISOString(),
          owned_by: 'e2e',
        })
      }
      if ((req.method === 'GET' || req.method === 'HEAD') && (p === '/' || p === '/health' || p === '/v1')) {
        return sendJson(res, 200, { ok: true })
      }
      return sendJson(res, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: `no route for ${req.method} ${p}` },
      })
    } catch (err) {
      try {
        sendJson(res, 500, {
          type: 'error',
          error: { type: 'api_error', message: String((err && err.message) || err) },
        })
      } catch {
        /* ignore */
      }
    }
  }

  function notify() {
    for (const w of [...waiters]) {
      let hit
      try {
        hit = w.pred(requests)
      } catch (e) {
        hit = false
      }
      if (hit) {
        waiters.delete(w)
        clearTimeout(w.timer)
        w.resolve(hit)
      }
    }
  }

  const server = http.createServer(handler)
  server.keepAliveTimeout = 1000
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const port = server.address().port

  let socketPath = null
  let unixServer = null
  let socketDir = null
  if (opts.unixSocket !== false) {
    socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-model-'))
    socketPath = path.join(socketDir, 'model.sock')
    unixServer = http.createServer(handler)
    unixServer.keepAliveTimeout = 1000
    await new Promise((resolve, reject) => {
      unixServer.once('error', reject)
      unixServer.listen(socketPath, resolve)
    })
  }

  const sockets = new Set()
  for (const s of [server, unixServer]) {
    if (!s) continue
    s.on('connection', (sock) => {
      sockets.add(sock)
      sock.on('close', () => sockets.delete(sock))
    })
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    socketPath,
    requests,
    /** Model requests only (chat completions / messages POSTs). */
    modelRequests: () =>
      requests.filter(
        (r) => r.method === 'POST' && ['openai', 'anthropic', 'openai-responses', 'gemini'].includes(r.wire),
      ),
    /** Add more scripted replies at the end of the queue. */
    push: (...items) => {
      queue.push(...items)
    },
    remaining: () => queue.length,
    /** Resolve when pred(requests) is truthy (checked on every request), or reject on timeout. */
    waitFor(pred, timeoutMs = 30000) {
      return new Promise((resolve, reject) => {
        let hit
        try {
          hit = pred(requests)
        } catch {
          hit = false
        }
        if (hit) return resolve(hit)
        const w = { pred, resolve, timer: null }
        w.timer = setTimeout(() => {
          waiters.delete(w)
          reject(new Error(`model server: waitFor timed out after ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(w)
      })
    },
    /** Model requests whose message history contains `needle` (string or RegExp). */
    requestsContaining: (needle) =>
      requests.filter((r) => r.body && typeof r.body === 'object' && matches(messagesText(r.body), needle)),
    async close() {
      for (const w of waiters) {
        clearTimeout(w.timer)
      }
      waiters.clear()
      for (const s of sockets) s.destroy()
      await Promise.all([server, unixServer].filter(Boolean).map((s) => new Promise((r) => s.close(() => r()))))
      if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true })
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers for tests

/** A request made by the host for something other than its main agent loop (title generation,
 * quota probe, ...): no tools offered and a tiny max_tokens, or a "quota" probe. */
export function isSideRequest(entry) {
  const b = entry && entry.body
  if (!b || typeof b !== 'object') return true
  const hasTools = Array.isArray(b.tools) && b.tools.length > 0
  if (!hasTools && typeof b.max_tokens === 'number' && b.max_tokens <= 1) return true
  return false
}

function matches(text, needle) {
  if (needle instanceof RegExp) return needle.test(text)
  return text.includes(String(needle))
}

/** All text in a request body's conversation (system, messages, tool results), for searching. */
export function messagesText(body) {
  if (!body || typeof body !== 'object') return String(body ?? '')
  const parts = []
  const walk = (v) => {
    if (v == null) return
    if (typeof v === 'string') {
      parts.push(v)
      return
    }
    if (Array.isArray(v)) {
      v.forEach(walk)
      return
    }
    if (typeof v === 'object') {
      for (const k of Object.keys(v)) walk(v[k])
    }
  }
  walk(body.system)
  walk(body.messages)
  walk(body.input)
  // The Gemini API (Gemini CLI).
  walk(body.systemInstruction)
  walk(body.contents)
  return parts.join('\n')
}

/** Tool results in a request body, normalised across both wires: [{ id, text, isError }]. */
export function toolResults(body) {
  const out = []
  // The Responses API (Codex CLI): `function_call_output` items in `input`, by `call_id`.
  if (body && Array.isArray(body.input)) {
    for (const item of body.input) {
      if (item?.type === 'function_call_output') {
        const text = typeof item.output === 'string' ? item.output : contentText(item.output)
        out.push({ id: item.call_id, text, isError: false })
      }
    }
  }
  if (!body || !Array.isArray(body.messages)) return out
  for (const m of body.messages) {
    if (m.role === 'tool') {
      out.push({ id: m.tool_call_id, text: contentText(m.content), isError: false })
    } else if (Array.isArray(m.content)) {
      for (const c of m.content) {
        if (c && c.type === 'tool_result')
          out.push({ id: c.tool_use_id, text: contentText(c.content), isError: !!c.is_error })
      }
    }
  }
  return out
}

/** Text of user messages (both wires), excluding tool results: [string]. */
export function userTexts(body) {
  const out = []
  if (!body || !Array.isArray(body.messages)) return out
  for (const m of body.messages) {
    if (m.role !== 'user') continue
    if (typeof m.content === 'string') out.push(m.content)
    else if (Array.isArray(m.content)) {
      const t = m.content
        .filter((c) => c && c.type === 'text')
        .map((c) => c.text)
        .join('\n')
      if (t) out.push(t)
    }
  }
  return out
}

/** Names of the tools offered in a request (both wires). */
export function toolNames(body) {
  if (!body || !Array.isArray(body.tools)) return []
  // The Responses API (Codex CLI) groups an MCP server's tools in a namespace: `<namespace>__<tool>`.
  return body.tools
    .flatMap((t) =>
      t.type === 'namespace' && Array.isArray(t.tools)
        ? t.tools.map((x) => `${t.name}__${x.name}`)
        : Array.isArray(t.functionDeclarations) // the Gemini API
          ? t.functionDeclarations.map((f) => f.name)
          : [(t.function && t.function.name) || t.name],
    )
    .filter(Boolean)
}

function contentText(c) {
  if (c == null) return ''
  if (typeof c === 'string') return c
  if (Array.isArray(c))
    return c.map((x) => (typeof x === 'string' ? x : (x && (x.text ?? contentText(x.content))) || '')).join('\n')
  if (typeof c === 'object' && typeof c.text === 'string') return c.text
  return JSON.stringify(c)
}

// ---------------------------------------------------------------------------------------------
// Wire encoders

function normalizeReply(r) {
  if (typeof r === 'string') return { text: r }
  if (!r || typeof r !== 'object') return { text: DEFAULT_TEXT }
  if (r.error)
    return {
      error: { status: r.error.status ?? 500, message: r.error.message ?? 'scripted error', type: r.error.type },
    }
  const toolCalls = (r.toolCalls || []).map((tc, i) => ({
    id: tc.id || `call_e2e_${randomUUID().replace(/-/g, '').slice(0, 16)}_${i}`,
    name: tc.name,
    args: tc.args ?? {},
  }))
  const out = { toolCalls }
  if (typeof r.text === 'string') out.text = r.text
  // The usage the answer reports (Gemini API only): { input, output } tokens.
  if (r.usage) out.usage = { input: r.usage.input ?? 0, output: r.usage.output ?? 0 }
  if (!toolCalls.length && out.text === undefined) out.text = DEFAULT_TEXT
  return out
}

function redactHeaders(h) {
  const out = {}
  for (const [k, v] of Object.entries(h)) {
    out[k] = /^(authorization|x-api-key|api-key|cookie|proxy-authorization)$/i.test(k) ? '<elided>' : v
  }
  return out
}

function estimateTokens(s) {
  return Math.max(1, Math.ceil(String(s || '').length / 4))
}

function sendJson(res, status, obj) {
  const data = JSON.stringify(obj)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) })
  res.end(data)
}

function sendError(res, wire, err) {
  if (wire === 'anthropic') {
    return sendJson(res, err.status, { type: 'error', error: { type: err.type || 'api_error', message: err.message } })
  }
  return sendJson(res, err.status, { error: { message: err.message, type: err.type || 'server_error', code: null } })
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

async function writeSse(res, events, delay) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  })
  for (const ev of events) {
    if (delay) await sleep(delay)
    res.write(ev)
  }
  res.end()
}

function openaiStream(res, reply, model, includeUsage, delay, n) {
  const id = `chatcmpl-e2e-${n}`
  const created = Math.floor(Date.now() / 1000)
  const chunk = (choices, extra = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`
  const events = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])]
  if (reply.text) events.push(chunk([{ index: 0, delta: { content: reply.text }, finish_reason: null }]))
  reply.toolCalls.forEach((tc, i) => {
    events.push(
      chunk([
        {
          index: 0,
          delta: {
            tool_calls: [{ index: i, id: tc.id, type: 'function', function: { name: tc.name, arguments: '' } }],
          },
          finish_reason: null,
        },
      ]),
    )
    events.push(
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index: i, function: { arguments: JSON.stringify(tc.args) } }] },
          finish_reason: null,
        },
      ]),
    )
  })
  events.push(chunk([{ index: 0, delta: {}, finish_reason: reply.toolCalls.length ? 'tool_calls' : 'stop' }]))
  if (includeUsage) events.push(chunk([], { usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } }))
  events.push('data: [DONE]\n\n')
  return writeSse(res, events, delay)
}

function openaiJson(res, reply, model, n) {
  const message = { role: 'assistant', content: reply.text ?? null }
  if (reply.toolCalls.length) {
    message.tool_calls = reply.toolCalls.map((tc) => ({
      id: tc.id,
      type: 'function',
      function: { name: tc.name, arguments: JSON.stringify(tc.args) },
    }))
  }
  return sendJson(res, 200, {
    id: `chatcmpl-e2e-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: reply.toolCalls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  })
}

/** OpenAI Responses API (Codex CLI): SSE items, `function_call` for a tool call. */
function responsesStream(res, reply, delay, n) {
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const id = `resp_e2e_${n}`
  const items = []
  if (reply.text) {
    items.push({
      type: 'message',
      id: `msg_e2e_${n}`,
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    })
  }
  reply.toolCalls.forEach((tc, i) => {
    // A namespaced tool (`mcp__server__tool`) is called by its namespace and bare name.
    const cut = tc.name.startsWith('mcp__') ? tc.name.lastIndexOf('__') : -1
    items.push({
      type: 'function_call',
      id: `fc_e2e_${n}_${i}`,
      call_id: tc.id,
      ...(cut > 0 ? { namespace: tc.name.slice(0, cut), name: tc.name.slice(cut + 2) } : { name: tc.name }),
      arguments: JSON.stringify(tc.args),
    })
  })
  const events = [ev('response.created', { response: { id } })]
  items.forEach((item, i) => {
    events.push(ev('response.output_item.added', { output_index: i, item }))
    events.push(ev('response.output_item.done', { output_index: i, item }))
  })
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 110,
  }
  events.push(ev('response.completed', { response: { id, usage } }))
  return writeSse(res, events, delay)
}

/** Gemini API (Gemini CLI): one candidate, text and `functionCall` parts; SSE for streamGenerateContent. */
function geminiAnswer(res, reply, stream, delay) {
  const parts = []
  if (reply.text) parts.push({ text: reply.text })
  for (const tc of reply.toolCalls) parts.push({ functionCall: { name: tc.name, args: tc.args } })
  const body = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: reply.usage
      ? {
          promptTokenCount: reply.usage.input,
          candidatesTokenCount: reply.usage.output,
          totalTokenCount: reply.usage.input + reply.usage.output,
        }
      : { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
  }
  if (!stream) return sendJson(res, 200, body)
  // The whole answer in one event: Gemini CLI 0.61.0 repeats later chunks in AfterAgent's prompt_response.
  return writeSse(res, [`data: ${JSON.stringify(body)}\r\n\r\n`], delay)
}

function anthropicBlocks(reply) {
  const blocks = []
  if (reply.text) blocks.push({ type: 'text', text: reply.text })
  for (const tc of reply.toolCalls) {
    const id = tc.id.startsWith('toolu_') ? tc.id : `toolu_${tc.id.replace(/^call_/, '')}`
    blocks.push({ type: 'tool_use', id, name: tc.name, input: tc.args })
  }
  return blocks
}

function anthropicStream(res, reply, model, delay, n) {
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const blocks = anthropicBlocks(reply)
  const stopReason = reply.toolCalls.length ? 'tool_use' : 'end_turn'
  const events = [
    ev('message_start', {
      message: {
        id: `msg_e2e_${n}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }),
  ]
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }))
      events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } }))
    } else {
      events.push(
        ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }),
      )
      const json = JSON.stringify(b.input)
      const mid = Math.floor(json.length / 2)
      events.push(
        ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, mid) } }),
      )
      events.push(
        ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(mid) } }),
      )
    }
    events.push(ev('content_block_stop', { index }))
  })
  events.push(
    ev('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } }),
  )
  events.push(ev('message_stop', {}))
  return writeSse(res, events, delay)
}

function anthropicJson(res, reply, model, n) {
  return sendJson(res, 200, {
    id: `msg_e2e_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content: anthropicBlocks(reply),
    stop_reason: reply.toolCalls.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 10 },
  })
}
