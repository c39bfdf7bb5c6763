#!/usr/bin/env node
// Builds the native hook executable (crates/goal-hook) and places it in
// native/goal-hook, where a clone's hooks files find it.
//
// It builds for an explicit target, as `napi build --platform` does, so both
// land in target/<triple>/.
//
// On Linux (glibc or musl) the hook is linked statically and not as a
// position-independent executable: it runs on every tool call, and loading
// libc, libm and libgcc_s and applying some 9,000 relocations cost about
// 0.7 ms of each run (README, Performance). Only the hook: the addon is a shared
// library Node loads. The flags go to the hook's own crate (`cargo rustc`),
// where the whole program is compiled under LTO. If the static link fails
// (no libc.a: Debian's libc6-dev has it), the hook is built as usual.
//
// On a glibc Linux it is built against musl when Rust's musl target for the
// machine's architecture is installed (`rustup target add
// x86_64-unknown-linux-musl`), as the published packages' hook is
// (scripts/build-all.mjs): glibc's static start-up asks the CPU for its
// features and caches some 25 times (CPUID, a trap to the hypervisor in a
// VM: 3.8 us each here), 0.1 to 0.3 ms of each run. Without that target it
// is linked statically against glibc. GOAL_SYSTEM_HOOK_TARGET names another
// target (the bench compares the two so).
//
// Its own cargo run, after napi's: the hook's crates then compile a second
// time (the addon unifies other features into them), which costs about a
// minute of build once and saves the 0.7 ms on every hook.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, renameSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The Rust host triple (`rustc -vV`). */
const hostTriple = () => /^host: (.+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))[1].trim()

/** Whether Rust's standard library for `triple` is installed. */
function installed(triple) {
  try {
    const dir = execFileSync('rustc', ['--print', 'target-libdir', '--target', triple], { encoding: 'utf8' }).trim()
    return existsSync(dir) && readdirSync(dir).some((name) => name.startsWith('libstd-'))
  } catch {
    return false
  }
}

/**
 * The target the hook is built for on this machine (see above): the musl
 * target of a glibc Linux's architecture when it is installed, else the host's.
 */
export function hookTarget() {
  if (process.env.GOAL_SYSTEM_HOOK_TARGET) return process.env.GOAL_SYSTEM_HOOK_TARGET
  const host = hostTriple()
  const musl = host.replace(/-linux-gnu$/, '-linux-musl')
  return musl !== host && installed(musl) ? musl : host
}

/**
 * The rustc flags that link a program for `triple` as the hook is linked
 * (see above), or null where it is linked as cargo links any program. On
 * musl they make the target's default static link not position-independent
 * too. The bench builds its floor with them, and `npm run build:all` the
 * hook of every Linux package (scripts/build-all.mjs).
 */
export const staticLinkFlags = (triple) =>
  /-linux-(gnu|musl)$/.test(triple) ? ['-C', 'target-feature=+crt-static', '-C', 'relocation-model=static'] : null

function cargo(args) {
  const res = spawnSync('cargo', args, { cwd: root, stdio: 'inherit' })
  return res.status === 0
}

/** `cargo rustc` of the hook for `target`, with `flags` for its own crate. */
const buildFor = (target, profile, flags = []) =>
  cargo(['rustc', '-p', 'goal-hook', '--bin', 'goal-hook', '--target', target, ...profile, '--', ...flags])

function buildHook(debug) {
  const profile = debug ? [] : ['--release']
  const host = hostTriple()
  let target = hookTarget()
  let built = false
  if (target !== host && !process.env.GOAL_SYSTEM_HOOK_TARGET) {
    // musl, found installed; one that cannot link (a broken toolchain)
    // leaves the host's own C library, as without it.
    built = buildFor(target, profile, staticLinkFlags(target))
    if (!built) {
      console.error(`goal-system: the native hook did not build for ${target}; building it for ${host}`)
      target = host
    }
  }
  if (!built && target.endsWith('-linux-gnu')) {
    console.log(
      `goal-system: linking the native hook against glibc; \`rustup target add ${target.replace(/gnu$/, 'musl')}\` builds it as the published packages' (faster to start)`,
    )
  }
  const flags = staticLinkFlags(target)
  if (!built && !buildFor(target, profile, flags ?? [])) {
    if (!flags) {
      console.error(`goal-system: the native hook did not build for ${target}`)
      process.exit(1)
    }
    console.error(
      `goal-system: the static link of the native hook for ${target} failed (for glibc: is libc6-dev installed?); linking it dynamically`,
    )
    // The same command without the flags: the crate's own fingerprint changes back.
    if (!buildFor(target, profile)) process.exit(1)
  }
  const exe = process.platform === 'win32' ? 'goal-hook.exe' : 'goal-hook'
  const targetDir = process.env.CARGO_TARGET_DIR || join(root, 'target')
  const artifact = join(targetDir, target, debug ? 'debug' : 'release', exe)
  const dest = join(root, 'native', exe)
  mkdirSync(dirname(dest), { recursive: true })
  // Copy then rename so a hook running right now never sees a half-written file.
  copyFileSync(artifact, `${dest}.tmp`)
  chmodSync(`${dest}.tmp`, 0o755)
  renameSync(`${dest}.tmp`, dest)
  console.log(`goal-system: native hook at ${dest}`)
}

// Run, not imported (the bench takes the flags): the module's URL is the real
// path, so the script's path as typed is resolved before comparing.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildHook(process.argv.includes('--debug'))
}
