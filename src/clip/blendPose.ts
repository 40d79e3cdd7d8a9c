import { SLERP_NLERP_COS } from '../math/quat.ts'
import { JOINT_STRIDE } from './poseLayout.ts'
import { wideArcWeights } from './sample.ts'

/**
 * Blends n joints of pose a with pose b by the weight `weights[wi]` (0 = a, 1 = b) into out: translation and
 * scale lerp, rotation shortest-arc slerp (order-independent, unlike accumulating weighted quaternions; normalized
 * lerp when the two are within SLERP_NLERP_COS). Weights at or beyond 0 and 1 copy a or b exactly, bit for bit,
 * so a finished blend has no residue. The weight is read from an array (a store, e.g. `CrossFade.blend` at the
 * entity) so no float crosses a call boundary: V8 boxes floats passed to calls it does not inline.
 * Poses use the layout of poseLayout.ts; `out` may alias a or b (same array and offset). Allocation-free.
 */
/** Below this cos θ (θ > 60°) the slerp weights come from arc sin/acos; above it, from the series. */
const SERIES_MIN_COS = 0.5
const SERIES_TERMS = 14
/** 1/(i(2i + 1)), the constant part of the series' term ratio. */
const SERIES_K = Float64Array.from({ length: SERIES_TERMS }, (_, i) => (i === 0 ? 0 : 1 / (i * (2 * i + 1))))

export function blendJointLayers(
  out: Float32Array,
  oo: number,
  a: Float32Array,
  ao: number,
  b: Float32Array,
  bo: number,
  n: number,
  weights: Float64Array,
  wi: number,
): Float32Array {
  const w = weights[wi]!
  const len = n * JOINT_STRIDE
  if (!(w > 0)) {
    if (out !== a || oo !== ao) copyRange(out, oo, a, ao, len)
    return out
  }
  if (w >= 1) {
    if (out !== b || oo !== bo) copyRange(out, oo, b, bo, len)
    return out
  }
  // Module constants read once per call into locals: V8 11 reads a module-level binding from its context, with a
  // check, at every use (about a tenth of this loop).
  const STRIDE = JOINT_STRIDE
  const NLERP_COS = SLERP_NLERP_COS
  const MIN_COS = SERIES_MIN_COS
  const TERMS = SERIES_TERMS
  const K = SERIES_K
  for (let j = 0; j < n; j++) {
    const o = oo + j * STRIDE
    const pa = ao + j * STRIDE
    const pb = bo + j * STRIDE
    // The ten floats of each joint at their poseLayout offsets (T 0–2, R 3–6, S 7–9), written out rather than
    // looped over; all loaded before the first store, since out may alias a or b.
    const at0 = a[pa]!
    const at1 = a[pa + 1]!
    const at2 = a[pa + 2]!
    const ax = a[pa + 3]!
    const ay = a[pa + 4]!
    const az = a[pa + 5]!
    const aw = a[pa + 6]!
    const as0 = a[pa + 7]!
    const as1 = a[pa + 8]!
    const as2 = a[pa + 9]!
    const bt0 = b[pb]!
    const bt1 = b[pb + 1]!
    const bt2 = b[pb + 2]!
    let bx = b[pb + 3]!
    let by = b[pb + 4]!
    let bz = b[pb + 5]!
    let bw = b[pb + 6]!
    const bs0 = b[pb + 7]!
    const bs1 = b[pb + 8]!
    const bs2 = b[pb + 9]!
    out[o] = at0 + (bt0 - at0) * w
    out[o + 1] = at1 + (bt1 - at1) * w
    out[o + 2] = at2 + (bt2 - at2) * w
    out[o + 7] = as0 + (bs0 - as0) * w
    out[o + 8] = as1 + (bs1 - as1) * w
    out[o + 9] = as2 + (bs2 - as2) * w
    let cos = ax * bx + ay * by + az * bz + aw * bw
    if (cos < 0) {
      cos = -cos
      bx = -bx
      by = -by
      bz = -bz
      bw = -bw
    }
    let s0 = 1 - w
    let s1 = w
    if (cos < NLERP_COS) {
      if (cos >= MIN_COS) {
        // sin(sθ)/sin θ as a power series in y = cos θ − 1 (no trigonometry, no division): a_0 = s,
        // a_i = a_{i−1}·(s² − i²)/(i(2i + 1)). Each term is less than |y|/2 ≤ ¼ of the last, so the tail
        // after a term is below a third of it: the sum stops once both terms are under SERIES_EPS (tail under
        // 4e-10, far below float32 resolution of the result), after 4–6 terms for the 10–30° of a typical
        // cross-fade, and SERIES_TERMS at the 60° limit. Where it stops depends only on the inputs.
        const y = cos - 1
        const u2 = s0 * s0
        const v2 = w * w
        let a = s0
        let b = w
        let sa = a
        let sb = b
        let yi = 1
        for (let i = 1; i < TERMS; i++) {
          const k = K[i]!
          const ii = i * i
          yi *= y
          a *= (u2 - ii) * k
          b *= (v2 - ii) * k
          const ta = a * yi
          const tb = b * yi
          sa += ta
          sb += tb
          if (Math.abs(ta) + Math.abs(tb) < 1e-9) break
        }
        s0 = sa
        s1 = sb
      } else {
        arc[0] = cos
        arc[1] = w
        // Wide arcs are rare within a blend: V8 leaves this call out of line, so nothing float crosses it.
        wideArcWeights(arc)
        s0 = arc[0]!
        s1 = arc[1]!
      }
    }
    const x = s0 * ax + s1 * bx
    const y = s0 * ay + s1 * by
    const z = s0 * az + s1 * bz
    const qw = s0 * aw + s1 * bw
    const inv = 1 / Math.sqrt(x * x + y * y + z * z + qw * qw)
    out[o + 3] = x * inv
    out[o + 4] = y * inv
    out[o + 5] = z * inv
    out[o + 6] = qw * inv
  }
  return out
}

/** wideArcWeights' in/out registers: cos θ and the weight in, the two slerp weights out. */
const arc = new Float64Array(2)

function copyRange(out: Float32Array, oo: number, src: Float32Array, so: number, len: number): void {
  if (out === src) out.copyWithin(oo, so, so + len)
  else for (let i = 0; i < len; i++) out[oo + i] = src[so + i]!
}
