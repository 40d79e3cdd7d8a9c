/**
 * Deterministic transcendental functions: the same bits in every JavaScript engine.
 *
 * Engines disagree in the last bit of their built-in sine, cosine, arc functions, exponential and logarithm
 * (e2e/determinism.e2e.test.ts measures it), so the fixed-step path (slerp, squad log/exp, ragdoll angles) uses these instead. They are
 * built only from IEEE 754 `+ - * /`, `Math.sqrt`, `Math.abs`, `Math.floor`, comparisons and exact bit access
 * through typed arrays, which every engine computes identically (JavaScript never fuses a multiply and an
 * add). test/math/detmath.properties.test.ts reads this file and fails if a built-in transcendental appears in
 * the code.
 *
 * Method, shared by all of them: reduce the argument exactly, or to double-double precision, to a small
 * interval; evaluate a Taylor polynomial there (Estrin's scheme, which shortens the chain of dependent
 * multiply-adds); carry the rounding error of the reduction as a low part, so that the only sizeable error
 * left is the final rounding. `twoSum` and `twoProd` (Knuth's and Dekker's error-free transformations) give
 * the exact error of an add or a multiply.
 *
 * Accuracy was measured against 300-bit references (mpmath) on 100,000 seeded inputs per function plus
 * targeted ones (near kπ/2, near 1, near ±1, reduction boundaries); the numbers are in each function's doc.
 * Node 20 and Chromium 156 gave identical bits for 200,000 results. Nothing here allocates; each call takes
 * about 1.5–5× the time of the built-in.
 */

// ---------------------------------------------------------------------------------------------------------
// Constants, computed with mpmath at 400 bits. A split constant is an exact sum: the `_HI` part is rounded to
// few enough bits that its product with a small integer is exact, the `_LO` part is the rest, rounded.
// ---------------------------------------------------------------------------------------------------------

/** π/2 = P1 + P2 + P3 + P4 to 7e-49; P1..P3 have 33 significant bits, so k·Pi is exact for |k| < 2^20. */
const PIO2_1 = 1.5707963267341256
const PIO2_2 = 6.077100506303966e-11
const PIO2_3 = 2.0222662487111665e-21
const PIO2_4 = 8.4784276603689e-32
const TWO_OVER_PI = 0.6366197723675814
/** 2^20·π/2 rounded down: below it the quadrant count k is under 2^20 and the reduction is exact. */
const MEDIUM_ARG = 1647099

const PI_HI = 3.141592653589793
const PI_LO = 1.2246467991473532e-16
const HALF_PI_HI = 1.5707963267948966
const HALF_PI_LO = 6.123233995736766e-17
const QUARTER_PI_HI = 0.7853981633974483
const QUARTER_PI_LO = 3.061616997868383e-17
const THREE_QUARTER_PI = 2.356194490192345
/** atan(1/4), atan(1/2), and π/2 minus each ("co-arctangents"), as double-double. */
const ATAN_QUARTER_HI = 0.24497866312686414
const ATAN_QUARTER_LO = 1.0698755618734451e-17
const ATAN_HALF_HI = 0.4636476090008061
const ATAN_HALF_LO = 2.2698777452961687e-17
const COATAN_QUARTER_HI = 1.3258176636680326
const COATAN_QUARTER_LO = -8.824429373951136e-17
const COATAN_HALF_HI = 1.1071487177940904
const COATAN_HALF_LO = 9.40447137356638e-17
/** Ratio boundaries 2^-2.5, 2^-1.5, 2^-0.5 between the arctangent anchors 0, 1/4, 1/2, 1. */
const RATIO_1 = 0.1767766952966369
const RATIO_2 = 0.3535533905932738
const RATIO_3 = 0.7071067811865476

/** ln 2 = LN2_HI + LN2_LO to 2e-31; LN2_HI has 42 significant bits, so k·LN2_HI is exact for |k| ≤ 2048. */
const LN2_HI = 0.6931471805598903
const LN2_LO = 5.497923018708371e-14
const LOG2_E = 1.4426950408889634
const SQRT2 = 1.4142135623730951

// Powers of two, written out (the ** operator is a pow).
const TWO_M27 = 7.450580596923828e-9 // below it sin x, atan x and asin x round to x, cos x to 1
const TWO_M54 = 5.551115123125783e-17 // below it e^x rounds to 1 + x
const TWO_54 = 18014398509481984
const TWO_60 = 1152921504606846976 // above it atan x rounds to ±π/2
const TWO_M60 = 8.673617379884035e-19
const TWO_600 = 4.149515568880993e180
const TWO_M600 = 2.409919865102884e-181
const TWO_M422 = 9.232978617785736e-128
const TWO_M1022 = 2.2250738585072014e-308 // smallest normal double
const SPLITTER = 134217729 // 2^27 + 1: Veltkamp's constant, splits a double into two 26-bit halves

// ---------------------------------------------------------------------------------------------------------
// Error-free transformations and bit access
// ---------------------------------------------------------------------------------------------------------

/**
 * Second results, so that nothing is allocated: `lo` is the exact error left by twoSum and twoProd (read it
 * right after the call), `rHi` + `rLo` the reduced argument written by reduceHalfPi. Fields of one module
 * object rather than module `let`s: V8 checks the dead zone on every access to those, which cost 2×.
 */
const scratch = { lo: 0, rHi: 0, rLo: 0 }

/** a + b = result + scratch.lo exactly (Knuth's two-sum, any order of magnitudes). */
function twoSum(a: number, b: number): number {
  const s = a + b
  const bv = s - a
  scratch.lo = a - (s - bv) + (b - bv)
  return s
}

/** a·b = result + scratch.lo exactly (Dekker), while |a|, |b| < 2^996 and the product stays above 2^-969. */
function twoProd(a: number, b: number): number {
  const p = a * b
  let t = SPLITTER * a
  const ah = t - (t - a)
  const al = a - ah
  t = SPLITTER * b
  const bh = t - (t - b)
  const bl = b - bh
  scratch.lo = ah * bh - p + ah * bl + al * bh + al * bl
  return p
}

// The two 32-bit words of one double. Which one holds sign, exponent and the top 20 mantissa bits depends on
// the platform's byte order, so it is found once here.
const f64 = new Float64Array(1)
const u32 = new Uint32Array(f64.buffer)
f64[0] = 1
const HIGH = u32[1] === 0x3ff00000 ? 1 : 0
const LOW = 1 - HIGH

/** 2^k for integer k in [-1022, 1023], built from its bit pattern. */
function pow2(k: number): number {
  u32[HIGH] = (k + 1023) << 20
  u32[LOW] = 0
  return f64[0]!
}

// ---------------------------------------------------------------------------------------------------------
// Sine and cosine
// ---------------------------------------------------------------------------------------------------------

/**
 * Writes r = x − k·π/2 into scratch.rHi + scratch.rLo (|r| ≲ π/4) and returns k mod 4, for finite x.
 *
 * For |x| < MEDIUM_ARG this is Cody–Waite with the four-part π/2: k·P1..k·P3 are exact, x − k·P1 is exact
 * (Sterbenz), and the other differences are carried as double-double, so r is good to ~2^-130 absolute.
 * Larger |x| is first brought under MEDIUM_ARG by coarse steps whose products round: the result is then the
 * function of a value within |x|·2^-52 of x, one or two ulps (measured up to 1e18); once an ulp of x spans
 * whole periods (|x| > 2^55) that is simply some deterministic value in [-1, 1].
 */
function reduceHalfPi(x: number): number {
  let a = x
  let quadrant = 0
  while (Math.abs(a) > MEDIUM_ARG) {
    const k = Math.floor(a * TWO_OVER_PI + 0.5)
    quadrant += k - 4 * Math.floor(k * 0.25) // k mod 4, exact even for k beyond 2^53
    a = a - k * PIO2_1 - k * PIO2_2 - k * PIO2_3
  }
  if (Math.abs(a) <= QUARTER_PI_HI) {
    scratch.rHi = a
    scratch.rLo = 0
    return quadrant & 3
  }
  const k = Math.floor(a * TWO_OVER_PI + 0.5)
  let r = twoSum(a - k * PIO2_1, -k * PIO2_2)
  let e = scratch.lo
  r = twoSum(r, -k * PIO2_3)
  e += scratch.lo - k * PIO2_4
  const hi = r + e
  scratch.rHi = hi
  scratch.rLo = e - (hi - r)
  return (quadrant + k) & 3
}

// Taylor coefficients ±1/n!, written as divisions so each is the correctly rounded value (every n! here is
// exact in a double). For |r| ≤ π/4 the first terms left out, r^19/19! and r^18/18!, are below 2^-58 relative.
const S3 = -1 / 6
const S5 = 1 / 120
const S7 = -1 / 5040
const S9 = 1 / 362880
const S11 = -1 / 39916800
const S13 = 1 / 6227020800
const S15 = -1 / 1307674368000
const S17 = 1 / 355687428096000
const C4 = 1 / 24
const C6 = -1 / 720
const C8 = 1 / 40320
const C10 = -1 / 3628800
const C12 = 1 / 479001600
const C14 = -1 / 87178291200
const C16 = 1 / 20922789888000

/** sin(h + l) for |h| ≲ π/4, |l| ≤ ulp(h): sin h + l·(1 − h²/2); the l·h⁴/24 left out is below 2^-59·h. */
function sinKernel(h: number, l: number): number {
  const z = h * h
  const z2 = z * z
  const poly = S3 + z * S5 + z2 * (S7 + z * S9) + z2 * z2 * (S11 + z * S13 + z2 * (S15 + z * S17))
  return h + (l * (1 - 0.5 * z) + h * z * poly)
}

/**
 * cos(h + l) = 1 − h²/2 + h⁴·C(h²) − l·h. h² is formed exactly and the rounding of 1 − h²/2 recovered:
 * near h = π/4 those two errors alone would be worth 0.4 ulp.
 */
function cosKernel(h: number, l: number): number {
  const z = twoProd(h, h)
  const zLo = scratch.lo
  const z2 = z * z
  const half = 0.5 * z
  const w = 1 - half
  const poly = C4 + z * C6 + z2 * (C8 + z * C10) + z2 * z2 * (C12 + z * C14 + z2 * C16)
  return w + (1 - w - half - 0.5 * zLo + (z2 * poly - h * l))
}

/**
 * Sine of x radians.
 *
 * Accurate for |x| < 1647099 (2^20·π/2): max error 0.72 ulp against the exact value (≤ 1 ulp from Node's
 * built-in). Beyond that it degrades gracefully (see reduceHalfPi), always finite and in [-1, 1].
 * Odd exactly: detSin(-x) === -detSin(x), and detSin(-0) is -0. NaN and ±Infinity give NaN.
 */
export function detSin(x: number): number {
  const a = Math.abs(x)
  if (a < TWO_M27) return x
  if (!(a < Infinity)) return NaN
  const q = reduceHalfPi(a)
  const v = q & 1 ? cosKernel(scratch.rHi, scratch.rLo) : sinKernel(scratch.rHi, scratch.rLo)
  const s = q & 2 ? -v : v
  return x < 0 ? -s : s
}

/**
 * Cosine of x radians. Same range and accuracy as detSin; even exactly (detCos(-x) === detCos(x)) and
 * detCos(0) === 1. NaN and ±Infinity give NaN.
 */
export function detCos(x: number): number {
  const a = Math.abs(x)
  if (a < TWO_M27) return 1
  if (!(a < Infinity)) return NaN
  const q = reduceHalfPi(a)
  const v = q & 1 ? sinKernel(scratch.rHi, scratch.rLo) : cosKernel(scratch.rHi, scratch.rLo)
  return (q + 1) & 2 ? -v : v // negative in quadrants 1 and 2
}

/**
 * Writes sin x into out[0] and cos x into out[1] and returns out, reducing the argument once. The values are
 * bit-identical to detSin(x) and detCos(x).
 */
export function detSinCos<T extends Float64Array | number[]>(out: T, x: number): T {
  const a = Math.abs(x)
  if (a < TWO_M27 || !(a < Infinity)) {
    out[0] = a < TWO_M27 ? x : NaN
    out[1] = a < TWO_M27 ? 1 : NaN
    return out
  }
  const q = reduceHalfPi(a)
  const s = sinKernel(scratch.rHi, scratch.rLo)
  const c = cosKernel(scratch.rHi, scratch.rLo)
  const sinA = q === 0 ? s : q === 1 ? c : q === 2 ? -s : -c
  out[0] = x < 0 ? -sinA : sinA
  out[1] = q === 0 ? c : q === 1 ? -s : q === 2 ? -c : s
  return out
}

// ---------------------------------------------------------------------------------------------------------
// Arctangent family
// ---------------------------------------------------------------------------------------------------------

// Taylor coefficients 1/(2n+1) of atan t = t − t³/3 + t⁵/5 − … and of atanh s = s + s³/3 + s⁵/5 + … (used by
// detLog). With |t| ≤ 0.177 the first term left out, t^23/23, is below 2^-59 relative.
const A3 = 1 / 3
const A5 = 1 / 5
const A7 = 1 / 7
const A9 = 1 / 9
const A11 = 1 / 11
const A13 = 1 / 13
const A15 = 1 / 15
const A17 = 1 / 17
const A19 = 1 / 19
const A21 = 1 / 21

/**
 * atan(y/x) in [0, π/2] for double-double y = yh + yl ≥ 0 and x = xh + xl ≥ 0, not both zero, with the
 * nonzero magnitudes in [2^-960, 2^900] (so twoProd stays exact). Returns the high part and leaves the low
 * part in scratch.lo; the pair is good to ~2^-100 relative.
 *
 * If y > x, atan(y/x) = π/2 − atan(x/y). The ratio, now in [0, 1], is moved to the nearest anchor
 * c ∈ {0, 1/4, 1/2, 1}: atan(y/x) = atan(c) + atan(t), t = (y − c·x)/(x + c·y), |t| ≤ 0.177. As c is a power
 * of two, c·x is exact and so is y − c·x (Sterbenz); the division is done to double-double precision.
 */
function atanRatio(yh: number, yl: number, xh: number, xl: number): number {
  const swap = yh > xh
  const nh = swap ? xh : yh
  const nl = swap ? xl : yl
  const dh = swap ? yh : xh
  const dl = swap ? yl : xl
  let c = 0
  let kHi = swap ? HALF_PI_HI : 0
  let kLo = swap ? HALF_PI_LO : 0
  if (nh >= dh * RATIO_3) {
    c = 1
    kHi = QUARTER_PI_HI
    kLo = QUARTER_PI_LO
  } else if (nh >= dh * RATIO_2) {
    c = 0.5
    kHi = swap ? COATAN_HALF_HI : ATAN_HALF_HI
    kLo = swap ? COATAN_HALF_LO : ATAN_HALF_LO
  } else if (nh >= dh * RATIO_1) {
    c = 0.25
    kHi = swap ? COATAN_QUARTER_HI : ATAN_QUARTER_HI
    kLo = swap ? COATAN_QUARTER_LO : ATAN_QUARTER_LO
  }
  // t = num/den with num = n − c·d and den = d + c·n, both double-double.
  const num = twoSum(nh - c * dh, nl - c * dl)
  const numLo = scratch.lo
  const den = twoSum(dh, c * nh)
  const denLo = scratch.lo + (dl + c * nl)
  const inv = 1 / den // one division; th need not be correctly rounded, tl takes the exact residual
  const th = num * inv
  const p = twoProd(th, den)
  const tl = (num - p - scratch.lo + numLo - th * denLo) * inv
  // atan(th + tl) − th = tl/(1 + th²) + (atan th − th)
  const z = th * th
  const z2 = z * z
  const z4 = z2 * z2
  const poly =
    z *
    (z * A5 -
      A3 +
      z2 * (z * A9 - A7) +
      z4 * (z * A13 - A11 + z2 * (z * A17 - A15)) +
      z4 * z4 * (z * A21 - A19))
  const atanLo = tl * (1 - z) + th * poly
  const s = twoSum(kHi, swap ? -th : th)
  const lo = scratch.lo + kLo + (swap ? -atanLo : atanLo)
  const hi = s + lo
  scratch.lo = lo - (hi - s)
  return hi
}

/**
 * Arctangent in radians, in [-π/2, π/2], for all reals.
 *
 * Max error 0.52 ulp against the exact value (≤ 1 ulp from Node's built-in). Odd exactly, keeps -0; beyond
 * 2^60 and at ±Infinity it gives ±π/2 (the nearest double, to which the exact value rounds); NaN gives NaN.
 */
export function detAtan(x: number): number {
  const a = Math.abs(x)
  if (a < TWO_M27) return x
  if (!(a <= TWO_60)) return a > TWO_60 ? (x < 0 ? -HALF_PI_HI : HALF_PI_HI) : NaN
  const r = atanRatio(a, 0, 1, 0)
  return x < 0 ? -r : r
}

/** π − (hi + lo) rounded once, for an angle hi + lo in [0, π/2] given as double-double. */
function piMinus(hi: number, lo: number): number {
  const s = twoSum(PI_HI, -hi)
  return s + (scratch.lo + (PI_LO - lo))
}

/**
 * The angle of the point (x, y) from the +x axis, in [-π, π], with the special cases of the built-in
 * two-argument arctangent (ECMAScript Math.atan2): atan2(±0, +0 or x > 0) = ±0, atan2(±0, −0 or x < 0) = ±π,
 * atan2(y ≠ 0, ±0) = ±π/2, atan2(±∞, +∞) = ±π/4, atan2(±∞, −∞) = ±3π/4, atan2(±∞, finite) = ±π/2,
 * atan2(finite y, +∞) = ±0, atan2(finite y, −∞) = ±π; NaN in either gives NaN.
 *
 * Max error 0.51 ulp against the exact value (≤ 1 ulp from Node's built-in) for all finite inputs, subnormal
 * ones included: extreme ratios take a one-division path and extreme magnitudes are scaled exactly first.
 */
export function detAtan2(y: number, x: number): number {
  if (y !== y || x !== x) return NaN
  const ay = Math.abs(y)
  const ax = Math.abs(x)
  const xNeg = x < 0 || (x === 0 && 1 / x < 0)
  if (ay === 0) return xNeg ? (1 / y < 0 ? -PI_HI : PI_HI) : y
  let angle: number
  if (ax === 0 || (ay === Infinity && ax < Infinity)) {
    angle = HALF_PI_HI
  } else if (ay === Infinity) {
    angle = xNeg ? THREE_QUARTER_PI : QUARTER_PI_HI
  } else if (ax === Infinity) {
    angle = xNeg ? PI_HI : 0
  } else if (ay < ax * TWO_M60) {
    // atan q = q − q³/3 with q³/3 below 2^-120·q: one division, exact for subnormal ratios too.
    const q = ay / ax
    angle = xNeg ? PI_HI + (PI_LO - q) : q
  } else if (ax < ay * TWO_M60) {
    const q = ax / ay
    angle = HALF_PI_HI + (xNeg ? HALF_PI_LO + q : HALF_PI_LO - q)
  } else {
    // The ratio is within 2^±60: one exact power-of-two scaling brings both into [2^-900, 2^900].
    const big = ay > ax ? ay : ax
    const scale = big > 1e270 ? TWO_M600 : big < 1e-270 ? TWO_600 : 1
    const hi = atanRatio(ay * scale, 0, ax * scale, 0)
    angle = xNeg ? piMinus(hi, scratch.lo) : hi
  }
  return y < 0 ? -angle : angle
}

/**
 * sqrt((1 − a)(1 + a)) for a in [0, 1), as double-double (result + scratch.lo): the two factors and their
 * product are exact pairs and the square root gets one Newton correction from the exact residual. Good to
 * ~2^-100 relative, which keeps acos and asin as accurate near ±1 as elsewhere.
 */
function sqrtOneMinusSquare(a: number): number {
  const u = 1 - a
  const uLo = 1 - u - a
  const v = 1 + a
  const vLo = 1 - v + a
  const p = twoProd(u, v)
  const pLo = scratch.lo + (u * vLo + uLo * v)
  const w = Math.sqrt(p)
  const sq = twoProd(w, w)
  scratch.lo = (p - sq - scratch.lo + pLo) / (2 * w)
  return w
}

/**
 * Arc cosine in radians, in [0, π]. The argument is clamped to [-1, 1] first, so a dot product that rounding
 * pushed past 1 (or ±Infinity) gives 0 or π instead of NaN; NaN gives NaN. detAcos(1) === 0 and detAcos(-1)
 * is the double nearest π.
 *
 * atan2(sqrt((1 − x)(1 + x)), x) with the square root in double-double, so it is as accurate near ±1 as
 * elsewhere: max error 0.51 ulp against the exact value (≤ 1 ulp from Node's built-in).
 */
export function detAcos(x: number): number {
  if (!(x > -1)) return x <= -1 ? PI_HI : NaN
  if (x >= 1) return 0
  const a = Math.abs(x)
  const wh = sqrtOneMinusSquare(a)
  const hi = atanRatio(wh, scratch.lo, a, 0)
  return x < 0 ? piMinus(hi, scratch.lo) : hi
}

/**
 * Arc sine in radians, in [-π/2, π/2], clamped like detAcos: ±1 and beyond give ±π/2 (the nearest double).
 * Odd exactly, keeps -0; NaN gives NaN. Max error 0.52 ulp against the exact value (≤ 1 ulp from Node's
 * built-in).
 */
export function detAsin(x: number): number {
  if (!(x > -1)) return x <= -1 ? -HALF_PI_HI : NaN
  if (x >= 1) return HALF_PI_HI
  const a = Math.abs(x)
  if (a < TWO_M27) return x
  const wh = sqrtOneMinusSquare(a)
  const r = atanRatio(a, 0, wh, scratch.lo)
  return x < 0 ? -r : r
}

// ---------------------------------------------------------------------------------------------------------
// Exponential and logarithm
// ---------------------------------------------------------------------------------------------------------

// Taylor coefficients 1/n! of (e^r − 1 − r)/r² = 1/2 + r/6 + …. For |r| ≤ ln2/2 the first term left out,
// r^15/15!, is below 2^-62 relative.
const E2 = 1 / 2
const E3 = 1 / 6
const E4 = 1 / 24
const E5 = 1 / 120
const E6 = 1 / 720
const E7 = 1 / 5040
const E8 = 1 / 40320
const E9 = 1 / 362880
const E10 = 1 / 3628800
const E11 = 1 / 39916800
const E12 = 1 / 479001600
const E13 = 1 / 6227020800
const E14 = 1 / 87178291200

/**
 * e^x. Overflows to Infinity above ~709.78, underflows through the subnormals to 0 below ~-745.13;
 * detExp(0) === 1, NaN gives NaN, -Infinity gives 0.
 *
 * x = k·ln2 + r with |r| ≤ ln2/2 (two-part ln 2, r kept as double-double), e^r by its Taylor series with
 * 1 + r added exactly, then scaled by 2^k through the exponent bits. Max error 0.65 ulp against the exact
 * value (≤ 1 ulp from Node's built-in); subnormal results are rounded once (see scaleToSubnormal), so they
 * are correctly rounded where the built-in, rounding twice, can be one subnormal step off.
 */
export function detExp(x: number): number {
  if (!(x > -746)) return x <= -746 ? 0 : NaN
  if (x > 710) return Infinity
  if (Math.abs(x) < TWO_M54) return 1 + x
  const k = Math.floor(x * LOG2_E + 0.5)
  const r = twoSum(x - k * LN2_HI, -k * LN2_LO) // x − k·LN2_HI is exact (Sterbenz)
  const rLo = scratch.lo
  const h = 1 + r
  const hLo = 1 - h + r // exact, |r| < 1
  const r2 = r * r
  const r4 = r2 * r2
  const q =
    E2 +
    r * E3 +
    r2 * (E4 + r * E5) +
    r4 * (E6 + r * E7 + r2 * (E8 + r * E9)) +
    r4 * r4 * (E10 + r * E11 + r2 * (E12 + r * E13) + r4 * E14)
  const lo = hLo + (rLo + rLo * r + r2 * q)
  const m = h + lo
  if (k < -1022 || (k === -1022 && m < 1)) return scaleToSubnormal(h, lo, k) // result below 2^-1022
  if (k > 1023) return m * 2 * pow2(k - 1) // k = 1024: 2^k itself would overflow, so scale in two steps
  return m * pow2(k)
}

/**
 * (h + lo)·2^k rounded once, for a result below the smallest normal, 2^-1022 (so k ≤ -1022). Scaled by
 * 2^600 the subnormal grid becomes the ulp of numbers in [2^-422, 2^-421): adding 2^-422 rounds onto that grid
 * in one step, and taking it off again and scaling back are exact.
 */
function scaleToSubnormal(h: number, lo: number, k: number): number {
  const scale = pow2(k + 600)
  const s = twoSum(TWO_M422, h * scale)
  const rounded = s + (scratch.lo + lo * scale)
  return (rounded - TWO_M422) * TWO_M600
}

/**
 * Natural logarithm. log(±0) = -Infinity, log(x < 0) = NaN, log(Infinity) = Infinity, NaN gives NaN and
 * detLog(1) === 0. Subnormal inputs are first scaled up by 2^54, exactly.
 *
 * x = m·2^e with m in [√½, √2) read from the bits; log m = 2·atanh(s) with s = (m − 1)/(m + 1) = f/(2 + f)
 * divided out to double-double, |s| ≤ 0.172. Max error 0.51 ulp against the exact value (≤ 1 ulp from
 * Node's built-in).
 */
export function detLog(x: number): number {
  if (!(x > 0)) return x === 0 ? -Infinity : NaN
  if (x === Infinity) return Infinity
  let e = 0
  f64[0] = x
  if (x < TWO_M1022) {
    f64[0] = x * TWO_54
    e = -54
  }
  const high = u32[HIGH]!
  e += (high >>> 20) - 1023
  u32[HIGH] = (high & 0xfffff) | 0x3ff00000
  let m = f64[0]! // in [1, 2)
  if (m > SQRT2) {
    m *= 0.5
    e += 1
  }
  const f = m - 1 // exact
  const d = 2 + f
  const dLo = 2 - d + f // exact, |f| < 2
  const inv = 1 / d
  const sh = f * inv
  const p = twoProd(sh, d)
  const sl = (f - p - scratch.lo - sh * dLo) * inv
  const z = sh * sh
  const z2 = z * z
  const z4 = z2 * z2
  const poly =
    z *
    (A3 +
      z * A5 +
      z2 * (A7 + z * A9) +
      z4 * (A11 + z * A13 + z2 * (A15 + z * A17)) +
      z4 * z4 * (A19 + z * A21))
  // log m = 2·(sh + sl) + 2·sh·poly, with atanh'(s) = 1/(1 − s²) ≈ 1 + z applied to sl.
  const s = twoSum(e * LN2_HI, 2 * sh)
  return s + (scratch.lo + (e * LN2_LO + 2 * (sl * (1 + z) + sh * poly)))
}

// ---------------------------------------------------------------------------------------------------------------
// Arc functions for the per-frame kernels (slerp, squad, pose blends). Small and branch-light so that V8 inlines
// them into their callers (src/engine/v8.ts: the per-frame path must not allocate). Same operations as above (+ - * / and sqrt), so the same bits everywhere;
// accurate to a few ulps on the ranges slerp needs (see the tests).

// The sine's Taylor coefficients S3..S17 (above), continued to x²¹; each rounded once from the exact rational.
const ARC_S19 = -1 / 121645100408832000
const ARC_S21 = 1 / 51090942171709440000

/**
 * sin x for x in [0, π] (an angle of slerp: a fraction of an arc of at most π). Reflected to [0, π/2] through
 * sin x = sin(π − x); there the Taylor series to x²¹ is within 1.3e-18 of sin. Outside [0, π] the result is
 * meaningless (use detSin).
 */
export function detSinArc(x: number): number {
  const y = x > HALF_PI_HI ? PI_HI - x + PI_LO : x
  const z = y * y
  return (
    y +
    y *
      z *
      (S3 +
        z *
          (S5 +
            z *
              (S7 + z * (S9 + z * (S11 + z * (S13 + z * (S15 + z * (S17 + z * (ARC_S19 + z * ARC_S21)))))))))
  )
}

// atan anchors for the arc acos: tan(π/16), tan(3π/16), tan(π/8), and π/8 split into hi + lo.
const TAN_PI_16 = 0.198912367379658
const TAN_3PI_16 = 0.6681786379192989
const TAN_PI_8 = 0.41421356237309503
const EIGHTH_PI_HI = 0.39269908169872414
const EIGHTH_PI_LO = 1.5308084989341915e-17

/**
 * acos c for c in [−1, 1] (clamped, so a dot product that rounding pushed past 1 gives 0, not NaN), in [0, π].
 * acos|c| = 2·atan(√((1−|c|)/(1+|c|))), the atan reduced to |z| ≤ tan(π/16) around 0, π/8 or π/4 and summed
 * as its odd Taylor series to z²⁵ (truncation below 1e-18); negative c reflects through π − θ.
 */
export function detAcosArc(c: number): number {
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
  const atanZ =
    z +
    z *
      w *
      (-1 / 3 +
        w *
          (1 / 5 +
            w *
              (-1 / 7 +
                w *
                  (1 / 9 +
                    w *
                      (-1 / 11 +
                        w *
                          (1 / 13 +
                            w *
                              (-1 / 15 +
                                w * (1 / 17 + w * (-1 / 19 + w * (1 / 21 + w * (-1 / 23 + w / 25)))))))))))
  const half = base + (atanZ + baseLo)
  const theta = 2 * half
  return c < 0 ? PI_HI - theta + PI_LO : theta
}
