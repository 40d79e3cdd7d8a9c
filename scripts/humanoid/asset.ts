/**
 * A generated humanoid (skeleton.ts) with its clips (motion.ts) as an AnimationAsset: nodes with rest
 * transforms (an Armature node first when the skeleton has one), one skin over the joints (identity inverse
 * binds: no mesh), and a clip per motion keyed at `keysPerSecond` with a rotation channel on every joint and
 * the hips' translation, LINEAR, as a mocap export is. For the retargeting tests and the bench; the shipped
 * Mannequin is the same skeleton written to a file (scripts/make-mannequin.ts). Setup code.
 */
import { buildClip, type Clip, type RawChannel } from '../../src/clip/clip.ts'
import type { AnimationAsset, AssetNode } from '../../src/gltf/asset.ts'
import { HUMANOID_MOTIONS, type HumanoidMotion } from './motion.ts'
import {
  conj,
  humanoidSkeleton,
  mulQuat,
  rotate,
  sub,
  type HumanoidOptions,
  type HumanoidSkeleton,
  type Quat,
  type Vec3,
} from './skeleton.ts'

/** A joint's rest local transform: the nodes' TRS, shared by the asset and the file. */
export interface RestLocal {
  readonly translation: Vec3
  readonly rotation: Quat
}

/** The glTF node index of joint i (after the Armature node when there is one). */
export const jointNode = (s: HumanoidSkeleton, i: number): number => i + (s.armature ? 1 : 0)

/** The parent's world rotation and place of joint i at rest or in a pose (world rotations `rot`). */
function parentFrame(
  s: HumanoidSkeleton,
  i: number,
  rot: readonly Quat[],
  pos: readonly Vec3[],
): [Quat, Vec3] {
  const p = s.joints[i]!.parent
  if (p >= 0) return [rot[p]!, pos[p]!]
  return [s.armature?.rotation ?? [0, 0, 0, 1], [0, 0, 0]]
}

/** Local transforms of every joint for world rotations `rot` and places `pos` (metres). */
export function localTransforms(
  s: HumanoidSkeleton,
  rot: readonly Quat[],
  pos: readonly Vec3[],
): RestLocal[] {
  const unit = s.armature?.scale ?? 1
  return s.joints.map((_, i) => {
    const [pr, pp] = parentFrame(s, i, rot, pos)
    const t = rotate(conj(pr), sub(pos[i]!, pp))
    return { translation: [t[0] / unit, t[1] / unit, t[2] / unit], rotation: mulQuat(conj(pr), rot[i]!) }
  })
}

/** World rotations and places of the joints in a motion's pose at t. */
export function posedWorld(
  s: HumanoidSkeleton,
  motion: HumanoidMotion,
  t: number,
): { rot: Quat[]; pos: Vec3[] } {
  const { deltas, hips } = motion.pose(s, t)
  const delta: Quat[] = []
  const rot: Quat[] = []
  const pos: Vec3[] = []
  s.joints.forEach((j, i) => {
    delta[i] = deltas.get(j.id) ?? (j.parent >= 0 ? delta[j.parent]! : [0, 0, 0, 1])
    rot[i] = mulQuat(delta[i]!, j.frame)
    if (j.parent < 0) pos[i] = [j.pos[0] + hips[0], j.pos[1] + hips[1], j.pos[2] + hips[2]]
    else {
      const p = s.joints[j.parent]!
      const d = rotate(delta[j.parent]!, sub(j.pos, p.pos))
      pos[i] = [pos[j.parent]![0] + d[0], pos[j.parent]![1] + d[1], pos[j.parent]![2] + d[2]]
    }
  })
  return { rot, pos }
}

/** The clip of one motion on the skeleton: every joint's rotation and the hips' translation. */
export function motionClip(
  s: HumanoidSkeleton,
  name: string,
  motion: HumanoidMotion,
  keysPerSecond = 30,
): Clip {
  const count = Math.round(motion.seconds * keysPerSecond) + 1
  const times = Array.from({ length: count }, (_, k) => (k * motion.seconds) / (count - 1))
  const rotations: number[][] = s.joints.map(() => [])
  const hips: number[] = []
  for (const t of times) {
    const { rot, pos } = posedWorld(s, motion, t)
    const local = localTransforms(s, rot, pos)
    local.forEach((l, i) => {
      const keys = rotations[i]!
      const prev = keys.slice(-4)
      const flip = prev.length === 4 && prev.reduce((a, v, k) => a + v * l.rotation[k]!, 0) < 0 ? -1 : 1
      keys.push(...l.rotation.map((v) => flip * v))
    })
    hips.push(...local[0]!.translation)
  }
  const channels: RawChannel[] = s.joints.map((j, i) => ({
    node: jointNode(s, i),
    nodeName: j.name,
    path: 'rotation',
    times,
    values: rotations[i]!,
  }))
  channels.push({
    node: jointNode(s, 0),
    nodeName: s.joints[0]!.name,
    path: 'translation',
    times,
    values: hips,
  })
  return buildClip({ name, channels }, { nodeCount: s.joints.length + (s.armature ? 1 : 0) })
}

/** The asset's nodes: the Armature node (when there is one), then the joints with their rest transforms. */
export function humanoidNodes(s: HumanoidSkeleton): AssetNode[] {
  const rest = localTransforms(
    s,
    s.joints.map((j) => j.frame),
    s.joints.map((j) => j.pos),
  )
  const offset = s.armature ? 1 : 0
  const nodes: AssetNode[] = s.joints.map((j, i) => ({
    index: i + offset,
    name: j.name,
    parent: j.parent >= 0 ? j.parent + offset : offset - 1,
    children: s.joints.flatMap((c, ci) => (c.parent === i ? [ci + offset] : [])),
    translation: rest[i]!.translation,
    rotation: rest[i]!.rotation,
    scale: [1, 1, 1],
    weights: [],
    skin: -1,
    mesh: -1,
  }))
  if (s.armature) {
    const unit = s.armature.scale
    nodes.unshift({
      index: 0,
      name: 'Armature',
      parent: -1,
      children: [1],
      translation: [0, 0, 0],
      rotation: s.armature.rotation,
      scale: [unit, unit, unit],
      weights: [],
      skin: -1,
      mesh: -1,
    })
  }
  return nodes
}

/**
 * A generated humanoid as an AnimationAsset with the clips `clips` names (default all four motions), its
 * source named after the options so messages tell rigs apart.
 */
export function createHumanoid(
  options: HumanoidOptions = {},
  clips = Object.keys(HUMANOID_MOTIONS),
  keysPerSecond = 30,
): AnimationAsset {
  const s = humanoidSkeleton(options)
  const joints = Int32Array.from(s.joints, (_, i) => jointNode(s, i))
  const n = joints.length
  const ibm = new Float32Array(16 * n)
  for (let j = 0; j < n; j++) for (let k = 0; k < 16; k += 5) ibm[16 * j + k] = 1
  return {
    source: `humanoid-${s.naming}-${options.seed ?? 1}`,
    nodes: humanoidNodes(s),
    roots: [0],
    skeletons: [
      {
        name: 'skin',
        joints,
        parents: Int32Array.from(s.joints, (j) => j.parent),
        inverseBindMatrices: ibm,
        skinJointOrder: Int32Array.from(s.joints, (_, i) => i),
        root: joints[0]!,
      },
    ],
    clips: clips.map((name) =>
      motionClip(s, name, HUMANOID_MOTIONS[name as keyof typeof HUMANOID_MOTIONS]!, keysPerSecond),
    ),
  }
}
