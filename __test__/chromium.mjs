// Headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe:
// the browser reads commands on fd 3 and writes on fd 4, each message a JSON
// text ended by a NUL byte). Enough to load one page, watch its console and
// network, read its DOM, and save a screenshot and a PDF.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const FLAGS = [
  '--headless',
  '--no-sandbox', // tests run as root in a container
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  '--window-size=1100,900',
  '--remote-debugging-pipe',
]

/**
 * Load `url`, wait for the load event, evaluate `probe` (an expression giving a
 * string), and save a screenshot / PDF when paths are given. Returns
 * { consoleErrors, requests, probe }.
 */
export async function renderPage(chromium, url, { probe = '""', screenshot, pdf, timeoutMs = 45_000 } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'goal-chromium-'))
  const child = spawn(chromium, [...FLAGS, `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d).length > 20_000 && (stderr = stderr.slice(-10_000)))
  const toBrowser = child.stdio[3]
  const fromBrowser = child.stdio[4]
  let nextId = 1
  const pending = new Map()
  const listeners = []
  let buffer = Buffer.alloc(0)
  fromBrowser.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk])
    let end
    while ((end = buffer.indexOf(0)) >= 0) {
      const msg = JSON.parse(buffer.subarray(0, end).toString('utf8'))
      buffer = buffer.subarray(end + 1)
      if (msg.id && pending.has(msg.id)) {
        const { resolve, reject, method } = pending.get(msg.id)
        pending.delete(msg.id)
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`))
        else resolve(msg.result)
      } else if (msg.method) for (const l of listeners) l(msg)
    }
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject, method })
      toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0')
    })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const consoleErrors = []
  const requests = []
  try {
    const { targetId } = await Promise.race([
      send('Target.createTarget', { url: 'about:blank' }),
      exited.then((code) =>
        Promise.reject(new Error(`chromium exited (${code}) before answering: ${stderr.slice(-2000)}`)),
      ),
    ])
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true })
    let loaded
    const loadedP = new Promise((resolve) => (loaded = resolve))
    listeners.push((msg) => {
      if (msg.sessionId !== sessionId) return
      const p = msg.params ?? {}
      if (msg.method === 'Runtime.consoleAPICalled' && ['error', 'assert'].includes(p.type)) {
        consoleErrors.push(p.args?.map((a) => a.value ?? a.description).join(' '))
      } else if (msg.method === 'Runtime.exceptionThrown') {
        consoleErrors.push(p.exceptionDetails?.exception?.description ?? p.exceptionDetails?.text)
      } else if (msg.method === 'Log.entryAdded' && p.entry?.level === 'error') {
        consoleErrors.push(`${p.entry.source}: ${p.entry.text} ${p.entry.url ?? ''}`.trim())
      } else if (msg.method === 'Network.requestWillBeSent') {
        requests.push(p.request.url)
      } else if (msg.method === 'Page.loadEventFired') loaded()
    })
    for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await send(`${domain}.enable`, {}, sessionId)
    // The essentials must not need JavaScript: run the page with scripts off.
    await send('Emulation.setScriptExecutionDisabled', { value: true }, sessionId)
    await send('Page.navigate', { url }, sessionId)
    await loadedP
    const result = await send('Runtime.evaluate', { expression: probe, returnByValue: true }, sessionId)
    if (result.exceptionDetails) throw new Error(`probe failed: ${result.exceptionDetails.exception?.description}`)
    if (screenshot) {
      const shot = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true }, sessionId)
      fs.writeFileSync(screenshot, Buffer.from(shot.data, 'base64'))
    }
    if (pdf) {
      const printed = await send('Page.printToPDF', { printBackground: true }, sessionId)
      fs.writeFileSync(pdf, Buffer.from(printed.data, 'base64'))
    }
    return { consoleErrors, requests, probe: result.result.value }
  } finally {
    clearTimeout(timer)
    send('Browser.close').catch(() => {})
    const gone = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))])
    if (!gone) child.kill('SIGKILL')
    fs.rmSync(profile, { recursive: true, force: true })
  }
}
