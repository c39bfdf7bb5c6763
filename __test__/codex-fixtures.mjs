// What Codex CLI 0.169.0 writes and sends, for the tests that play it: a session's rollout under
// `<codex home>/sessions/YYYY/MM/DD/`, a hook payload's common fields, a token_count event.
import { randomUUID } from 'node:crypto'
import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** A rollout named for session `id` under `codexHome`, its meta line first, then `lines`. */
export function writeRollout(codexHome, id, cwd, lines = []) {
  const rollout = join(codexHome, 'sessions', '2026', '11', '26', `rollout-2026-11-26T14-37-12-${id}.jsonl`)
  mkdirSync(dirname(rollout), { recursive: true })
  const meta = { type: 'session_meta', payload: { id, cwd } }
  appendFileSync(rollout, [meta, ...lines].map((l) => `${JSON.stringify(l)}\n`).join(''))
  return rollout
}

/** A session as Codex names it: a UUID, its rollout under `<home>/.codex`, a turn id. */
export function codexSession(home, cwd) {
  const id = randomUUID()
  return { id, rollout: writeRollout(join(home, '.codex'), id, cwd), turn: randomUUID() }
}

/** The fields every Codex hook payload of session `s` carries. */
export const codexPayload = (s, cwd, event) => ({
  session_id: s.id,
  turn_id: s.turn,
  transcript_path: s.rollout,
  cwd,
  hook_event_name: event,
  model: 'gpt-5.5',
  permission_mode: 'bypassPermissions',
})

/** Codex's running token total: a `token_count` event (`last`: the last call's tokens). */
export const tokenCount = (total, last = total) => ({
  type: 'event_msg',
  payload: {
    type: 'token_count',
    info: { total_token_usage: { total_tokens: total }, last_token_usage: { total_tokens: last } },
  },
})
