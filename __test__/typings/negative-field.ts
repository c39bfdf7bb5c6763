// Must NOT compile: a misspelt request field.
import { updateGoal } from '../../index.js'

export const r = updateGoal({ sessionId: 's', cwd: '/w' }, { doneSoFat: ['x'] })
