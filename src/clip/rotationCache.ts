import { detAcos, detAcosArc, detSin } from '../math/detmath.ts'
import { conjugateQuat, expQuat, logQuat, multiplyQuat, SLERP_NLERP_COS } from '../math/quat.ts'

/** Floats per segment in buildRotationCaches' `slerpCache`: `[theta or NLERP_SEGMENT, weight]`. */
export const SLERP_CACHE_STRIDE = 2
/** Doubles per segment in `Channel.slerpSegments`: `[theta, weight, key k (4), key k+1 (4)]` (see Channel). */
export const SLERP_SEGMENT_STRIDE = 10
/** `slerpCache` / `controlCache` theta of a segment whose ends are so close that nlerp replaces slerp. */
export const NLERP_SEGMENT = -1
/** `controlCache` theta of a segment whose control points are exactly opposite: no path, s_k is held. */
export const OPPOSITE_SEGMENT = -2

/**
 * Precomputes, once per LINEAR rotation channel, what sampling would otherwise redo every frame:
 *
 * - `aligned` (Float32, 4 per key): the keys with signs σ_k chosen so that every segment's short arc runs
 *   between neighbours as stored: σ_0 = 1, σ_{k+1} = −σ_k when cos(key k, key k+1) < 0, else σ_k.
 * - `slerpCache` (Float64, 2 per segment): the half-angle θ_k and σ_k / sin θ_k, or NLERP_SEGMENT and σ_k when
 *   the segment is so short that normalized lerp replaces slerp. With it a slerp costs two sines. Because
 *   σ_k·σ_k = 1 and ±1 factors are exact, slerp of the aligned keys with these weights gives the bits that
 *   slerp of the given keys with a per-segment short-arc flip gave.
 * - `slerpSegments` (Float64, SLERP_SEGMENT_STRIDE per segment): the segment's angle and weight as in
 *   `slerpCache`, followed by its two `aligned` keys, normalized in double (see buildSlerpSegments), so the
 *   slerp kernel reads one contiguous run per segment from one array and need not renormalize its result.
 * - `squad` (Float32, `| aligned keys (4n) | controls (4n) |`): keys made hemisphere-consistent (each within 90°
 *   of the previous) and squad control points, with A = log(q_i⁻¹ q_{i−1}), B = log(q_i⁻¹ q_{i+1}) and the
 *   durations h₀ = t_i − t_{i−1}, h₁ = t_{i+1} − t_i of the segments before and after key i:
 *       s_i = q_i · exp(−(h₁·A + h₀·B) / (2(h₀ + h₁))),   s_0 = q_0, s_{n−1} = q_{n−1}
 *   For even spacing this is Shoemake's exp(−(A + B)/4). Squad leaves key i with velocity (B + 2S)/h₁ and
 *   arrives with (−A − 2S)/h₀ (S = log(q_i⁻¹ s_i)); the weights make the two equal, so angular velocity is
 *   continuous across keys for uneven spacing too (Shoemake's unweighted form jumped by up to 7 rad/s on
 *   keys 0.2–0.7 s apart in test/clip/squad.test.ts's cases, worse than slerp). Without `times` the keys are
 *   taken as evenly spaced.
 * - `controlCache` (Float64, 2 per segment): for squad's slerp of the controls s_k → s_{k+1} (no short-arc
 *   flip), `[theta, 1/sin(theta)]` with theta = acos(s_k · s_{k+1}) (dot and arc cosine in double, as sampling
 *   did at run time, so the same bits), NLERP_SEGMENT when cos ≥ SLERP_NLERP_COS, OPPOSITE_SEGMENT when
 *   cos ≤ −1.
 *   `squad`'s keys differ from `aligned` only where a key is exactly 90° from its predecessor (cos = 0) after
 *   a negated one (either sign is then a short arc); otherwise `aligned` is a view of its first half.
 *
 * `values` holds n normalized keys (validated by buildClip). Runs at load time; allocation here is fine.
 */
export function buildRotationCaches(
  values: Float32Array,
  keyCount: number,
  times?: Float32Array,
): SquadCaches & { slerpSegments: Float64Array } {
  return {
    ...buildSquadCaches(values, keyCount, times),
    slerpSegments: buildSlerpSegmentsOnly(values, keyCount),
  }
}

/** What squad needs of buildRotationCaches (all of it but `slerpSegments`, which a clip builds at load). */
export interface SquadCaches {
  slerpCache: Float64Array
  aligned: Float32Array
  squad: Float32Array
  controlCache: Float64Array
}

/** buildRotationCaches without `slerpSegments`: for clip.ts's prepareSquad. */
export function buildSquadCaches(values: Float32Array, keyCount: number, times?: Float32Array): SquadCaches {
  const n = keyCount
  const slerpCache = new Float64Array(Math.max(0, n - 1) * SLERP_CACHE_STRIDE)
  const sigma = keySigns(values, n)
  for (let k = 0; k + 1 < n; k++) {
    const a = k * 4
    const b = a + 4
    let cos = 0
    for (let j = 0; j < 4; j++) cos += values[a + j]! * values[b + j]!
    cos = Math.min(1, Math.abs(cos))
    const c = k * SLERP_CACHE_STRIDE
    if (cos > SLERP_NLERP_COS) {
      slerpCache[c] = NLERP_SEGMENT
      slerpCache[c + 1] = sigma[k]!
    } else {
      const theta = detAcos(cos)
      slerpCache[c] = theta
      slerpCache[c + 1] = sigma[k]! * (1 / detSin(theta))
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
  const slerpKeys = signedKeys(values, n, sigma)
  let same = true
  for (let i = 0; i < n * 4; i++) if (!Object.is(slerpKeys[i], squad[i])) same = false
  const controlCache = new Float64Array(Math.max(0, n - 1) * SLERP_CACHE_STRIDE)
  for (let k = 0; k + 1 < n; k++) {
    const a = n * 4 + k * 4
    const b = a + 4
    const cos =
      squad[a]! * squad[b]! +
      squad[a + 1]! * squad[b + 1]! +
      squad[a + 2]! * squad[b + 2]! +
      squad[a + 3]! * squad[b + 3]!
    const c = k * SLERP_CACHE_STRIDE
    if (cos <= -1) {
      controlCache[c] = OPPOSITE_SEGMENT
    } else if (cos < SLERP_NLERP_COS) {
      controlCache[c] = detAcosArc(cos)
      controlCache[c + 1] = 1 / Math.sqrt(1 - cos * cos)
    } else {
      controlCache[c] = NLERP_SEGMENT
    }
  }
  return { slerpCache, aligned: same ? squad.subarray(0, n * 4) : slerpKeys, squad, controlCache }
}

/**
 * `slerpSegments` of buildRotationCaches, alone: what every LINEAR rotation channel gets at load (packed per
 * track by segments.ts's packSegments, which writes them in place with writeSlerpSegments); the squad data is
 * built only when squad first samples the clip (clip.ts's prepareSquad, with buildSquadCaches).
 */
export function buildSlerpSegmentsOnly(values: Float32Array, keyCount: number): Float64Array {
  const out = new Float64Array(Math.max(0, keyCount - 1) * SLERP_SEGMENT_STRIDE)
  writeSlerpSegments(out, SLERP_SEGMENT_STRIDE, 0, values, keyCount)
  return out
}

/** σ_k: σ_0 = 1, σ_{k+1} = −σ_k when cos(key k, key k+1) < 0, else σ_k (see `aligned`). */
function keySigns(values: Float32Array, n: number): Float64Array {
  const sigma = new Float64Array(n)
  if (n > 0) sigma[0] = 1
  for (let k = 0; k + 1 < n; k++) {
    let cos = 0
    for (let j = 0; j < 4; j++) cos += values[k * 4 + j]! * values[k * 4 + 4 + j]!
    sigma[k + 1] = cos < 0 ? -sigma[k]! : sigma[k]!
  }
  return sigma
}

/** The keys times their signs, σ_k · values[k] (the `aligned` keys). */
function signedKeys(values: Float32Array, n: number, sigma: Float64Array): Float32Array {
  const keys = new Float32Array(n * 4)
  for (let k = 0; k < n; k++) for (let j = 0; j < 4; j++) keys[k * 4 + j] = sigma[k]! * values[k * 4 + j]!
  return keys
}

/**
 * `slerpSegments` of `n` keys into `out`, segment k at k·stride + offset: per segment `[theta, weight, key k,
 * key k+1]` with the two keys σ-signed (see `aligned`: σ_k is found on the way, as keySigns finds it) and
 * normalized in double (the float32 keys are unit only to float32 precision), theta their half-angle and weight
 * σ_k / sin θ, as in `slerpCache` but from the normalized keys; for an nlerp segment `[−cos, σ_k]` (the kernel
 * normalizes nlerp's weights from cos). Slerp of exactly unit keys with exact weights is unit to double
 * rounding, so the kernel stores it without renormalizing (~4% of the sampling).
 */
export function writeSlerpSegments(
  out: Float64Array,
  stride: number,
  offset: number,
  values: Float32Array,
  n: number,
): void {
  let sigma = 1
  for (let k = 0; k + 1 < n; k++) {
    const o = k * stride + offset
    const a = k * 4
    // σ_{k+1} from the stored keys (as keySigns): the sign the next segment's first key takes.
    let dot = 0
    for (let j = 0; j < 4; j++) dot += values[a + j]! * values[a + 4 + j]!
    const next = dot < 0 ? -sigma : sigma
    for (let e = 0; e < 2; e++) {
      const q = a + e * 4
      const s = e === 0 ? sigma : next
      // σ · a float32 is exact, so these are the float32 `aligned` keys.
      const x = s * values[q]!
      const y = s * values[q + 1]!
      const z = s * values[q + 2]!
      const w = s * values[q + 3]!
      const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
      out[o + 2 + e * 4] = x * inv
      out[o + 3 + e * 4] = y * inv
      out[o + 4 + e * 4] = z * inv
      out[o + 5 + e * 4] = w * inv
    }
    let cos = 0
    for (let j = 0; j < 4; j++) cos += out[o + 2 + j]! * out[o + 6 + j]!
    // Aligned neighbours: cos ≥ 0 but for rounding at exactly 90°.
    cos = Math.min(1, Math.abs(cos))
    if (cos > SLERP_NLERP_COS) {
      out[o] = -cos
      out[o + 1] = sigma
    } else {
      const theta = detAcos(cos)
      out[o] = theta
      out[o + 1] = sigma * (1 / detSin(theta))
    }
    sigma = next
  }
}
