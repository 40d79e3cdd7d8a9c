/**
 * Float arguments of the sampling kernels (sample.ts, squad.ts, arcKernels.ts) travel through this scratch rather than call arguments: V8
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
export const reg = new Float64Array(6)
export const TIME = 0
export const U = 1
export const WEIGHT = 2
export const ANGLE = 3
export const W0 = 4
export const W1 = 5
