// Every skill, command and agent file the package ships has YAML frontmatter
// that a real YAML parser reads: a host whose parser refuses it drops the
// description and argument hint (Claude Code 2.1.330 silently) or refuses the
// whole plugin (`claude plugin validate` in 2.1.197).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import * as yaml from 'js-yaml'

import { root } from './helpers.mjs'

/** Markdown files with frontmatter: skills, commands and agents, wherever they are in the package. */
function frontmatterFiles() {
  const found = []
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(rel)
      else if (/^SKILL\.md$|\.agent\.md$/.test(entry.name) || /(^|\/)commands\/[^/]+\.md$/.test(rel)) found.push(rel)
    }
  }
  for (const dir of ['skills', 'adapters', 'plugins']) walk(dir)
  return found
}

test('the skill, command and agent files are found where the hosts read them', () => {
  const files = frontmatterFiles()
  for (const rel of [
    'skills/goal/SKILL.md',
    'adapters/claude/commands/goal.md',
    'adapters/vscode-chat/agents/goal-system.agent.md',
    'plugins/claude/goal-system/skills/goal/SKILL.md',
    'plugins/copilot-cli/goal-system/skills/goal/SKILL.md',
  ])
    assert.ok(files.includes(rel), `${rel} among ${files.join(', ')}`)
})

for (const rel of frontmatterFiles()) {
  test(`${rel}: the frontmatter is YAML, with a description and string fields`, () => {
    const text = fs.readFileSync(path.join(root, rel), 'utf8')
    const m = text.match(/^---\n([\s\S]*?)\n---\n/)
    assert.ok(m, 'starts with a --- frontmatter block')
    const data = yaml.load(m[1], { schema: yaml.CORE_SCHEMA })
    assert.equal(typeof data, 'object')
    assert.equal(typeof data.description, 'string')
    assert.ok(data.description.length > 20, data.description)
    for (const key of ['name', 'argument-hint']) {
      if (key in data) assert.equal(typeof data[key], 'string', `${key} is a string`)
    }
    if (data['argument-hint']) assert.match(data['argument-hint'], /cancel\[: reason\]/)
  })
}

test('the parser refuses the unquoted hint the Claude command once had', () => {
  assert.throws(() => yaml.load('argument-hint: <objective> | cancel[: reason] | resume\n'), /mapping/)
})
