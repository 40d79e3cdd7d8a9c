import type { Channel, Clip, RotationMode } from './clip.ts'
import { detAcosArc, detSinArc } from '../math/detmath.ts'
import { normalizeQuat, SLERP_NLERP_COS } from '../math/quat.ts'
import { SLERP_CACHE_STRIDE } from './rotationCache.ts'

/**
 * Float arguments of the per-frame kernels travel through this module scratch rather than call arguments: V8
 * boxes (allocates 16 bytes for) every float passed to or returned from a call it does not inline, and sampling
 * runs for every channel of every character every step. JavaScript is single-threaded and these kernels do not
 * re-enter, so one scratch is safe.
 *   [0] time   clip-local seconds being sampled
 *   [1] u      position in the current segment, [0, 1)
 *   [2] span   the segment's duration, seconds
 *   [3] weight the fraction of squad's inner slerps
 */
const reg = new Float64Array(4)
const TIME = 0
const U = 1
const SPAN = 2
const WEIGHT = 3

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
  reg[TIME] = time
  return sampleAtTime(out, offset, channel, cursors, cursorIndex, rotationMode === 'squad')
}

/**
 * Samples every bound channel of `clip` at clip-local time `timeOf[timeIndex]` (seconds; read from an array so
 * no float crosses a call boundary in the frame loop, see `reg`) into a pose layer: channel c goes to
 * `data[layer + binding[c] ..]` (skipped when `binding[c]` < 0) using cursor `cursors[cursorStart + c]`.
 * LINEAR rotation channels use squad when `squad` is true.
 */
export function sampleClipChannels(
  data: Float32Array,
  layer: number,
  clip: Clip,
  binding: Int32Array,
  timeOf: Float64Array,
  timeIndex: number,
  cursors: Uint32Array,
  cursorStart: number,
  squad: boolean,
): void {
  reg[TIME] = timeOf[timeIndex]!
  const channels = clip.channels
  for (let c = 0; c < channels.length; c++) {
    const offset = binding[c]!
    if (offset >= 0) sampleAtTime(data, layer + offset, channels[c]!, cursors, cursorStart + c, squad)
  }
}

function sampleAtTime(
  out: Float32Array,
  offset: number,
  channel: Channel,
  cursors: Uint32Array,
  cursorIndex: number,
  useSquad: boolean,
): Float32Array {
  const time = reg[TIME]!
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

  const k = locate(times, cursors[cursorIndex]!)
  cursors[cursorIndex] = k
  const t0 = times[k]!
  if (time === t0 || channel.interpolation === 'STEP')
    return copyElement(out, offset, values, k * stride + valueBase, c)

  const span = times[k + 1]! - t0
  const u = (time - t0) / span
  reg[U] = u
  reg[SPAN] = span

  if (cubic) {
    hermite(out, offset, values, k * stride, c)
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
  if (useSquad) return squad(out, offset, channel.squad!, n, k, channel.slerpCache!)
  return slerpCached(out, offset, values, k * 4, channel.slerpCache!, k)
}

/**
 * Index k of the segment with times[k] ≤ t < times[k+1], for times[0] < t < times[n-1].
 * Tries the hint, then its neighbours, then binary search.
 */
export function findSegment(times: Float32Array, t: number, hint: number): number {
  reg[TIME] = t
  return locate(times, hint)
}

/** findSegment at reg[TIME]. */
function locate(times: Float32Array, hint: number): number {
  const t = reg[TIME]!
  const last = times.length - 2
  const k = hint > last ? last : hint
  if (times[k]! <= t) {
    if (t < times[k + 1]!) return k
    // Forward by one (the common case in playback), then search the rest.
    if (k + 1 <= last && t < times[k + 2]!) return k + 1
    return searchSegment(times, k + 1, last)
  }
  if (k > 0 && times[k - 1]! <= t) return k - 1
  return searchSegment(times, 0, k - 1)
}

/** Binary search for the segment in [lo, hi] containing reg[TIME] (times[lo] ≤ t < times[hi+1] on entry). */
function searchSegment(times: Float32Array, lo: number, hi: number): number {
  const t = reg[TIME]!
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
 * `base` is the offset of key k's triplet; u and Δt come from `reg`.
 */
function hermite(out: Float32Array, offset: number, values: Float32Array, base: number, c: number): void {
  const u = reg[U]!
  const span = reg[SPAN]!
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
): Float32Array {
  const u = reg[U]!
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
    s0 = detSinArc((1 - u) * theta) * invSin
    s1 = detSinArc(u * theta) * invSin * sign
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
 * are within 90°, so its sign is +1); the other two follow the control points' path (no short-arc flip).
 */
function squad(
  out: Float32Array,
  offset: number,
  data: Float32Array,
  n: number,
  k: number,
  cache: Float64Array,
): Float32Array {
  const u = reg[U]!
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
    s0 = detSinArc((1 - u) * theta) * invSin
    s1 = detSinArc(u * theta) * invSin
  }
  const p = squadScratch
  for (let j = 0; j < 4; j++) p[j] = s0 * data[q + j]! + s1 * data[q + 4 + j]!
  normalizeQuat(p, 0)
  for (let j = 0; j < 4; j++) p[4 + j] = data[s + j]!
  reg[WEIGHT] = u
  slerpNoFlipInPlace(p, 4, data, s + 4)
  reg[WEIGHT] = 2 * u * (1 - u)
  slerpNoFlipInPlace(p, 0, p, 4)
  for (let j = 0; j < 4; j++) out[offset + j] = p[j]!
  return out
}

/**
 * a ← slerp(a, b, t = reg[WEIGHT]) without the short-arc flip, in doubles; nearly equal inputs use normalized
 * lerp, exactly opposite ones (no defined path) keep a. Written out rather than calling quat.ts's
 * slerpQuatNoFlip, whose float argument would be boxed.
 */
function slerpNoFlipInPlace(a: Float64Array, ao: number, b: Float32Array | Float64Array, bo: number): void {
  const t = reg[WEIGHT]!
  const cos = a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]!
  let s0 = 1 - t
  let s1 = t
  if (cos <= -1) return
  if (cos < SLERP_NLERP_COS) {
    const theta = detAcosArc(cos)
    const invSin = 1 / Math.sqrt(1 - cos * cos)
    s0 = detSinArc((1 - t) * theta) * invSin
    s1 = detSinArc(t * theta) * invSin
  }
  let len2 = 0
  for (let j = 0; j < 4; j++) {
    const v = s0 * a[ao + j]! + s1 * b[bo + j]!
    a[ao + j] = v
    len2 += v * v
  }
  const inv = 1 / Math.sqrt(len2)
  for (let j = 0; j < 4; j++) a[ao + j] = a[ao + j]! * inv
}
