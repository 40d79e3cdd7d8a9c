import { JOINT_STRIDE, R_OFFSET, S_OFFSET, T_OFFSET } from '../math/poseLayout.ts'
import { nearUnitInverseLength, seriesSlerp, slerpSeriesCoefficients } from '../math/slerpSeries.ts'

/** Bit of blendPoses' `paths`: blend this joint's translation. */
export const BLEND_T = 1
/** Bit of blendPoses' `paths`: blend this joint's scale. */
export const BLEND_S = 2

/**
 * Blends n joints of pose a with pose b by `weight` (0 = a, 1 = b) into out: translation and scale lerp,
 * rotation shortest-arc slerp (order-independent, unlike accumulating weighted quaternions) by the series of
 * src/math/slerpSeries.ts, exact to well under float32 resolution at every angle, then normalized. A weight at or
 * beyond 0 or 1 copies a or b exactly, bit for bit, so a finished blend has no residue. Poses use the layout of
 * poseLayout.ts; `out` may alias a or b (same array and offset). Allocation-free; only + − × ÷ and √, so the same
 * bits in every engine. Returns out.
 *
 * `paths` (optional, one byte per joint, e.g. from blendPaths): joint j's translation is blended only when bit
 * BLEND_T of `paths[j]` is set, its scale only with BLEND_S; rotation always. A clear bit leaves out's values
 * there untouched, which is exact only where a, b and out already hold the same finite value, not −0 (the lerp
 * would give that value back bit for bit): blendPaths clears a bit only there, so a mask changes the cost of a
 * blend, never its result. A cross-fade's two poses agree on every path neither clip drives, which is most
 * translations and scales of a skinned character; the fade's blend skips them.
 */
export function blendPoses(
  out: Float32Array,
  oo: number,
  a: Float32Array,
  ao: number,
  b: Float32Array,
  bo: number,
  n: number,
  weight: number,
  paths: Uint8Array | null = null,
): Float32Array {
  return blend(out, oo, a, ao, b, bo, n, weight, paths, false)
}

/**
 * An override layer's blend, `out` slerped and lerped toward `pose` by `weight` (blendPoses(out, oo, out, oo,
 * pose, po, n, weight)) with the rotation normalized without a square root on its dependency chain: the series'
 * factor 1/(2 cos φ) applied leaves the slerp unit to float32 rounding of the keys, and nearUnitInverseLength
 * finishes it. Within one float32 ulp of blendPoses (in practice bit for bit); cross-fades keep blendPoses,
 * whose bits the fades' pinned hashes hold.
 */
export function overridePose(
  out: Float32Array,
  oo: number,
  pose: Float32Array,
  po: number,
  n: number,
  weight: number,
): Float32Array {
  return blend(out, oo, out, oo, pose, po, n, weight, null, true)
}

/** The series' coefficients and one slerped rotation, in double (working memory; nothing re-enters here). */
const coefficients = new Float64Array(20)
const q = new Float64Array(4)

function blend(
  out: Float32Array,
  oo: number,
  a: Float32Array,
  ao: number,
  b: Float32Array,
  bo: number,
  n: number,
  w: number,
  paths: Uint8Array | null,
  nearUnit: boolean,
): Float32Array {
  const len = n * JOINT_STRIDE
  if (!(w > 0)) return copyRange(out, oo, a, ao, len)
  if (w >= 1) return copyRange(out, oo, b, bo, len)
  slerpSeriesCoefficients(coefficients, w, 2)
  for (let j = 0; j < n; j++) {
    const o = oo + j * JOINT_STRIDE
    const pa = ao + j * JOINT_STRIDE
    const pb = bo + j * JOINT_STRIDE
    const m = paths === null ? BLEND_T | BLEND_S : paths[j]!
    const cosHalf = seriesSlerp(q, 0, a, pa + R_OFFSET, b, pb + R_OFFSET, coefficients)
    if (nearUnit) {
      const k = 0.5 / cosHalf
      for (let i = 0; i < 4; i++) q[i] = q[i]! * k
      const inv = nearUnitInverseLength(q[0]! * q[0]! + q[1]! * q[1]! + q[2]! * q[2]! + q[3]! * q[3]! - 1)
      for (let i = 0; i < 4; i++) out[o + R_OFFSET + i] = q[i]! * inv
    } else {
      const inv = 1 / Math.sqrt(q[0]! * q[0]! + q[1]! * q[1]! + q[2]! * q[2]! + q[3]! * q[3]!)
      for (let i = 0; i < 4; i++) out[o + R_OFFSET + i] = q[i]! * inv
    }
    if ((m & BLEND_T) !== 0) lerp3(out, o + T_OFFSET, a, pa + T_OFFSET, b, pb + T_OFFSET, w)
    if ((m & BLEND_S) !== 0) lerp3(out, o + S_OFFSET, a, pa + S_OFFSET, b, pb + S_OFFSET, w)
  }
  return out
}

/** out[o..o+3) = a + (b − a)·w, per component (each read before it is written: out may alias a or b). */
function lerp3(
  out: Float32Array,
  o: number,
  a: Float32Array,
  ao: number,
  b: Float32Array,
  bo: number,
  w: number,
): void {
  for (let i = 0; i < 3; i++) {
    const v = a[ao + i]!
    out[o + i] = v + (b[bo + i]! - v) * w
  }
}

/** out[oo..oo+len) = src[so..so+len) (copyWithin within one array, so any overlap is fine). */
function copyRange(out: Float32Array, oo: number, src: Float32Array, so: number, len: number): Float32Array {
  if (out === src) {
    if (oo !== so) out.copyWithin(oo, so, so + len)
  } else for (let i = 0; i < len; i++) out[oo + i] = src[so + i]!
  return out
}

/**
 * The `paths` of blendPoses for blending n joints of pose a into pose b while two clips drive them
 * (`bindingA`, `bindingB`: channel → float offset in a pose, joint·10 + path offset, -1 unbound; undefined for
 * a pose no clip drives, e.g. a frozen one): BLEND_T (BLEND_S) is set for joint j when a binding drives its
 * translation (scale), or when a and b do not hold the same finite, non-(−0) values there now. Setup code (when
 * a fade starts or is restored), allocation-free. Returns out.
 */
export function blendPaths(
  out: Uint8Array,
  a: Float32Array,
  ao: number,
  b: Float32Array,
  bo: number,
  n: number,
  bindingA: Int32Array | undefined,
  bindingB: Int32Array | undefined,
): Uint8Array {
  for (let j = 0; j < n; j++) {
    const pa = ao + j * JOINT_STRIDE
    const pb = bo + j * JOINT_STRIDE
    out[j] =
      (sameValues(a, pa + T_OFFSET, b, pb + T_OFFSET) ? 0 : BLEND_T) |
      (sameValues(a, pa + S_OFFSET, b, pb + S_OFFSET) ? 0 : BLEND_S)
  }
  if (bindingA !== undefined) markDriven(out, n, bindingA)
  if (bindingB !== undefined) markDriven(out, n, bindingB)
  return out
}

/** Sets BLEND_T (BLEND_S) for every joint below n whose translation (scale) `binding` drives. */
function markDriven(out: Uint8Array, n: number, binding: Int32Array): void {
  for (let c = 0; c < binding.length; c++) {
    const offset = binding[c]!
    if (offset < 0) continue
    const j = Math.floor(offset / JOINT_STRIDE)
    const path = offset - j * JOINT_STRIDE
    if (j < n) out[j] = out[j]! | (path === T_OFFSET ? BLEND_T : path === S_OFFSET ? BLEND_S : 0)
  }
}

/** Whether the three floats at a[ao ..] and b[bo ..] are equal, finite and none is −0. */
function sameValues(a: Float32Array, ao: number, b: Float32Array, bo: number): boolean {
  for (let k = 0; k < 3; k++) {
    const x = a[ao + k]!
    const y = b[bo + k]!
    // Finite: x - x is 0; ±0 by their reciprocals (Object.is cost a restore's fade plans ~2/3 of their time).
    if (x !== y || x - x !== 0 || (x === 0 && (1 / x < 0 || 1 / y < 0))) return false
  }
  return true
}
