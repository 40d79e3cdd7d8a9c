import { slerpQuat } from '../math/quat.ts'
import { JOINT_STRIDE, R_OFFSET, S_OFFSET } from './poseLayout.ts'

/**
 * Blends n joints of pose a with pose b by weight w (0 = a, 1 = b) into out: translation and scale lerp,
 * rotation shortest-arc slerp (order-independent, unlike accumulating weighted quaternions). Weights at or
 * beyond 0 and 1 copy a or b exactly, bit for bit, so a finished blend has no residue.
 * Poses use the layout of poseLayout.ts; `out` may alias a or b (same array and offset). Allocation-free.
 */
export function blendJointLayers(
  out: Float32Array,
  oo: number,
  a: Float32Array,
  ao: number,
  b: Float32Array,
  bo: number,
  n: number,
  w: number,
): Float32Array {
  const len = n * JOINT_STRIDE
  if (!(w > 0)) {
    if (out !== a || oo !== ao) copyRange(out, oo, a, ao, len)
    return out
  }
  if (w >= 1) {
    if (out !== b || oo !== bo) copyRange(out, oo, b, bo, len)
    return out
  }
  for (let j = 0; j < n; j++) {
    const o = oo + j * JOINT_STRIDE
    const pa = ao + j * JOINT_STRIDE
    const pb = bo + j * JOINT_STRIDE
    for (let k = 0; k < R_OFFSET; k++) out[o + k] = a[pa + k]! + (b[pb + k]! - a[pa + k]!) * w
    for (let k = S_OFFSET; k < JOINT_STRIDE; k++) out[o + k] = a[pa + k]! + (b[pb + k]! - a[pa + k]!) * w
    slerpQuat(out, o + R_OFFSET, a, pa + R_OFFSET, b, pb + R_OFFSET, w)
  }
  return out
}

function copyRange(out: Float32Array, oo: number, src: Float32Array, so: number, len: number): void {
  if (out === src) out.copyWithin(oo, so, so + len)
  else for (let i = 0; i < len; i++) out[oo + i] = src[so + i]!
}
