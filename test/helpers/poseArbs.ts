/**
 * Random poses for comparing the fast blend kernels (src/engine/) with their clean forms: rotations that are
 * often equal, opposite (q and −q), half a turn apart (dot 0) or near each other, translations and scales with
 * repeats, zeros and negative values, and the weights at and beyond the ends.
 */
import fc from 'fast-check'
import { JOINT_STRIDE } from '../../src/math/poseLayout.ts'
import { unitQuatArb } from './quat.ts'

/** A blend weight: the ends and past them, tiny and near-1 ones, and any in between. */
export const weightArb = fc.oneof(
  fc.constantFrom(0, 1, -0.25, 1.5, 1e-9, 1 - 1e-9, 0.5),
  fc.double({ min: 0, max: 1, noNaN: true }),
)

const component = fc.oneof(fc.constantFrom(0, 1, -1, 2, 0.5), fc.double({ min: -8, max: 8, noNaN: true }))

/** b's rotation relative to a's: equal, opposite, half a turn away, near, or unrelated. */
const relation = fc.constantFrom('equal', 'opposite', 'orthogonal', 'near', 'other')

function related(a: readonly number[], how: string, other: readonly number[]): number[] {
  const [x, y, z, w] = a as [number, number, number, number]
  if (how === 'equal') return [x, y, z, w]
  if (how === 'opposite') return [-x, -y, -z, -w]
  if (how === 'orthogonal') return [w, -z, y, -x]
  if (how === 'near') return [x + 1e-4, y, z - 1e-4, w].map((v) => v / Math.hypot(x + 1e-4, y, z - 1e-4, w))
  return [...other]
}

/** A joint's 10 floats with rotation q. */
const jointArb = (q: fc.Arbitrary<number[]>) =>
  fc
    .tuple(fc.array(component, { minLength: 6, maxLength: 6 }), q)
    .map(([v, r]) => [v[0]!, v[1]!, v[2]!, ...r, v[3]!, v[4]!, v[5]!])

/** Two n-joint poses (n from 1 to 6) whose joints' rotations relate as `relation` says, as float32. */
export const posePairArb = fc.integer({ min: 1, max: 6 }).chain((n) =>
  fc
    .array(
      fc
        .tuple(unitQuatArb(), relation, unitQuatArb(), fc.boolean(), fc.boolean())
        .chain(([q, how, other, sameT, sameS]) =>
          fc.tuple(
            jointArb(fc.constant(q)),
            jointArb(fc.constant(related(q, how, other))),
            fc.constant([sameT, sameS]),
          ),
        ),
      { minLength: n, maxLength: n },
    )
    .map((joints) => {
      const a = new Float32Array(n * JOINT_STRIDE)
      const b = new Float32Array(n * JOINT_STRIDE)
      joints.forEach(([ja, jb, [sameT, sameS]], j) => {
        a.set(ja, j * JOINT_STRIDE)
        b.set(jb, j * JOINT_STRIDE)
        // Paths both poses hold alike (what a blend's `paths` may skip).
        if (sameT) b.set(a.subarray(j * JOINT_STRIDE, j * JOINT_STRIDE + 3), j * JOINT_STRIDE)
        if (sameS) b.set(a.subarray(j * JOINT_STRIDE + 7, j * JOINT_STRIDE + 10), j * JOINT_STRIDE + 7)
      })
      return { n, a, b }
    }),
)

/** The bits of a float array (NaN and −0 compared exactly). */
export const bits = (a: Float32Array): number[] =>
  Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length))
