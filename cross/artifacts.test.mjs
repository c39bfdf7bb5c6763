// Every platform package holds an addon and a native hook of the right format
// and architecture, with the promised minimum OS: glibc 2.17 for linux-gnu
// (objdump -T), the stated macOS version, a static musl hook.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'

import { artifacts, GLIBC_BASELINE, PLATFORMS } from '../scripts/build-all.mjs'
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
        if (what === 'hook') assert.equal(info.type, p.macos || p.windows ? 'exec' : info.type)
        if (what === 'addon' && p.windows) assert.equal(info.type, 'dll')
        if (p.macos) assert.equal(info.minMacos, p.macos, `minimum macOS of the ${what}`)
      })
    }

    if (p.id.endsWith('-gnu')) {
      test(`addon and hook need at most GLIBC_${GLIBC_BASELINE}`, () => {
        for (const file of [addonOf(p.id), hookOf(p.id)]) {
          const versions = glibcVersions(file)
          assert.ok(versions.length > 0, `${file} links glibc`)
          const newer = versions.filter((v) => versionGreater(v, GLIBC_BASELINE))
          assert.deepEqual(newer, [], `${file} needs glibc ${newer.join(', ')}`)
        }
      })
    }
    if (p.musl) {
      test('the hook is static (runs on any Linux) and nothing links glibc', () => {
        const hook = binaryInfo(hookOf(p.id))
        assert.equal(hook.interp, false, 'no program interpreter')
        assert.equal(hook.dynamic, false, 'no shared library at all')
        assert.deepEqual(glibcVersions(addonOf(p.id)), [])
        assert.equal(binaryInfo(addonOf(p.id)).type, 'dyn')
      })
    }
  })
}
