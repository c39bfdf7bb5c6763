// A project folder of a given size for the benchmarks: a git repository
// with `files` tracked-looking files in folders of 25 (src/, tests/, docs/,
// lib/, three levels deep), a .gitignore, and ignored noise the walk skips
// (node_modules/, build/, *.log). The same layout every time.
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const PER_FOLDER = 25
const TOPS = ['src', 'tests', 'docs', 'lib']

/** Make the project under `dir` (created); returns `dir`. */
export function makeTree(dir, files) {
  mkdirSync(dir, { recursive: true })
  if (spawnSync('git', ['init', '-q', dir]).status !== 0) mkdirSync(join(dir, '.git'), { recursive: true })
  writeFileSync(join(dir, '.gitignore'), '*.log\nbuild/\n')
  writeFileSync(join(dir, 'README.md'), '# bench project\n')
  writeFileSync(join(dir, 'package.json'), '{"name":"bench","scripts":{"test":"node --test"}}\n')
  const folders = Math.ceil(files / PER_FOLDER)
  let made = 3
  for (let f = 0; f < folders && made < files; f++) {
    const top = TOPS[f % TOPS.length]
    const mid = `m${String(Math.floor(f / 40) % 40).padStart(2, '0')}`
    const folder = join(dir, top, mid, `f${String(f).padStart(4, '0')}`)
    mkdirSync(folder, { recursive: true })
    for (let i = 0; i < PER_FOLDER && made < files; i++, made++) {
      writeFileSync(join(folder, `file${i}.js`), `export const v${i} = ${f * PER_FOLDER + i}\n`)
    }
  }
  // Ignored noise: never walked.
  mkdirSync(join(dir, 'node_modules', 'dep'), { recursive: true })
  writeFileSync(join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1\n')
  mkdirSync(join(dir, 'build'), { recursive: true })
  writeFileSync(join(dir, 'build', 'out.js'), '1\n')
  writeFileSync(join(dir, 'debug.log'), 'noise\n')
  return dir
}
