import type { Channel, RotationMode } from './clip.ts'
import { detSin } from '../math/detmath.ts'
import { normalizeQuat, slerpQuatNoFlip } from '../math/quat.ts'
import { SLERP_CACHE_STRIDE } from './rotationCache.ts'

/**
 * Sampling one channel at one time: the per-frame kernel. Allocation-free; trusts the channel (validated by
 * buildClip); clamps instead of throwing.
 *
 * Time rules (t in seconds, clip-local; wrapping and speed are the caller's business):
 *   t ≤ first key (or a single key)  → first key's value
 *   t ≥ last key                     → last key's value
 *   t exactly on key k               → key k's value, bit for bit
 *   otherwise                        → interpolated in the segment [times[k], times[k+1])
 * A NaN time samples the first key.
 *
 * Key cursors: `cursors[cursorIndex]` remembers the segment found last time, so playback forward (or backward)
 * by small steps finds its segment in O(1); a jump falls back to binary search, O(log n).
 */
export function sampleChannel(
  out: Float32Array,
  offset: number,
  channel: Channel,
  time: number,
  cursors: Uint32Array,
  cursorIndex: number,
  rotationMode: RotationMode = 'slerp',
): Float32Array {
  const times = channel.times
  const n = times.length
  const c = channel.components
  const values = channel.values
  const cubic = channel.interpolation === 'CUBICSPLINE'
  // Offset of key k's value element: k*c, or k*3c + c in the cubic triplet layout.
  const stride = cubic ? 3 * c : c
  const valueBase = cubic ? c : 0

  if (!(time > times[0]!) || n === 1) return copyElement(out, offset, values, valueBase, c)
  if (time >= times[n - 1]!) return copyElement(out, offset, values, (n - 1) * stride + valueBase, c)

  const k = findSegment(times, time, cursors[cursorIndex]!)
  cursors[cursorIndex] = k
  const t0 = times[k]!
  if (time === t0 || channel.interpolation === 'STEP')
    return copyElement(out, offset, values, k * stride + valueBase, c)

  const span = times[k + 1]! - t0
  const u = (time - t0) / span

  if (cubic) {
    hermite(out, offset, values, k * stride, c, u, span)
    if (channel.path === 'rotation') normalizeQuat(out, offset)
    return out
  }
  if (channel.path !== 'rotation') {
    const a = k * c
    const b = a + c
    for (let j = 0; j < c; j++) {
      const va = values[a + j]!
      out[offset + j] = va + (values[b + j]! - va) * u
    }
    return out
  }
  if (rotationMode === 'squad') return squad(out, offset, channel.squad!, n, k, u, channel.slerpCache!)
  return slerpCached(out, offset, values, k * 4, channel.slerpCache!, k, u)
}

/**
 * Index k of the segment with times[k] ≤ t < times[k+1], for times[0] < t < times[n-1].
 * Tries the hint, then its neighbours, then binary search.
 */
export function findSegment(times: Float32Array, t: number, hint: number): number {
  const last = times.length - 2
  let k = hint > last ? last : hint
  if (times[k]! <= t) {
    if (t < times[k + 1]!) return k
    // Forward by one (the common case in playback), then search the rest.
    if (k + 1 <= last && t < times[k + 2]!) return k + 1
    return searchSegment(times, t, k + 1, last)
  }
  if (k > 0 && times[k - 1]! <= t) return k - 1
  return searchSegment(times, t, 0, k - 1)
}

/** Binary search for the segment in [lo, hi] containing t (times[lo] ≤ t < times[hi+1] holds on entry). */
function searchSegment(times: Float32Array, t: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if (times[mid]! <= t) lo = mid
    else hi = mid - 1
  }
  return lo
}

function copyElement(
  out: Float32Array,
  offset: number,
  values: Float32Array,
  from: number,
  c: number,
): Float32Array {
  for (let j = 0; j < c; j++) out[offset + j] = values[from + j]!
  return out
}

/**
 * glTF cubic Hermite between key k and k+1 (spec, Appendix C):
 *   p(u) = (2u³−3u²+1)·v_k + (u³−2u²+u)·Δt·b_k + (−2u³+3u²)·v_{k+1} + (u³−u²)·Δt·a_{k+1}
 * with v the values, b the out-tangents, a the in-tangents, Δt the segment duration in seconds.
 * `base` is the offset of key k's triplet.
 */
function hermite(
  out: Float32Array,
  offset: number,
  values: Float32Array,
  base: number,
  c: number,
  u: number,
  span: number,
): void {
  const u2 = u * u
  const u3 = u2 * u
  const h00 = 2 * u3 - 3 * u2 + 1
  const h10 = (u3 - 2 * u2 + u) * span
  const h01 = -2 * u3 + 3 * u2
  const h11 = (u3 - u2) * span
  const v0 = base + c
  const b0 = base + 2 * c
  const a1 = base + 3 * c
  const v1 = base + 4 * c
  for (let j = 0; j < c; j++) {
    out[offset + j] =
      h00 * values[v0 + j]! + h10 * values[b0 + j]! + h01 * values[v1 + j]! + h11 * values[a1 + j]!
  }
}

/** Slerp of keys at `a` and `a+4` using the segment's cached sign, angle and 1/sin. */
function slerpCached(
  out: Float32Array,
  offset: number,
  values: Float32Array,
  a: number,
  cache: Float64Array,
  k: number,
  u: number,
): Float32Array {
  const ci = k * SLERP_CACHE_STRIDE
  const sign = cache[ci]!
  let s0: number
  let s1: number
  if (cache[ci + 3] === 1) {
    s0 = 1 - u
    s1 = u * sign
  } else {
    const theta = cache[ci + 1]!
    const invSin = cache[ci + 2]!
    s0 = detSin((1 - u) * theta) * invSin
    s1 = detSin(u * theta) * invSin * sign
  }
  const b = a + 4
  const x = s0 * values[a]! + s1 * values[b]!
  const y = s0 * values[a + 1]! + s1 * values[b + 1]!
  const z = s0 * values[a + 2]! + s1 * values[b + 2]!
  const w = s0 * values[a + 3]! + s1 * values[b + 3]!
  // Renormalize in double before the float32 store: slerp of unit keys is unit up to rounding, nlerp is not.
  const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
  out[offset] = x * inv
  out[offset + 1] = y * inv
  out[offset + 2] = z * inv
  out[offset + 3] = w * inv
  return out
}

const squadScratch = new Float64Array(8)

/**
 * Shoemake's squad on segment k: slerp(slerp(q_k, q_{k+1}, u), slerp(s_k, s_{k+1}, u), 2u(1−u)), on the
 * hemisphere-aligned keys and controls of `Channel.squad`. The first slerp reuses the segment cache (aligned keys
 * are within 90°, so its sign is +1).
 */
function squad(
  out: Float32Array,
  offset: number,
  data: Float32Array,
  n: number,
  k: number,
  u: number,
  cache: Float64Array,
): Float32Array {
  const ci = k * SLERP_CACHE_STRIDE
  const q = k * 4
  const s = n * 4 + q
  let s0: number
  let s1: number
  if (cache[ci + 3] === 1) {
    s0 = 1 - u
    s1 = u
  } else {
    const theta = cache[ci + 1]!
    const invSin = cache[ci + 2]!
    s0 = detSin((1 - u) * theta) * invSin
    s1 = detSin(u * theta) * invSin
  }
  for (let j = 0; j < 4; j++) squadScratch[j] = s0 * data[q + j]! + s1 * data[q + 4 + j]!
  normalizeQuat(squadScratch, 0)
  slerpQuatNoFlip(squadScratch, 4, data, s, data, s + 4, u)
  slerpQuatNoFlip(out, offset, squadScratch, 0, squadScratch, 4, 2 * u * (1 - u))
  return out
}
