import type { Channel } from './clipTypes.ts'
import { KIND_COMPACT_FLOAT_ROTATION, KIND_COMPACT_ROTATION } from './kinds.ts'

/**
 * Compact channels (compactClip.ts's format) at key k, or between keys k and k + 1 at u ∈ (0, 1) when `between`,
 * into out[o ..]; sample.ts finds k and u as for every channel. Allocation-free; only + − × ÷ (the fixed step's
 * rules).
 *
 * Between keys a and b (dequantized):
 *   rotation   corrected nlerp: u moved to t = u + u(u − ½)(u − 1)·⅔e, e = 1 − a·b, then a + (b − a)·t
 *              normalized. The correction cancels nlerp's θ³ term: within 1e-6 rad of slerp for keys up to
 *              20° apart (nlerp alone: 2e-4). The keys are unit (to ~1e-7: compactClip.ts's unitOnGrid) and
 *              at most 15° apart (compressKeys.ts), so e = |b − a|²/2 ≤ 0.0086, the result's length² is
 *              1 − s with s = 2t(1 − t)e ≤ 0.0043, and its inverse length 1 + s/2 + 3s²/8 (the next term,
 *              5s³/16, under 3e-8): no square root, no division. compressKeys.ts measures the error of this
 *              very curve.
 *   others     lerp per component.
 */
export function sampleCompactChannel(
  out: Float32Array,
  o: number,
  ch: Channel,
  k: number,
  u: number,
  between: boolean,
): void {
  if (ch.kind === KIND_COMPACT_ROTATION || ch.kind === KIND_COMPACT_FLOAT_ROTATION) {
    // Key k (a) and the difference to key k + 1 (d), in double. On the grid every component has one step:
    // component i is min_i + packed_i · step, and the difference (packed'_i − packed_i) · step.
    const float = ch.kind === KIND_COMPACT_FLOAT_ROTATION
    const values = ch.values
    const packed = ch.packed!
    const dq = ch.dequant!
    const p = k * ch.packedStride + ch.packedOffset
    const q = p + ch.packedStride
    for (let i = 0; i < 4; i++) {
      a[i] = float ? values[4 * k + i]! : dq[i]! + packed[p + i]! * dq[4]!
      if (between) d[i] = float ? values[4 * k + 4 + i]! - a[i]! : (packed[q + i]! - packed[p + i]!) * dq[4]!
    }
    if (!between) {
      for (let i = 0; i < 4; i++) out[o + i] = a[i]!
      return
    }
    const e = 0.5 * (d[0]! * d[0]! + d[1]! * d[1]! + d[2]! * d[2]! + d[3]! * d[3]!)
    const t = u + u * (u - 0.5) * (u - 1) * (2 / 3) * e
    const s = 2 * t * (1 - t) * e
    const inv = 1 + s * (0.5 + s * 0.375)
    for (let i = 0; i < 4; i++) out[o + i] = (a[i]! + d[i]! * t) * inv
    return
  }
  // A vector on the 16-bit grid: component j of key k is min_j + packed · step_j.
  const cc = ch.components
  const packed = ch.packed!
  const dq = ch.dequant!
  const p = k * ch.packedStride + ch.packedOffset
  for (let j = 0; j < cc; j++) {
    const va = dq[j]! + packed[p + j]! * dq[cc + j]!
    out[o + j] = between ? va + (dq[j]! + packed[p + ch.packedStride + j]! * dq[cc + j]! - va) * u : va
  }
}

/** A rotation key and the difference to the next (working memory). */
const a = new Float64Array(4)
const d = new Float64Array(4)
