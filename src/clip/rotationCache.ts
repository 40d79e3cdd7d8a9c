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
 *   of the previous) and squad control points, with A = log(q_i⁻¹ q_{i−1}), B = log(q_i⁻¹ q_{i+1}) and the
 *   durations h₀ = t_i − t_{i−1}, h₁ = t_{i+1} − t_i of the segments before and after key i:
 *       s_i = q_i · exp(−(h₁·A + h₀·B) / (2(h₀ + h₁))),   s_0 = q_0, s_{n−1} = q_{n−1}
 *   For even spacing this is Shoemake's exp(−(A + B)/4). Squad leaves key i with velocity (B + 2S)/h₁ and
 *   arrives with (−A − 2S)/h₀ (S = log(q_i⁻¹ s_i)); the weights make the two equal, so angular velocity is
 *   continuous across keys for uneven spacing too (Shoemake's unweighted form jumped by up to 7 rad/s on
 *   keys 0.2–0.7 s apart in test/clip/squad.test.ts's cases, worse than slerp). Without `times` the keys are
 *   taken as evenly spaced.
 *
 * `values` holds n normalized keys (validated by buildClip). Runs at load time; allocation here is fine.
 */
export function buildRotationCaches(
  values: Float32Array,
  keyCount: number,
  times?: Float32Array,
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
      const h0 = times ? times[k]! - times[k - 1]! : 1
      const h1 = times ? times[k + 1]! - times[k]! : 1
      const scale = 2 * (h0 + h1)
      for (let j = 0; j < 3; j++) sum[j] = -(h1 * sum[j]! + h0 * rel[j]!) / scale
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
