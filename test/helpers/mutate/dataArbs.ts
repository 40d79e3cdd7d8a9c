/**
 * Mutations of the bytes and the data: byte edits and truncation, accessor fields, key times and output
 * values, sparse accessors and inverse bind matrices in the buffers (the first part of one subject's
 * arbitraries, in makeMutationArb's order).
 */
import fc from 'fast-check'
import type { Json } from '../gltfFiles.ts'
import type { JsonValue, KeyTimeEdit, Mutation } from '../mutate.ts'
import { COMPONENTS } from './subjects.ts'
import { set, indexValue, pick, type MutationArbContext } from './values.ts'

export function addDataMutations(c: MutationArbContext): void {
  const { subject, j, nAccessors, nViews, accessor, at, byte, add } = c
  // Bytes and truncation.
  add(
    3,
    fc.record({ at, value: byte }).map(({ at, value }) => ({ kind: 'json.byte', op: 'textByte', at, value })),
  )
  add(
    1,
    fc.record({ at, value: byte }).map(({ at, value }) => ({ kind: 'file.byte', op: 'fileByte', at, value })),
  )
  add(
    2,
    fc
      .record({ fraction: fc.double({ min: 0, max: 1, noNaN: true }), fixHeader: fc.boolean() })
      .map(({ fraction, fixHeader }) => ({ kind: 'truncate', op: 'truncate', fraction, fixHeader })),
  )
  if (subject.buffers.length > 0) {
    const buffer = fc.nat(subject.buffers.length - 1)
    add(
      2,
      fc
        .record({ buffer, at, value: byte })
        .map(({ buffer, at, value }) => ({ kind: 'bin.byte', op: 'binByte', buffer, at, value })),
    )
    add(
      1,
      fc
        .record({ buffer, fraction: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) })
        .map(({ buffer, fraction }): Mutation => ({
          kind: 'buffer.cut',
          op: 'cutBuffer',
          buffer,
          length: Math.floor(fraction * subject.buffers[buffer]!.length),
        })),
    )
  }

  // Accessors.
  if (nAccessors > 0) {
    const field = (kind: string, name: string, value: (a: Json) => fc.Arbitrary<JsonValue>): void =>
      add(
        2,
        accessor.chain((i) => value(j.accessors[i]).map((v) => set(kind, ['accessors', i, name], v))),
      )
    field('accessor.count', 'count', (a) =>
      fc.constantFrom<JsonValue>(
        a.count - 1,
        a.count + 1,
        0,
        -1,
        2 * a.count,
        2 ** 32,
        1.5,
        String(a.count),
        1,
      ),
    )
    field('accessor.componentType', 'componentType', () =>
      fc.constantFrom<JsonValue>(5120, 5121, 5122, 5123, 5125, 5126, 5124, 5130, 0, '5126', null),
    )
    field('accessor.type', 'type', () =>
      fc.constantFrom<JsonValue>(
        'SCALAR',
        'VEC2',
        'VEC3',
        'VEC4',
        'MAT2',
        'MAT3',
        'MAT4',
        'VEC5',
        'vec3',
        '',
        4,
      ),
    )
    field('accessor.byteOffset', 'byteOffset', (a) =>
      fc.constantFrom<JsonValue>(
        (a.byteOffset ?? 0) + 4,
        (a.byteOffset ?? 0) + 1,
        (a.byteOffset ?? 0) + 2,
        -4,
        2 ** 31,
        0,
      ),
    )
    field('accessor.normalized', 'normalized', () => fc.constantFrom<JsonValue>(true, false, 'yes', 1))
    field('accessor.bufferView', 'bufferView', () => indexValue(nViews))
    add(
      2,
      accessor.chain((i) => {
        const a = j.accessors[i]
        const n = COMPONENTS[a.type] ?? 1
        const bound = fc.oneof(
          fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: n, maxLength: n }),
          fc.constantFrom<JsonValue>([], [0], null, 'x'),
        )
        return fc
          .record({ which: fc.constantFrom('min', 'max'), value: fc.oneof(bound, fc.constant(undefined)) })
          .map(({ which, value }): Mutation =>
            value === undefined
              ? { kind: 'accessor.minmax', op: 'delete', path: ['accessors', i, which] }
              : set('accessor.minmax', ['accessors', i, which], value),
          )
      }),
    )
  }

  // Animation data in the buffers: key times and output values.
  const withLayout = (list: number[]): number[] => list.filter((a) => subject.floatLayout[a] !== undefined)
  const inputs = withLayout(subject.animationInputs)
  if (inputs.length > 0) {
    add(
      4,
      pick(inputs).chain((a) =>
        fc
          .record({
            key: fc.nat(subject.floatLayout[a]!.count - 1),
            edit: fc.constantFrom<KeyTimeEdit>(
              'repeat-previous',
              'before-previous',
              'negative',
              'nan',
              'infinity',
              'huge',
              'negative-zero',
              'swap-next',
              'one-ulp-later',
            ),
          })
          .map(({ key, edit }): Mutation => ({ kind: 'times', op: 'keyTime', accessor: a, key, edit })),
      ),
    )
  }
  const outputs = subject.animationOutputs.filter((o) => subject.floatLayout[o.accessor] !== undefined)
  if (outputs.length > 0) {
    add(
      3,
      pick(outputs).chain((o) => {
        const layout = subject.floatLayout[o.accessor]!
        return fc.oneof(
          fc
            .record({
              element: fc.nat(layout.count - 1),
              component: fc.nat(layout.components - 1),
              value: fc.constantFrom(NaN, Infinity, -Infinity, 3e38, 1e39, -0, 1e-42),
            })
            .map(({ element, component, value }): Mutation => ({
              kind: 'values.float',
              op: 'floats',
              accessor: o.accessor,
              element,
              component,
              values: [value],
            })),
          fc
            .record({
              element: fc.nat(layout.count - 1),
              factor: fc.constantFrom(0, 2, 1e-3, -1, 1e-30, 1e30),
            })
            .map(({ element, factor }): Mutation => ({
              kind: o.path === 'rotation' ? 'values.rotation-scale' : 'values.scale',
              op: 'scaleElement',
              accessor: o.accessor,
              element,
              factor,
            })),
        )
      }),
    )
  }
  const sparseTargets = withLayout([
    ...subject.animationInputs,
    ...subject.animationOutputs.map((o) => o.accessor),
  ])
  if (sparseTargets.length > 0) {
    add(
      2,
      pick(sparseTargets).chain((a) => {
        const { count, components } = subject.floatLayout[a]!
        const valid: fc.Arbitrary<number[]> = fc
          .uniqueArray(fc.nat(count - 1), { minLength: 1, maxLength: Math.min(3, count) })
          .map((xs) => xs.sort((x, y) => x - y))
        const odd: fc.Arbitrary<number[]> = fc.constantFrom<number[]>(
          [count],
          [0, 0],
          [1, 0],
          [count + 5],
          [-1],
        )
        return fc
          .record({
            indices: fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: odd }),
            indexType: fc.constantFrom(5121, 5123, 5125, 5125, 5126),
            offsets: fc.boolean(),
            value: fc.oneof(fc.double({ min: 0, max: 4, noNaN: true }), fc.constantFrom(NaN, -1)),
          })
          .map(({ indices, indexType, offsets, value }): Mutation => {
            // For key times keep the edit mostly valid: the new time sits between its neighbours' old times.
            const values = indices.flatMap((i) =>
              Array.from({ length: components }, (_, c) => value + i + c / 10),
            )
            return { kind: 'accessor.sparse', op: 'sparse', accessor: a, indices, values, indexType, offsets }
          })
      }),
    )
  }
  if (subject.ibmAccessors.length > 0) {
    add(
      1,
      pick(subject.ibmAccessors).chain((a) =>
        fc
          .record({
            element: fc.nat(Math.max(0, (subject.floatLayout[a]?.count ?? 1) - 1)),
            component: fc.nat(15),
            value: fc.constantFrom(NaN, Infinity, 2, 0, 1e30),
          })
          .map(({ element, component, value }): Mutation => ({
            kind: 'skin.ibm-values',
            op: 'floats',
            accessor: a,
            element,
            component,
            values: [value],
          })),
      ),
    )
  }
}
