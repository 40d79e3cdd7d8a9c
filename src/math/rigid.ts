import { multiplyQuat, normalizeQuat } from './quat.ts'

/**
 * Rigid transforms (a rotation, then a translation) as 7 doubles `[tx, ty, tz, qx, qy, qz, qw]` at an offset,
 * for root motion (systems/rootMotion.ts). Out-first on `(array, offset)` pairs like quat.ts; every kernel
 * reads its inputs into locals first, so `out` may alias any input. Only + − × ÷ and Math.sqrt: the same bits
 * in every engine. Allocation-free; no float crosses a call (src/engine/v8.ts).
 *
 *   a·b  applies b first, then a: p ↦ a.t + a.q·(b.t + b.q·p)
 */

/** Doubles in one rigid transform. */
export const RIGID = 7

/** out = identity. */
export function identityRigid(out: Float64Array, o: number): void {
  out[o] = 0
  out[o + 1] = 0
  out[o + 2] = 0
  out[o + 3] = 0
  out[o + 4] = 0
  out[o + 5] = 0
  out[o + 6] = 1
}

/** out = a·b. */
export function multiplyRigid(
  out: Float64Array,
  oo: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
): void {
  const qx = a[ao + 3]!
  const qy = a[ao + 4]!
  const qz = a[ao + 5]!
  const qw = a[ao + 6]!
  const vx = b[bo]!
  const vy = b[bo + 1]!
  const vz = b[bo + 2]!
  // a.q·v = v + 2w(u×v) + 2u×(u×v), u = a.q's vector part.
  const cx = 2 * (qy * vz - qz * vy)
  const cy = 2 * (qz * vx - qx * vz)
  const cz = 2 * (qx * vy - qy * vx)
  out[oo] = a[ao]! + vx + qw * cx + (qy * cz - qz * cy)
  out[oo + 1] = a[ao + 1]! + vy + qw * cy + (qz * cx - qx * cz)
  out[oo + 2] = a[ao + 2]! + vz + qw * cz + (qx * cy - qy * cx)
  // The rotations' slots [3, 7) of a and b are not written above, even when out aliases either.
  multiplyQuat(out, oo + 3, a, ao + 3, b, bo + 3)
}

/** Working memory of invertMultiplyRigid: a's inverse rotation, and b moved to a's origin. */
const inverse = new Float64Array(2 * RIGID)

/** out = a⁻¹·b (a's rotation a unit quaternion): b seen from a's frame. */
export function invertMultiplyRigid(
  out: Float64Array,
  oo: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
): void {
  // a⁻¹·b = (q⁻¹·(b.t − a.t), q⁻¹·b.q) = (0, q⁻¹)·(b.t − a.t, b.q).
  identityRigid(inverse, 0)
  inverse[3] = -a[ao + 3]!
  inverse[4] = -a[ao + 4]!
  inverse[5] = -a[ao + 5]!
  inverse[6] = a[ao + 6]!
  for (let k = 0; k < 3; k++) inverse[RIGID + k] = b[bo + k]! - a[ao + k]!
  for (let k = 3; k < RIGID; k++) inverse[RIGID + k] = b[bo + k]!
  multiplyRigid(out, oo, inverse, 0, inverse, RIGID)
}

/**
 * out = a^k for an integer k ≥ 0 held in `count[ci]` (an integer as a double, read from memory: v8.ts), by
 * squaring: at most 2·log2(k) products. `scratch[so .. so + 7)` is working space (not `out`'s).
 */
export function powerRigid(
  out: Float64Array,
  oo: number,
  a: Float64Array,
  ao: number,
  count: Float64Array,
  ci: number,
  scratch: Float64Array,
  so: number,
): void {
  let k = count[ci]!
  for (let c = 0; c < RIGID; c++) scratch[so + c] = a[ao + c]!
  identityRigid(out, oo)
  while (k > 0) {
    const half = Math.floor(k / 2)
    if (k - 2 * half === 1) multiplyRigid(out, oo, out, oo, scratch, so)
    k = half
    if (k > 0) multiplyRigid(scratch, so, scratch, so, scratch, so)
  }
}

/**
 * The rotation about +y in the quaternion at `q[qo ..]` (its twist about the vertical: the heading it turns):
 * `(0, y, 0, w) / |(y, w)|`, written at `out[oo .. oo + 4)`; identity where that is 0 (a half turn about a
 * horizontal axis has no heading).
 */
export function twistY(out: Float64Array, oo: number, q: Float64Array, qo: number): void {
  const y = q[qo + 1]!
  const w = q[qo + 3]!
  const len2 = y * y + w * w
  out[oo] = 0
  out[oo + 2] = 0
  if (len2 > 1e-24) {
    const inv = 1 / Math.sqrt(len2)
    out[oo + 1] = y * inv
    out[oo + 3] = w * inv
  } else {
    out[oo + 1] = 0
    out[oo + 3] = 1
  }
}

/**
 * Adds `weight[wi]` × the rigid transform at `a[ao ..]` to a weighted sum at `sum[so .. so + 7)`: translations
 * summed, rotations summed in the hemisphere of w ≥ 0 (read back with finishRigidSum).
 */
export function accumulateRigid(
  sum: Float64Array,
  so: number,
  a: Float64Array,
  ao: number,
  weight: Float64Array,
  wi: number,
): void {
  const w = weight[wi]!
  const s = a[ao + 6]! < 0 ? -w : w
  sum[so] = sum[so]! + w * a[ao]!
  sum[so + 1] = sum[so + 1]! + w * a[ao + 1]!
  sum[so + 2] = sum[so + 2]! + w * a[ao + 2]!
  sum[so + 3] = sum[so + 3]! + s * a[ao + 3]!
  sum[so + 4] = sum[so + 4]! + s * a[ao + 4]!
  sum[so + 5] = sum[so + 5]! + s * a[ao + 5]!
  sum[so + 6] = sum[so + 6]! + s * a[ao + 6]!
}

/**
 * out = lerp(a, b, weight[wi]) for translations and normalized lerp for rotations (b brought into a's
 * hemisphere): a blend of two small motions. Weight 0 gives a, 1 gives b (rotations normalized).
 */
export function blendRigid(
  out: Float64Array,
  oo: number,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
  weight: Float64Array,
  wi: number,
): void {
  const t = weight[wi]!
  const ax = a[ao + 3]!
  const ay = a[ao + 4]!
  const az = a[ao + 5]!
  const aw = a[ao + 6]!
  let bx = b[bo + 3]!
  let by = b[bo + 4]!
  let bz = b[bo + 5]!
  let bw = b[bo + 6]!
  if (ax * bx + ay * by + az * bz + aw * bw < 0) {
    bx = -bx
    by = -by
    bz = -bz
    bw = -bw
  }
  out[oo] = a[ao]! + t * (b[bo]! - a[ao]!)
  out[oo + 1] = a[ao + 1]! + t * (b[bo + 1]! - a[ao + 1]!)
  out[oo + 2] = a[ao + 2]! + t * (b[bo + 2]! - a[ao + 2]!)
  out[oo + 3] = ax + t * (bx - ax)
  out[oo + 4] = ay + t * (by - ay)
  out[oo + 5] = az + t * (bz - az)
  out[oo + 6] = aw + t * (bw - aw)
  normalizeQuat(out, oo + 3)
}

/**
 * Reads back a weighted sum made by accumulateRigid whose weights came to `weight[wi]`: the rest of a unit
 * weight goes to the identity (no motion), and the rotation is normalized.
 */
export function finishRigidSum(out: Float64Array, oo: number, weight: Float64Array, wi: number): void {
  const rest = 1 - weight[wi]!
  if (rest > 0) out[oo + 6] = out[oo + 6]! + rest
  normalizeQuat(out, oo + 3)
}
