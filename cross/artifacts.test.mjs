// Every platform package holds an addon and a native hook of the right format
// and architecture, with the promised minimum OS: glibc 2.17 for the linux-gnu
// addon (objdump -T), the stated macOS version; on Linux a static hook that
// is not position-independent (no loader, no relocations at start), the same
// musl build in the gnu and the musl package of an architecture.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'

import { artifacts, GLIBC_BASELINE, PLATFORMS, hookTriple } from '../scripts/build-all.mjs'
import { addonOf, binaryInfo, glibcVersions, hookOf, npmDir, root, versionGreater } from './tools.mjs'

test('napi.targets in package.json are the platforms build:all makes', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  assert.deepEqual([...pkg.napi.targets].sort(), PLATFORMS.map((p) => p.napiTarget ?? p.triple).sort())
})

for (const p of PLATFORMS) {
  describe(p.id, () => {
    const arch = p.id.includes('arm64') ? 'arm64' : 'x64'
    const manifest = JSON.parse(readFileSync(join(npmDir(p.id), 'package.json'), 'utf8'))

    test('its package.json names the platform and ships the addon and the hook', () => {
      assert.equal(manifest.name, `goal-system-${p.id}`)
      assert.deepEqual(manifest.cpu, [arch])
      assert.deepEqual(manifest.os, [p.id.split('-')[0]])
      if (p.id.startsWith('linux')) assert.deepEqual(manifest.libc, [p.musl ? 'musl' : 'glibc'])
      assert.deepEqual([...manifest.files].sort(), [`goal-system.${p.id}.node`, artifacts(p).hook].sort())
      assert.equal(manifest.main, `goal-system.${p.id}.node`)
      for (const f of manifest.files)
        assert.ok(existsSync(join(npmDir(p.id), f)), `npm/${p.id}/${f} is built (npm run build:all)`)
    })

    for (const [what, file] of [
      ['addon', addonOf(p.id)],
      ['hook', hookOf(p.id)],
    ]) {
      const format = p.macos ? 'macho' : p.windows ? 'pe' : 'elf'
      test(`the ${what} is a ${arch} ${format} file`, () => {
        const info = binaryInfo(file)
        assert.equal(info.format, format)
        assert.equal(info.arch, arch)
        if (what === 'hook') assert.equal(info.type, 'exec')
        if (what === 'addon' && p.windows) assert.equal(info.type, 'dll')
        if (p.macos) assert.equal(info.minMacos, p.macos, `minimum macOS of the ${what}`)
      })
    }

    if (p.id.endsWith('-gnu')) {
      test(`the addon needs at most GLIBC_${GLIBC_BASELINE}`, () => {
        const versions = glibcVersions(addonOf(p.id))
        assert.ok(versions.length > 0, `${addonOf(p.id)} links glibc`)
        const newer = versions.filter((v) => versionGreater(v, GLIBC_BASELINE))
        assert.deepEqual(newer, [], `${addonOf(p.id)} needs glibc ${newer.join(', ')}`)
      })
      test("the hook is the musl package's: one static build for both C libraries", () => {
        const musl = PLATFORMS.find((q) => q.musl && q.triple === hookTriple(p))
        assert.ok(musl, `${p.id} takes its hook from a musl package (hookTriple ${hookTriple(p)})`)
        assert.ok(readFileSync(hookOf(p.id)).equals(readFileSync(hookOf(musl.id))), `npm/${p.id}/goal-hook`)
      })
    }
    if (p.id.startsWith('linux')) {
      test('the hook is static and not position-independent (runs on any Linux, no loader at start)', () => {
        const hook = binaryInfo(hookOf(p.id))
        assert.equal(hook.interp, false, 'no program interpreter')
        assert.equal(hook.dynamic, false, 'no shared library, no dynamic relocations')
        assert.equal(hook.type, 'exec', 'ET_EXEC, not a static-pie ET_DYN that relocates itself')
      })
    }
    if (p.musl) {
      test('the addon links musl dynamically, nothing links glibc', () => {
        assert.deepEqual(glibcVersions(addonOf(p.id)), [])
        assert.equal(binaryInfo(addonOf(p.id)).type, 'dyn')
      })
    }
  })
}
