// Runs INSIDE a fresh loopback-only network namespace (started by hosts.mjs through `unshare`).
//
//   node netns-run.mjs [--relay PORT=SOCKETPATH]... -- COMMAND [ARGS...]
//
// 1. brings the namespace's loopback up (a new namespace has `lo` DOWN and no 127.0.0.1);
// 2. for each --relay, listens on 127.0.0.1:PORT and pipes every connection to the Unix socket
//    SOCKETPATH (the model server in the parent namespace listens there too), so the host can use
//    http://127.0.0.1:PORT exactly as if the model server were local;
// 3. runs COMMAND with the inherited environment, stdio and cwd, forwards SIGTERM/SIGINT/SIGHUP
//    and exits with its status (128+signal number when it was killed).
// When started with `unshare --pid --fork --kill-child`, this process is PID 1 of its own PID
// namespace: when it exits, the kernel kills everything the host left behind.
import net from 'node:net'
import os from 'node:os'
import { spawn, spawnSync } from 'node:child_process'

const argv = process.argv.slice(2)
const relays = []
let i = 0
for (; i < argv.length; i++) {
  if (argv[i] === '--') {
    i++
    break
  }
  if (argv[i] === '--relay') {
    const [port, ...rest] = argv[++i].split('=')
    relays.push({ port: Number(port), socketPath: rest.join('=') })
  } else {
    fail(`netns-run: unknown option ${argv[i]}`)
  }
}
const cmd = argv.slice(i)
if (!cmd.length) fail('netns-run: no command')

function fail(msg) {
  process.stderr.write(msg + '\n')
  process.exit(125)
}

const ipCandidates = ['ip', '/usr/sbin/ip', '/sbin/ip', '/bin/ip']
let up = null
for (const ip of ipCandidates) {
  up = spawnSync(ip, ['link', 'set', 'lo', 'up'], { stdio: ['ignore', 'ignore', 'pipe'] })
  if (!up.error) break
}
if (!up || up.error || up.status !== 0) {
  fail(
    `netns-run: cannot bring loopback up (${up && (up.error?.message || up.stderr?.toString().trim())}); install iproute2`,
  )
}

// Refuse to run if this namespace has anything but loopback (i.e. unshare did not happen).
const ifaces = Object.keys(os.networkInterfaces())
const nonLo = ifaces.filter((n) => n !== 'lo')
if (nonLo.length) fail(`netns-run: refusing to run: network interfaces other than lo present: ${nonLo.join(', ')}`)

await Promise.all(
  relays.map(
    ({ port, socketPath }) =>
      new Promise((resolve, reject) => {
        const srv = net.createServer((client) => {
          const upstream = net.connect(socketPath)
          client.pipe(upstream).pipe(client)
          const end = () => {
            client.destroy()
            upstream.destroy()
          }
          client.on('error', end)
          upstream.on('error', end)
          client.on('close', end)
          upstream.on('close', end)
        })
        srv.unref()
        srv.once('error', reject)
        srv.listen(port, '127.0.0.1', resolve)
      }),
  ),
)

const child = spawn(cmd[0], cmd.slice(1), { stdio: 'inherit' })
child.on('error', (err) => fail(`netns-run: cannot start ${cmd[0]}: ${err.message}`))
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(sig, () => {
    try {
      child.kill(sig)
    } catch {
      /* gone */
    }
  })
}
child.on('exit', (code, signal) => {
  const n = signal ? 128 + (os.constants.signals[signal] || 0) : (code ?? 1)
  process.exit(n)
})
