import { detAcos, detSin } from '../math/detmath.ts'
import { conjugateQuat, expQuat, logQuat, multiplyQuat, SLERP_NLERP_COS } from '../math/quat.ts'

/** Floats per segment in `Channel.slerpCache`: `[sign, theta, 1/sin(theta), nlerp]`. */
export const SLERP_CACHE_STRIDE = 4

/**
 * Precomputes, once per LINEAR rotation channel, what sampling would otherwise redo every frame:
 *
 * - `slerpCache` (Float64, 4 per segment): the short-arc sign of key k+1, the half-angle θ_k, 1/sin θ_k, and
 *   whether the segment is so short that normalized lerp replaces slerp. With it a slerp costs two sines.
 * - `squad` (Float32, `| aligned keys (4n) | controls (4n) |`): keys made hemisphere-consistent (each within 90°
 *   of the previous) and Shoemake's squad control points
 *       s_i = q_i · exp(−(log(q_i⁻¹ q_{i−1}) + log(q_i⁻¹ q_{i+1})) / 4),   s_0 = q_0, s_{n−1} = q_{n−1}
 *   so that squad(q_i, q_{i+1}, s_i, s_{i+1}; u) has continuous angular velocity across keys (exactly C¹ for
 *   evenly spaced keys, which is how exporters bake clips).
 *
 * `values` holds n normalized keys (validated by buildClip). Runs at load time; allocation here is fine.
 */
export function buildRotationCaches(
  values: Float32Array,
  keyCount: number,
): { slerpCache: Float64Array; squad: Float32Array } {
  const n = keyCount
  const slerpCache = new Float64Array(Math.max(0, n - 1) * SLERP_CACHE_STRIDE)
  for (let k = 0; k + 1 < n; k++) {
    const a = k * 4
    const b = a + 4
    let cos = 0
    for (let j = 0; j < 4; j++) cos += values[a + j]! * values[b + j]!
    const sign = cos < 0 ? -1 : 1
    cos = Math.min(1, Math.abs(cos))
    const c = k * SLERP_CACHE_STRIDE
    slerpCache[c] = sign
    if (cos > SLERP_NLERP_COS) {
      slerpCache[c + 1] = detAcos(cos)
      slerpCache[c + 2] = 0
      slerpCache[c + 3] = 1
    } else {
      const theta = detAcos(cos)
      slerpCache[c + 1] = theta
      slerpCache[c + 2] = 1 / detSin(theta)
      slerpCache[c + 3] = 0
    }
  }

  const squad = new Float32Array(n * 8)
  const aligned = new Float64Array(n * 4)
  for (let k = 0; k < n; k++) {
    const o = k * 4
    let sign = 1
    if (k > 0) {
      let cos = 0
      for (let j = 0; j < 4; j++) cos += aligned[o - 4 + j]! * values[o + j]!
      if (cos < 0) sign = -1
    }
    for (let j = 0; j < 4; j++) aligned[o + j] = sign * values[o + j]!
  }
  const inv = new Float64Array(4)
  const rel = new Float64Array(4)
  const sum = new Float64Array(4)
  const control = new Float64Array(4)
  for (let k = 0; k < n; k++) {
    const o = k * 4
    if (k === 0 || k === n - 1) {
      control.set(aligned.subarray(o, o + 4))
    } else {
      conjugateQuat(inv, 0, aligned, o)
      multiplyQuat(rel, 0, inv, 0, aligned, o - 4)
      logQuat(sum, 0, rel, 0)
      multiplyQuat(rel, 0, inv, 0, aligned, o + 4)
      logQuat(rel, 0, rel, 0)
      for (let j = 0; j < 3; j++) sum[j] = -(sum[j]! + rel[j]!) / 4
      expQuat(rel, 0, sum, 0)
      multiplyQuat(control, 0, aligned, o, rel, 0)
    }
    for (let j = 0; j < 4; j++) {
      squad[o + j] = aligned[o + j]!
      squad[n * 4 + o + j] = control[j]!
    }
  }
  return { slerpCache, squad }
}
