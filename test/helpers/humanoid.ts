/**
 * A humanoid AnimationAsset made in code, in metres: an armature node, a skinned mesh node and 20 skin joints
 * (pelvis, spine, chest, neck, head, head tip, arms with hands, legs with feet and toes), an inverse-bind skin and
 * two clips (a 1 s "Walk" loop and a 2 s "Idle"). For system and physics tests that need a realistic skeleton
 * without files, and as a user-supplied ragdoll description (`HUMANOID_RAGDOLL`).
 *
 * Bones run along each joint's local +y (as Blender and Mixamo rigs do), so most rest rotations are not the
 * identity: the arms turn ±90° about z, the legs 180° about x, the feet -90° about x.
 *
 *   0 Armature (scene root, not a joint)
 *   ├─ 1 pelvis (0, 1.0, 0)
 *   │  ├─ 2 spine ─ 3 chest ─┬─ 4 neck ─ 5 head ─ 6 headTip
 *   │  │                     ├─ 7 upperArm.L ─ 8 forearm.L ─ 9 hand.L
 *   │  │                     └─ 10 upperArm.R ─ 11 forearm.R ─ 12 hand.R
 *   │  ├─ 13 thigh.L ─ 14 shin.L ─ 15 foot.L ─ 16 toe.L
 *   │  └─ 17 thigh.R ─ 18 shin.R ─ 19 foot.R ─ 20 toe.R
 *   └─ 21 Body (the skinned mesh node)
 *
 * Standing at rest the ankles are 0.08 m above y = 0 and the toes point to +z. Written with Math.* (test side).
 */
import { Matrix4, Quaternion, Vector3 } from 'three'
import { buildClip, type RawChannel } from '../../src/clip/clip.ts'
import type { AnimationAsset, AssetNode, Skeleton } from '../../src/gltf/asset.ts'
import type { RagdollDescription } from '../../src/physics/description.ts'
import { quatFromAxisAngle, refMultiply } from './quat.ts'

type Vec3 = [number, number, number]
type Quat = [number, number, number, number]

const I: Quat = [0, 0, 0, 1]
const rotX = (a: number): Quat => quatFromAxisAngle([1, 0, 0], a)
const rotZ = (a: number): Quat => quatFromAxisAngle([0, 0, 1], a)

export const HUMANOID_NODES: readonly { name: string; parent: number; t: Vec3; r: Quat }[] = [
  { name: 'Armature', parent: -1, t: [0, 0, 0], r: I },
  { name: 'pelvis', parent: 0, t: [0, 1, 0], r: I },
  { name: 'spine', parent: 1, t: [0, 0.12, 0], r: I },
  { name: 'chest', parent: 2, t: [0, 0.2, 0], r: I },
  { name: 'neck', parent: 3, t: [0, 0.22, 0], r: I },
  { name: 'head', parent: 4, t: [0, 0.1, 0], r: I },
  { name: 'headTip', parent: 5, t: [0, 0.22, 0], r: I },
  { name: 'upperArm.L', parent: 3, t: [0.18, 0.18, 0], r: rotZ(-Math.PI / 2) },
  { name: 'forearm.L', parent: 7, t: [0, 0.28, 0], r: I },
  { name: 'hand.L', parent: 8, t: [0, 0.25, 0], r: I },
  { name: 'upperArm.R', parent: 3, t: [-0.18, 0.18, 0], r: rotZ(Math.PI / 2) },
  { name: 'forearm.R', parent: 10, t: [0, 0.28, 0], r: I },
  { name: 'hand.R', parent: 11, t: [0, 0.25, 0], r: I },
  { name: 'thigh.L', parent: 1, t: [0.1, -0.05, 0], r: rotX(Math.PI) },
  { name: 'shin.L', parent: 13, t: [0, 0.45, 0], r: I },
  { name: 'foot.L', parent: 14, t: [0, 0.42, 0], r: rotX(-Math.PI / 2) },
  { name: 'toe.L', parent: 15, t: [0, 0.14, 0], r: I },
  { name: 'thigh.R', parent: 1, t: [-0.1, -0.05, 0], r: rotX(Math.PI) },
  { name: 'shin.R', parent: 17, t: [0, 0.45, 0], r: I },
  { name: 'foot.R', parent: 18, t: [0, 0.42, 0], r: rotX(-Math.PI / 2) },
  { name: 'toe.R', parent: 19, t: [0, 0.14, 0], r: I },
  { name: 'Body', parent: 0, t: [0, 0, 0], r: I },
]

/** glTF node index by name. */
export const HUMANOID = Object.fromEntries(HUMANOID_NODES.map((n, i) => [n.name, i])) as Record<
  string,
  number
>

const BODY_NODE = HUMANOID_NODES.length - 1
/** Skin joints: every node but the armature and the mesh, already parents first. */
const JOINTS = HUMANOID_NODES.map((_, i) => i).filter((i) => i !== 0 && i !== BODY_NODE)

/** A 1 s walk loop and a 2 s idle, sampled every 1/8 s (LINEAR). Angles in radians about each joint's local x. */
function humanoidClips(): RawClipLike[] {
  const times = Array.from({ length: 9 }, (_, k) => k / 8)
  const swing = (node: number, angle: (t: number) => number): RawChannel => ({
    node,
    nodeName: HUMANOID_NODES[node]!.name,
    path: 'rotation',
    times,
    values: times.flatMap((t) => refMultiply(HUMANOID_NODES[node]!.r, rotX(angle(t)))),
  })
  const s = (t: number): number => Math.sin(2 * Math.PI * t)
  const walk: RawChannel[] = [
    {
      node: HUMANOID.pelvis!,
      nodeName: 'pelvis',
      path: 'translation',
      times,
      values: times.flatMap((t) => [0, 1 - 0.03 + 0.03 * Math.cos(4 * Math.PI * t), 0]),
    },
    swing(HUMANOID['thigh.L']!, (t) => 0.5 * s(t)),
    swing(HUMANOID['thigh.R']!, (t) => -0.5 * s(t)),
    swing(HUMANOID['shin.L']!, (t) => -0.6 * Math.max(0, s(t + 0.25))),
    swing(HUMANOID['shin.R']!, (t) => -0.6 * Math.max(0, -s(t + 0.25))),
    swing(HUMANOID['upperArm.L']!, (t) => -0.4 * s(t)),
    swing(HUMANOID['upperArm.R']!, (t) => 0.4 * s(t)),
    swing(HUMANOID['forearm.L']!, (t) => 0.3 + 0.2 * s(t)),
    swing(HUMANOID['forearm.R']!, (t) => 0.3 - 0.2 * s(t)),
    swing(HUMANOID.spine!, (t) => 0.05 * s(2 * t)),
  ]
  const idleTimes = times.map((t) => 2 * t)
  const idle: RawChannel[] = [
    {
      node: HUMANOID.chest!,
      nodeName: 'chest',
      path: 'rotation',
      times: idleTimes,
      values: idleTimes.flatMap((t) => rotX(0.04 * Math.sin(Math.PI * t))),
    },
  ]
  return [
    { name: 'Walk', channels: walk },
    { name: 'Idle', channels: idle },
  ]
}

interface RawClipLike {
  name: string
  channels: RawChannel[]
}

/** Rest world matrix of every node (three.js, column-major elements). */
export function humanoidRestWorld(): Matrix4[] {
  const out: Matrix4[] = []
  HUMANOID_NODES.forEach((n, i) => {
    const local = new Matrix4().compose(new Vector3(...n.t), new Quaternion(...n.r), new Vector3(1, 1, 1))
    out[i] = n.parent < 0 ? local : out[n.parent]!.clone().multiply(local)
  })
  return out
}

/** Builds the asset. `source` names it in messages. */
export function makeHumanoidAsset(source = 'generated-humanoid'): AnimationAsset {
  const nodes: AssetNode[] = HUMANOID_NODES.map((n, index) => ({
    index,
    name: n.name,
    parent: n.parent,
    children: HUMANOID_NODES.flatMap((c, ci) => (c.parent === index ? [ci] : [])),
    translation: n.t,
    rotation: n.r,
    scale: [1, 1, 1],
    weights: [],
    skin: index === BODY_NODE ? 0 : -1,
    mesh: index === BODY_NODE ? 0 : -1,
  }))
  const world = humanoidRestWorld()
  const inverseBindMatrices = new Float32Array(JOINTS.length * 16)
  JOINTS.forEach((node, j) => inverseBindMatrices.set(world[node]!.clone().invert().elements, j * 16))
  const skeleton: Skeleton = {
    name: 'humanoid',
    joints: Int32Array.from(JOINTS),
    parents: Int32Array.from(JOINTS.map((node) => JOINTS.indexOf(HUMANOID_NODES[node]!.parent))),
    inverseBindMatrices,
    skinJointOrder: Int32Array.from(JOINTS.map((_, j) => j)),
    root: HUMANOID.pelvis!,
  }
  return {
    source,
    nodes,
    roots: [0],
    skeletons: [skeleton],
    clips: humanoidClips().map((c) => buildClip(c, { nodeCount: nodes.length })),
  }
}

/**
 * A hand-written ragdoll for the humanoid, as a game would supply it: 13 capsules on the main bones (no toes,
 * spine and neck carried by their neighbours, head as one capsule, feet as boxes), 68 kg, per-joint limits. Axes are local +y (the
 * bone direction of this rig).
 */
export const HUMANOID_RAGDOLL: RagdollDescription = {
  bodies: [
    {
      joint: 'pelvis',
      shape: 'capsule',
      radius: 0.12,
      length: 0.2,
      axis: [0, 1, 0],
      mass: 12,
      coneAngle: 0.5,
      twistAngle: 0.3,
    },
    {
      joint: 'chest',
      shape: 'capsule',
      radius: 0.13,
      length: 0.3,
      axis: [0, 1, 0],
      mass: 14,
      coneAngle: 0.5,
      twistAngle: 0.4,
    },
    {
      joint: 'head',
      shape: 'capsule',
      radius: 0.1,
      length: 0.22,
      axis: [0, 1, 0],
      mass: 5,
      coneAngle: 0.6,
      twistAngle: 0.6,
    },
    ...(['L', 'R'] as const).flatMap((side) => [
      {
        joint: `upperArm.${side}`,
        shape: 'capsule' as const,
        radius: 0.05,
        length: 0.28,
        axis: [0, 1, 0] as const,
        mass: 2.5,
        coneAngle: 1.2,
        twistAngle: 0.6,
      },
      {
        joint: `forearm.${side}`,
        shape: 'capsule' as const,
        radius: 0.045,
        length: 0.3,
        axis: [0, 1, 0] as const,
        mass: 2,
        coneAngle: 0.9,
        twistAngle: 0.3,
      },
      {
        joint: `thigh.${side}`,
        shape: 'capsule' as const,
        radius: 0.08,
        length: 0.45,
        axis: [0, 1, 0] as const,
        mass: 9,
        coneAngle: 0.8,
        twistAngle: 0.3,
      },
      {
        joint: `shin.${side}`,
        shape: 'capsule' as const,
        radius: 0.06,
        length: 0.42,
        axis: [0, 1, 0] as const,
        mass: 4,
        coneAngle: 0.9,
        twistAngle: 0.2,
      },
      {
        joint: `foot.${side}`,
        shape: 'box' as const,
        radius: 0.04,
        length: 0.18,
        axis: [0, 1, 0] as const,
        mass: 1,
        coneAngle: 0.5,
        twistAngle: 0.2,
      },
    ]),
  ],
}
