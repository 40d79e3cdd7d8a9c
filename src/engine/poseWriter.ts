import type { SceneNodeStore } from '../skeleton/sceneNodes.ts'
import { JOINT_STRIDE } from '../math/poseLayout.ts'
import { primeWriter } from './v8.ts'

/**
 * The fast form of the pose write-out, applyPoseToSceneGraph (src/skeleton/sceneNodes.ts, which says what it
 * does): one writer per scene-node store, a closure over its arrays, primed when made (v8.ts says why).
 * test/engine/poseWriter.test.ts holds it to the clean form bit for bit.
 */

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

/** The one PoseWriter of a scene graph's store (made on first use). */
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
