/**
 * Shared helpers for the ECS tests: a small synthetic AnimationAsset built in code (so system tests need no
 * files), closed-form expectations for its clips, and an independent world-matrix oracle (a three.js Object3D
 * hierarchy built from the same local transforms, `updateMatrixWorld`).
 *
 * Written with Math.* on purpose: this is the independent side of every comparison.
 */
import { createWorld, query, type World } from 'bitecs'
import { Object3D } from 'three'
import { expect } from 'vitest'
import { buildClip, type RawChannel } from '../../src/clip/clip.ts'
import type { AnimationAsset, AssetNode } from '../../src/gltf/asset.ts'
import {
  createAnimationPlugin,
  type AnimationPlugin,
  type AnimationPluginOptions,
  type AssetHandle,
} from '../../entry/plugin.ts'
import { JOINT_STRIDE, POSE_ANIM, poseOffset } from '../../components/Pose.ts'
import { quatFromAxisAngle } from './quat.ts'
import { contextOf } from '../../entry/plugin.ts'
import { isClipEvent, type ProblemEvent } from '../../systems/state.ts'

type Vec3 = [number, number, number]
type Quat = [number, number, number, number]

/**
 * The synthetic rig (glTF node indices):
 *
 *   0 hips  ── 1 spine ── 2 head          scene roots: 0 and 4
 *          └─ 3 tail
 *   4 prop                                (a second root no clip animates)
 *
 * Rest transforms are deliberately not identity (a reset to rest is visible).
 */
export const HIPS = 0
export const SPINE = 1
export const HEAD = 2
export const TAIL = 3
export const PROP = 4

export const REST: readonly { name: string; parent: number; t: Vec3; r: Quat; s: Vec3 }[] = [
  { name: 'hips', parent: -1, t: [0, 1, 0], r: [0, 0, 0, 1], s: [1, 1, 1] },
  { name: 'spine', parent: 0, t: [0, 0.5, 0], r: quatFromAxisAngle([0, 0, 1], Math.PI / 9), s: [1, 1, 1] },
  { name: 'head', parent: 1, t: [0, 0.4, 0], r: [0, 0, 0, 1], s: [1.5, 1.5, 1.5] },
  { name: 'tail', parent: 0, t: [0, -0.1, -0.3], r: quatFromAxisAngle([1, 0, 0], Math.PI / 6), s: [1, 1, 1] },
  { name: 'prop', parent: -1, t: [1, 0, 0], r: [0, 0, 0, 1], s: [2, 2, 2] },
]

/** Clip indices of the synthetic asset, in file order. */
export const TURN = 0
export const NOD = 1
export const WAG = 2
export const STILL = 3

/**
 * Closed forms of the clips at clip-local time t (seconds):
 *   Turn (1 s):   hips.translation = [2t, 0, 0];  spine.rotation = rotY(π·t)          (keys at 0, 0.5, 1)
 *   Nod (0.5 s):  hips.translation = [0, 0, 4t]; spine.rotation = rotX(π·t);  head.translation = [0, 0.4 + t, 0]
 *   Wag (2 s):    tail.rotation = rotZ(π/2 · (1 − |t − 1|)) (0 → π/2 → 0);  tail.scale STEP 1 then 2 from t = 1
 *   Still (0 s):  spine.rotation = rotZ(π/2), one key at 0
 * Rotations about one axis with keys ≤ 90° apart: slerp between keys is exactly the linear angle.
 */
export function expectedLocal(clip: number, node: number, t: number): { t: Vec3; r: Quat; s: Vec3 } {
  const rest = REST[node]!
  const out = { t: [...rest.t] as Vec3, r: [...rest.r] as Quat, s: [...rest.s] as Vec3 }
  if (clip === TURN) {
    if (node === HIPS) out.t = [2 * t, 0, 0]
    if (node === SPINE) out.r = quatFromAxisAngle([0, 1, 0], Math.PI * t)
  } else if (clip === NOD) {
    if (node === HIPS) out.t = [0, 0, 4 * t]
    if (node === SPINE) out.r = quatFromAxisAngle([1, 0, 0], Math.PI * t)
    if (node === HEAD) out.t = [0, 0.4 + t, 0]
  } else if (clip === WAG) {
    if (node === TAIL) {
      out.r = quatFromAxisAngle([0, 0, 1], (Math.PI / 2) * (1 - Math.abs(t - 1)))
      out.s = t >= 1 ? [2, 2, 2] : [1, 1, 1]
    }
  } else if (clip === STILL) {
    if (node === SPINE) out.r = quatFromAxisAngle([0, 0, 1], Math.PI / 2)
  }
  return out
}

const rot = (axis: Vec3, angles: number[]): number[] => angles.flatMap((a) => quatFromAxisAngle(axis, a))

/** Builds the synthetic asset. `source` names it in messages; `extraClips` are appended after Still. */
export function makeTestAsset(source = 'synthetic-rig', extraClips: RawClipInput[] = []): AnimationAsset {
  const nodes: AssetNode[] = REST.map((n, index) => ({
    index,
    name: n.name,
    parent: n.parent,
    children: REST.flatMap((c, ci) => (c.parent === index ? [ci] : [])),
    translation: n.t,
    rotation: n.r,
    scale: n.s,
    weights: [],
    skin: -1,
    mesh: -1,
  }))
  const ch = (node: number, path: string, times: number[], values: number[], interpolation = 'LINEAR') =>
    ({ node, nodeName: REST[node]!.name, path, interpolation, times, values }) satisfies RawChannel
  const raw: RawClipInput[] = [
    {
      name: 'Turn',
      channels: [
        ch(HIPS, 'translation', [0, 1], [0, 0, 0, 2, 0, 0]),
        ch(SPINE, 'rotation', [0, 0.5, 1], rot([0, 1, 0], [0, Math.PI / 2, Math.PI])),
      ],
    },
    {
      name: 'Nod',
      channels: [
        ch(HIPS, 'translation', [0, 0.5], [0, 0, 0, 0, 0, 2]),
        ch(SPINE, 'rotation', [0, 0.25, 0.5], rot([1, 0, 0], [0, Math.PI / 4, Math.PI / 2])),
        ch(HEAD, 'translation', [0, 0.5], [0, 0.4, 0, 0, 0.9, 0]),
      ],
    },
    {
      name: 'Wag',
      channels: [
        ch(TAIL, 'rotation', [0, 1, 2], rot([0, 0, 1], [0, Math.PI / 2, 0])),
        ch(TAIL, 'scale', [0, 1], [1, 1, 1, 2, 2, 2], 'STEP'),
      ],
    },
    { name: 'Still', channels: [ch(SPINE, 'rotation', [0], rot([0, 0, 1], [Math.PI / 2]))] },
    ...extraClips,
  ]
  return {
    source,
    nodes,
    roots: [HIPS, PROP],
    skeletons: [],
    clips: raw.map((c) => buildClip(c, { nodeCount: nodes.length })),
  }
}

export interface RawClipInput {
  name: string
  channels: RawChannel[]
}

/** Float offset of joint `node`'s 10 floats in a character's ANIM layer (the synthetic rig: joint j = node j). */
export function animOffset(plugin: AnimationPlugin, character: number, joint: number): number {
  const { Pose } = plugin.stores
  return poseOffset(Pose.base[character]!, Pose.count[character]!, POSE_ANIM) + joint * JOINT_STRIDE
}

/** A joint entity's local transform as read from the SceneNode store. */
export function localOf(plugin: AnimationPlugin, e: number): { t: Vec3; r: Quat; s: Vec3 } {
  const { translation: t, rotation: r, scale: s } = plugin.stores.SceneNode
  return {
    t: [t[e * 3]!, t[e * 3 + 1]!, t[e * 3 + 2]!],
    r: [r[e * 4]!, r[e * 4 + 1]!, r[e * 4 + 2]!, r[e * 4 + 3]!],
    s: [s[e * 3]!, s[e * 3 + 1]!, s[e * 3 + 2]!],
  }
}

/** Copy of the local T/R/S of the given entities (10 floats each), for before/after comparisons. */
export function snapshotLocals(plugin: AnimationPlugin, eids: ArrayLike<number>): Float32Array {
  const out = new Float32Array(eids.length * 10)
  for (let i = 0; i < eids.length; i++) {
    const l = localOf(plugin, eids[i]!)
    out.set([...l.t, ...l.r, ...l.s], i * 10)
  }
  return out
}

/** Every SceneNode entity of the plugin's graph, ascending. */
export function sceneNodes(plugin: AnimationPlugin): number[] {
  return Array.from(query(plugin.world, [plugin.stores.SceneNode])).sort((a, b) => a - b)
}

/**
 * The oracle for world matrices: a three.js Object3D per SceneNode entity, with the same local T/R/S and the
 * same parents, then `updateMatrixWorld(true)` on a full recompute. Returns entity → world matrix
 * (column-major, 16 doubles).
 */
export function threeWorldMatrices(plugin: AnimationPlugin): Map<number, number[]> {
  const store = plugin.stores.SceneNode
  const eids = sceneNodes(plugin)
  const objects = new Map<number, Object3D>()
  for (const e of eids) {
    const o = new Object3D()
    const l = localOf(plugin, e)
    o.position.set(...l.t)
    o.quaternion.set(...l.r)
    o.scale.set(...l.s)
    objects.set(e, o)
  }
  const root = new Object3D()
  for (const e of eids) {
    const p = store.parent[e]!
    ;(p === 0 ? root : objects.get(p)!).add(objects.get(e)!)
  }
  root.updateMatrixWorld(true)
  const out = new Map<number, number[]>()
  for (const [e, o] of objects) out.set(e, [...o.matrixWorld.elements])
  return out
}

/** Asserts every SceneNode's stored world matrix equals the three.js full recompute to `tol` per element. */
export function expectWorldMatchesThree(plugin: AnimationPlugin, tol = 1e-5): void {
  const world = plugin.stores.SceneNode.world
  let worst = 0
  let where = -1
  for (const [e, m] of threeWorldMatrices(plugin)) {
    for (let k = 0; k < 16; k++) {
      const d = Math.abs(world[e * 16 + k]! - m[k]!)
      if (!(d <= worst)) {
        worst = d
        where = e
      }
    }
  }
  if (!(worst <= tol))
    expect.fail(`world matrix of entity ${where} differs from three.js by ${worst} > ${tol}`)
}

/** Largest absolute difference between two 3-vectors. */
export function vecDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0
  for (let k = 0; k < a.length; k++) d = Math.max(d, Math.abs(a[k]! - b[k]!))
  return d
}

export const DT = 1 / 60

/**
 * A fresh bitecs world with a plugin (small capacity; ragdoll physics without gravity or ground, unused here)
 * and the synthetic asset registered.
 */
export function createTestPlugin(options: AnimationPluginOptions = {}): {
  world: World
  plugin: AnimationPlugin
  asset: AnimationAsset
  handle: AssetHandle
} {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, {
    capacity: 512,
    physics: { gravity: [0, 0, 0], ground: false },
    ...options,
  })
  const asset = makeTestAsset()
  const handle = plugin.addAsset(asset)
  return { world, plugin, asset, handle }
}

/** Runs `n` fixed steps. */
export function stepN(plugin: AnimationPlugin, n: number): void {
  for (let i = 0; i < n; i++) plugin.step()
}

/** Copy of a character's ANIM layer (n joints × 10 floats). */
export function animLayer(plugin: AnimationPlugin, character: number): Float32Array {
  const { Pose } = plugin.stores
  const o = poseOffset(Pose.base[character]!, Pose.count[character]!, POSE_ANIM)
  return contextOf(plugin).pool.data.slice(o, o + Pose.count[character]! * JOINT_STRIDE)
}

/** Bitwise equality of two float arrays (distinguishes -0 from 0; NaN equals NaN), with the first difference. */
export function expectSameBits(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  what = 'arrays',
): void {
  expect(actual.length, `${what}: length`).toBe(expected.length)
  for (let i = 0; i < actual.length; i++) {
    if (!Object.is(actual[i], expected[i])) {
      expect.fail(`${what} differ at [${i}]: ${actual[i]} vs ${expected[i]}`)
    }
  }
}

/** The problem reports among a plugin's events (its clips' loops, ends and markers left out). */
export function problems(plugin: AnimationPlugin): ProblemEvent[] {
  return plugin.events.filter((e): e is ProblemEvent => !isClipEvent(e))
}
