import type { AnimationAsset } from '../../src/gltf/asset.ts'
import type { RagdollDescription } from '../../src/physics/description.ts'

/**
 * The largest ragdoll a description may have, as a rig: a chain of n + 1 joints 0.1 apart (a skinned asset with
 * no clips), and a description with a capsule on each of its first `bodies` joints. The build-cost check of
 * test/systems/stepRagdolls.build.test.ts and `npm run bench:ragdoll`'s build timing use it.
 */
export function chainAsset(n: number): AnimationAsset {
  const nodes = Array.from({ length: n + 1 }, (_, i) => ({
    index: i,
    name: `j${i}`,
    parent: i - 1,
    children: i < n ? [i + 1] : [],
    translation: (i === 0 ? [0, 1, 0] : [0, 0.1, 0]) as [number, number, number],
    rotation: [0, 0, 0, 1] as [number, number, number, number],
    scale: [1, 1, 1] as [number, number, number],
    weights: [],
    skin: -1,
    mesh: -1,
  }))
  const joints = Int32Array.from(nodes.map((x) => x.index))
  const skeleton = {
    name: 'chain',
    joints,
    parents: Int32Array.from(nodes.map((x) => x.parent)),
    inverseBindMatrices: new Float32Array((n + 1) * 16),
    skinJointOrder: joints,
    root: 0,
  }
  return { source: 'chain', nodes, roots: [0], skeletons: [skeleton], clips: [] }
}

export function chainDescription(bodies: number): RagdollDescription {
  return {
    bodies: Array.from({ length: bodies }, (_, i) => ({
      joint: `j${i}`,
      shape: 'capsule' as const,
      radius: 0.03,
      length: 0.1,
      axis: [0, 1, 0] as [number, number, number],
      mass: 1,
      coneAngle: 0.5,
      twistAngle: 0.3,
    })),
  }
}
