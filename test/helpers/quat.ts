import fc from 'fast-check'
import { expect } from 'vitest'

/**
 * Quaternion comparisons for tests. Quaternions are `[x, y, z, w]`; q and -q are the same rotation, so every
 * comparison here takes the nearer of the two signs. Read 4 floats at `offset` of any array-like.
 *
 * Written with Math.* on purpose: tests are the independent side of a comparison, not the deterministic path.
 */

export type QuatLike = ArrayLike<number>

/** The 4 floats at `offset` as a plain array (for messages and for oracles that take arrays). */
export function quatAt(array: QuatLike, offset = 0): [number, number, number, number] {
  return [array[offset]!, array[offset + 1]!, array[offset + 2]!, array[offset + 3]!]
}

export function quatDot(a: QuatLike, b: QuatLike, ao = 0, bo = 0): number {
  let d = 0
  for (let j = 0; j < 4; j++) d += a[ao + j]! * b[bo + j]!
  return d
}

export function quatLength(q: QuatLike, offset = 0): number {
  return Math.sqrt(quatDot(q, q, offset, offset))
}

/**
 * Largest component difference between a and the nearer of ±b (0 for q vs -q). Well conditioned everywhere,
 * so it is the right measure for "equal up to float rounding".
 */
export function quatDistance(a: QuatLike, b: QuatLike, ao = 0, bo = 0): number {
  let plus = 0
  let minus = 0
  for (let j = 0; j < 4; j++) {
    plus = Math.max(plus, Math.abs(a[ao + j]! - b[bo + j]!))
    minus = Math.max(minus, Math.abs(a[ao + j]! + b[bo + j]!))
  }
  return Math.min(plus, minus)
}

/**
 * Angle on the unit 4-sphere between a and the nearer of ±b, in radians, in [0, π/2] (the rotation between them
 * is twice this). Uses 2·atan2(|a − b|, |a + b|), which stays accurate near 0 where acos(dot) does not
 * (acos near 1 loses about half the digits). Inputs are normalized first, so it also works on slightly non-unit quaternions.
 */
export function quatHalfAngle(a: QuatLike, b: QuatLike, ao = 0, bo = 0): number {
  const la = quatLength(a, ao)
  const lb = quatLength(b, bo)
  const sign = quatDot(a, b, ao, bo) < 0 ? -1 : 1
  let diff2 = 0
  let sum2 = 0
  for (let j = 0; j < 4; j++) {
    const x = a[ao + j]! / la
    const y = (sign * b[bo + j]!) / lb
    diff2 += (x - y) ** 2
    sum2 += (x + y) ** 2
  }
  return 2 * Math.atan2(Math.sqrt(diff2), Math.sqrt(sum2))
}

/** Rotation angle between the rotations a and b, radians in [0, π]. */
export function quatRotationAngle(a: QuatLike, b: QuatLike, ao = 0, bo = 0): number {
  return 2 * quatHalfAngle(a, b, ao, bo)
}

/** Asserts `actual` (4 floats at `offset`) equals ±`expected` to `tol` per component. */
export function expectQuatClose(actual: QuatLike, expected: QuatLike, tol = 1e-6, offset = 0): void {
  const d = quatDistance(actual, expected, offset, 0)
  if (!(d <= tol)) {
    expect.fail(
      `quaternion [${quatAt(actual, offset).join(', ')}] is not ±[${quatAt(expected).join(', ')}]: ` +
        `component distance ${d} > ${tol}`,
    )
  }
}

/** Asserts the quaternion at `offset` has length 1 within `tol`. */
export function expectUnitQuat(q: QuatLike, tol = 1e-6, offset = 0): void {
  const len = quatLength(q, offset)
  if (!(Math.abs(len - 1) <= tol)) {
    expect.fail(`quaternion [${quatAt(q, offset).join(', ')}] has length ${len}, not 1 ± ${tol}`)
  }
}

/** Unit quaternion for a rotation of `angle` radians about the (normalized) axis. */
export function quatFromAxisAngle(axis: readonly number[], angle: number): [number, number, number, number] {
  const len = Math.hypot(axis[0]!, axis[1]!, axis[2]!)
  const s = Math.sin(angle / 2) / len
  return [axis[0]! * s, axis[1]! * s, axis[2]! * s, Math.cos(angle / 2)]
}

/** Hamilton product a·b of plain quaternions (independent of src/math/quat.ts, for oracles). */
export function refMultiply(a: QuatLike, b: QuatLike): [number, number, number, number] {
  const [ax, ay, az, aw] = quatAt(a)
  const [bx, by, bz, bw] = quatAt(b)
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ]
}

/**
 * Reference slerp by its geometric definition, a·(a⁻¹·b)^t along the short arc (b negated when a·b < 0),
 * computed from the axis and angle of a⁻¹·b with Math.*. Independent of the sin-weight formula under test.
 */
export function refSlerp(
  a: QuatLike,
  b: QuatLike,
  t: number,
  shortArc = true,
): [number, number, number, number] {
  const sign = shortArc && quatDot(a, b) < 0 ? -1 : 1
  const inv = [-a[0]!, -a[1]!, -a[2]!, a[3]!]
  const rel = refMultiply(inv, [sign * b[0]!, sign * b[1]!, sign * b[2]!, sign * b[3]!])
  const vlen = Math.hypot(rel[0], rel[1], rel[2])
  const half = Math.atan2(vlen, rel[3])
  if (vlen === 0) return quatAt(a)
  const s = Math.sin(t * half) / vlen
  return refMultiply(a, [rel[0] * s, rel[1] * s, rel[2] * s, Math.cos(t * half)])
}

/** fast-check arbitrary: a unit quaternion (4 components in [-1, 1], length ≥ 0.1, normalized), as a plain array. */
export function unitQuatArb(): fc.Arbitrary<[number, number, number, number]> {
  const c = fc.double({ min: -1, max: 1, noNaN: true })
  return fc
    .tuple(c, c, c, c)
    .filter((q) => Math.hypot(...q) >= 0.1)
    .map((q) => {
      const len = Math.hypot(...q)
      return [q[0] / len, q[1] / len, q[2] / len, q[3] / len]
    })
}
