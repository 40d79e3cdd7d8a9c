import type { Channel, Clip, RotationMode } from './clip.ts'
import {
  clipOf,
  KIND_COMPACT_ROTATION,
  KIND_CUBIC,
  KIND_CUBIC_ROTATION,
  KIND_LINEAR,
  KIND_SLERP,
  KIND_STEP,
  prepareSquad,
} from './clip.ts'
import { detSinArc } from '../math/detmath.ts'
import { SHORT_ARC, shortArcSin } from './arcKernels.ts'
import { squad } from './squad.ts'
import { sampleCompactChannel } from './sampleCompact.ts'

/**
 * Samples one channel at clip-local time `time` (seconds; wrapping and speed are the caller's business) into
 * out[offset ..] (its `components` floats). Allocation-free; trusts the channel (validated by buildClip); clamps
 * instead of throwing. Returns out.
 *
 *   t ≤ first key (or a single key)  → first key's value
 *   t ≥ last key                     → last key's value
 *   t exactly on key k               → key k's value, bit for bit
 *   otherwise                        → interpolated in the segment [times[k], times[k+1]) at u = (t − t_k)/(t_k+1 − t_k)
 * A NaN time samples the first key.
 *
 * Interpolation by `Channel.kind`: STEP holds key k; LINEAR lerps; a LINEAR rotation slerps the segment's
 * aligned keys by its cached angle (or squad, in rotationMode 'squad'); CUBICSPLINE is glTF's Hermite spline,
 * normalized for rotations; compact channels as sampleCompact.ts says.
 *
 * Key cursor: `cursors[cursorIndex]` remembers the segment found last time, so playback forward (or backward)
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
  // Key k, and whether t lies past it in its segment (at u, the segment `span` seconds long).
  let k = 0
  let between = false
  let u = 0
  let span = 0
  if (time > times[0]! && n > 1) {
    if (time >= times[n - 1]!) k = n - 1
    else {
      k = findSegment(times, time, cursors[cursorIndex]!)
      cursors[cursorIndex] = k
      if (time !== times[k]) {
        between = true
        span = times[k + 1]! - times[k]!
        u = (time - times[k]!) / span
      }
    }
  }
  if (channel.kind >= KIND_COMPACT_ROTATION) sampleCompactChannel(out, offset, channel, k, u, between)
  else if (!between || channel.kind === KIND_STEP) copyKey(out, offset, channel, k)
  else if (channel.kind === KIND_LINEAR) lerpKeys(out, offset, channel, k, u)
  else if (channel.kind === KIND_SLERP && rotationMode === 'squad') squadKeys(out, offset, channel, k, u)
  else if (channel.kind === KIND_SLERP) slerpKeys(out, offset, channel, k, u)
  else hermite(out, offset, channel, k, u, span)
  return out
}

/**
 * Samples every bound channel of `clip` at clip-local time `time` into a pose: channel c into
 * `out[offset + binding[c] ..]` (skipped when `binding[c]` < 0), by sampleChannel. Key cursors: one per time
 * track (see `Channel.track`), at `cursors[cursorStart + track]`; slots of channels that are not a track's first
 * are untouched. LINEAR rotations use squad in rotationMode 'squad'. Returns out.
 */
export function sampleClip(
  out: Float32Array,
  offset: number,
  clip: Clip,
  binding: Int32Array,
  time: number,
  cursors: Uint32Array,
  cursorStart: number,
  rotationMode: RotationMode = 'slerp',
): Float32Array {
  const channels = clip.channels
  for (let c = 0; c < channels.length; c++) {
    const at = binding[c]!
    if (at < 0) continue
    const ch = channels[c]!
    sampleChannel(out, offset + at, ch, time, cursors, cursorStart + ch.track, rotationMode)
  }
  return out
}

/**
 * Index k of the segment with times[k] ≤ t < times[k+1], for times[0] < t < times[n-1]: the hint (a valid
 * segment index, else the last segment), the segment after it (playback moves forward by small steps), the one
 * before, else a binary search.
 */
export function findSegment(times: Float32Array, t: number, hint: number): number {
  const last = times.length - 2
  const k = hint >= 0 && hint <= last ? Math.trunc(hint) : last
  if (times[k]! <= t) {
    if (t < times[k + 1]!) return k
    if (k + 1 <= last && t < times[k + 2]!) return k + 1
    return searchSegment(times, t, k + 1, last)
  }
  if (k > 0 && times[k - 1]! <= t) return k - 1
  return searchSegment(times, t, 0, k - 1)
}

/** Binary search for the segment in [lo, hi] containing t (times[lo] ≤ t < times[hi+1] on entry). */
function searchSegment(times: Float32Array, t: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (times[mid]! <= t) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** Key k's value (the middle of the triplet for CUBICSPLINE), as stored. */
function copyKey(out: Float32Array, o: number, ch: Channel, k: number): void {
  const c = ch.components
  const from = ch.kind === KIND_CUBIC || ch.kind === KIND_CUBIC_ROTATION ? (3 * k + 1) * c : k * c
  for (let j = 0; j < c; j++) out[o + j] = ch.values[from + j]!
}

function lerpKeys(out: Float32Array, o: number, ch: Channel, k: number, u: number): void {
  const c = ch.components
  for (let j = 0; j < c; j++) {
    const a = ch.values[k * c + j]!
    out[o + j] = a + (ch.values[(k + 1) * c + j]! - a) * u
  }
}

/**
 * Slerp of the segment's aligned keys with its cached angle θ and weight σ/sin θ (Channel.slerpSegments):
 * sin((1 − u)θ) and sin(uθ) by the short series up to SHORT_ARC, detSinArc's beyond; nearly equal keys (θ holds
 * −cos θ) by normalized lerp, whose weights are normalized by a series: for unit keys |(1 − u)·k + u·k'|² = 1 − e
 * with e = 2u(1 − u)(1 − cos) ≤ 2.5e-4, so 1/√(1 − e) = 1 + e/2 + 3e²/8 + 5e³/16 + … to double precision. The keys
 * are unit in double and the weights exact (or normalized), so the result is unit to double rounding, stored
 * as it is.
 */
function slerpKeys(out: Float32Array, o: number, ch: Channel, k: number, u: number): void {
  const seg = ch.slerpSegments!
  const at = k * ch.slerpStride + ch.slerpOffset
  const theta = seg[at]!
  const weight = seg[at + 1]!
  let s0: number
  let s1: number
  if (theta < 0) {
    const e = 2 * u * (1 - u) * (1 + theta)
    const inv = (1 + e * (0.5 + e * (0.375 + e * 0.3125))) * weight
    s0 = (1 - u) * inv
    s1 = u * inv
  } else if (theta <= SHORT_ARC) {
    s0 = shortArcSin((1 - u) * theta) * weight
    s1 = shortArcSin(u * theta) * weight
  } else {
    s0 = detSinArc((1 - u) * theta) * weight
    s1 = detSinArc(u * theta) * weight
  }
  for (let i = 0; i < 4; i++) out[o + i] = s0 * seg[at + 2 + i]! + s1 * seg[at + 6 + i]!
}

function squadKeys(out: Float32Array, o: number, ch: Channel, k: number, u: number): void {
  const data = ch.squad!
  // Built on the clip's first squad sample (allocates once) unless prepared at setup, as the plugin does.
  if (data.segments === null) prepareSquad(clipOf(ch))
  squad(out, o, data.segments!, k * data.stride + data.offset, u)
}

/**
 * CUBICSPLINE: p(u) = h00·v_k + h10·b_k + h01·v_k+1 + h11·a_k+1 (glTF 2.0, Appendix C), with v the values, b the
 * out-tangents, a the in-tangents (the triplet layout `| a | v | b |` per key, see Channel), the tangent terms
 * scaled by the segment's duration `span` in seconds. A rotation is normalized in double before the float32
 * store (a zero result, impossible for unit keys with sane tangents, becomes identity).
 */
function hermite(out: Float32Array, o: number, ch: Channel, k: number, u: number, span: number): void {
  const u2 = u * u
  const u3 = u2 * u
  const h00 = 2 * u3 - 3 * u2 + 1
  const h10 = (u3 - 2 * u2 + u) * span
  const h01 = -2 * u3 + 3 * u2
  const h11 = (u3 - u2) * span
  const c = ch.components
  const v = ch.values
  const v0 = (3 * k + 1) * c
  const b0 = v0 + c
  const a1 = b0 + c
  const v1 = a1 + c
  if (ch.kind === KIND_CUBIC) {
    for (let j = 0; j < c; j++)
      out[o + j] = h00 * v[v0 + j]! + h10 * v[b0 + j]! + h01 * v[v1 + j]! + h11 * v[a1 + j]!
    return
  }
  for (let j = 0; j < 4; j++) q[j] = h00 * v[v0 + j]! + h10 * v[b0 + j]! + h01 * v[v1 + j]! + h11 * v[a1 + j]!
  const len2 = q[0]! * q[0]! + q[1]! * q[1]! + q[2]! * q[2]! + q[3]! * q[3]!
  if (!(len2 > 0)) {
    out.fill(0, o, o + 3)
    out[o + 3] = 1
    return
  }
  const inv = 1 / Math.sqrt(len2)
  for (let j = 0; j < 4; j++) out[o + j] = q[j]! * inv
}

/** A cubic rotation before normalization (working memory). */
const q = new Float64Array(4)
