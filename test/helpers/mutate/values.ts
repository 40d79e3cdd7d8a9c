/**
 * What the mutation arbitraries share: the values they set, and the context one subject's arbitraries are made
 * from (made in test/helpers/mutate.ts's makeMutationArb).
 */
import fc from 'fast-check'
import type { Json } from '../gltfFiles.ts'
import type { JsonValue, Mutation, Path } from '../mutate.ts'
import type { Subject } from './subjects.ts'

/** One subject's arbitraries are made from this; `add` appends one with its weight, in order. */
export interface MutationArbContext {
  subject: Subject
  j: Json
  nAccessors: number
  nViews: number
  nBuffers: number
  nNodes: number
  nSkins: number
  nScenes: number
  animations: Json[]
  /** An accessor index, weighted toward those animation and skinning read. */
  accessor: fc.Arbitrary<number>
  at: fc.Arbitrary<number>
  byte: fc.Arbitrary<number>
  add: (weight: number, arbitrary: fc.Arbitrary<Mutation>) => void
}

export const set = (kind: string, path: Path, value: JsonValue): Mutation => ({
  kind,
  op: 'set',
  path,
  value,
})

/** A bad-or-good index for a list of `n`: mostly valid, else the usual suspects. */
export const indexValue = (n: number): fc.Arbitrary<JsonValue> =>
  fc.oneof(
    { weight: 3, arbitrary: n > 0 ? fc.integer({ min: 0, max: n - 1 }) : fc.constant(0) },
    { weight: 2, arbitrary: fc.constantFrom<JsonValue>(n, n + 1, -1, 2 ** 31, 2 ** 53, 0.5, '0', null, [0]) },
  )

/** Odd JSON values for untargeted edits. Infinity is written as 1e999 (JSON.parse reads it as Infinity). */
export const oddValue: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(
    null,
    0,
    -1,
    1,
    0.5,
    -0.5,
    1e999,
    -1e999,
    2 ** 32,
    '',
    'x',
    true,
    false,
    [],
    {},
    [null],
  ),
  fc.integer({ min: -5, max: 100 }),
  fc.string({ maxLength: 6 }),
)

export function pick<T>(items: readonly T[]): fc.Arbitrary<T> {
  return fc.constantFrom(...items)
}
