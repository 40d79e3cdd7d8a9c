/**
 * Generated humanoid skeletons for the retargeting tests, the bench and the shipped Mannequin: one layout of a
 * standing human (metres, +y up, facing +z, its left at +x), in the joint names of Mixamo, VRM, Unreal or
 * Blender, with the proportions, rest pose (T-pose to A-pose arms), spine and neck lengths and joint-axis
 * conventions a caller picks (randomHumanoidOptions picks them from a seed). Setup code: Math.* is fine here.
 *
 *   hips ─ spine1 … spineN ─ neck1 (─ neck2) ─ head (─ headTop: Mixamo's end joint)
 *        │               └─ {L,R}.shoulder ─ upperArm ─ lowerArm ─ hand ─ five fingers of 3 (+ a tip: Mixamo)
 *        └─ {L,R}.upperLeg ─ lowerLeg ─ foot ─ toes (─ toeEnd: Mixamo)
 *
 * Each joint has a rest place `pos` and a rest world rotation `frame`, which is only its axis convention (the
 * shape is the places): 'world' frames are the identity (Unreal-like), 'bone-y' ones turn +y along the bone
 * with a seeded roll (Blender, Mixamo), 'random' ones are anything. The 'mixamo' armature puts the joints in
 * centimetres under an `Armature` node turned -90° about x and scaled 0.01, as FBX conversions of Mixamo
 * characters do.
 */
import { mulberry32 } from '../random.ts'

export type Vec3 = [number, number, number]
export type Quat = [number, number, number, number]
export type Naming = 'mixamo' | 'vrm' | 'unreal' | 'blender'
export type AxisConvention = 'world' | 'bone-y' | 'random'

export interface HumanoidOptions {
  /** Joint names. Default 'mixamo'. */
  naming?: Naming
  /** Metres from the ground to the head top. Default 1.7. */
  height?: number
  /** Proportion multipliers of the legs, the torso and the arms. Default 1 each. */
  legs?: number
  torso?: number
  arms?: number
  /** Thigh length over leg length (thigh + shin). Default 0.5. */
  thighShare?: number
  /** Radians the arms hang below horizontal at rest: 0 is a T-pose, π/4 an A-pose. Default 0. */
  armDown?: number
  /** Spine joints between the hips and the neck, 1 to 3. Default 3. */
  spine?: number
  /** Neck joints, 1 or 2. Default 1. */
  neck?: number
  /** Five fingers per hand. Default true. */
  fingers?: boolean
  /** Joint-axis convention. Default 'bone-y'. */
  axes?: AxisConvention
  /** 'mixamo': centimetres under a turned and scaled Armature node. Default 'none'. */
  armature?: 'mixamo' | 'none'
  /** Seed of the frames' rolls and random axes. Default 1. */
  seed?: number
}

/** One joint: an id naming its role ('hips', 'spine2', 'L.upperArm', 'R.index3', …), its name and rest. */
export interface HumanoidJoint {
  readonly id: string
  readonly name: string
  readonly parent: number
  /** Rest place in the world, metres. */
  readonly pos: Vec3
  /** Rest world rotation: the joint's axes. */
  readonly frame: Quat
}

export interface HumanoidSkeleton {
  readonly joints: readonly HumanoidJoint[]
  /** The Armature node's rotation and scale ('mixamo'), or null: the hips are a scene root. */
  readonly armature: { readonly rotation: Quat; readonly scale: number } | null
  /** Thigh and shin lengths (metres) and the ankles' rest height. */
  readonly thigh: number
  readonly shin: number
  readonly ankleY: number
  /** Radians the arms hang below horizontal at rest. */
  readonly armDown: number
  readonly naming: Naming
}

export const FINGER_NAMES = ['thumb', 'index', 'middle', 'ring', 'little'] as const

/** Builds the skeleton's joints, parents first. */
export function humanoidSkeleton(o: HumanoidOptions = {}): HumanoidSkeleton {
  const naming = o.naming ?? 'mixamo'
  const H = o.height ?? 1.7
  const legLen = 0.47 * H * (o.legs ?? 1)
  const thigh = legLen * (o.thighShare ?? 0.5)
  const shin = legLen - thigh
  const torso = 0.3 * H * (o.torso ?? 1)
  const arm = o.arms ?? 1
  const down = o.armDown ?? 0
  const spineCount = o.spine ?? 3
  const neckCount = o.neck ?? 1
  const ankleY = 0.045 * H
  const hipJointY = ankleY + legLen
  const hipsY = hipJointY + 0.04 * H
  const joints: { id: string; parent: number; pos: Vec3 }[] = []
  const add = (id: string, parent: number, pos: Vec3): number => joints.push({ id, parent, pos }) - 1
  const hips = add('hips', -1, [0, hipsY, 0])
  let p = hips
  for (let k = 1; k <= spineCount; k++)
    p = add(`spine${k}`, p, [0, hipsY + torso * (0.15 + (0.75 * (k - 1)) / spineCount), 0])
  const chest = p
  const chestY = joints[chest]!.pos[1]
  const neckY = hipsY + torso
  for (let k = 1; k <= neckCount; k++) p = add(`neck${k}`, p, [0, neckY + 0.03 * H * (k - 1), 0.005 * H])
  const head = add('head', p, [0, neckY + 0.06 * H, 0.01 * H])
  if (naming === 'mixamo') add('headTop', head, [0, neckY + 0.19 * H, 0.01 * H])
  for (const [S, sx] of [
    ['L', 1],
    ['R', -1],
  ] as const) {
    const shoulderY = chestY + 0.7 * (neckY - chestY)
    const sh = add(`${S}.shoulder`, chest, [sx * 0.03 * H, shoulderY, 0])
    const dir: Vec3 = [sx * Math.cos(down), -Math.sin(down), 0]
    const at = (from: Vec3, d: number): Vec3 => [
      from[0] + dir[0] * d,
      from[1] + dir[1] * d,
      from[2] + dir[2] * d,
    ]
    const upperPos: Vec3 = [sx * 0.1 * H, shoulderY - 0.01 * H, 0]
    const up = add(`${S}.upperArm`, sh, upperPos)
    const lowerPos = at(upperPos, 0.17 * H * arm)
    const low = add(`${S}.lowerArm`, up, lowerPos)
    const handPos = at(lowerPos, 0.15 * H * arm)
    const hand = add(`${S}.hand`, low, handPos)
    if (o.fingers ?? true) {
      FINGER_NAMES.forEach((finger, f) => {
        const base = at(handPos, f === 0 ? 0.02 * H : 0.05 * H)
        base[2] += [0.03, 0.02, 0.005, -0.01, -0.025][f]! * H
        let q = hand
        const segments = naming === 'mixamo' ? 4 : 3
        for (let k = 1; k <= segments; k++) q = add(`${S}.${finger}${k}`, q, at(base, 0.022 * H * (k - 1)))
      })
    }
    const ul = add(`${S}.upperLeg`, hips, [sx * 0.09 * H, hipJointY, 0])
    const ll = add(`${S}.lowerLeg`, ul, [sx * 0.09 * H, hipJointY - thigh, 0])
    const foot = add(`${S}.foot`, ll, [sx * 0.09 * H, ankleY, 0])
    const toes = add(`${S}.toes`, foot, [sx * 0.09 * H, 0.012 * H, 0.1 * H])
    if (naming === 'mixamo') add(`${S}.toeEnd`, toes, [sx * 0.09 * H, 0.012 * H, 0.15 * H])
  }
  const random = mulberry32(o.seed ?? 1)
  const axes = o.axes ?? 'bone-y'
  const frames = joints.map((j, i) => {
    if (axes === 'world') return [0, 0, 0, 1] as Quat
    if (axes === 'random') return randomQuat(random)
    const child = joints.findIndex((c) => c.parent === i)
    const to = child >= 0 ? joints[child]!.pos : null
    const d = to ? sub(to, j.pos) : ([0, 1, 0] as Vec3)
    return mulQuat(fromTo([0, 1, 0], d), axisAngle([0, 1, 0], 2 * Math.PI * random()))
  })
  return {
    joints: joints.map((j, i) => ({ ...j, name: jointName(j.id, naming), frame: frames[i]! })),
    armature: o.armature === 'mixamo' ? { rotation: axisAngle([1, 0, 0], -Math.PI / 2), scale: 0.01 } : null,
    thigh,
    shin,
    ankleY,
    armDown: down,
    naming,
  }
}

/** Options picked from a seed: any naming, proportions ±15 %, T- to A-pose, 1-3 spine joints, any axes. */
export function randomHumanoidOptions(seed: number): HumanoidOptions {
  const r = mulberry32(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
  return {
    naming: pick(['mixamo', 'vrm', 'unreal', 'blender'] as const),
    height: 1.2 + 0.8 * r(),
    legs: 0.85 + 0.3 * r(),
    torso: 0.85 + 0.3 * r(),
    arms: 0.85 + 0.3 * r(),
    thighShare: 0.46 + 0.08 * r(),
    armDown: (Math.PI / 4) * r(),
    spine: 1 + Math.floor(3 * r()),
    neck: 1 + Math.floor(2 * r()),
    fingers: r() < 0.7,
    axes: pick(['world', 'bone-y', 'random'] as const),
    armature: r() < 0.3 ? 'mixamo' : 'none',
    seed: Math.floor(r() * 2 ** 31),
  }
}

const SIDE_WORD = { L: ['Left', 'left', 'l', 'L'], R: ['Right', 'right', 'r', 'R'] } as const
const cap = (s: string): string => s[0]!.toUpperCase() + s.slice(1)

/** A joint's name in a naming convention, from its id. */
export function jointName(id: string, naming: Naming): string {
  const m = /^([LR])\.([a-zA-Z]+?)(\d*)$/.exec(id)
  const [Side, side, s, S] = m ? SIDE_WORD[m[1] as 'L' | 'R'] : ['', '', '', '']
  const bone = m ? m[2]! : id.replace(/\d+$/, '')
  const k = Number(m ? m[3] : /\d+$/.exec(id)?.[0]) || 0
  const isFinger = (FINGER_NAMES as readonly string[]).includes(bone)
  if (naming === 'mixamo') {
    const finger = bone === 'little' ? 'Pinky' : cap(bone)
    const mixamo: Record<string, string> = {
      hips: 'Hips',
      spine: k === 1 ? 'Spine' : `Spine${k - 1}`,
      neck: k === 1 ? 'Neck' : `Neck${k - 1}`,
      head: 'Head',
      headTop: 'HeadTop_End',
      shoulder: `${Side}Shoulder`,
      upperArm: `${Side}Arm`,
      lowerArm: `${Side}ForeArm`,
      hand: `${Side}Hand`,
      upperLeg: `${Side}UpLeg`,
      lowerLeg: `${Side}Leg`,
      foot: `${Side}Foot`,
      toes: `${Side}ToeBase`,
      toeEnd: `${Side}Toe_End`,
    }
    return `mixamorig:${isFinger ? `${Side}Hand${finger}${k}` : mixamo[bone]}`
  }
  if (naming === 'vrm') {
    const spine = ['spine', 'chest', 'upperChest']
    const segment =
      bone === 'thumb' ? ['Metacarpal', 'Proximal', 'Distal'] : ['Proximal', 'Intermediate', 'Distal']
    if (isFinger) return `${side}${cap(bone)}${segment[k - 1]}`
    if (bone === 'spine') return spine[k - 1]!
    if (bone === 'neck') return k === 1 ? 'neck' : 'upperNeck'
    return side ? `${side}${cap(bone)}` : bone
  }
  if (naming === 'unreal') {
    const unreal: Record<string, string> = {
      hips: 'pelvis',
      shoulder: 'clavicle',
      upperArm: 'upperarm',
      lowerArm: 'lowerarm',
      upperLeg: 'thigh',
      lowerLeg: 'calf',
      toes: 'ball',
      little: 'pinky',
    }
    const name = unreal[bone] ?? bone
    if (isFinger) return `${name}_0${k}_${s}`
    if (bone === 'spine' || bone === 'neck') return `${name}_0${k}`
    return s ? `${name}_${s}` : name
  }
  const blender: Record<string, string> = {
    hips: 'Hips',
    head: 'Head',
    shoulder: 'Shoulder',
    upperArm: 'UpperArm',
    lowerArm: 'Forearm',
    hand: 'Hand',
    upperLeg: 'Thigh',
    lowerLeg: 'Shin',
    foot: 'Foot',
    toes: 'Toe',
  }
  if (isFinger) return `f_${bone}.0${k}.${S}`
  if (bone === 'spine') return k === 1 ? 'Spine' : `Spine.00${k - 1}`
  if (bone === 'neck') return k === 1 ? 'Neck' : `Neck.00${k - 1}`
  return S ? `${blender[bone]}.${S}` : blender[bone]!
}

// Quaternion helpers, [x, y, z, w], Hamilton products (apply b first).
export function mulQuat(a: readonly number[], b: readonly number[]): Quat {
  const [ax, ay, az, aw] = a as Quat
  const [bx, by, bz, bw] = b as Quat
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ]
}
export const conj = (q: readonly number[]): Quat => [-q[0]!, -q[1]!, -q[2]!, q[3]!]
export function axisAngle(axis: readonly number[], angle: number): Quat {
  const s = Math.sin(angle / 2)
  return [axis[0]! * s, axis[1]! * s, axis[2]! * s, Math.cos(angle / 2)]
}
export function rotate(q: readonly number[], v: readonly number[]): Vec3 {
  const r = mulQuat(mulQuat(q, [v[0]!, v[1]!, v[2]!, 0]), conj(q))
  return [r[0], r[1], r[2]]
}
export const sub = (a: readonly number[], b: readonly number[]): Vec3 => [
  a[0]! - b[0]!,
  a[1]! - b[1]!,
  a[2]! - b[2]!,
]
/** The shortest rotation taking direction a to direction b. */
function fromTo(a: Vec3, b: Vec3): Quat {
  const la = Math.hypot(...a)
  const lb = Math.hypot(...b)
  const [x, y, z] = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
  const w = la * lb + a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
  if (w < 1e-9 * la * lb) return [1, 0, 0, 0] // opposite: half a turn about x (a is ±y here)
  const n = Math.hypot(x, y, z, w)
  return [x / n, y / n, z / n, w / n]
}
function randomQuat(random: () => number): Quat {
  const [u, v, w] = [random(), random(), random()]
  const a = Math.sqrt(1 - u)
  const b = Math.sqrt(u)
  return [
    a * Math.sin(2 * Math.PI * v),
    a * Math.cos(2 * Math.PI * v),
    b * Math.sin(2 * Math.PI * w),
    b * Math.cos(2 * Math.PI * w),
  ]
}
