// Must NOT compile: a misspelt hook event for a known host.
import { runHook } from '../../index.js'

export const r = runHook('claude-code', 'PreTooluse', '{}')
