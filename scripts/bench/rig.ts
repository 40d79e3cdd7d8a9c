/**
 * A generated humanoid rig for the benchmark: up to 67 joints in a realistic tree (spine chain, head, legs,
 * arms with four-segment fingers) and three looping clips of equal length, "Walk", "Run" and "Idle" (a calmer
 * motion, made after the other two so their keys are what they were when the rig had two), keyed like exported mocap:
 * `keysPerSecond` keys per second over `seconds` (default 30 keys/s × 2 s = 61 keys), a rotation channel on
 * every joint plus the hips' translation (or a translation, rotation and scale on every joint: `everyChannel`,
 * at rest, or `channels: 'all'`, moving). LINEAR or CUBICSPLINE (with analytic-rate tangents, units per second). `writeRigFile` (rigFile.ts)
 * writes the rig as a .glb, for benchmarks of the loader and of what a file read from disk gives.
 *
 * Deterministic: a seeded PRNG (mulberry32) picks bone offsets, rest rotations, axes, amplitudes and phases, so
 * every run benchmarks the same data. Setup code, not a fixed-step path: Math.sin/cos are fine here.
 *
 * Joint list (parents first; a prefix of it is a valid smaller rig, used by the tests):
 *
 *   0 hips ─ 1 spine ─ 2 spine1 ─ 3 spine2 ─ 4 chest ─ 5 neck ─ 6 head ─ 7 jaw
 *        ├─ 8..11  left leg  (thigh, shin, foot, toe)
 *        └─ 12..15 right leg
 *   4 chest ─ 16..19 left arm (clavicle, upper arm, forearm, hand) ─ 20..39 five fingers × 4 segments
 *           └─ 40..43 right arm                                   ─ 44..63
 *   6 head  ─ 64 headTop, 65 eyeL, 66 eyeR   (a Mixamo rig's 67: only rigs of more than 64 joints have them)
 *
 * The rig's "upper body" (RIG_UPPER_BODY, the mask of the bench's layered crowd) is the chest's subtree:
 * chest, neck, head, jaw and both arms with their fingers, joints 4..7 and 16..63 (52 of 64; two runs of the
 * joint order). The hips, the spine below the chest and the legs stay with the base clip.
 */
import { buildClip, type RawChannel } from '../../src/clip/clip.ts'
import type { AnimationAsset, AssetNode } from '../../src/gltf/asset.ts'
import { mulberry32 } from '../random.ts'
import { axisAngle, mulQuat } from '../humanoid/skeleton.ts'

export interface BenchRigOptions {
  /** Joints, 1..67 (a prefix of the list above). Default 64. */
  joints?: number
  /** Interpolation of every channel. Default 'LINEAR'. */
  interpolation?: 'LINEAR' | 'CUBICSPLINE'
  /** Keys per second. Default 30. */
  keysPerSecond?: number
  /** Clip length, seconds (both clips loop seamlessly over it). Default 2. */
  seconds?: number
  /** PRNG seed. Default 1. */
  seed?: number
  /**
   * Key translation, rotation and scale of every joint, as a Mixamo export does (the compression benchmark's
   * rig): translations at the joint's rest offset (the hips' moving), scales 1, each keyed at every key time.
   * Default false: a rotation on every joint plus the hips' translation.
   */
  everyChannel?: boolean
  /**
   * Like `everyChannel`, but moving: 'all' gives every joint a translation and a scale that move a little around
   * the rest pose's (so no sampled value is the rest pose's and a pose layer stores every path: the snapshot
   * bench's Mixamo-sized file), from a PRNG of their own; 'rotation' (default) adds nothing. Not with
   * everyChannel.
   */
  channels?: 'rotation' | 'all'
}

export const RIG_MAX_JOINTS = 67
/** Joints of the rig when no count is given (the benchmark's crowds). */
export const RIG_DEFAULT_JOINTS = 64
export const RIG_CLIPS = ['Walk', 'Run', 'Idle'] as const
/** Root joint of the rig's upper body (see above). */
export const RIG_UPPER_BODY = 'chest'

type Vec3 = [number, number, number]
type Quat = [number, number, number, number]

/** Joint names and parents of the full 64-joint template, parents first. */
export function rigTemplate(): { name: string; parent: number }[] {
  const out: { name: string; parent: number }[] = []
  const add = (name: string, parent: number): number => out.push({ name, parent }) - 1
  const hips = add('hips', -1)
  let p = hips
  for (const name of ['spine', 'spine1', 'spine2', 'chest', 'neck', 'head', 'jaw']) p = add(name, p)
  for (const side of ['L', 'R']) {
    let q = hips
    for (const name of ['thigh', 'shin', 'foot', 'toe']) q = add(name + side, q)
  }
  const chest = out.findIndex((j) => j.name === 'chest')
  for (const side of ['L', 'R']) {
    let q = chest
    for (const name of ['clavicle', 'upperArm', 'forearm', 'hand']) q = add(name + side, q)
    const hand = q
    for (const finger of ['thumb', 'index', 'middle', 'ring', 'pinky']) {
      let f = hand
      for (let s = 1; s <= 4; s++) f = add(`${finger}${s}${side}`, f)
    }
  }
  const head = out.findIndex((j) => j.name === 'head')
  for (const name of ['headTop', 'eyeL', 'eyeR']) add(name, head)
  return out
}

/** Builds the rig asset. Throws (a plain Error: this is benchmark setup) for a joint count outside 1..67. */
export function createBenchRig(options: BenchRigOptions = {}): AnimationAsset {
  const joints = options.joints ?? RIG_DEFAULT_JOINTS
  const interpolation = options.interpolation ?? 'LINEAR'
  const keysPerSecond = options.keysPerSecond ?? 30
  const seconds = options.seconds ?? 2
  if (options.everyChannel && options.channels === 'all') {
    throw new Error(
      "createBenchRig: everyChannel and channels: 'all' both key every joint's translation and scale",
    )
  }
  if (!Number.isInteger(joints) || joints < 1 || joints > RIG_MAX_JOINTS) {
    throw new Error(`createBenchRig: joints ${joints} must be an integer in 1..${RIG_MAX_JOINTS}`)
  }
  const random = mulberry32(options.seed ?? 1)
  const template = rigTemplate().slice(0, joints)

  const nodes: AssetNode[] = template.map((j, index) => {
    const dir = randomUnit(random)
    const length = index === 0 ? 0 : 0.05 + 0.3 * random()
    return {
      index,
      name: j.name,
      parent: j.parent,
      children: template.flatMap((c, ci) => (c.parent === index ? [ci] : [])),
      translation: index === 0 ? [0, 1, 0] : [dir[0] * length, Math.abs(dir[1]) * length, dir[2] * length],
      rotation: axisAngle(randomUnit(random), 0.4 * (random() - 0.5)),
      scale: [1, 1, 1],
      weights: [],
      skin: -1,
      mesh: -1,
    }
  })

  const extra = mulberry32((options.seed ?? 1) + 0x9e3779b9)
  const keyCount = Math.round(keysPerSecond * seconds) + 1
  const times = Array.from({ length: keyCount }, (_, k) => (k * seconds) / (keyCount - 1))
  const clips = RIG_CLIPS.map((name, clipIndex) => {
    const energy = [0.5, 0.9, 0.25][clipIndex]!
    const channels: RawChannel[] = []
    const hipsMotion = motion(random, energy * 0.08, seconds)
    channels.push(
      channel(0, 'hips', 'translation', interpolation, times, (t) =>
        addVec(nodes[0]!.translation, hipsMotion(t)),
      ),
    )
    for (const node of nodes) {
      const a = jointRotation(random, node.rotation, energy, seconds)
      channels.push(channel(node.index, node.name, 'rotation', interpolation, times, a))
      if (!options.everyChannel) continue
      if (node.index > 0) {
        channels.push(
          channel(node.index, node.name, 'translation', interpolation, times, () => [...node.translation]),
        )
      }
      channels.push(channel(node.index, node.name, 'scale', interpolation, times, () => [1, 1, 1]))
    }
    // From a PRNG of their own, so the rig's other channels are the same whatever `channels` is.
    if (options.channels === 'all') {
      for (const node of nodes.slice(1)) {
        const shift = motion(extra, energy * 0.002, seconds)
        channels.push(
          channel(node.index, node.name, 'translation', interpolation, times, (t) =>
            addVec(node.translation, shift(t)),
          ),
        )
      }
      for (const node of nodes) {
        const grow = motion(extra, energy * 0.01, seconds)
        channels.push(
          channel(node.index, node.name, 'scale', interpolation, times, (t) => addVec([1, 1, 1], grow(t))),
        )
      }
    }
    return buildClip({ name, channels }, { nodeCount: nodes.length })
  })

  return {
    source: `bench-rig-${joints}-${interpolation}${options.channels === 'all' ? '-all' : ''}`,
    nodes,
    roots: [0],
    skeletons: [],
    clips,
  }
}

/**
 * A joint's rotation over time: rest · rot(axis1, θ1(t)) · rot(axis2, θ2(t)), two axes so consecutive keys
 * differ in direction as well as angle. Each θ is a sum of whole-period sines, so the clip loops seamlessly.
 */
function jointRotation(
  random: () => number,
  rest: readonly number[],
  energy: number,
  seconds: number,
): (t: number) => number[] {
  const axis1 = randomUnit(random)
  const axis2 = randomUnit(random)
  const theta1 = wave(random, energy * 0.7, seconds)
  const theta2 = wave(random, energy * 0.3, seconds)
  return (t) => mulQuat(mulQuat(rest, axisAngle(axis1, theta1(t))), axisAngle(axis2, theta2(t)))
}

function motion(random: () => number, amplitude: number, seconds: number): (t: number) => Vec3 {
  const x = wave(random, amplitude, seconds)
  const y = wave(random, amplitude * 0.5, seconds)
  const z = wave(random, amplitude, seconds)
  return (t) => [x(t), y(t), z(t)]
}

/** a·sin(2π·k·t/T + p) + (a/3)·sin(4π·t/T + p2), k ∈ {1, 2}: loops over T. */
function wave(random: () => number, amplitude: number, seconds: number): (t: number) => number {
  const a = amplitude * (0.5 + random())
  const k = random() < 0.5 ? 1 : 2
  const p = 2 * Math.PI * random()
  const p2 = 2 * Math.PI * random()
  const w = (2 * Math.PI) / seconds
  return (t) => a * Math.sin(w * k * t + p) + (a / 3) * Math.sin(2 * w * t + p2)
}

/**
 * One channel sampled from `f` at the key times. CUBICSPLINE gets the glTF triplets `[in, value, out]` with
 * both tangents the central-difference derivative of f (per second).
 */
function channel(
  node: number,
  nodeName: string,
  path: 'translation' | 'rotation' | 'scale',
  interpolation: 'LINEAR' | 'CUBICSPLINE',
  times: number[],
  f: (t: number) => number[],
): RawChannel {
  const values: number[] = []
  const h = 1e-5
  for (const t of times) {
    const v = f(t)
    if (interpolation === 'LINEAR') {
      values.push(...v)
      continue
    }
    const a = f(t - h)
    const b = f(t + h)
    const d = v.map((_, i) => (b[i]! - a[i]!) / (2 * h))
    values.push(...d, ...v, ...d)
  }
  return { node, nodeName, path, interpolation, times, values }
}

function addVec(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[0]! + b[0]!, a[1]! + b[1]!, a[2]! + b[2]!]
}

function randomUnit(random: () => number): Vec3 {
  for (;;) {
    const v: Vec3 = [2 * random() - 1, 2 * random() - 1, 2 * random() - 1]
    const len = Math.hypot(...v)
    if (len > 0.1 && len <= 1) return [v[0] / len, v[1] / len, v[2] / len]
  }
}
