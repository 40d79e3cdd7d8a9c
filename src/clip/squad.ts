import { detAcosArc, detSinArc } from '../math/detmath.ts'
import { slerpSeries, slerpSeriesCoefficients, SERIES_TERMS } from '../math/slerpSeries.ts'
import { arcSin } from './arcKernels.ts'
import { OPPOSITE_SEGMENT } from './rotationCache.ts'

/**
 * Shoemake's squad on one segment at u ∈ (0, 1): slerp(slerp(q_k, q_{k+1}, u), slerp(s_k, s_{k+1}, u), 2u(1−u)),
 * on the hemisphere-aligned keys and controls, from the segment's 20 doubles at b[base ..] (`Channel.squad`: key
 * angle and weight, control angle and weight, q_k, q_{k+1}, s_k, s_{k+1}), in doubles, into out[offset ..]. The
 * first two slerps have fixed ends, so their angles come from the build (buildRotationCaches' `slerpCache`:
 * aligned keys are within 90°, no flip, the cached weight's magnitude is 1/sin θ; `controlCache`); the last
 * one's is found here. None takes the short-arc flip (the controls follow their own path); slerps of unit
 * ends are unit to rounding, nlerps are normalized, the result is normalized. Allocation-free.
 */
export function squad(out: Float32Array, offset: number, b: Float64Array, base: number, u: number): void {
  // p ← slerp(q_k, q_k+1, u), or their nlerp (keyAngle < 0).
  innerSlerp(p, b, base, base + 4, u, true)
  // c ← slerp(s_k, s_k+1, u), normalized; s_k itself when the controls are opposite.
  innerSlerp(c, b, base + 2, base + 12, u, false)
  // out ← slerp(p, c, t), t = 2u(1−u), normalized (no short-arc flip: the controls follow their own path).
  const t = 2 * u * (1 - u)
  const cos = p[0]! * c[0]! + p[1]! * c[1]! + p[2]! * c[2]! + p[3]! * c[3]!
  let s0 = 1
  let s1 = 0
  let norm = 0
  if (cos >= 0) {
    // Within 90°, as p and c are for any sane curve: sin(tθ)/sin θ from a power series (slerpSeries.ts), exact to
    // well under float32 resolution, no arc cosine.
    // - close (cos θ ≥ CLOSE_COS, the usual case: c is a control curve near p): the series in y = cos θ − 1
    //   (truncation below 1e-13 at θ ≤ 25.8°); the weights are exact and p, c unit to float32 rounding, so the
    //   result needs no normalization;
    // - otherwise the half-angle series in y = cos(θ/2) − 1, which drops sin θ's factor 2·cos(θ/2): dividing
    //   by it normalizes the result to the same rounding.
    const close = cos >= CLOSE_COS
    slerpSeriesCoefficients(coefficients, t, close ? 1 : 2)
    const y = close ? cos - 1 : Math.sqrt((1 + cos) * 0.5) - 1
    s0 = slerpSeries(coefficients, 0, y)
    s1 = slerpSeries(coefficients, SERIES_TERMS, y)
    norm = close ? 1 : 0.5 / (y + 1)
  } else if (cos > -1) {
    // Wider (rare): θ from the arc cosine, its sines by the series.
    const theta = detAcosArc(cos)
    const invSin = 1 / Math.sqrt(1 - cos * cos)
    s0 = detSinArc((1 - t) * theta) * invSin
    s1 = detSinArc(t * theta) * invSin
  }
  // Exactly opposite (cos = −1): no defined path, p.
  for (let i = 0; i < 4; i++) p[i] = s0 * p[i]! + s1 * c[i]!
  const inv = norm > 0 ? norm : 1 / Math.sqrt(p[0]! * p[0]! + p[1]! * p[1]! + p[2]! * p[2]! + p[3]! * p[3]!)
  for (let i = 0; i < 4; i++) out[offset + i] = p[i]! * inv
}

/** Smallest cos θ between squad's p and c for the close series (θ ≤ 25.8°, |cos θ − 1| ≤ 0.1). */
export const CLOSE_COS = 0.9

/**
 * out ← slerp(b[from ..], b[from + 4 ..], u) by the angle b[angleAt] and weight b[angleAt + 1] cached at build:
 * a negative angle is an nlerp, normalized (a zero result, impossible for unit keys, becomes identity). `keys`:
 * the key pair, whose weight is signed (its magnitude is 1/sin θ); the control pair's may be OPPOSITE_SEGMENT,
 * which leaves the first control.
 */
function innerSlerp(
  out: Float64Array,
  b: Float64Array,
  angleAt: number,
  from: number,
  u: number,
  keys: boolean,
): void {
  const angle = b[angleAt]!
  for (let i = 0; i < 4; i++) out[i] = b[from + i]!
  if (!keys && angle === OPPOSITE_SEGMENT) return
  let s0 = 1 - u
  let s1 = u
  if (angle >= 0) {
    const invSin = keys ? Math.abs(b[angleAt + 1]!) : b[angleAt + 1]!
    s0 = arcSin(s0 * angle) * invSin
    s1 = arcSin(u * angle) * invSin
  }
  for (let i = 0; i < 4; i++) out[i] = s0 * out[i]! + s1 * b[from + 4 + i]!
  if (angle >= 0) return
  const len2 = out[0]! * out[0]! + out[1]! * out[1]! + out[2]! * out[2]! + out[3]! * out[3]!
  // The controls' nlerp is never zero (they are not opposite here).
  if (len2 > 0 || !keys) {
    const inv = 1 / Math.sqrt(len2)
    for (let i = 0; i < 4; i++) out[i] = out[i]! * inv
  } else {
    out.fill(0, 0, 3)
    out[3] = 1
  }
}

/** p and c, and the outer slerp's series coefficients (working memory). */
const p = new Float64Array(4)
const c = new Float64Array(4)
const coefficients = new Float64Array(2 * SERIES_TERMS)
