// Must NOT compile: "finished" is not a status.
import type { Goal } from '../../index.js'
import { closeGoal } from '../../index.js'

export const r = closeGoal({ sessionId: 's', cwd: '/w' }, { status: 'finished' })
export const done = (g: Goal): boolean => g.completionStatus === 'finished'
