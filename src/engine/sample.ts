import type { Channel, Clip } from '../clip/clip.ts'
import { clipOf, KIND_COMPACT_ROTATION, KIND_CUBIC, prepareSquad } from '../clip/clip.ts'
import { seriesCoefficients } from './blend.ts'
import { ARC_SERIES } from '../clip/arcKernels.ts'
import { closeSeries, squad, squadSeries } from './squad.ts'
import { reg, TIME, U, WEIGHT } from './sampleScratch.ts'
import { sampleCompactList } from './sampleCompact.ts'

/**
 * The fast forms of clip sampling (src/clip/sample.ts: sampleClip, sampleChannel, findSegment, which say what
 * is computed), shaped for V8 as v8.ts explains: the time read from `timeOf[timeIndex]` and handed on through
 * `reg`, one segment search and one set of Hermite weights per time track, the hot kinds (lerp, slerp, Hermite)
 * written out in one loop whose floats never cross a call, constants as literals. test/engine/sample.test.ts
 * holds them to the clean forms bit for bit, cursors included.
 */

/** sampleChannel(out, offset, channel, timeOf[timeIndex], cursors, cursorIndex, squad ? 'squad' : 'slerp'). */
export function sampleChannelFrom(
  out: Float32Array,
  offset: number,
  channel: Channel,
  timeOf: Float64Array,
  timeIndex: number,
  cursors: Uint32Array,
  cursorIndex: number,
  squad: boolean,
): void {
  reg[TIME] = timeOf[timeIndex]!
  single[0] = channel
  if (channel.kind >= KIND_COMPACT_ROTATION)
    sampleCompactList(out, offset, single, singleBinding, cursors, cursorIndex - channel.track)
  else sampleList(out, offset, single, singleBinding, cursors, cursorIndex - channel.track, squad)
}

const single: Channel[] = []
/** Offset 0 from `offset`: the one channel writes at out[offset ..]. */
const singleBinding = new Int32Array(1)

/** sampleClip(data, layer, clip, binding, timeOf[timeIndex], cursors, cursorStart, squad ? 'squad' : 'slerp'). */
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
  // A compact clip (compactClip.ts) has a sampler of its own; squad does not apply to it.
  if (clip.compression !== null)
    sampleCompactList(data, layer, clip.frameChannels, binding, cursors, cursorStart)
  else sampleList(data, layer, clip.frameChannels, binding, cursors, cursorStart, squad)
}

/**
 * The sampler: channel c of `channels` (skipped when `binding[c]` < 0) at time reg[TIME] into
 * `out[layer + binding[c] ..]`. Channels sharing a time track (one `times` array, consecutive in every clip
 * an exporter writes) share one segment search and its Hermite weights; a channel on another track starts a
 * new search. Allocation-free: every float here stays a local.
 */
function sampleList(
  out: Float32Array,
  layer: number,
  channels: readonly Channel[],
  binding: Int32Array,
  cursors: Uint32Array,
  cursorStart: number,
  useSquad: boolean,
): void {
  // Constants as literals: kinds as in clip.ts (KIND_*), the rest as in src/clip/arcKernels.ts (ARC_S*,
  // SHORT_ARC, ...).
  const STEP = 0
  const LINEAR = 1
  const SLERP = 2
  const CUBIC_ROTATION = 4
  const SHORT = 0.25
  const S3 = -1 / 6
  const S5 = 1 / 120
  const S7 = -1 / 5040
  const S9 = 1 / 362880
  const S11 = -1 / 39916800
  const HALF_PI = 1.5707963267948966
  const PI = 3.141592653589793
  const PI_LO = 1.2246467991473532e-16
  const TERMS = 10
  const time = reg[TIME]!
  let times: Float32Array | null = null
  let n = 0
  // Whether the current track's time falls between keys k and k+1 (interpolated) or on key k (copied).
  let between = false
  let k = 0
  let u = 0
  let h00 = 0
  let h10 = 0
  let h01 = 0
  let h11 = 0
  for (let c = 0; c < channels.length; c++) {
    const offset = binding[c]!
    if (offset < 0) continue
    const ch = channels[c]!
    const o = layer + offset

    if (ch.times !== times) {
      times = ch.times
      n = times.length
      between = false
      if (!(time > times[0]!) || n === 1) k = 0
      else if (time >= times[n - 1]!) k = n - 1
      else {
        const slot = cursorStart + ch.track
        // Read as int32 (`| 0`, v8.ts): one above 2^31 turns negative, which locate rejects as findSegment does.
        k = locate(times, cursors[slot]! | 0)
        cursors[slot] = k
        const t0 = times[k]!
        if (time !== t0) {
          between = true
          const span = times[k + 1]! - t0
          u = (time - t0) / span
          // Hermite basis (glTF spec, Appendix C), tangent terms scaled by the segment duration in seconds.
          const u2 = u * u
          const u3 = u2 * u
          h00 = 2 * u3 - 3 * u2 + 1
          h10 = (u3 - 2 * u2 + u) * span
          h01 = -2 * u3 + 3 * u2
          h11 = (u3 - u2) * span
          if (useSquad) {
            // Squad's outer slerp weight 2u(1 − u) is the same for every channel of the track: its half-angle
            // series coefficients (slerpSeries.ts) are made once here.
            reg[WEIGHT] = 2 * u * (1 - u)
            seriesCoefficients(squadSeries, reg, WEIGHT, 2)
            seriesCoefficients(closeSeries, reg, WEIGHT, 1)
          }
        }
      }
    }

    const kind = ch.kind
    if (!between || kind === STEP) {
      copyKey(out, o, ch, k)
    } else if (kind === SLERP) {
      if (useSquad) {
        const data = ch.squad!
        // Built on the first squad sample of the clip (allocates once) unless prepared at setup, as the plugin does.
        if (data.segments === null) prepareSquad(clipOf(ch))
        reg[U] = u
        squad(out, o, data.segments!, k * data.stride + data.offset)
        continue
      }
      // Slerp of the aligned keys k, k+1 with the segment's cached angle and σ_k/sin θ, all from one run of
      // Channel.slerpSegments.
      const seg = ch.slerpSegments!
      const ci = k * ch.slerpStride + ch.slerpOffset
      const theta = seg[ci]!
      const weight = seg[ci + 1]!
      const a = ci + 2
      let s0: number
      let s1: number
      if (theta < 0) {
        // Nearly equal keys (θ holds −cos): normalized lerp. For unit keys |(1 − u)·k + u·k'|² = 1 − e with
        // e = 2u(1 − u)(1 − cos) ≤ 2.5e-4, so 1/√(1 − e) = 1 + e/2 + 3e²/8 + 5e³/16 + … to double precision
        // (the next term is under 1e-15): the weights come out normalized without a square root.
        const l0 = 1 - u
        const e = 2 * u * l0 * (1 + theta)
        const inv = (1 + e * (0.5 + e * (0.375 + e * 0.3125))) * weight
        s0 = l0 * inv
        s1 = u * inv
      } else {
        const x0 = (1 - u) * theta
        const x1 = u * theta
        if (theta <= SHORT) {
          // shortArcSin, written out.
          const z0 = x0 * x0
          const z1 = x1 * x1
          s0 = (x0 + x0 * z0 * (S3 + z0 * (S5 + z0 * (S7 + z0 * (S9 + z0 * S11))))) * weight
          s1 = (x1 + x1 * z1 * (S3 + z1 * (S5 + z1 * (S7 + z1 * (S9 + z1 * S11))))) * weight
        } else {
          // detSinArc (θ ≤ π/2 here), its series written out with the same operations, so the same bits.
          const y0 = x0 > HALF_PI ? PI - x0 + PI_LO : x0
          const y1 = x1 > HALF_PI ? PI - x1 + PI_LO : x1
          const z0 = y0 * y0
          const z1 = y1 * y1
          let p0 = ARC_SERIES[TERMS - 1]!
          let p1 = p0
          for (let i = TERMS - 2; i >= 0; i--) {
            p0 = ARC_SERIES[i]! + z0 * p0
            p1 = ARC_SERIES[i]! + z1 * p1
          }
          s0 = (y0 + y0 * z0 * p0) * weight
          s1 = (y1 + y1 * z1 * p1) * weight
        }
      }
      // The segment's keys are unit in double (rotationCache.ts's buildSlerpSegments) and the weights exact (or
      // normalized, for nlerp): the result is unit to double rounding, stored as it is.
      out[o] = s0 * seg[a]! + s1 * seg[a + 4]!
      out[o + 1] = s0 * seg[a + 1]! + s1 * seg[a + 5]!
      out[o + 2] = s0 * seg[a + 2]! + s1 * seg[a + 6]!
      out[o + 3] = s0 * seg[a + 3]! + s1 * seg[a + 7]!
    } else if (kind === LINEAR) {
      const cc = ch.components
      const values = ch.values
      const a = k * cc
      const b = a + cc
      for (let j = 0; j < cc; j++) {
        const va = values[a + j]!
        out[o + j] = va + (values[b + j]! - va) * u
      }
    } else if (kind === CUBIC_ROTATION) {
      // CUBICSPLINE rotation: the Hermite curve below per component, normalized in double before the float32
      // store (glTF: blended component-wise, then normalized; a zero result, impossible for unit keys with
      // sane tangents, becomes identity).
      // The segment's 16 floats, from the track's segment-major block (see Channel.hermiteSegments).
      const values = ch.hermiteSegments!
      const v0 = k * ch.hermiteStride + ch.hermiteOffset
      const b0 = v0 + 4
      const a1 = b0 + 4
      const v1 = a1 + 4
      const x = h00 * values[v0]! + h10 * values[b0]! + h01 * values[v1]! + h11 * values[a1]!
      const y = h00 * values[v0 + 1]! + h10 * values[b0 + 1]! + h01 * values[v1 + 1]! + h11 * values[a1 + 1]!
      const z = h00 * values[v0 + 2]! + h10 * values[b0 + 2]! + h01 * values[v1 + 2]! + h11 * values[a1 + 2]!
      const w = h00 * values[v0 + 3]! + h10 * values[b0 + 3]! + h01 * values[v1 + 3]! + h11 * values[a1 + 3]!
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
    } else {
      // CUBICSPLINE: p(u) = h00·v_k + h10·b_k + h01·v_{k+1} + h11·a_{k+1}, with v the values, b the
      // out-tangents, a the in-tangents (triplet layout `| a | v | b |` per key, see Channel).
      const cc = ch.components
      const values = ch.values
      const v0 = k * 3 * cc + cc
      const b0 = v0 + cc
      const a1 = b0 + cc
      const v1 = a1 + cc
      for (let j = 0; j < cc; j++) {
        out[o + j] =
          h00 * values[v0 + j]! + h10 * values[b0 + j]! + h01 * values[v1 + j]! + h11 * values[a1 + j]!
      }
    }
  }
}

/** Key k's value element (the middle of the triplet for CUBICSPLINE), as stored. */
function copyKey(out: Float32Array, o: number, ch: Channel, k: number): void {
  const c = ch.components
  const values = ch.values
  const from = ch.kind >= KIND_CUBIC ? (3 * k + 1) * c : k * c
  for (let j = 0; j < c; j++) out[o + j] = values[from + j]!
}

/** findSegment at reg[TIME]. A hint outside [0, n-2] starts from the last segment. */
export function locate(times: Float32Array, hint: number): number {
  const t = reg[TIME]!
  // Integer arithmetic throughout (`| 0`, `>> 1`): see v8.ts.
  const last = (times.length - 2) | 0
  const k = hint >= 0 && hint <= last ? hint | 0 : last
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
    const mid = (lo + hi + 1) >> 1
    if (times[mid]! <= t) lo = mid
    else hi = mid - 1
  }
  return lo
}
