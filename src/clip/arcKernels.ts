import { ANGLE, reg, W0, W1, WEIGHT } from './sampleScratch.ts'

/**
 * The sampler's sines and arc cosine: detmath.ts's series, written for the sampler's inputs (arc lengths in
 * [0, π]), the same operations and so the same bits, taking and returning floats through `reg` where V8 might
 * not inline them (test/clip/sampleClipChannels.kernels.test.ts compares them with detmath.ts).
 */

// Taylor coefficients of sin, (−1)^k / (2k+1)!, each rounded once from the exact rational (as in detmath.ts).
export const ARC_S3 = -1 / 6
export const ARC_S5 = 1 / 120
export const ARC_S7 = -1 / 5040
export const ARC_S9 = 1 / 362880
export const ARC_S11 = -1 / 39916800
/** All of detSinArc's coefficients, S3 … S21, for its series (Horner from the last). */
export const ARC_SERIES = Float64Array.of(
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
export const ARC_TERMS = ARC_SERIES.length
/** π/2 and π = PI_HI + PI_LO, as in detmath.ts (detSinArc's reflection above π/2). */
export const HALF_PI_HI = 1.5707963267948966
export const PI_HI = 3.141592653589793
export const PI_LO = 1.2246467991473532e-16

/**
 * Largest slerp segment angle (radians) whose sines use the short series `shortArcSin`. Mocap keys are far
 * closer than this (a key every 1/30 s rarely turns a joint 0.5 rad).
 */
export const SHORT_ARC = 0.25

/**
 * sin x for x in [0, SHORT_ARC], the Taylor series to x¹¹: its truncation error is below x¹³/13! ≤ 2.4e-18,
 * under 0.1 ulp of the result, so it stays within one ulp of detSinArc
 * (test/clip/sampleClipChannels.kernels.test.ts).
 * `sampleList` writes this polynomial out inline (a float argument would be boxed); this copy is for tests.
 */
export function shortArcSin(x: number): number {
  const z = x * x
  return x + x * z * (ARC_S3 + z * (ARC_S5 + z * (ARC_S7 + z * (ARC_S9 + z * ARC_S11))))
}

/**
 * sin x for 0 ≤ x ≤ π/2 (squad's inner slerps: their angles are at most π/2): shortArcSin's series up to
 * SHORT_ARC, detSinArc's series and reflection beyond (within an ulp of detSinArc throughout). Takes a float
 * argument: V8 inlines a function this small into squad (the squad crowd measures 0 bytes allocated per step).
 */
export function arcSin(x: number): number {
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
export function longArcWeights(): void {
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
export function acosArc(): void {
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
