import type { FloatArray } from '../math/quat.ts'

/**
 * The vector, quaternion and 4×4 matrix helpers the IK jobs share, on `(array, offset)` pairs in doubles,
 * out first (gl-matrix style). Floats never cross these calls as arguments: V8 boxes a double passed to or
 * returned from a call it does not inline (an allocation per call in the fixed step). Matrices are
 * column-major (src/math/transform.ts); quaternions [x, y, z, w]. Only + - * / and Math.sqrt: the same bits in
 * every engine. Each writes `out` after reading its inputs, so `out` may alias an input of the same layout.
 * Nothing here allocates.
 */

/**
 * `out[oo..oo+16)` = inverse of the affine matrix `m[mo..)` (its last row 0 0 0 1, as every transform here), or
 * all zeros when it is not invertible (ozz's Invert): the 3×3 part by cofactors, the translation after it.
 */
export function invertMatrix(out: Float64Array, oo: number, m: FloatArray, mo: number): Float64Array {
  const a00 = m[mo]!
  const a01 = m[mo + 1]!
  const a02 = m[mo + 2]!
  const a10 = m[mo + 4]!
  const a11 = m[mo + 5]!
  const a12 = m[mo + 6]!
  const a20 = m[mo + 8]!
  const a21 = m[mo + 9]!
  const a22 = m[mo + 10]!
  const tx = m[mo + 12]!
  const ty = m[mo + 13]!
  const tz = m[mo + 14]!
  const c00 = a11 * a22 - a12 * a21
  const c01 = a02 * a21 - a01 * a22
  const c02 = a01 * a12 - a02 * a11
  const det = a00 * c00 + a10 * c01 + a20 * c02
  if (det === 0 || det - det !== 0) {
    out.fill(0, oo, oo + 16)
    return out
  }
  const d = 1 / det
  const b00 = c00 * d
  const b01 = c01 * d
  const b02 = c02 * d
  const b10 = (a12 * a20 - a10 * a22) * d
  const b11 = (a00 * a22 - a02 * a20) * d
  const b12 = (a02 * a10 - a00 * a12) * d
  const b20 = (a10 * a21 - a11 * a20) * d
  const b21 = (a01 * a20 - a00 * a21) * d
  const b22 = (a00 * a11 - a01 * a10) * d
  out[oo] = b00
  out[oo + 1] = b01
  out[oo + 2] = b02
  out[oo + 3] = 0
  out[oo + 4] = b10
  out[oo + 5] = b11
  out[oo + 6] = b12
  out[oo + 7] = 0
  out[oo + 8] = b20
  out[oo + 9] = b21
  out[oo + 10] = b22
  out[oo + 11] = 0
  out[oo + 12] = -(b00 * tx + b10 * ty + b20 * tz)
  out[oo + 13] = -(b01 * tx + b11 * ty + b21 * tz)
  out[oo + 14] = -(b02 * tx + b12 * ty + b22 * tz)
  out[oo + 15] = 1
  return out
}

/** out = m · (v, 1): the point `v[vo..vo+3)` through matrix `m[mo..)` (affine: the last row is 0 0 0 1). */
export function transformPoint(
  out: Float64Array,
  oo: number,
  m: FloatArray,
  mo: number,
  v: FloatArray,
  vo: number,
): Float64Array {
  const x = v[vo]!
  const y = v[vo + 1]!
  const z = v[vo + 2]!
  out[oo] = m[mo]! * x + m[mo + 4]! * y + m[mo + 8]! * z + m[mo + 12]!
  out[oo + 1] = m[mo + 1]! * x + m[mo + 5]! * y + m[mo + 9]! * z + m[mo + 13]!
  out[oo + 2] = m[mo + 2]! * x + m[mo + 6]! * y + m[mo + 10]! * z + m[mo + 14]!
  return out
}

/** out = m · (v, 0): the direction `v[vo..vo+3)` through matrix `m[mo..)` (no translation). */
export function transformVector(
  out: Float64Array,
  oo: number,
  m: FloatArray,
  mo: number,
  v: FloatArray,
  vo: number,
): Float64Array {
  const x = v[vo]!
  const y = v[vo + 1]!
  const z = v[vo + 2]!
  out[oo] = m[mo]! * x + m[mo + 4]! * y + m[mo + 8]! * z
  out[oo + 1] = m[mo + 1]! * x + m[mo + 5]! * y + m[mo + 9]! * z
  out[oo + 2] = m[mo + 2]! * x + m[mo + 6]! * y + m[mo + 10]! * z
  return out
}

/** out = q · v · q⁻¹: vector `v[vo..)` rotated by the unit quaternion `q[qo..)`. */
export function rotateVector(
  out: Float64Array,
  oo: number,
  q: FloatArray,
  qo: number,
  v: FloatArray,
  vo: number,
): Float64Array {
  const qx = q[qo]!
  const qy = q[qo + 1]!
  const qz = q[qo + 2]!
  const qw = q[qo + 3]!
  const vx = v[vo]!
  const vy = v[vo + 1]!
  const vz = v[vo + 2]!
  const tx = 2 * (qy * vz - qz * vy)
  const ty = 2 * (qz * vx - qx * vz)
  const tz = 2 * (qx * vy - qy * vx)
  out[oo] = vx + qw * tx + (qy * tz - qz * ty)
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz)
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx)
  return out
}

/** out = a × b. */
export function cross(
  out: Float64Array,
  oo: number,
  a: FloatArray,
  ao: number,
  b: FloatArray,
  bo: number,
): Float64Array {
  const ax = a[ao]!
  const ay = a[ao + 1]!
  const az = a[ao + 2]!
  const bx = b[bo]!
  const by = b[bo + 1]!
  const bz = b[bo + 2]!
  out[oo] = ay * bz - az * by
  out[oo + 1] = az * bx - ax * bz
  out[oo + 2] = ax * by - ay * bx
  return out
}

/**
 * The quaternion that turns direction `from[fo..)` into `to[to_..)` about the axis perpendicular to both
 * (ozz's SimdQuaternion::FromVectors, lolengine's method): the identity when either is (near) zero; for
 * opposite directions, a half turn about an axis perpendicular to `from`. Neither needs to be unit length.
 */
export function quatFromVectors(
  out: Float64Array,
  oo: number,
  from: FloatArray,
  fo: number,
  to: FloatArray,
  to_: number,
): Float64Array {
  const fx = from[fo]!
  const fy = from[fo + 1]!
  const fz = from[fo + 2]!
  const tx = to[to_]!
  const ty = to[to_ + 1]!
  const tz = to[to_ + 2]!
  const norms = Math.sqrt((fx * fx + fy * fy + fz * fz) * (tx * tx + ty * ty + tz * tz))
  if (!(norms >= 1e-6)) return identityQuat(out, oo)
  const real = norms + fx * tx + fy * ty + fz * tz
  let x: number
  let y: number
  let z: number
  let w: number
  if (real < 1e-6 * norms) {
    // Opposite: any axis perpendicular to `from` (normalized below with the rest).
    w = 0
    if (Math.abs(fx) > Math.abs(fz)) {
      x = -fy
      y = fx
      z = 0
    } else {
      x = 0
      y = -fz
      z = fy
    }
  } else {
    x = fy * tz - fz * ty
    y = fz * tx - fx * tz
    z = fx * ty - fy * tx
    w = real
  }
  const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
  out[oo] = x * inv
  out[oo + 1] = y * inv
  out[oo + 2] = z * inv
  out[oo + 3] = w * inv
  return out
}

/**
 * The rotation about the unit `axis[ao..)` whose angle has cosine `cs[co]` in [-1, 1] (clamped), its angle in
 * [0, π] (ozz's FromAxisCosAngle): sin and cos of the half angle from the half-angle formulas, no arc cosine.
 */
export function quatFromAxisCos(
  out: Float64Array,
  oo: number,
  axis: FloatArray,
  ao: number,
  cs: FloatArray,
  co: number,
): Float64Array {
  const c = cs[co]!
  const clamped = c > 1 ? 1 : c < -1 ? -1 : c
  const halfCos2 = (1 + clamped) * 0.5
  const halfSin = Math.sqrt(1 - halfCos2)
  out[oo] = axis[ao]! * halfSin
  out[oo + 1] = axis[ao + 1]! * halfSin
  out[oo + 2] = axis[ao + 2]! * halfSin
  out[oo + 3] = Math.sqrt(halfCos2)
  return out
}

/** Writes the identity quaternion. */
export function identityQuat(out: Float64Array, oo: number): Float64Array {
  out[oo] = 0
  out[oo + 1] = 0
  out[oo + 2] = 0
  out[oo + 3] = 1
  return out
}

/**
 * The weighted correction: `q[qo..)` with w made ≥ 0 (the short way from the identity), then, for a weight
 * `weight[wo]` below 1, normalized lerp from the identity by max(0, weight) (ozz's WeightOutput).
 */
export function weightQuat(
  out: Float64Array,
  oo: number,
  q: FloatArray,
  qo: number,
  weight: FloatArray,
  wo: number,
): Float64Array {
  const sign = q[qo + 3]! < 0 ? -1 : 1
  let x = q[qo]! * sign
  let y = q[qo + 1]! * sign
  let z = q[qo + 2]! * sign
  let w = q[qo + 3]! * sign
  const t = weight[wo]!
  if (t < 1) {
    const k = t > 0 ? t : 0
    x *= k
    y *= k
    z *= k
    w = 1 + (w - 1) * k
    const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
    x *= inv
    y *= inv
    z *= inv
    w *= inv
  }
  out[oo] = x
  out[oo + 1] = y
  out[oo + 2] = z
  out[oo + 3] = w
  return out
}

/**
 * The rotation of matrix `m[mo..)` as a unit quaternion (columns normalized first, so a scaled matrix gives its
 * rotation; Shepperd's method). A mirrored matrix has no such rotation: the result is then meaningless.
 */
export function quatFromMatrix(out: Float64Array, oo: number, m: FloatArray, mo: number): Float64Array {
  const c0 = 1 / Math.sqrt(m[mo]! * m[mo]! + m[mo + 1]! * m[mo + 1]! + m[mo + 2]! * m[mo + 2]!)
  const c1 = 1 / Math.sqrt(m[mo + 4]! * m[mo + 4]! + m[mo + 5]! * m[mo + 5]! + m[mo + 6]! * m[mo + 6]!)
  const c2 = 1 / Math.sqrt(m[mo + 8]! * m[mo + 8]! + m[mo + 9]! * m[mo + 9]! + m[mo + 10]! * m[mo + 10]!)
  const m00 = m[mo]! * c0
  const m10 = m[mo + 1]! * c0
  const m20 = m[mo + 2]! * c0
  const m01 = m[mo + 4]! * c1
  const m11 = m[mo + 5]! * c1
  const m21 = m[mo + 6]! * c1
  const m02 = m[mo + 8]! * c2
  const m12 = m[mo + 9]! * c2
  const m22 = m[mo + 10]! * c2
  const trace = m00 + m11 + m22
  let x: number
  let y: number
  let z: number
  let w: number
  if (trace > 0) {
    const k = 0.5 / Math.sqrt(trace + 1)
    w = 0.25 / k
    x = (m21 - m12) * k
    y = (m02 - m20) * k
    z = (m10 - m01) * k
  } else if (m00 > m11 && m00 > m22) {
    const k = 2 * Math.sqrt(1 + m00 - m11 - m22)
    w = (m21 - m12) / k
    x = 0.25 * k
    y = (m01 + m10) / k
    z = (m02 + m20) / k
  } else if (m11 > m22) {
    const k = 2 * Math.sqrt(1 + m11 - m00 - m22)
    w = (m02 - m20) / k
    x = (m01 + m10) / k
    y = 0.25 * k
    z = (m12 + m21) / k
  } else {
    const k = 2 * Math.sqrt(1 + m22 - m00 - m11)
    w = (m10 - m01) / k
    x = (m02 + m20) / k
    y = (m12 + m21) / k
    z = 0.25 * k
  }
  const n = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
  out[oo] = x * n
  out[oo + 1] = y * n
  out[oo + 2] = z * n
  out[oo + 3] = w * n
  return out
}
