/**
 * The fast pose write-out (src/engine/poseWriter.ts: a closure per store, primed) against the clean one
 * (src/skeleton/sceneNodes.ts applyPoseToSceneGraph), bit for bit: the nodes' locals and dirty flags, the count
 * of changed nodes and of refused joints, on poses with NaN, ±∞, −0, unchanged joints and entity 0.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createSceneNodeStore, type SceneNodeStore } from '../../components/SceneNode.ts'
import { applyPoseToSceneGraph } from '../../src/skeleton/sceneNodes.ts'
import { poseWriter } from '../../src/engine/poseWriter.ts'
import { JOINT_STRIDE } from '../../src/math/poseLayout.ts'
import { bits } from '../helpers/poseArbs.ts'

const NODES = 12

/** A store whose nodes 1..NODES-1 hold the locals `locals` (10 floats each, poseLayout order). */
function storeWith(locals: readonly number[]): SceneNodeStore {
  const store = createSceneNodeStore(NODES + 1)
  for (let e = 1; e < NODES; e++) {
    const o = (e - 1) * JOINT_STRIDE
    store.translation.set(locals.slice(o, o + 3), 3 * e)
    store.rotation.set(locals.slice(o + 3, o + 7), 4 * e)
    store.scale.set(locals.slice(o + 7, o + 10), 3 * e)
    store.dirty[e] = e % 3 === 0 ? 1 : 0
  }
  return store
}

function state(store: SceneNodeStore) {
  return {
    translation: bits(store.translation),
    rotation: bits(store.rotation),
    scale: bits(store.scale),
    dirty: Array.from(store.dirty),
  }
}

const value = fc.oneof(
  fc.constantFrom(0, -0, 1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.float({ noNaN: true }),
)

describe('the fast pose writer gives the clean one’s results', () => {
  it('property: locals, dirty flags, changed and refused counts, bit for bit', () => {
    fc.assert(
      fc.property(
        fc.array(value, { minLength: (NODES - 1) * JOINT_STRIDE, maxLength: (NODES - 1) * JOINT_STRIDE }),
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: NODES - 1 }), fc.boolean(), fc.nat(JOINT_STRIDE - 1), value),
          {
            maxLength: 20,
          },
        ),
        fc.array(fc.integer({ min: 0, max: NODES - 1 }), { minLength: 1, maxLength: 10 }),
        fc.boolean(),
        (locals, edits, joints, counted) => {
          // The pose: the nodes' own locals (unchanged joints), with some floats changed.
          const pose = Float32Array.from({ length: 2 * JOINT_STRIDE + joints.length * JOINT_STRIDE }, () => 7)
          joints.forEach((e, j) => {
            if (e > 0)
              pose.set(locals.slice((e - 1) * JOINT_STRIDE, e * JOINT_STRIDE), (j + 2) * JOINT_STRIDE)
          })
          for (const [j, change, k, v] of edits)
            if (change && j < joints.length) pose[(j + 2) * JOINT_STRIDE + k] = v
          const jointIndices = Int32Array.from([5, ...joints])
          const fast = storeWith(locals)
          const clean = storeWith(locals)
          const fastRefused = Uint32Array.of(99)
          const cleanRefused = Uint32Array.of(99)
          const args = [2 * JOINT_STRIDE, 1, joints.length] as const
          const changedFast = poseWriter(fast)(pose, jointIndices, ...args, counted ? fastRefused : null)
          const changedClean = applyPoseToSceneGraph(
            clean,
            pose,
            jointIndices,
            ...args,
            counted ? cleanRefused : null,
          )
          expect(changedFast).toBe(changedClean)
          expect(fastRefused[0]).toBe(cleanRefused[0])
          expect(state(fast)).toEqual(state(clean))
        },
      ),
      { numRuns: 2000 },
    )
  })
})
