// Terminal output of the goal-system command: colour when the stream is a
// terminal (NO_COLOR turns it off, FORCE_COLOR on), writes that end quietly
// when the reader goes away (`goal-system list | head -1`), and "did you mean"
// suggestions for misspelt commands, options and fields.
import { styleText } from 'node:util'

/** Colour on this stream? FORCE_COLOR (not 0) wins, then NO_COLOR, then a terminal. */
export function colourEnabled(stream, env = process.env) {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '')
    return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false'
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return Boolean(stream?.isTTY) && env.TERM !== 'dumb'
}

/** A painter for one stream: paint('red', text) or the text unchanged. */
export function painter(stream, env = process.env) {
  const on = colourEnabled(stream, env)
  return (style, text) => (on ? styleText(style, text) : text)
}

/**
 * Output for a command: `out`/`err` write a line; a closed pipe (EPIPE) ends
 * the process quietly with the exit code so far, as a Unix tool does. Every
 * line passes `scrub.out` / `scrub.err` first (the command's own: the core's
 * redaction, so that no argument it echoes back shows a secret).
 */
export function makeIo(stdout = process.stdout, stderr = process.stderr, scrub = { out: (t) => t, err: (t) => t }) {
  const quietOnClosedPipe = (err) => {
    if (err?.code === 'EPIPE' || err?.code === 'ERR_STREAM_DESTROYED') process.exit(process.exitCode ?? 0)
    throw err
  }
  stdout.on('error', quietOnClosedPipe)
  stderr.on('error', quietOnClosedPipe)
  return {
    out: (text) => stdout.write(scrub.out(String(text)) + '\n'),
    err: (text) => stderr.write(scrub.err(String(text)) + '\n'),
    paint: painter(stdout),
    paintErr: painter(stderr),
  }
}

/** Edit distance (insert, delete, substitute, swap of neighbours). */
export function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  }
  return d[a.length][b.length]
}

/** The closest candidate to a misspelt word, if one is close enough; null otherwise. */
export function suggest(word, candidates) {
  const w = String(word).toLowerCase()
  let best = null
  let bestScore = Infinity
  for (const c of candidates) {
    const lc = c.toLowerCase()
    const score = lc.startsWith(w) && w.length >= 3 ? 0.5 : distance(w, lc)
    if (score < bestScore) [best, bestScore] = [c, score]
  }
  const limit = Math.max(1, Math.min(3, Math.floor(w.length / 3)))
  return bestScore <= limit ? best : null
}

/** " Did you mean X?" or ''. */
export function didYouMean(word, candidates, format = (s) => s) {
  const s = suggest(word, candidates)
  return s ? ` Did you mean ${format(s)}?` : ''
}
