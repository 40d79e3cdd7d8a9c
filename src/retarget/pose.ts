import type { Clip } from '../clip/clip.ts'
import { sampleChannel } from '../clip/sample.ts'
import { composeMatrix, identityMatrix, multiplyMatrices } from '../math/transform.ts'
import { multiplyQuat, normalizeQuat } from '../math/quat.ts'
import { JOINT_STRIDE, pathOffset, R_OFFSET } from '../math/poseLayout.ts'
import type { Rig } from '../skeleton/rig.ts'

/**
 * A rig's pose in its asset's world (the scene root's space), for the retarget baking, in doubles:
 *
 *   rot   4 per joint   world rotation: the local rotations composed root first (scales left out, so with
 *                       non-uniform scales this is not the matrix's rotation; rigs scale uniformly)
 *   mat  16 per joint   world matrix, column-major (T·R·S composed root first, as the step propagates it)
 *
 * Local poses use the step's layout (src/math/poseLayout.ts, 10 floats a joint).
 */
export interface WorldPose {
  readonly rot: Float64Array
  readonly mat: Float64Array
}

export function createWorldPose(joints: number): WorldPose {
  return { rot: new Float64Array(4 * joints), mat: new Float64Array(16 * joints) }
}

const IDENTITY_ROT = Float64Array.of(0, 0, 0, 1)
const IDENTITY_MAT = identityMatrix(new Float64Array(16), 0)
const local = new Float64Array(16)

/** The world rotation and matrix of joint j from its local transform at `local[lo..lo+10)` and its parent's. */
export function placeJoint(
  out: WorldPose,
  parents: Int32Array,
  j: number,
  pose: Float32Array | Float64Array,
  lo: number,
): void {
  const p = parents[j]!
  multiplyQuat(out.rot, 4 * j, p < 0 ? IDENTITY_ROT : out.rot, p < 0 ? 0 : 4 * p, pose, lo + R_OFFSET)
  normalizeQuat(out.rot, 4 * j)
  composeMatrix(local, 0, pose, lo, pose, lo + R_OFFSET, pose, lo + 7)
  multiplyMatrices(out.mat, 16 * j, p < 0 ? IDENTITY_MAT : out.mat, p < 0 ? 0 : 16 * p, local, 0)
}

/** The world pose of a whole local pose (rig order: parents first). */
export function computeWorld(out: WorldPose, rig: Rig, pose: Float32Array | Float64Array): WorldPose {
  for (let j = 0; j < rig.jointParents.length; j++)
    placeJoint(out, rig.jointParents, j, pose, j * JOINT_STRIDE)
  return out
}

/**
 * The local pose of `clip` at `time` seconds (clamped to its keys): the rig's rest pose with every joint
 * channel sampled over it, in float32, as the step samples it (so a retargeted clip starts from what a
 * character playing the source clip shows). `cursors` holds one slot per channel.
 */
export function samplePose(
  out: Float32Array,
  rig: Rig,
  clip: Clip,
  time: number,
  cursors: Uint32Array,
): Float32Array {
  out.set(rig.rest)
  clip.channels.forEach((ch, c) => {
    const j = ch.node < rig.nodeJoint.length ? rig.nodeJoint[ch.node]! : -1
    const offset = pathOffset(ch.path)
    if (j >= 0 && offset >= 0) sampleChannel(out, j * JOINT_STRIDE + offset, ch, time, cursors, c)
  })
  return out
}

/**
 * out = M⁻¹·(x, y, z) for the affine world matrix at `m[mo..mo+16)` (column-major): a world point in that
 * frame. The identity when mo < 0 (a root's parent). A singular matrix gives non-finite values.
 */
export function toLocalPoint(
  out: Float64Array,
  oo: number,
  m: Float64Array,
  mo: number,
  x: number,
  y: number,
  z: number,
): void {
  if (mo < 0) {
    out[oo] = x
    out[oo + 1] = y
    out[oo + 2] = z
    return
  }
  const a = m[mo]!,
    b = m[mo + 4]!,
    c = m[mo + 8]!
  const d = m[mo + 1]!,
    e = m[mo + 5]!,
    f = m[mo + 9]!
  const g = m[mo + 2]!,
    h = m[mo + 6]!,
    i = m[mo + 10]!
  const px = x - m[mo + 12]!
  const py = y - m[mo + 13]!
  const pz = z - m[mo + 14]!
  const A = e * i - f * h
  const B = f * g - d * i
  const C = d * h - e * g
  const inv = 1 / (a * A + b * B + c * C)
  out[oo] = (A * px + (c * h - b * i) * py + (b * f - c * e) * pz) * inv
  out[oo + 1] = (B * px + (a * i - c * g) * py + (c * d - a * f) * pz) * inv
  out[oo + 2] = (C * px + (b * g - a * h) * py + (a * e - b * d) * pz) * inv
}
