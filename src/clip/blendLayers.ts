import { JOINT_STRIDE, S_OFFSET, T_OFFSET } from '../math/poseLayout.ts'

/**
 * blendJointLayers' slerp weights sin((1 − w)θ)/sin θ and sin(wθ)/sin θ come from the half angle φ = θ/2
 * (θ ≤ π/2 after the short-arc flip, so φ ≤ π/4): sin(wθ)/sin θ = f(2w, cos φ) / (2 cos φ) with
 * f(t, x) = sin(tφ)/sin φ, whose power series in y = x − 1 has coefficients c_0 = t,
 * c_i = c_{i−1}·(t² − i²)/(i(2i + 1)), fixed for a call (one weight for all joints). cos φ = √((1 + cos θ)/2);
 * the common factor 1/(2 cos φ) is dropped, since the result is normalized. At φ ≤ π/4, |y| ≤ 0.293 and
 * SERIES_TERMS = 10 terms leave a truncation error below 6e-10 (float32 resolution is 6e-8); the series has no
 * division by sin θ, so equal keys need no nlerp fallback. The polynomials are evaluated by Estrin's scheme
 * (short dependency chains), the same operations every call.
 */
const SERIES_TERMS = 10

/** Bits of blendJointLayers' `paths`: blend this joint's translation (BLEND_T), its scale (BLEND_S). */
export const BLEND_T = 1
/** Bit of blendJointLayers' `paths`: blend this joint's scale (see BLEND_T). */
export const BLEND_S = 2

/** 1/(i(2i + 1)), the constant part of the series' coefficient ratio. */
const SERIES_K = Float64Array.from({ length: SERIES_TERMS }, (_, i) => (i === 0 ? 0 : 1 / (i * (2 * i + 1))))
/** This call's series coefficients: [0, 10) for a's weight (t = 2(1 − w)), [10, 20) for b's (t = 2w). */
const coefficients = new Float64Array(2 * SERIES_TERMS)

/**
 * Coefficients of sin(tθ)/sin θ's power series (c_0 = t, c_i = c_{i−1}·(t² − i²)/(i(2i + 1))) for
 * t = scale·(1 − w) into out[0, 10) and t = scale·w into out[10, 20), w = `w[wi]`. Scale 2 gives the half-angle
 * series of blendJointLayers (f(2w, ·) in cos(θ/2) − 1); scale 1 the series in cos θ − 1 (the sampler's squad
 * uses both). Allocation-free.
 */
export function seriesCoefficients(
  out: Float64Array,
  w: Float64Array,
  wi: number,
  scale: number,
): Float64Array {
  const K = SERIES_K
  const TERMS = SERIES_TERMS
  let ca = scale * (1 - w[wi]!)
  let cb = scale * w[wi]!
  const ta2 = ca * ca
  const tb2 = cb * cb
  out[0] = ca
  out[TERMS] = cb
  for (let i = 1; i < TERMS; i++) {
    const ii = i * i
    ca *= (ta2 - ii) * K[i]!
    cb *= (tb2 - ii) * K[i]!
    out[i] = ca
    out[TERMS + i] = cb
  }
  return out
}

/**
 * Blends n joints of pose a with pose b by the weight `weights[wi]` (0 = a, 1 = b) into out: translation and
 * scale lerp, rotation shortest-arc slerp (order-independent, unlike accumulating weighted quaternions), exact to
 * well under float32 resolution at every angle, with no branch on the angle. Weights at or beyond 0 and 1 copy a
 * or b exactly, bit for bit, so a finished blend has no residue. The weight is read from an array (a store, e.g.
 * `CrossFade.blend` at the entity) so no float crosses a call boundary: V8 boxes floats passed to calls it does
 * not inline. Poses use the layout of poseLayout.ts; `out` may alias a or b (same array and offset).
 * Allocation-free; only + − × ÷ and √, so the same bits in every engine.
 *
 * `paths` (optional, one byte per joint, e.g. from blendPaths): joint j's translation is blended only when bit
 * BLEND_T of `paths[j]` is set, its scale only with BLEND_S; rotation always. A clear bit leaves out's values
 * there untouched, which is exact only where a, b and out already hold the same finite value, not −0 (the lerp
 * would give that value back bit for bit): blendPaths clears a bit only there, so a mask changes the cost of a
 * blend, never its result. A cross-fade's FROM and TO layers agree on every path neither clip drives (the values
 * the fade started with), which is most translations and scales of a skinned character (the bench rig and the
 * Fox drive rotations and one translation); the fade's blend skips them.
 *
 * `nearUnit` (layers' overrides): the rotation is normalized without a square root on its dependency chain —
 * the series' dropped factor 1/(2 cos φ) divided back in (off the chain) leaves the slerp unit to float32
 * rounding of the keys, and 1/√(1 + e) is then its series in e = |q|² − 1 to the e³ term (a true square root
 * beyond |e| = 2⁻¹⁰, where the series' error is 3e-13; at the |e| ≈ 1e-7 of unit keys it is exact to double).
 * Both forms give the normalized rotation to double rounding, so the stored float32 agrees with the default to
 * within one unit in the last place (in practice bit for bit); cross-fades keep the default, whose bits the
 * fades' pinned hashes hold.
 */
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
  paths: Uint8Array | null = null,
  nearUnit = false,
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
  const T_BIT = BLEND_T
  const S_BIT = BLEND_S
  const BLEND_TS = T_BIT | S_BIT
  const c = seriesCoefficients(coefficients, weights, wi, 2)
  const a0 = c[0]!
  const a1 = c[1]!
  const a2 = c[2]!
  const a3 = c[3]!
  const a4 = c[4]!
  const a5 = c[5]!
  const a6 = c[6]!
  const a7 = c[7]!
  const a8 = c[8]!
  const a9 = c[9]!
  const b0 = c[10]!
  const b1 = c[11]!
  const b2 = c[12]!
  const b3 = c[13]!
  const b4 = c[14]!
  const b5 = c[15]!
  const b6 = c[16]!
  const b7 = c[17]!
  const b8 = c[18]!
  const b9 = c[19]!
  for (let j = 0; j < n; j++) {
    const o = oo + j * STRIDE
    const pa = ao + j * STRIDE
    const pb = bo + j * STRIDE
    const m = paths === null ? BLEND_TS : paths[j]!
    // The floats of each joint at their poseLayout offsets (R 3–6, T 0–2, S 7–9), written out rather than looped
    // over; each group loaded before it is stored, since out may alias a or b. Rotation, always blended, comes
    // first: V8 then checks the three arrays' types once per joint, not again in each optional group.
    const ax = a[pa + 3]!
    const ay = a[pa + 4]!
    const az = a[pa + 5]!
    const aw = a[pa + 6]!
    let bx = b[pb + 3]!
    let by = b[pb + 4]!
    let bz = b[pb + 5]!
    let bw = b[pb + 6]!
    let cos = ax * bx + ay * by + az * bz + aw * bw
    const sg = cos < 0 ? -1 : 1
    cos *= sg
    bx *= sg
    by *= sg
    bz *= sg
    bw *= sg
    // y = cos φ − 1, and its powers for Estrin's scheme.
    const y = Math.sqrt((1 + cos) * 0.5) - 1
    const y2 = y * y
    const y4 = y2 * y2
    const y8 = y4 * y4
    const s0 = a0 + a1 * y + (a2 + a3 * y) * y2 + (a4 + a5 * y + (a6 + a7 * y) * y2) * y4 + (a8 + a9 * y) * y8
    const s1 = b0 + b1 * y + (b2 + b3 * y) * y2 + (b4 + b5 * y + (b6 + b7 * y) * y2) * y4 + (b8 + b9 * y) * y8
    if (nearUnit) {
      // y + 1 = cos φ ≥ cos π/4.
      const k = 0.5 / (y + 1)
      const x = (s0 * ax + s1 * bx) * k
      const qy = (s0 * ay + s1 * by) * k
      const z = (s0 * az + s1 * bz) * k
      const qw = (s0 * aw + s1 * bw) * k
      const e = x * x + qy * qy + z * z + qw * qw - 1
      const inv =
        e > -0.0009765625 && e < 0.0009765625
          ? 1 + e * (-0.5 + e * (0.375 - e * 0.3125))
          : 1 / Math.sqrt(1 + e)
      out[o + 3] = x * inv
      out[o + 4] = qy * inv
      out[o + 5] = z * inv
      out[o + 6] = qw * inv
    } else {
      const x = s0 * ax + s1 * bx
      const qy = s0 * ay + s1 * by
      const z = s0 * az + s1 * bz
      const qw = s0 * aw + s1 * bw
      const inv = 1 / Math.sqrt(x * x + qy * qy + z * z + qw * qw)
      out[o + 3] = x * inv
      out[o + 4] = qy * inv
      out[o + 5] = z * inv
      out[o + 6] = qw * inv
    }
    if ((m & T_BIT) !== 0) {
      const at0 = a[pa]!
      const at1 = a[pa + 1]!
      const at2 = a[pa + 2]!
      out[o] = at0 + (b[pb]! - at0) * w
      out[o + 1] = at1 + (b[pb + 1]! - at1) * w
      out[o + 2] = at2 + (b[pb + 2]! - at2) * w
    }
    if ((m & S_BIT) !== 0) {
      const as0 = a[pa + 7]!
      const as1 = a[pa + 8]!
      const as2 = a[pa + 9]!
      out[o + 7] = as0 + (b[pb + 7]! - as0) * w
      out[o + 8] = as1 + (b[pb + 8]! - as1) * w
      out[o + 9] = as2 + (b[pb + 9]! - as2) * w
    }
  }
  return out
}

function copyRange(out: Float32Array, oo: number, src: Float32Array, so: number, len: number): void {
  if (out === src) out.copyWithin(oo, so, so + len)
  else for (let i = 0; i < len; i++) out[oo + i] = src[so + i]!
}

/**
 * The `paths` of blendJointLayers for blending n joints of pose a into pose b while two clips drive them
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
