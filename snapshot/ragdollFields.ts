import type { ResolvedBody } from '../src/physics/description.ts'
import type { RagdollRuntime } from '../plugin/context.ts'
import { checkPositive, checkRange } from '../src/sim/valueChecks.ts'

/**
 * The ragdolls section's tables, one for its writer (ragdolls.ts) and its reader (readRagdolls.ts): which flags
 * a runtime has, and the numbers of a description's body in the order they are stored.
 */

// A runtime's flags: which of its parts follow (ragdolls.ts has the layout).
/** An explosion was already reported. */
export const FLAG_REPORTED = 1
/** The asset's default description (none follows). */
export const FLAG_DEFAULT_DESCRIPTION = 2
/** The bodies exist (their read-back and instance follow). */
export const FLAG_BODIES = 4
/** A partial ragdoll (its subtree roots follow). */
export const FLAG_PARTIAL = 8
/** A larger ragdoll replaces it in the next step (its roots, hits and recovery follow). */
export const FLAG_REPLACED = 16
/** Per-joint physics weights (setRagdollWeight). */
export const FLAG_JOINT_WEIGHTS = 32
/** A hit reaction's recovery rate. */
export const FLAG_RECOVERS = 64
/** Motors (a powered ragdoll). */
export const FLAG_MOTORS = 128
/** A body's shape, by its index in the format. */
export const RAGDOLL_SHAPES: readonly ResolvedBody['shape'][] = ['capsule', 'box']

/** Each flag of a runtime's entry and whether a runtime has it (`isDefault`: its description is the asset's). */
const RAGDOLL_FLAGS: readonly {
  readonly bit: number
  readonly has: (rt: RagdollRuntime, isDefault: boolean) => boolean
}[] = [
  { bit: FLAG_REPORTED, has: (rt) => rt.reported },
  { bit: FLAG_DEFAULT_DESCRIPTION, has: (_, isDefault) => isDefault },
  { bit: FLAG_BODIES, has: (rt) => rt.instance !== null },
  { bit: FLAG_PARTIAL, has: (rt) => rt.subtrees.length > 0 },
  { bit: FLAG_REPLACED, has: (rt) => rt.instance !== null && rt.next !== null },
  { bit: FLAG_JOINT_WEIGHTS, has: (rt) => rt.jointWeights !== null },
  { bit: FLAG_RECOVERS, has: (rt) => rt.recoverRate > 0 },
  { bit: FLAG_MOTORS, has: (rt) => rt.motors !== null },
]

/** Every flag a reader accepts. */
export const RAGDOLL_FLAG_BITS = RAGDOLL_FLAGS.reduce((bits, f) => bits | f.bit, 0)

/** The flags of a runtime's entry. */
export function ragdollFlags(rt: RagdollRuntime, isDefault: boolean): number {
  let bits = 0
  for (let k = 0; k < RAGDOLL_FLAGS.length; k++)
    if (RAGDOLL_FLAGS[k]!.has(rt, isDefault)) bits |= RAGDOLL_FLAGS[k]!.bit
  return bits
}

/**
 * A description body's numbers (f64 each, in this order, after i32 node, u8 shape, i32 parent body), each with
 * its check (the axis's three are checked together, as a unit vector: BODY_AXIS).
 */
const BODY_NUMBERS: readonly {
  readonly name: string
  readonly get: (b: ResolvedBody) => number
  readonly check: ((at: string, x: number) => void) | null
}[] = [
  { name: 'radius', get: (b) => b.radius, check: (at, x) => checkPositive(at, 'radius', x) },
  { name: 'length', get: (b) => b.length, check: (at, x) => checkPositive(at, 'length', x) },
  { name: 'axis[0]', get: (b) => b.axis[0], check: null },
  { name: 'axis[1]', get: (b) => b.axis[1], check: null },
  { name: 'axis[2]', get: (b) => b.axis[2], check: null },
  { name: 'mass', get: (b) => b.mass, check: (at, x) => checkPositive(at, 'mass', x) },
  {
    name: 'coneAngle',
    get: (b) => b.coneAngle,
    check: (at, x) => checkRange(at, 'coneAngle', x, 0, Math.PI, true),
  },
  {
    name: 'twistAngle',
    get: (b) => b.twistAngle,
    check: (at, x) => checkRange(at, 'twistAngle', x, 0, Math.PI),
  },
]

export const BODY_NUMBER_COUNT = BODY_NUMBERS.length
/** Where the axis starts among a body's numbers. */
export const BODY_AXIS = BODY_NUMBERS.findIndex((f) => f.name === 'axis[0]')

/** A body's numbers into out[0 .. BODY_NUMBER_COUNT). */
export function bodyNumbers(out: Float64Array, b: ResolvedBody): void {
  for (let k = 0; k < BODY_NUMBERS.length; k++) out[k] = BODY_NUMBERS[k]!.get(b)
}

/** Checks each of a body's numbers but the axis (BODY_AXIS: a unit vector, checked by the reader). */
export function checkBodyNumbers(at: string, v: ArrayLike<number>): void {
  for (let k = 0; k < BODY_NUMBERS.length; k++) BODY_NUMBERS[k]!.check?.(at, v[k]!)
}

/** The body of checked numbers `v`. */
export function bodyOf(
  node: number,
  shapeIndex: number,
  parentBody: number,
  v: ArrayLike<number>,
): ResolvedBody {
  const x = (name: string): number => v[BODY_NUMBERS.findIndex((f) => f.name === name)]!
  return {
    node,
    shape: RAGDOLL_SHAPES[shapeIndex]!,
    parentBody,
    radius: x('radius'),
    length: x('length'),
    axis: [x('axis[0]'), x('axis[1]'), x('axis[2]')],
    mass: x('mass'),
    coneAngle: x('coneAngle'),
    twistAngle: x('twistAngle'),
  }
}

/** Whether two descriptions are the same, every number to the bit (Object.is: -0 and NaN as themselves). */
export function sameDescription(a: readonly ResolvedBody[], b: readonly ResolvedBody[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) {
    const x = a[k]!
    const y = b[k]!
    if (x.node !== y.node || x.shape !== y.shape || x.parentBody !== y.parentBody) return false
    for (let f = 0; f < BODY_NUMBERS.length; f++) {
      if (!Object.is(BODY_NUMBERS[f]!.get(x), BODY_NUMBERS[f]!.get(y))) return false
    }
  }
  return true
}
