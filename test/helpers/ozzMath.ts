/**
 * The few ozz-animation math constructors its IK job tests use (ozz/base/maths: Float4x4::identity,
 * Translation, Scaling, FromAffine, FromEuler, FromQuaternion; Quaternion::FromAxisAngle; TransformPoint and
 * TransformVector), in doubles with Math.*, so the ported cases read as ozz's do. Column-major 4×4 (as ozz's
 * `cols`), quaternions [x, y, z, w].
 */
import { expect } from 'vitest'
import { composeMatrix, multiplyMatrices } from '../../src/math/transform.ts'
import { invertMatrix } from '../../src/ik/ikMath.ts'

export type Vec3 = readonly [number, number, number]

/** ozz's constants are floats (ozz/base/maths/math_constant.h): the same inputs are these float32 values. */
export const kPi = Math.fround(Math.PI)
export const kPi_2 = Math.fround(Math.PI / 2)
export const kPi_4 = Math.fround(Math.PI / 4)
export const kSqrt2 = Math.fround(Math.SQRT2)
export const kSqrt2_2 = Math.fround(Math.SQRT1_2)

export const X: Vec3 = [1, 0, 0]
export const Y: Vec3 = [0, 1, 0]
export const Z: Vec3 = [0, 0, 1]

export const identity = (): Float64Array => affine([0, 0, 0], [0, 0, 0, 1], [1, 1, 1])
export const translation = (t: Vec3): Float64Array => affine(t, [0, 0, 0, 1], [1, 1, 1])
export const scaling = (s: Vec3): Float64Array => affine([0, 0, 0], [0, 0, 0, 1], s)

/** T · R · S (ozz's Float4x4::FromAffine). */
export function affine(t: Vec3, q: readonly number[], s: Vec3): Float64Array {
  const out = new Float64Array(16)
  composeMatrix(out, 0, Float64Array.from(t), 0, Float64Array.from(q), 0, Float64Array.from(s), 0)
  return out
}

export const fromQuaternion = (q: ArrayLike<number>): Float64Array =>
  affine([0, 0, 0], Array.from(q), [1, 1, 1])

/** ozz's Quaternion::FromAxisAngle: [axis · sin(θ/2), cos(θ/2)] (the axis unit length). */
export function axisAngle(axis: Vec3, angle: number): [number, number, number, number] {
  const sn = Math.sin(angle / 2)
  return [axis[0] * sn, axis[1] * sn, axis[2] * sn, Math.cos(angle / 2)]
}

/** ozz's Float4x4::FromEuler: yaw about y, then pitch about x, then roll about z, as Ry · Rx · Rz. */
export function fromEuler(yaw: number, pitch: number, roll: number): Float64Array {
  const ry = fromQuaternion(axisAngle(Y, yaw))
  const rx = fromQuaternion(axisAngle(X, pitch))
  const rz = fromQuaternion(axisAngle(Z, roll))
  return mul(mul(ry, rx), rz)
}

export function mul(a: Float64Array, b: Float64Array): Float64Array {
  return multiplyMatrices(new Float64Array(16), 0, a, 0, b, 0) as Float64Array
}

export const invert = (m: Float64Array): Float64Array => invertMatrix(new Float64Array(16), 0, m, 0)

export function transformPoint(m: Float64Array, v: Vec3): Float64Array {
  return Float64Array.of(
    m[0]! * v[0] + m[4]! * v[1] + m[8]! * v[2] + m[12]!,
    m[1]! * v[0] + m[5]! * v[1] + m[9]! * v[2] + m[13]!,
    m[2]! * v[0] + m[6]! * v[1] + m[10]! * v[2] + m[14]!,
  )
}

export function transformVector(m: Float64Array, v: Vec3): Float64Array {
  return Float64Array.of(
    m[0]! * v[0] + m[4]! * v[1] + m[8]! * v[2],
    m[1]! * v[0] + m[5]! * v[1] + m[9]! * v[2],
    m[2]! * v[0] + m[6]! * v[1] + m[10]! * v[2],
  )
}

export const vec = (a: ArrayLike<number>): Vec3 => [a[0]!, a[1]!, a[2]!]
export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
export const scale = (a: Vec3, k: number): Vec3 => [a[0] * k, a[1] * k, a[2] * k]
export const neg = (a: Vec3): Vec3 => [-a[0], -a[1], -a[2]]
export const cross3 = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
]
/** The translation column of a matrix. */
export const position = (m: Float64Array): Vec3 => [m[12]!, m[13]!, m[14]!]

/** ozz's tolerance for its IK corrections (EXPECT_SIMDQUATERNION_EQ_TOL(…, 2e-3f)). */
export const TOL = 2e-3

/**
 * EXPECT_SIMDQUATERNION_EQ_TOL: component by component. For a half turn (expected |w| below the tolerance) −q
 * is accepted too: both jobs make w ≥ 0, and there ozz's sign is float32's rounding of cos(kPi/2) (−4.4e-8)
 * where doubles give +0 or 6e-17 — the same rotation.
 */
export function expectQuat(q: Float64Array, expected: readonly number[], tol = TOL): void {
  const sign =
    Math.abs(expected[3]!) < tol && q[0]! * expected[0]! + q[1]! * expected[1]! + q[2]! * expected[2]! < 0
      ? -1
      : 1
  for (let k = 0; k < 4; k++)
    expect(Math.abs(sign * q[k]! - expected[k]!), `${Array.from(q)} vs ${expected}`).toBeLessThan(tol)
}
