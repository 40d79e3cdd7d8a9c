/**
 * Test side of retargeting (src/retarget, plugin/retarget.ts): a rig posed by three.js (an Object3D per node,
 * rest transforms from the asset, a clip's values from sampleNodeTransforms, world rotations and places from
 * three's matrixWorld), so the rule is checked by an implementation other than the baking's own; plus plugins
 * with two assets and pairs of generated humanoids.
 */
import { createWorld } from 'bitecs'
import { Matrix4, Object3D, Quaternion, Vector3 } from 'three'
import { createAnimationPlugin, contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import type { Clip } from '../../src/clip/clip.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { sampleNodeTransforms } from '../../src/skeleton/nodeTransforms.ts'
import { buildRig } from '../../src/skeleton/rig.ts'

/** A rig as three.js Object3Ds, one per node (index = glTF node index), under one root. */
export interface PosedRig {
  readonly asset: AnimationAsset
  readonly root: Object3D
  readonly nodes: readonly Object3D[]
}

export function posedRig(asset: AnimationAsset): PosedRig {
  const root = new Object3D()
  const nodes = asset.nodes.map(() => new Object3D())
  asset.nodes.forEach((n, i) => (n.parent >= 0 ? nodes[n.parent]! : root).add(nodes[i]!))
  const rig = { asset, root, nodes }
  pose(rig, null, 0)
  return rig
}

/** Puts the rig in its rest pose, then `clip`'s pose at t seconds (none: rest), and updates world matrices. */
export function pose(rig: PosedRig, clip: Clip | null, t: number): void {
  rig.asset.nodes.forEach((n, i) => {
    const o = rig.nodes[i]!
    o.position.fromArray(n.translation)
    o.quaternion.fromArray(n.rotation)
    o.scale.fromArray(n.scale)
  })
  if (clip)
    for (const n of sampleNodeTransforms(rig.asset, clip, t)) {
      const o = rig.nodes[n.node]!
      o.position.fromArray(n.translation)
      o.quaternion.fromArray(n.rotation)
      o.scale.fromArray(n.scale)
    }
  rig.root.updateMatrixWorld(true)
}

const m = new Matrix4()
const s = new Vector3()

/** Node i's world rotation (three's decomposition of its world matrix). */
export function worldRotation(rig: PosedRig, node: number): Quaternion {
  const q = new Quaternion()
  m.copy(rig.nodes[node]!.matrixWorld).decompose(new Vector3(), q, s)
  return q
}

export function worldPosition(rig: PosedRig, node: number): Vector3 {
  return new Vector3().setFromMatrixPosition(rig.nodes[node]!.matrixWorld)
}

/**
 * Rotation angle (radians) between two rotations, q and -q the same: from a⁻¹·b by atan2, well conditioned
 * near 0 (2·acos|a·b| reads 5e-4 for two equal quaternions a part in 10⁷ off unit length).
 */
export function angleBetween(a: Quaternion, b: Quaternion): number {
  const r = a.clone().conjugate().multiply(b)
  return 2 * Math.atan2(Math.hypot(r.x, r.y, r.z), Math.abs(r.w))
}

/** Every key time of a clip's channels, sorted. */
export function keyTimes(clip: Clip): number[] {
  const times = new Set<number>()
  for (const ch of clip.channels) for (const t of ch.times) times.add(t)
  return [...times].sort((a, b) => a - b)
}

/** `{ name: name }` for every scene node whose name resolves to itself (the identity map of retarget). */
export function identityMap(asset: AnimationAsset): Record<string, string> {
  const rig = buildRig(asset)
  const map: Record<string, string> = {}
  for (const n of asset.nodes) if (rig.nodeJoint[n.index]! >= 0) map[n.name] = n.name
  return map
}

/** A plugin with `source` and `target` added (the same asset when one is given). */
export function pluginWith(source: AnimationAsset, target: AnimationAsset = source): AnimationPlugin {
  const anim = createAnimationPlugin(createWorld(), { capacity: 1024 })
  anim.addAsset(source)
  anim.addAsset(target)
  return anim
}

/** The built clip named `name` of `asset` in a plugin (a retargeted one included). */
export function clipOf(anim: AnimationPlugin, asset: AnimationAsset, name: string): Clip {
  return contextOf(anim).clips[anim.clipId(anim.addAsset(asset), name)]!.clip
}

/** The glTF node of each target node's source under a map by name (−1: unmapped). */
export function nodeMap(
  source: AnimationAsset,
  target: AnimationAsset,
  map: Record<string, string>,
): Int32Array {
  const byName = (a: AnimationAsset, name: string): number => {
    const rig = buildRig(a)
    const all = a.nodes.filter((n) => n.name === name && rig.nodeJoint[n.index]! >= 0)
    const skin = all.filter((n) => rig.skinJoint[rig.nodeJoint[n.index]!] === 1)
    return (skin.length === 1 ? skin[0]! : all[0]!).index
  }
  const out = new Int32Array(target.nodes.length).fill(-1)
  for (const [t, s] of Object.entries(map)) out[byName(target, t)] = byName(source, s)
  return out
}
