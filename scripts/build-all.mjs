#!/usr/bin/env node
// `npm run build:all`: every platform package in npm/<platform>/ (the addon
// `goal-system.<platform>.node` and the native hook `goal-hook`), built on this
// one Linux machine with cargo-zigbuild and zig as the cross linker.
//
// It first installs what it needs from the registries, each only when missing:
//   - the Rust targets (rustup target add),
//   - cargo-zigbuild (cargo install, from crates.io, pinned),
//   - zig (the `ziglang` package from PyPI, pinned, into target/cross-tools),
// then builds, per target, the addon and the hook into target/cross (on macOS
// and Windows in one cargo run, so the crates compile once per target).
//
// Baselines: the linux-gnu addon links against glibc 2.17 (CentOS 7, Debian 8
// and newer); macOS 11.0 on arm64 (the first arm64 release) and 10.15 on x64
// (Node 20's own minimum); the musl addon links musl dynamically (Node on
// Alpine loads it). The hook of every Linux package, glibc's and musl's alike,
// is one static musl build per architecture, not position-independent
// (scripts/build-hook.mjs's staticLinkFlags): it runs on any Linux, and it
// starts without a dynamic loader, as the hook `npm run build` makes locally.
// zig cannot link glibc statically, and a dynamically linked hook pays the
// loader and its relocations on every tool call (README, Performance).
// Windows x64 is built with zig's
// MinGW toolchain (x86_64-pc-windows-gnu) into the `win32-x64-msvc` package:
// that is the package napi-rs's loader asks for on the official (MSVC-built)
// Node, and a napi addon only talks to Node through the C ABI, which both
// toolchains share (checked by loading it in Windows Node under wine).
//
//   node scripts/build-all.mjs [--only linux-arm64-gnu,darwin-x64] [--no-tools]
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { staticLinkFlags } from './build-hook.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tools = join(root, 'target', 'cross-tools')
const targetDir = join(root, 'target', 'cross')

const CARGO_ZIGBUILD = '0.24.1'
const ZIGLANG = '0.17.1'

/**
 * Every platform package: napi-rs's platform id, the Rust target, how it is
 * built; `hookTriple`: the hook's own target where it is not the addon's.
 */
export const PLATFORMS = [
  {
    id: 'linux-x64-gnu',
    triple: 'x86_64-unknown-linux-gnu',
    zigTarget: 'x86_64-unknown-linux-gnu.2.17',
    hookTriple: 'x86_64-unknown-linux-musl',
    lib: 'so',
  },
  {
    id: 'linux-arm64-gnu',
    triple: 'aarch64-unknown-linux-gnu',
    zigTarget: 'aarch64-unknown-linux-gnu.2.17',
    hookTriple: 'aarch64-unknown-linux-musl',
    lib: 'so',
  },
  { id: 'linux-x64-musl', triple: 'x86_64-unknown-linux-musl', lib: 'so', musl: true },
  { id: 'linux-arm64-musl', triple: 'aarch64-unknown-linux-musl', lib: 'so', musl: true },
  { id: 'darwin-x64', triple: 'x86_64-apple-darwin', lib: 'dylib', macos: '10.15' },
  { id: 'darwin-arm64', triple: 'aarch64-apple-darwin', lib: 'dylib', macos: '11.0' },
  {
    id: 'win32-x64-msvc',
    triple: 'x86_64-pc-windows-gnu',
    napiTarget: 'x86_64-pc-windows-msvc',
    lib: 'dll',
    windows: true,
  },
]

/** The file names cargo gives the addon and the hook for a platform. */
export function artifacts(p) {
  return p.windows
    ? { addon: `goal_system_node.${p.lib}`, hook: 'goal-hook.exe' }
    : { addon: `libgoal_system_node.${p.lib}`, hook: 'goal-hook' }
}

export const GLIBC_BASELINE = '2.17'

/** The Rust target a platform's hook is built for. */
export const hookTriple = (p) => p.hookTriple ?? p.triple

function sh(cmd, args, opts = {}) {
  console.log(`$ ${cmd} ${args.join(' ')}`)
  const res = spawnSync(cmd, args, { stdio: 'inherit', ...opts })
  if (res.status !== 0) {
    console.error(`build-all: ${cmd} ${args.join(' ')} failed (${res.error?.message ?? `exit ${res.status}`})`)
    process.exit(1)
  }
}

const works = (cmd, args, env = process.env) => spawnSync(cmd, args, { stdio: 'ignore', env }).status === 0

/** PATH with the pip-installed zig first. */
function toolEnv() {
  return { ...process.env, PATH: `${join(tools, 'zig', 'ziglang')}:${process.env.PATH}` }
}

function installTools(platforms) {
  const installed = execFileSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).split('\n')
  const triples = new Set(platforms.flatMap((p) => [p.triple, hookTriple(p)]))
  const missing = [...triples].filter((t) => !installed.includes(t))
  if (missing.length) sh('rustup', ['target', 'add', ...missing])
  if (!works('cargo-zigbuild', ['--version'])) {
    sh('cargo', ['install', 'cargo-zigbuild', '--version', CARGO_ZIGBUILD, '--locked'])
  }
  if (!works('zig', ['version'], toolEnv())) {
    // --target keeps zig out of the system Python (which may be externally managed).
    const args = [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--target',
      join(tools, 'zig'),
      `ziglang==${ZIGLANG}`,
    ]
    if (!works('python3', args)) sh('python3', [...args, '--break-system-packages'])
  }
}

function place(from, to) {
  mkdirSync(dirname(to), { recursive: true })
  copyFileSync(from, `${to}.tmp`)
  chmodSync(`${to}.tmp`, 0o755)
  renameSync(`${to}.tmp`, to)
}

/**
 * napi-rs's build script for windows-gnu insists on linking a `libnode.dll`
 * (LIBNODE_PATH). With dyn-symbols the addon takes Node-API from the running
 * node.exe, so an import library naming node.exe with one function is enough:
 * made by zig's dlltool.
 */
function libnodeDir() {
  const dir = join(tools, 'libnode')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'node.def'), 'LIBRARY node.exe\nEXPORTS\nnapi_module_register\n')
  sh('zig', ['dlltool', '-d', join(dir, 'node.def'), '-l', join(dir, 'libnode.a'), '-m', 'i386:x86-64'], {
    env: toolEnv(),
  })
  // napi-build checks for libnode.dll; zig's linker reads libnode.a.
  copyFileSync(join(dir, 'libnode.a'), join(dir, 'libnode.dll'))
  return dir
}

function build(p) {
  const env = { ...toolEnv(), CARGO_TARGET_DIR: targetDir }
  if (p.macos) env.MACOSX_DEPLOYMENT_TARGET = p.macos
  if (p.windows) env.LIBNODE_PATH = libnodeDir()
  const zig = ['zigbuild', '--release', '--target', p.zigTarget ?? p.triple]
  const out = join(targetDir, p.triple, 'release')
  const hookFlags = staticLinkFlags(hookTriple(p))
  if (hookFlags) {
    // Linux: the static hook and the addon need different C runtimes, so the
    // hook has its own run, with the flags on its own crate as
    // scripts/build-hook.mjs passes them. The same build serves the gnu and
    // the musl package of an architecture: the second asks cargo for nothing new.
    const hook = ['rustc', '--release', '--target', hookTriple(p), '-p', 'goal-hook', '--bin', 'goal-hook']
    sh('cargo-zigbuild', [...hook, '--', ...hookFlags], { cwd: root, env })
  }
  if (p.musl) {
    const dylib = join(root, 'target', 'cross-dylib')
    sh('cargo', [...zig, '-p', 'goal-system-node'], {
      cwd: root,
      env: { ...env, CARGO_TARGET_DIR: dylib, RUSTFLAGS: '-C target-feature=-crt-static' },
    })
    place(
      join(dylib, p.triple, 'release', `libgoal_system_node.${p.lib}`),
      join(root, 'npm', p.id, `goal-system.${p.id}.node`),
    )
  } else {
    sh('cargo', [...zig, '-p', 'goal-system-node', ...(hookFlags ? [] : ['-p', 'goal-hook'])], { cwd: root, env })
    place(join(out, artifacts(p).addon), join(root, 'npm', p.id, `goal-system.${p.id}.node`))
  }
  const hookOut = join(targetDir, hookTriple(p), 'release')
  place(join(hookOut, artifacts(p).hook), join(root, 'npm', p.id, artifacts(p).hook))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = process.argv.find((a, i) => process.argv[i - 1] === '--only')?.split(',')
  const platforms = PLATFORMS.filter((p) => !only || only.includes(p.id))
  if (!platforms.length) {
    console.error(`build-all: no platform matches --only ${only}; known: ${PLATFORMS.map((p) => p.id).join(', ')}`)
    process.exit(2)
  }
  if (!process.argv.includes('--no-tools')) installTools(platforms)
  const started = Date.now()
  for (const p of platforms) {
    const t = Date.now()
    build(p)
    console.log(`build-all: ${p.id} in ${Math.round((Date.now() - t) / 1000)} s`)
  }
  for (const p of platforms) {
    for (const f of [`goal-system.${p.id}.node`, artifacts(p).hook]) {
      if (!existsSync(join(root, 'npm', p.id, f))) {
        console.error(`build-all: npm/${p.id}/${f} is missing`)
        process.exit(1)
      }
    }
  }
  console.log(`build-all: ${platforms.length} platform(s) in ${Math.round((Date.now() - started) / 1000)} s`)
}
