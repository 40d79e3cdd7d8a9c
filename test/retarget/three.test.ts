/**
 * Retargeting against three.js's SkeletonUtils.retargetClip (issue 35). retargetClip copies each mapped bone's
 * world rotation (scale stripped) times `localOffsets[bone]`, and puts the hip at (source hip's world place +
 * `hipPosition`) × `scale`; other bones keep their local positions. So our rule is its options with
 * localOffsets = sourceRestWorld⁻¹ · targetRestWorld, scale = the hips height ratio, hipPosition =
 * targetHipsRest / ratio − sourceHipsRest, and `fps` that puts its frames on the source's keys. Where those
 * express the same rule the two must agree; where they do not, this measures by how much
 * (docs/guides/retargeting.md says why):
 * - without localOffsets, three copies absolute world rotations: rigs whose rest poses or joint axes differ twist;
 * - three leaves a bone hung elsewhere than the map implies where it was (RobotExpressive's IK feet); we pin it;
 * - three reads the source's bones in the target's bone order, each updated from its parent's world as it
 *   stands: with the bones beside the mesh (as GLTFLoader loads them) a bone listed before the ones above its
 *   source reads them a frame late (RobotExpressive's IK feet come first in its skeleton);
 * - three's retarget starts from `skeleton.pose()`, which makes a root bone's bind world transform its local
 *   one: a skeleton under a transformed node (GLTFLoader's RobotExpressive under its turned, 100× armature, an
 *   FBX-converted Mixamo character's 0.01 armature) comes out wrong.
 * Both rigs are built here as three Bones from the same assets (every node a bone of one skeleton, under the
 * untransformed mesh, so `pose()` holds and the source is updated whole each frame); the last point uses
 * GLTFLoader's scene as a game would.
 */
import fc from 'fast-check'
import {
  AnimationClip,
  AnimationMixer,
  Bone,
  BufferGeometry,
  Matrix4,
  Object3D,
  PropertyBinding,
  Quaternion,
  QuaternionKeyframeTrack,
  Skeleton,
  SkinnedMesh,
  Vector3,
  VectorKeyframeTrack,
} from 'three'
import { retargetClip } from 'three/examples/jsm/utils/SkeletonUtils.js'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import type { Clip } from '../../src/clip/clip.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { buildRig } from '../../src/skeleton/rig.ts'
import { findHumanoid } from '../../src/retarget/map.ts'
import { createHumanoid } from '../../scripts/humanoid/asset.ts'
import { randomHumanoidOptions } from '../../scripts/humanoid/skeleton.ts'
import { gltfNodes, loadGltf } from '../helpers/threeScene.ts'
import { angleBetween, clipOf, keyTimes, nodeMap, pluginWith, pose, posedRig } from '../helpers/retarget.ts'

/** An asset as three Bones (one per node, sanitized names) of one SkinnedMesh's skeleton, at rest. */
interface ThreeRig {
  readonly root: Object3D
  readonly nodes: readonly Object3D[]
  readonly mesh: SkinnedMesh
}

/**
 * `beside`: the bones beside the mesh (as GLTFLoader puts an armature), not under it: retargetClip then reads
 * a source bone's parents as they were when it last updated them (see the last test).
 */
function threeRig(asset: AnimationAsset, beside = false): ThreeRig {
  const root = new Object3D()
  const mesh = new SkinnedMesh(new BufferGeometry())
  root.add(mesh)
  // Names unique, as GLTFLoader makes them (three binds a track to the first bone of its name).
  const seen = new Set<string>()
  const nodes = asset.nodes.map((n, i) => {
    const name = PropertyBinding.sanitizeNodeName(n.name)
    const unique = seen.has(name) ? `${name}_${i}` : name
    seen.add(name)
    return Object.assign(new Bone(), { name: unique })
  })
  asset.nodes.forEach((n, i) => (n.parent >= 0 ? nodes[n.parent]! : beside ? root : mesh).add(nodes[i]!))
  toRest({ root, nodes, mesh }, asset)
  mesh.bind(new Skeleton(nodes))
  return { root, nodes, mesh }
}

function toRest(rig: ThreeRig, asset: AnimationAsset): void {
  asset.nodes.forEach((n, i) => {
    rig.nodes[i]!.position.fromArray(n.translation)
    rig.nodes[i]!.quaternion.fromArray(n.rotation)
    rig.nodes[i]!.scale.fromArray(n.scale)
  })
  rig.root.updateMatrixWorld(true)
}

/** A clip as three tracks on the rig's bones (rotations and translations; the clip's own keys, LINEAR). */
function threeClip(rig: ThreeRig, clip: Clip): AnimationClip {
  const tracks = clip.channels.flatMap((c) => {
    const name = rig.nodes[c.node]!.name
    if (c.path === 'rotation') return [new QuaternionKeyframeTrack(`${name}.quaternion`, c.times, c.values)]
    if (c.path === 'translation') return [new VectorKeyframeTrack(`${name}.position`, c.times, c.values)]
    return []
  })
  return new AnimationClip(clip.name, clip.duration, tracks)
}

const rotationOf = (o: Object3D): Quaternion => {
  const q = new Quaternion()
  o.matrixWorld.decompose(new Vector3(), q, new Vector3())
  return q
}
const placeOf = (o: Object3D): Vector3 => new Vector3().setFromMatrixPosition(o.matrixWorld)

/** The hips' height above the lowest skin joint (all joints without skins), in a rig at rest. */
function hipsHeight(asset: AnimationAsset, nodes: readonly Object3D[], hips: number): number {
  const joints =
    asset.skeletons.length > 0
      ? asset.skeletons.flatMap((s) => Array.from(s.joints))
      : asset.nodes.map((n) => n.index)
  return placeOf(nodes[hips]!).y - Math.min(...joints.map((j) => placeOf(nodes[j]!).y))
}

/**
 * Our clip and three's of `clip` from `source` onto `target`; per three frame, the largest angle between the
 * two in a mapped joint's world rotation, and the largest distance of the hips and of `watched` nodes.
 */
function compare(
  source: AnimationAsset,
  target: AnimationAsset,
  clip: string,
  { withOffsets = true, watched = [] as number[], beside = false } = {},
) {
  const anim = pluginWith(source, target)
  const [name] = anim.retarget(source, target, { clips: [clip], prefix: 'rt ' })
  const ours = clipOf(anim, target, name!)
  const theirsSource = clipOf(anim, source, clip)
  const map = nodeMap(source, target, anim.retargetMap(source, target))
  const from = threeRig(source, beside)
  const to = threeRig(target, beside)
  const names: Record<string, string> = {}
  const localOffsets: Record<string, Matrix4> = {}
  map.forEach((s, t) => {
    if (s < 0) return
    names[to.nodes[t]!.name] = from.nodes[s]!.name
    const offset = rotationOf(from.nodes[s]!).invert().multiply(rotationOf(to.nodes[t]!))
    if (withOffsets) localOffsets[to.nodes[t]!.name] = new Matrix4().makeRotationFromQuaternion(offset)
  })
  const hipsOf = (a: AnimationAsset) => {
    const rig = buildRig(a)
    return rig.jointNodes[findHumanoid({ rig, asset: a }).hips]!
  }
  const [sHips, tHips] = [hipsOf(source), hipsOf(target)]
  const height = hipsHeight(target, to.nodes, tHips)
  const ratio = height / hipsHeight(source, from.nodes, sHips)
  const keys = keyTimes(theirsSource).length
  const theirs = retargetClip(to.mesh, from.mesh, threeClip(from, theirsSource), {
    names,
    // @types/three 0.187 leaves out localOffsets, which SkeletonUtils.js 0.187 reads.
    ...({ localOffsets } as object),
    hip: from.nodes[sHips]!.name,
    scale: ratio,
    hipPosition: placeOf(to.nodes[tHips]!).divideScalar(ratio).sub(placeOf(from.nodes[sHips]!)),
    fps: keys / theirsSource.duration, // its frames on the source's keys
  })
  toRest(to, target)
  const mixer = new AnimationMixer(to.mesh)
  mixer.clipAction(theirs).play()
  const rig = posedRig(target)
  const rest = to.nodes.map(rotationOf)
  let rotation = 0
  let hips = 0
  let moved = 0
  const times = theirs.tracks[0]!.times
  for (const t of times.subarray(0, -1)) {
    mixer.setTime(t)
    to.root.updateMatrixWorld(true)
    pose(rig, ours, t)
    map.forEach((s, j) => {
      if (s < 0) return
      const a = rotationOf(rig.nodes[j]!).multiply(rest[j]!.clone().invert())
      const b = rotationOf(to.nodes[j]!).multiply(rest[j]!.clone().invert())
      rotation = Math.max(rotation, angleBetween(a, b))
    })
    hips = Math.max(hips, placeOf(rig.nodes[tHips]!).distanceTo(placeOf(to.nodes[tHips]!)))
    for (const j of watched) moved = Math.max(moved, placeOf(rig.nodes[j]!).distanceTo(placeOf(to.nodes[j]!)))
  }
  return { rotation, hips, moved, frames: times.length, height }
}

let mannequin: AnimationAsset
let robot: AnimationAsset
beforeAll(async () => {
  mannequin = await loadAsset('assets/Mannequin/Mannequin.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

describe('retarget against three.js SkeletonUtils.retargetClip, with the options that state the same rule', () => {
  it('generated humanoid pairs: the same world rotations (1e-5 rad), the same hips (1e-6 of their height)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.constantFrom('Walk', 'Wave'),
        (a, b, clip) => {
          const source = createHumanoid({ ...randomHumanoidOptions(a), armature: 'none' }, [clip])
          const target = createHumanoid({ ...randomHumanoidOptions(b), armature: 'none' }, [])
          const r = compare(source, target, clip)
          expect(r.rotation).toBeLessThan(2e-4)
          expect(r.hips).toBeLessThan(1e-4 * r.height)
        },
      ),
      { numRuns: 8 },
    )
  })

  it('the Mannequin onto RobotExpressive: the same rotations and hips; its IK feet are where the two part', () => {
    const feet = ['Foot.L', 'Foot.R'].map((f) => robot.nodes.findIndex((n) => n.name === f && n.parent === 2))
    for (const clip of ['Walk', 'Run', 'Wave']) {
      const r = compare(mannequin, robot, clip, { watched: feet })
      expect(r.frames, clip).toBeGreaterThan(20)
      expect(r.rotation, `${clip}: rotation`).toBeLessThan(1e-5)
      expect(r.hips, `${clip}: hips`).toBeLessThan(1e-6 * r.height)
      // three leaves the feet at their rest place under the armature; ours follow the shins.
      if (clip !== 'Wave') expect(r.moved, `${clip}: feet`).toBeGreaterThan(0.2)
    }
  })
})

describe('where retargetClip and retarget part', () => {
  it('without localOffsets three copies absolute world rotations: rigs of other rest poses and axes twist', () => {
    const source = createHumanoid({ naming: 'mixamo', axes: 'bone-y', armDown: 0 }, ['Walk'])
    const target = createHumanoid({ naming: 'unreal', axes: 'world', armDown: Math.PI / 4 }, [])
    expect(compare(source, target, 'Walk', { withOffsets: false }).rotation).toBeGreaterThan(1)
  })

  it('with the bones beside the mesh, a bone listed before those above its source reads their last frame', () => {
    // RobotExpressive's IK feet come first in its skeleton: three updates the Mannequin's feet before their
    // legs, from the legs' previous frame (at frame 0, their rest pose).
    expect(compare(mannequin, robot, 'Walk', { beside: true }).rotation).toBeGreaterThan(0.05)
  })

  it("on GLTFLoader's RobotExpressive (its skeleton under a turned, 100× armature) skeleton.pose() breaks it", async () => {
    const gltf = await loadGltf('assets/RobotExpressive/RobotExpressive.glb')
    let mesh: SkinnedMesh | undefined
    gltf.scene.traverse((o) => void ((o as SkinnedMesh).isSkinnedMesh && (mesh ??= o as SkinnedMesh)))
    gltf.scene.updateMatrixWorld(true)
    const nodes = await gltfNodes(gltf)
    const body = nodes[robot.nodes.findIndex((n) => n.name === 'Body')]!
    const before = placeOf(body)
    mesh!.skeleton.pose()
    gltf.scene.updateMatrixWorld(true)
    // The robot's hips land 2.3 m from where they stand (it is 4.5 m tall): retargetClip starts every frame
    // from this pose.
    expect(placeOf(body).distanceTo(before)).toBeGreaterThan(1)
  })
})
