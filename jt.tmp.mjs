import { modify, applyEdits } from 'jsonc-parser'
const cases = [
 ['{\n  "a": 1\n}\n', ['b']],
 ['{\n  "a": 1, // c\n}\n', ['b']],
 ['{\n  "a": 1,\n  // trailing comment\n}\n', ['b']],
 ['{}', ['b']],
 ['{\n}', ['b']],
 ['{\n  "l": [\n    1\n  ]\n}', ['l', 1]],
 ['{\n  "l": [\n    1,\n  ]\n}', ['l', 1]],
 ['{\n  "l": []\n}', ['l', 0]],
]
for (const [t, p] of cases) {
  const e = modify(t, p, { x: [1] }, { isArrayInsertion: true })
  console.log(JSON.stringify(t), JSON.stringify(e))
}
const t = '{\n  "a": 1,\n  "b": {"x":[1]}, // c\n  "d": 2,\n}\n'
console.log(JSON.stringify(modify(t, ['b'], undefined, {})), JSON.stringify(modify(t, ['d'], undefined, {})))
