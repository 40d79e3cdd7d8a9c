/**
 * The fast sampler's floats in memory rather than in call arguments (sample.ts, squad.ts, arcKernels.ts; why:
 * src/engine/v8.ts). The kernels do not re-enter, and each thread has its own module, so one scratch is safe.
 *   [0] time   clip-local seconds being sampled
 *   [1] u      position in the current segment, [0, 1)
 *   [2] weight a slerp's fraction t (squad's outer slerp: its series coefficients, its wide-arc path)
 *   [3] angle  a slerp's angle θ in radians, or the cosine acosArc turns into one
 *   [4] w0     longArcWeights' results, sin((1 − t)·θ) and sin(t·θ)
 *   [5] w1
 */
export const reg = new Float64Array(6)
export const TIME = 0
export const U = 1
export const WEIGHT = 2
export const ANGLE = 3
export const W0 = 4
export const W1 = 5
