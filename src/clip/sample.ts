import type { Channel, Clip, RotationMode } from './clip.ts'
import {
  clipOf,
  KIND_CUBIC,
  KIND_CUBIC_ROTATION,
  KIND_LINEAR,
  KIND_SLERP,
  KIND_STEP,
  prepareSquad,
} from './clip.ts'
import { OPPOSITE_SEGMENT } from './rotationCache.ts'
import { seriesCoefficients } from './blendLayers.ts'

/**
 * Float arguments of the per-frame kernels travel through this module scratch rather than call arguments: V8
 * boxes (allocates 16 bytes for) every float passed to or returned from a call it does not inline, and sampling
 * runs for every channel of every character every step. JavaScript is single-threaded and these kernels do not
 * re-enter, so one scratch is safe. The hot kinds (lerp, slerp, Hermite) are written inline in `sampleList`,
 * whose float locals never cross a call; only the rarer paths below are calls.
 *   [0] time   clip-local seconds being sampled
 *   [1] u      position in the current segment, [0, 1)
 *   [2] weight a slerp's fraction t (squad's outer slerp: its series coefficients, its wide-arc path)
 *   [3] angle  a slerp's angle θ in radians, or the cosine acosArc turns into one
 *   [4] w0     longArcWeights' results, sin((1 − t)·θ) and sin(t·θ)
 *   [5] w1
 */
const reg = new Float64Array(6)
const TIME = 0
const U = 1
const WEIGHT = 2
const ANGLE = 3
const W0 = 4
const W1 = 5

/**
 * Sampling one channel at one time, for tools and tests; systems sample whole clips with `sampleClipChannels`
 * (same code, same bits). Allocation-free; trusts the channel (validated by buildClip); clamps instead of
 * throwing.
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
  single[0] = channel
  // sampleList reads the cursor at cursorStart + channel.track.
  sampleList(
    out,
    offset,
    single,
    singleBinding,
    cursors,
    cursorIndex - channel.track,
    rotationMode === 'squad',
  )
  return out
}

/**
 * sampleChannel for the step: the time is read from `timeOf[timeIndex]` (a float argument would be boxed where
 * V8 does not inline the call) and squad is a flag. Same code, same bits as sampleClipChannels gives that
 * channel. Allocation-free.
 */
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
  sampleList(out, offset, single, singleBinding, cursors, cursorIndex - channel.track, squad)
}

const single: Channel[] = []
/** Offset 0 from `offset`: the one channel writes at out[offset ..]. */
const singleBinding = new Int32Array(1)

/**
 * Samples every bound channel of `clip` at clip-local time `timeOf[timeIndex]` (seconds; read from an array so
 * no float crosses a call boundary in the frame loop, see `reg`) into a pose layer: channel c goes to
 * `data[layer + binding[c] ..]` (skipped when `binding[c]` < 0). LINEAR rotation channels use squad when
 * `squad` is true.
 *
 * Key cursors: one per time track (see `Channel.track`), at `cursors[cursorStart + track]`; the segment is
 * searched once per track, not once per channel. Slots of channels that are not a track's first are untouched.
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
  sampleList(data, layer, clip.frameChannels, binding, cursors, cursorStart, squad)
}

// Taylor coefficients of sin, (−1)^k / (2k+1)!, each rounded once from the exact rational (as in detmath.ts).
const ARC_S3 = -1 / 6
const ARC_S5 = 1 / 120
const ARC_S7 = -1 / 5040
const ARC_S9 = 1 / 362880
const ARC_S11 = -1 / 39916800
/** All of detSinArc's coefficients, S3 … S21, for its series (Horner from the last). */
const ARC_SERIES = Float64Array.of(
  ARC_S3,
  ARC_S5,
  ARC_S7,
  ARC_S9,
  ARC_S11,
  1 / 6227020800,
  -1 / 1307674368000,
  1 / 355687428096000,
  -1 / 121645100408832000,
  1 / 51090942171709440000,
)
const ARC_TERMS = ARC_SERIES.length
/** π/2 and π = PI_HI + PI_LO, as in detmath.ts (detSinArc's reflection above π/2). */
const HALF_PI_HI = 1.5707963267948966
const PI_HI = 3.141592653589793
const PI_LO = 1.2246467991473532e-16

/**
 * Largest slerp segment angle (radians) whose sines use the short series `shortArcSin`. Mocap keys are far
 * closer than this (a key every 1/30 s rarely turns a joint 0.5 rad).
 */
export const SHORT_ARC = 0.25

/**
 * sin x for x in [0, SHORT_ARC], the Taylor series to x¹¹: its truncation error is below x¹³/13! ≤ 2.4e-18,
 * under 0.1 ulp of the result, so it stays within one ulp of detSinArc (test/clip/sampleClipChannels.test.ts).
 * `sampleList` writes this polynomial out inline (a float argument would be boxed); this copy is for tests.
 */
export function shortArcSin(x: number): number {
  const z = x * x
  return x + x * z * (ARC_S3 + z * (ARC_S5 + z * (ARC_S7 + z * (ARC_S9 + z * ARC_S11))))
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
  // Constants as literals in the function rather than the module's names: V8 11 reads a module-level binding
  // from its context at every use and checks its type (an import also for the dead zone), ~8% of this loop.
  // Kinds as in clip.ts (KIND_*); the rest as in this module (ARC_S*, SHORT_ARC, ...), which tests compare.
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
        // `| 0`: a cursor read as int32 (a garbage one above 2^31 turns negative, which locate rejects) keeps
        // k an integer; as a uint32 it would be a double, and V8 boxed it on the way into the binary search.
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
            // series coefficients (see blendLayers.ts) are made once here.
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
          // shortArcSin, inline.
          const z0 = x0 * x0
          const z1 = x1 * x1
          s0 = (x0 + x0 * z0 * (S3 + z0 * (S5 + z0 * (S7 + z0 * (S9 + z0 * S11))))) * weight
          s1 = (x1 + x1 * z1 * (S3 + z1 * (S5 + z1 * (S7 + z1 * (S9 + z1 * S11))))) * weight
        } else {
          // detSinArc (θ ≤ π/2 here), its series written out with the same operations, so the same bits: a
          // call could stay out of line and box its argument.
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

/**
 * Index k of the segment with times[k] ≤ t < times[k+1], for times[0] < t < times[n-1].
 * Tries the hint, then its neighbours, then binary search.
 */
export function findSegment(times: Float32Array, t: number, hint: number): number {
  reg[TIME] = t
  return locate(times, hint)
}

/** findSegment at reg[TIME]. A hint outside [0, n-2] starts from the last segment. */
function locate(times: Float32Array, hint: number): number {
  const t = reg[TIME]!
  // Integer arithmetic throughout (`| 0`, `>> 1`): a typed array's length and a uint32 are doubles to V8, and a
  // double index crossing the call into searchSegment would be boxed.
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

/**
 * Shoemake's squad on one segment: slerp(slerp(q_k, q_{k+1}, u), slerp(s_k, s_{k+1}, u), 2u(1−u)), on the
 * hemisphere-aligned keys and controls, from the segment's 20 doubles at b[base ..] (`Channel.squad`, key
 * angle and weight, control angle and weight, q_k, q_{k+1}, s_k, s_{k+1}), u from reg[U], in doubles. The
 * first two slerps have fixed ends, so their angles come from the build (buildRotationCaches' `slerpCache`:
 * aligned keys are within 90°, no flip, the cached weight's magnitude is 1/sin θ; `controlCache`); the last
 * one's is found here. None takes the short-arc flip (the controls follow their own path); slerps of unit
 * ends are unit to rounding, nlerps are normalized, the result is normalized. Every float stays a local or
 * goes through `reg`, so a kernel V8 leaves out of line allocates nothing.
 */
function squad(out: Float32Array, offset: number, b: Float64Array, base: number): void {
  const u = reg[U]!
  // p ← slerp(q_k, q_k+1, u), normalized (a zero result, impossible for unit keys, becomes identity).
  const keyAngle = b[base]!
  let s0 = 1 - u
  let s1 = u
  if (keyAngle >= 0) {
    const invSin = Math.abs(b[base + 1]!)
    s0 = arcSin(s0 * keyAngle) * invSin
    s1 = arcSin(u * keyAngle) * invSin
  }
  let px = s0 * b[base + 4]! + s1 * b[base + 8]!
  let py = s0 * b[base + 5]! + s1 * b[base + 9]!
  let pz = s0 * b[base + 6]! + s1 * b[base + 10]!
  let pw = s0 * b[base + 7]! + s1 * b[base + 11]!
  if (keyAngle < 0) {
    // nlerp: normalized (a zero result, impossible for unit keys, becomes identity). A slerp of unit keys is
    // unit to rounding already.
    const len2 = px * px + py * py + pz * pz + pw * pw
    if (len2 > 0) {
      const inv = 1 / Math.sqrt(len2)
      px *= inv
      py *= inv
      pz *= inv
      pw *= inv
    } else {
      px = 0
      py = 0
      pz = 0
      pw = 1
    }
  }
  // c ← slerp(s_k, s_k+1, u), normalized; s_k itself when the controls are opposite.
  let cx = b[base + 12]!
  let cy = b[base + 13]!
  let cz = b[base + 14]!
  let cw = b[base + 15]!
  const controlAngle = b[base + 2]!
  if (controlAngle !== OPPOSITE_SEGMENT) {
    s0 = 1 - u
    s1 = u
    if (controlAngle >= 0) {
      const invSin = b[base + 3]!
      s0 = arcSin(s0 * controlAngle) * invSin
      s1 = arcSin(u * controlAngle) * invSin
    }
    cx = s0 * cx + s1 * b[base + 16]!
    cy = s0 * cy + s1 * b[base + 17]!
    cz = s0 * cz + s1 * b[base + 18]!
    cw = s0 * cw + s1 * b[base + 19]!
    if (controlAngle < 0) {
      const inv = 1 / Math.sqrt(cx * cx + cy * cy + cz * cz + cw * cw)
      cx *= inv
      cy *= inv
      cz *= inv
      cw *= inv
    }
  }
  // out ← slerp(p, c, 2u(1−u)), normalized (no short-arc flip: the controls follow their own path).
  const cos = px * cx + py * cy + pz * cz + pw * cw
  let norm = 0
  if (cos >= 0) {
    // Within 90°, as p and c are for any sane curve: sin(tθ)/sin θ from a power series with the coefficients
    // sampleList made for this track's u, exact to well under float32 resolution, no arc cosine.
    // - close (cos θ ≥ CLOSE_COS, the usual case: c is a control curve near p): the series in y = cos θ − 1
    //   (closeSeries; truncation below 1e-13 at θ ≤ 25.8°); the weights are exact and p, c unit to float32
    //   rounding, so the result needs no normalization: no square root or division on the way;
    // - otherwise the half-angle series of blendJointLayers in y = cos(θ/2) − 1 (squadSeries), which drops
    //   sin θ's factor 2·cos(θ/2): dividing by it normalizes the result to the same rounding.
    const close = cos >= CLOSE_COS
    const c = close ? closeSeries : squadSeries
    const y = close ? cos - 1 : Math.sqrt((1 + cos) * 0.5) - 1
    const y2 = y * y
    const y4 = y2 * y2
    const y8 = y4 * y4
    s0 =
      c[0]! +
      c[1]! * y +
      (c[2]! + c[3]! * y) * y2 +
      (c[4]! + c[5]! * y + (c[6]! + c[7]! * y) * y2) * y4 +
      (c[8]! + c[9]! * y) * y8
    s1 =
      c[10]! +
      c[11]! * y +
      (c[12]! + c[13]! * y) * y2 +
      (c[14]! + c[15]! * y + (c[16]! + c[17]! * y) * y2) * y4 +
      (c[18]! + c[19]! * y) * y8
    norm = close ? 1 : 0.5 / (y + 1)
  } else if (cos > -1) {
    // Wider (rare): θ from the arc cosine, its sines by the series.
    reg[ANGLE] = cos
    acosArc()
    reg[WEIGHT] = 2 * u * (1 - u)
    longArcWeights()
    const invSin = 1 / Math.sqrt(1 - cos * cos)
    s0 = reg[W0]! * invSin
    s1 = reg[W1]! * invSin
  } else {
    // Exactly opposite: no defined path, p.
    s0 = 1
    s1 = 0
  }
  px = s0 * px + s1 * cx
  py = s0 * py + s1 * cy
  pz = s0 * pz + s1 * cz
  pw = s0 * pw + s1 * cw
  const inv = norm > 0 ? norm : 1 / Math.sqrt(px * px + py * py + pz * pz + pw * pw)
  out[offset] = px * inv
  out[offset + 1] = py * inv
  out[offset + 2] = pz * inv
  out[offset + 3] = pw * inv
}

/** Squad's outer-slerp series coefficients for the current track's u (made in sampleList). */
const squadSeries = new Float64Array(20)

/** Smallest cos θ between squad's p and c for the close series (θ ≤ 25.8°, |cos θ − 1| ≤ 0.1). */
const CLOSE_COS = 0.9
/** Squad's close-series coefficients for the current track's u (made in sampleList; see squad). */
const closeSeries = new Float64Array(20)

/**
 * sin x for 0 ≤ x ≤ π/2 (squad's inner slerps: their angles are at most π/2): shortArcSin's series up to
 * SHORT_ARC, detSinArc's series and reflection beyond (within an ulp of detSinArc throughout). Takes a float
 * argument: V8 inlines a function this small into squad (the squad crowd measures 0 bytes allocated per step).
 */
function arcSin(x: number): number {
  if (x <= SHORT_ARC) {
    const z = x * x
    return x + x * z * (ARC_S3 + z * (ARC_S5 + z * (ARC_S7 + z * (ARC_S9 + z * ARC_S11))))
  }
  const y = x > HALF_PI_HI ? PI_HI - x + PI_LO : x
  const z = y * y
  let p = ARC_SERIES[ARC_TERMS - 1]!
  for (let i = ARC_TERMS - 2; i >= 0; i--) p = ARC_SERIES[i]! + z * p
  return y + y * z * p
}

/**
 * reg[W0], reg[W1] ← sin((1 − t)·θ), sin(t·θ) for θ = reg[ANGLE] in [0, π], t = reg[WEIGHT]: detSinArc's series
 * and reflection, the same operations, so the same bits (squad's outer slerp on a wide arc).
 */
function longArcWeights(): void {
  const theta = reg[ANGLE]!
  const t = reg[WEIGHT]!
  const x0 = (1 - t) * theta
  const x1 = t * theta
  const y0 = x0 > HALF_PI_HI ? PI_HI - x0 + PI_LO : x0
  const y1 = x1 > HALF_PI_HI ? PI_HI - x1 + PI_LO : x1
  const z0 = y0 * y0
  const z1 = y1 * y1
  let p0 = ARC_SERIES[ARC_TERMS - 1]!
  let p1 = p0
  for (let i = ARC_TERMS - 2; i >= 0; i--) {
    p0 = ARC_SERIES[i]! + z0 * p0
    p1 = ARC_SERIES[i]! + z1 * p1
  }
  reg[W0] = y0 + y0 * z0 * p0
  reg[W1] = y1 + y1 * z1 * p1
}

// detAcosArc's constants (detmath.ts): tan(π/16), tan(3π/16), tan(π/8); π/8 and π/4 split into hi + lo.
const TAN_PI_16 = 0.198912367379658
const TAN_3PI_16 = 0.6681786379192989
const TAN_PI_8 = 0.41421356237309503
const EIGHTH_PI_HI = 0.39269908169872414
const EIGHTH_PI_LO = 1.5308084989341915e-17
const QUARTER_PI_HI = 0.7853981633974483
const QUARTER_PI_LO = 3.061616997868383e-17
/** The atan series' coefficients −1/3, 1/5, …, −1/23 (its last term, w/25, is a division, kept as one). */
const ATAN_SERIES = Float64Array.from({ length: 11 }, (_, i) => (i % 2 === 0 ? -1 : 1) / (2 * i + 3))

/** reg[ANGLE] ← detAcosArc(reg[ANGLE]), by the same operations (so the same bits), without a float argument. */
function acosArc(): void {
  const c = reg[ANGLE]!
  const a = c < 0 ? (c < -1 ? 1 : -c) : c > 1 ? 1 : c
  const t = Math.sqrt((1 - a) / (1 + a))
  let base = 0
  let baseLo = 0
  let z = t
  if (t > TAN_3PI_16) {
    base = QUARTER_PI_HI
    baseLo = QUARTER_PI_LO
    z = (t - 1) / (1 + t)
  } else if (t > TAN_PI_16) {
    base = EIGHTH_PI_HI
    baseLo = EIGHTH_PI_LO
    z = (t - TAN_PI_8) / (1 + t * TAN_PI_8)
  }
  const w = z * z
  let poly = ATAN_SERIES[10]! + w / 25
  for (let i = 9; i >= 0; i--) poly = ATAN_SERIES[i]! + w * poly
  const theta = 2 * (base + (z + z * w * poly + baseLo))
  reg[ANGLE] = c < 0 ? PI_HI - theta + PI_LO : theta
}

/** Test hooks: the register kernels above as plain functions (for comparison with detmath.ts). */
export function sinArcByKernel(x: number): number {
  return arcSin(x)
}
export function acosArcByKernel(c: number): number {
  reg[ANGLE] = c
  acosArc()
  return reg[ANGLE]!
}
