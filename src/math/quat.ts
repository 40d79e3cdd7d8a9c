import { detAcos, detAtan2, detSin, detSinCos } from './detmath.ts'

/**
 * Quaternion kernels on `(array, offset)` pairs, quaternions `[x, y, z, w]`.
 *
 * Hand-written rather than gl-matrix because gl-matrix takes whole arrays (a `subarray` view per call would
 * allocate) and uses Math.acos/Math.sin, whose last bit differs between JavaScript engines; these use the
 * project's deterministic `detmath` so a fixed step gives the same bits in Node and in browsers.
 *
 * Every kernel writes `out` and allows `out` to alias any input (inputs are read into locals first).
 * Nothing here allocates.
 */

export type FloatArray = Float32Array | Float64Array

/** Above this |cos θ| the keys are treated as nearly equal and slerp falls back to normalized lerp. */
export const SLERP_NLERP_COS = 0.9995

/** Normalizes the quaternion at `out[o..o+4)` in place. A zero quaternion becomes identity. */
export function normalizeQuat(out: FloatArray, o: number): FloatArray {
  const x = out[o]!
  const y = out[o + 1]!
  const z = out[o + 2]!
  const w = out[o + 3]!
  const len2 = x * x + y * y + z * z + w * w
  if (len2 > 0) {
    const inv = 1 / Math.sqrt(len2)
    out[o] = x * inv
    out[o + 1] = y * inv
    out[o + 2] = z * inv
    out[o + 3] = w * inv
  } else {
    out[o] = 0
    out[o + 1] = 0
    out[o + 2] = 0
    out[o + 3] = 1
  }
  return out
}

/**
 * Shortest-arc spherical interpolation from a (t = 0) to b (t = 1), written normalized.
 * When cos θ < 0, b is negated so the path takes the short arc; when |cos θ| > SLERP_NLERP_COS the keys are
 * nearly equal and normalized lerp is used (its error there is below 1e-5 rad, and it avoids 0/0).
 * t outside [0, 1] extrapolates along the same great circle.
 */
export function slerpQuat(
  out: FloatArray,
  oo: number,
  a: FloatArray,
  ao: number,
  b: FloatArray,
  bo: number,
  t: number,
): FloatArray {
  const ax = a[ao]!
  const ay = a[ao + 1]!
  const az = a[ao + 2]!
  const aw = a[ao + 3]!
  let bx = b[bo]!
  let by = b[bo + 1]!
  let bz = b[bo + 2]!
  let bw = b[bo + 3]!
  let cos = ax * bx + ay * by + az * bz + aw * bw
  if (cos < 0) {
    cos = -cos
    bx = -bx
    by = -by
    bz = -bz
    bw = -bw
  }
  let s0: number
  let s1: number
  if (cos > SLERP_NLERP_COS) {
    s0 = 1 - t
    s1 = t
  } else {
    const theta = detAcos(cos)
    const invSin = 1 / Math.sqrt(1 - cos * cos)
    s0 = detSin((1 - t) * theta) * invSin
    s1 = detSin(t * theta) * invSin
  }
  out[oo] = s0 * ax + s1 * bx
  out[oo + 1] = s0 * ay + s1 * by
  out[oo + 2] = s0 * az + s1 * bz
  out[oo + 3] = s0 * aw + s1 * bw
  return normalizeQuat(out, oo)
}

/**
 * Spherical interpolation *without* the short-arc flip (squad's inner and outer steps need the path the
 * control points define, not the shortest one). Same nlerp fallback as slerpQuat for nearly equal inputs
 * (cos θ > SLERP_NLERP_COS). Nearly opposite inputs still take the slerp formula: sin θ ≥ 0.03 there, and
 * nlerp would be wrong by up to 1.27 rad. Exactly opposite inputs (no defined path) give ±a, identity at t = ½.
 */
export function slerpQuatNoFlip(
  out: FloatArray,
  oo: number,
  a: FloatArray,
  ao: number,
  b: FloatArray,
  bo: number,
  t: number,
): FloatArray {
  const ax = a[ao]!
  const ay = a[ao + 1]!
  const az = a[ao + 2]!
  const aw = a[ao + 3]!
  const bx = b[bo]!
  const by = b[bo + 1]!
  const bz = b[bo + 2]!
  const bw = b[bo + 3]!
  const cos = ax * bx + ay * by + az * bz + aw * bw
  let s0: number
  let s1: number
  if (cos > SLERP_NLERP_COS || cos <= -1) {
    s0 = 1 - t
    s1 = t
  } else {
    const theta = detAcos(cos)
    const invSin = 1 / Math.sqrt(1 - cos * cos)
    s0 = detSin((1 - t) * theta) * invSin
    s1 = detSin(t * theta) * invSin
  }
  out[oo] = s0 * ax + s1 * bx
  out[oo + 1] = s0 * ay + s1 * by
  out[oo + 2] = s0 * az + s1 * bz
  out[oo + 3] = s0 * aw + s1 * bw
  return normalizeQuat(out, oo)
}

/** Hamilton product out = a·b (apply b first, then a). */
export function multiplyQuat(
  out: FloatArray,
  oo: number,
  a: FloatArray,
  ao: number,
  b: FloatArray,
  bo: number,
): FloatArray {
  const ax = a[ao]!
  const ay = a[ao + 1]!
  const az = a[ao + 2]!
  const aw = a[ao + 3]!
  const bx = b[bo]!
  const by = b[bo + 1]!
  const bz = b[bo + 2]!
  const bw = b[bo + 3]!
  out[oo] = aw * bx + ax * bw + ay * bz - az * by
  out[oo + 1] = aw * by - ax * bz + ay * bw + az * bx
  out[oo + 2] = aw * bz + ax * by - ay * bx + az * bw
  out[oo + 3] = aw * bw - ax * bx - ay * by - az * bz
  return out
}

/** Conjugate, which is the inverse of a unit quaternion. */
export function conjugateQuat(out: FloatArray, oo: number, a: FloatArray, ao: number): FloatArray {
  out[oo] = -a[ao]!
  out[oo + 1] = -a[ao + 1]!
  out[oo + 2] = -a[ao + 2]!
  out[oo + 3] = a[ao + 3]!
  return out
}

/**
 * Logarithm of a unit quaternion: the pure quaternion `[v·θ/|v|, 0]` where q = [v, w] = [sin θ·n, cos θ].
 * θ is in [0, π] (the sign of w is kept, so q and -q have different logs, as the math requires).
 * q = [0, 0, 0, −1] (θ = π about any axis) gives [π, 0, 0, 0], so exp(log q) = q holds there too.
 */
export function logQuat(out: FloatArray, oo: number, q: FloatArray, qo: number): FloatArray {
  const x = q[qo]!
  const y = q[qo + 1]!
  const z = q[qo + 2]!
  const w = q[qo + 3]!
  const vlen = Math.sqrt(x * x + y * y + z * z)
  // With w < 0, θ → π as v → 0: the axis v/|v| still matters, so a tiny v (whose square may underflow) is
  // rescaled before normalizing, and v = 0 exactly gets the x axis.
  if (w < 0 && vlen < 1e-150) return logNearMinusOne(out, oo, x, y, z)
  // θ/sin θ → 1 as θ → 0: below 1e-12 (with w > 0) the vector part already is the log to double precision.
  const scale = vlen > 1e-12 || w < 0 ? detAtan2(vlen, w) / vlen : 1
  out[oo] = x * scale
  out[oo + 1] = y * scale
  out[oo + 2] = z * scale
  out[oo + 3] = 0
  return out
}

/** log of [v, w ≈ −1] with |v| < 1e-150: π along v's direction (θ = π − |v| rounds to π). */
function logNearMinusOne(out: FloatArray, oo: number, x: number, y: number, z: number): FloatArray {
  const m = Math.max(Math.abs(x), Math.abs(y), Math.abs(z))
  let nx = 1
  let ny = 0
  let nz = 0
  if (m > 0) {
    const len = Math.sqrt((x / m) * (x / m) + (y / m) * (y / m) + (z / m) * (z / m))
    nx = x / m / len
    ny = y / m / len
    nz = z / m / len
  }
  out[oo] = nx * Math.PI
  out[oo + 1] = ny * Math.PI
  out[oo + 2] = nz * Math.PI
  out[oo + 3] = 0
  return out
}

/** Exponential of a pure quaternion `[v, 0]` (w is ignored): `[sin|v|·v/|v|, cos|v|]`, a unit quaternion. */
export function expQuat(out: FloatArray, oo: number, v: FloatArray, vo: number): FloatArray {
  const x = v[vo]!
  const y = v[vo + 1]!
  const z = v[vo + 2]!
  const theta = Math.sqrt(x * x + y * y + z * z)
  detSinCos(sinCos, theta)
  const scale = theta > 1e-12 ? sinCos[0]! / theta : 1
  out[oo] = x * scale
  out[oo + 1] = y * scale
  out[oo + 2] = z * scale
  out[oo + 3] = sinCos[1]!
  return out
}

const sinCos = new Float64Array(2)
