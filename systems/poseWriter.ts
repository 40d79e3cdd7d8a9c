import type { SceneNodeStore } from '../components/SceneNode.ts'
import { JOINT_STRIDE } from '../components/Pose.ts'
import { primeWriter } from '../src/engine/v8.ts'

/**
 * Writes a pose into the scene graph: joint j's 10 floats (`pose[poseOffset + j·10 ..]`, layout of
 * src/math/poseLayout.ts) become the local T/R/S of SceneNode entity `jointIndices[jointStart + j]`, for
 * j < count. A node is written and marked dirty only when a value actually changed (compared by value as
 * float32), so still joints cost no world-matrix work downstream. Returns how many nodes changed.
 *
 * The last line of defence against non-finite values: a joint whose 10 floats are not all finite is not written
 * (its node keeps its last good local transform) and is counted in `nonFinite[0]` when that is given (set, not
 * added to). Entity 0 (bitecs never issues it) marks a joint whose entity is gone and is skipped.
 * Allocation-free; otherwise trusts its arguments (entities are SceneNodes, offsets in range).
 */
export function applyPoseToSceneGraph(
  nodes: SceneNodeStore,
  pose: Float32Array,
  jointIndices: ArrayLike<number>,
  poseOffset = 0,
  jointStart = 0,
  count = jointIndices.length - jointStart,
  nonFinite: Uint32Array | null = null,
): number {
  return poseWriter(nodes)(pose, jointIndices, poseOffset, jointStart, count, nonFinite)
}

/** applyPoseToSceneGraph bound to one scene graph's store (all arguments required). */
export type PoseWriter = (
  pose: Float32Array,
  jointIndices: ArrayLike<number>,
  poseOffset: number,
  jointStart: number,
  count: number,
  nonFinite: Uint32Array | null,
) => number

const writers = new WeakMap<SceneNodeStore, PoseWriter>()

/**
 * The one PoseWriter of a scene graph's store (made on first use). A closure over the store's arrays rather
 * than a function taking them: with one plugin in the process V8 specializes a closure's code to the arrays it
 * closed over (about a tenth of this loop; see propagateTransforms).
 */
export function poseWriter(nodes: SceneNodeStore): PoseWriter {
  let writer = writers.get(nodes)
  if (!writer) {
    writer = createPoseWriter(nodes)
    primeWriter(writer, nodes)
    writers.set(nodes, writer)
  }
  return writer
}

function createPoseWriter(nodes: SceneNodeStore): PoseWriter {
  const { translation: tr, rotation: rot, scale: sc, dirty } = nodes
  return function writePose(pose, jointIndices, poseOffset, jointStart, count, nonFinite) {
    // Read once into a local: V8 11 reads an imported binding from the module context, with a check, at every
    // use (8% of this loop).
    const STRIDE = JOINT_STRIDE
    let changed = 0
    let rejected = 0
    for (let j = 0; j < count; j++) {
      const e = jointIndices[jointStart + j]!
      if (e === 0) continue
      const p = poseOffset + j * STRIDE
      const t = e * 3
      const r = e * 4
      const tx = pose[p]!
      const ty = pose[p + 1]!
      const tz = pose[p + 2]!
      const rx = pose[p + 3]!
      const ry = pose[p + 4]!
      const rz = pose[p + 5]!
      const rw = pose[p + 6]!
      const sx = pose[p + 7]!
      const sy = pose[p + 8]!
      const sz = pose[p + 9]!
      // Rotation first: of an animated joint's paths it is the one that changes nearly every step.
      if (
        rot[r] !== rx ||
        rot[r + 1] !== ry ||
        rot[r + 2] !== rz ||
        rot[r + 3] !== rw ||
        tr[t] !== tx ||
        tr[t + 1] !== ty ||
        tr[t + 2] !== tz ||
        sc[t] !== sx ||
        sc[t + 1] !== sy ||
        sc[t + 2] !== sz
      ) {
        // One test for all ten: the sum is NaN when any value is NaN or infinite (∞ − ∞), and ten float32 values
        // cannot overflow a double. A NaN never equals the stored value, so a bad joint always gets here.
        const sum = tx + ty + tz + rx + ry + rz + rw + sx + sy + sz
        if (sum - sum !== 0) {
          rejected++
          continue
        }
        tr[t] = tx
        tr[t + 1] = ty
        tr[t + 2] = tz
        rot[r] = rx
        rot[r + 1] = ry
        rot[r + 2] = rz
        rot[r + 3] = rw
        sc[t] = sx
        sc[t + 1] = sy
        sc[t + 2] = sz
        dirty[e] = 1
        changed++
      }
    }
    if (nonFinite !== null) nonFinite[0] = rejected
    return changed
  }
}
