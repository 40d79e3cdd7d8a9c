import { OPPOSITE_SEGMENT } from '../clip/rotationCache.ts'
import { arcSin } from '../clip/arcKernels.ts'
import { CLOSE_COS } from '../clip/squad.ts'
import { acosArc, longArcWeights } from './arcKernels.ts'
import { ANGLE, reg, U, W0, W1, WEIGHT } from './sampleScratch.ts'

/**
 * The fast form of squad (src/clip/squad.ts, which says what it computes): u from reg[U], the outer slerp's
 * series coefficients made by the sampler once per time track (squadSeries, closeSeries), the wide arc's
 * functions through `reg` (why: v8.ts). The same bits as the clean form (test/engine/sample.test.ts).
 */
export function squad(out: Float32Array, offset: number, b: Float64Array, base: number): void {
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
    // - otherwise the half-angle series of the pose blends in y = cos(θ/2) − 1 (squadSeries), which drops
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
export const squadSeries = new Float64Array(20)
/** Squad's close-series coefficients for the current track's u (made in sampleList; see squad). */
export const closeSeries = new Float64Array(20)
