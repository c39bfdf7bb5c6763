// Must NOT compile: an unknown host.
import { runHook } from '../../index.js'

export const r = runHook('cursor', 'PreToolUse', '{}')
