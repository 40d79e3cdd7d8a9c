import type { Channel } from './clipTypes.ts'
import { reg, TIME } from './sampleScratch.ts'

/**
 * The sampler of compact clips (compactClip.ts's format), beside the exact one (sample.ts), which hands
 * compact clips and channels here. Same contract: channel c of `channels` (skipped when `binding[c]` < 0) at
 * clip-local time reg[TIME] into `out[layer + binding[c] ..]`; before the first key the first key, at or after
 * the last the last, exactly on a key that key; a key cursor per time track at `cursors[cursorStart +
 * track]`. Allocation-free; only + − × ÷ and Math.sqrt (the fixed step's rules).
 *
 * Between keys a and b (dequantized) at u ∈ (0, 1):
 *   rotation   corrected nlerp: b taken in a's hemisphere, u moved to u + u(u − ½)(u − 1)·⅔(1 − a·b), then
 *              normalize(a(1 − u) + b·u). The correction cancels nlerp's θ³ term: within 1e-6 rad of slerp
 *              for keys up to 20° apart (nlerp alone: 2e-4), 4e-5 at 45°. compressClip measures the error
 *              of this very curve, so kept keys bound it.
 *   others     lerp per component.
 */
export function sampleCompactList(
  out: Float32Array,
  layer: number,
  channels: readonly Channel[],
  binding: Int32Array,
  cursors: Uint32Array,
  cursorStart: number,
): void {
  // As in sample.ts: kinds as literals (V8 reads module bindings through the context): KIND_LINEAR and
  // KIND_COMPACT_*.
  const LINEAR = 1
  const ROTATION = 5
  const QUATERNION = 6
  const time = reg[TIME]!
  let times: Float32Array | null = null
  let between = false
  let k = 0
  let u = 0
  for (let c = 0; c < channels.length; c++) {
    const offset = binding[c]!
    if (offset < 0) continue
    const ch = channels[c]!
    const o = layer + offset
    if (ch.times !== times) {
      times = ch.times
      const n = times.length
      between = false
      if (!(time > times[0]!) || n === 1) k = 0
      else if (time >= times[n - 1]!) k = n - 1
      else {
        const slot = cursorStart + ch.track
        k = keyBefore(times, time, cursors[slot]! | 0)
        cursors[slot] = k
        const t0 = times[k]!
        if (time !== t0) {
          between = true
          u = (time - t0) / (times[k + 1]! - t0)
        }
      }
    }
    const kind = ch.kind
    const packed = ch.packed
    const dq = ch.dequant!
    if (kind === ROTATION) {
      const d = dq[6]!
      const i0 = d === 0 ? 1 : 0
      const i1 = d <= 1 ? 2 : 1
      const i2 = d <= 2 ? 3 : 2
      const m0 = dq[0]!
      const m1 = dq[1]!
      const m2 = dq[2]!
      const s0 = dq[3]!
      const s1 = dq[4]!
      const s2 = dq[5]!
      const p = 3 * k
      const ax = m0 + packed![p]! * s0
      const ay = m1 + packed![p + 1]! * s1
      const az = m2 + packed![p + 2]! * s2
      const aw = Math.sqrt(Math.max(0, 1 - ax * ax - ay * ay - az * az))
      if (!between) {
        out[o + i0] = ax
        out[o + i1] = ay
        out[o + i2] = az
        out[o + d] = aw
        continue
      }
      let bx = m0 + packed![p + 3]! * s0
      let by = m1 + packed![p + 4]! * s1
      let bz = m2 + packed![p + 5]! * s2
      let bw = Math.sqrt(Math.max(0, 1 - bx * bx - by * by - bz * bz))
      let cos = ax * bx + ay * by + az * bz + aw * bw
      if (cos < 0) {
        bx = -bx
        by = -by
        bz = -bz
        bw = -bw
        cos = -cos
      }
      const t = u + u * (u - 0.5) * (u - 1) * ((2 / 3) * (1 - cos))
      const l = 1 - t
      const x = ax * l + bx * t
      const y = ay * l + by * t
      const z = az * l + bz * t
      const w = aw * l + bw * t
      const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
      out[o + i0] = x * inv
      out[o + i1] = y * inv
      out[o + i2] = z * inv
      out[o + d] = w * inv
    } else if (kind === QUATERNION) {
      // 16-bit components, or (packed null) float keys where 16 bits cannot meet the tolerance.
      const p = 4 * k
      const v = ch.values
      const f = packed === null
      const ax = f ? v[p]! : dq[0]! + packed[p]! * dq[4]!
      const ay = f ? v[p + 1]! : dq[1]! + packed[p + 1]! * dq[5]!
      const az = f ? v[p + 2]! : dq[2]! + packed[p + 2]! * dq[6]!
      const aw = f ? v[p + 3]! : dq[3]! + packed[p + 3]! * dq[7]!
      let x = ax
      let y = ay
      let z = az
      let w = aw
      if (between) {
        const bx = f ? v[p + 4]! : dq[0]! + packed[p + 4]! * dq[4]!
        const by = f ? v[p + 5]! : dq[1]! + packed[p + 5]! * dq[5]!
        const bz = f ? v[p + 6]! : dq[2]! + packed[p + 6]! * dq[6]!
        const bw = f ? v[p + 7]! : dq[3]! + packed[p + 7]! * dq[7]!
        // Keys are hemisphere-aligned when quantized; the cosine of near-unit keys, for the correction.
        const cos =
          (ax * bx + ay * by + az * bz + aw * bw) /
          Math.sqrt((ax * ax + ay * ay + az * az + aw * aw) * (bx * bx + by * by + bz * bz + bw * bw))
        const t = u + u * (u - 0.5) * (u - 1) * ((2 / 3) * (1 - cos))
        const l = 1 - t
        x = ax * l + bx * t
        y = ay * l + by * t
        z = az * l + bz * t
        w = aw * l + bw * t
      }
      const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
      out[o] = x * inv
      out[o + 1] = y * inv
      out[o + 2] = z * inv
      out[o + 3] = w * inv
    } else if (kind === LINEAR) {
      // A translation or scale whose range 16 bits cannot cover within its tolerance: float keys.
      const cc = ch.components
      const values = ch.values
      const p = k * cc
      for (let j = 0; j < cc; j++) {
        const va = values[p + j]!
        out[o + j] = between ? va + (values[p + cc + j]! - va) * u : va
      }
    } else {
      const cc = ch.components
      const p = k * cc
      for (let j = 0; j < cc; j++) {
        const va = dq[j]! + packed![p + j]! * dq[cc + j]!
        out[o + j] = between ? va + (dq[j]! + packed![p + cc + j]! * dq[cc + j]! - va) * u : va
      }
    }
  }
}

/**
 * The index k with times[k] ≤ t < times[k + 1], for times[0] < t < times[n − 1]: the hint (the cursor), the
 * key after it (playback moves forward by small steps), the one before, else a binary search.
 */
function keyBefore(times: Float32Array, t: number, hint: number): number {
  const last = (times.length - 2) | 0
  const h = hint >= 0 && hint <= last ? hint : last
  if (times[h]! <= t) {
    if (t < times[h + 1]!) return h
    if (h + 1 <= last && t < times[h + 2]!) return h + 1
  } else if (h > 0 && times[h - 1]! <= t) return h - 1
  let lo = 0
  let hi = last
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (times[mid]! <= t) lo = mid
    else hi = mid - 1
  }
  return lo
}
