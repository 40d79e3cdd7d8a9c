/**
 * Layers against three.js's AnimationMixer on every shipped animated asset but RobotExpressive
 * (test/entry/layers.oracle.test.ts) and on the benchmark's generated rig, world matrix by world matrix (every
 * node, relative to the character root: our character entity and three's scene root are both identities) and,
 * where a clip drives them, morph weights against three's `morphTargetInfluences`. Tolerance 2e-4.
 *
 * How each layer is put in three's terms (three's mixer sums weighted actions normalized by their accumulated
 * weight, fills a shortfall below 1 with the node's rest value, then applies additive actions on top):
 *
 * - masked override at weight w (mask weight m per node): the base clip's tracks on nodes with w·m = g play at
 *   1 − g, the layer clip's tracks on those nodes at g (inside the mask that is slerp/lerp(below, layer, g); a
 *   node the layer clip does not drive gets rest at g, which is our "the layer's pose is the rest pose there").
 * - additive at weight w: `AnimationUtils.makeClipAdditive(clip, frame, referenceClip, fps)` with fps = 1 and
 *   frame = the reference time in seconds (so referenceTime = frame / fps is the time exactly), action in
 *   AdditiveAnimationBlendMode at effective weight w. Two additions to what makeClipAdditive does, filling
 *   three's gaps:
 *   (1) a track the reference clip does not have is left absolute by makeClipAdditive; the project takes the
 *       rest pose as the reference there, so the reference clip gets a constant rest-valued track for it;
 *   (2) for CUBICSPLINE rotations makeClipAdditive maps the keys (r⁻¹·q) but not the tangents; they are mapped
 *       too (as scripts/bench/threeClips.ts `additiveClip` does), which makes three's Hermite curve r⁻¹ times
 *       the original (without it the CUBICSPLINE cases are off by up to 0.033).
 *   A property only the reference clip drives gets no difference on either side (makeClipAdditive leaves it
 *   alone; the project's reference is the rest pose there: plugin/additiveLayers.ts referencePose).
 *   Additive scale is not compared through the mixer: three adds scale differences, the project multiplies
 *   (README); see the last describe.
 * - layer order: three applies additive actions after all weighted ones, so "override below additive" is
 *   expressible at any weight; "additive below override" only where the override's w·m is 0 or 1 (the
 *   additive clip's tracks are dropped where the override shows its own clip exactly).
 * - weight ramps: `setLayer({ weight, fadeSeconds })` / `stopLayer(k, seconds)` ramp linearly by the step count;
 *   three's fadeIn / fadeOut multiply the action's weight by a LinearInterpolant over mixer time, started at the
 *   same step: after m steps both are m·dt/D of the way.
 *
 * Conventions as in fox.test.ts: our first step after play shows the start time (three: `update(0)`); start
 * times are `play(…, { time })` here and `action.time` there. Rotation keys three samples are normalized first
 * (threeOracle.ts `normalizeRotationKeys`: three slerps the stored keys as they are).
 *
 * Every comparison kind also runs once with our side deliberately wrong (a weight, a reference time, a fade's
 * length), and must then disagree.
 */
import { readFile } from 'node:fs/promises'
import {
  AdditiveAnimationBlendMode,
  AnimationClip,
  AnimationMixer,
  AnimationUtils,
  NumberKeyframeTrack,
  Object3D,
  PropertyBinding,
  Quaternion,
  QuaternionKeyframeTrack,
  VectorKeyframeTrack,
  type AnimationAction,
  type KeyframeTrack,
} from 'three'
import { describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { createAnimationPlugin, type AnimationPlugin, type MaskEntry } from '../../entry/plugin.ts'
import { loadThreeOracle, normalizeRotationKeys, packGltfAsGlb } from '../oracle/threeOracle.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import { toThreeClip } from '../../scripts/bench/threeClips.ts'
import { gltfNodes, parseGltf } from '../helpers/threeScene.ts'
import { poseDistanceFromBase } from '../helpers/layers.ts'
import { buildCharacter } from '../../scripts/bench/three.ts'

const DT = 1 / 60
const TOLERANCE = 2e-4

// ---------------------------------------------------------------------------------------------------------------
// Rigs: our asset, and three's scene of the same nodes with a mixer and the same clips (by glTF animation index).

interface ThreeRig {
  root: Object3D
  /** three's object for glTF node i. */
  nodes: Object3D[]
  mixer: AnimationMixer
  clips: AnimationClip[]
}

interface Rig {
  label: string
  asset(): Promise<AnimationAsset>
  three(): Promise<ThreeRig>
}

const assets = new Map<string, Promise<AnimationAsset>>()
const files = new Map<string, Promise<Buffer>>()

function fileRig(label: string, path: string): Rig {
  return {
    label,
    asset() {
      if (!assets.has(path)) assets.set(path, loadAsset(path))
      return assets.get(path)!
    },
    async three() {
      if (!files.has(path)) files.set(path, path.endsWith('.glb') ? readFile(path) : packGltfAsGlb(path))
      const bytes = await files.get(path)!
      const gltf = await parseGltf(bytes)
      for (const clip of gltf.animations) normalizeRotationKeys(clip)
      const nodes = await gltfNodes(gltf)
      return { root: gltf.scene, nodes, mixer: new AnimationMixer(gltf.scene), clips: gltf.animations }
    },
  }
}

/** The benchmark's generated rig; three gets an Object3D per node (`n<i>`) and toThreeClip's clips. */
function benchRig(interpolation: 'LINEAR' | 'CUBICSPLINE'): Rig {
  const asset = createBenchRig({ joints: 64, interpolation })
  return {
    label: `bench rig 64 ${interpolation}`,
    asset: () => Promise.resolve(asset),
    three() {
      const root = new Object3D()
      const nodes = buildCharacter(asset, root)
      // toThreeClip shares our key arrays: clone, so makeClipAdditive cannot write into them.
      const clips = asset.clips.map((c) => toThreeClip(c).clone())
      return Promise.resolve({ root, nodes, mixer: new AnimationMixer(root), clips })
    },
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios.

interface OverrideLayer {
  mode: 'override'
  clip: number
  time: number
  weight: number
  mask: readonly MaskEntry[] | null
}

interface AdditiveLayer {
  mode: 'additive'
  clip: number
  time: number
  weight: number
  reference?: { clip: number; time: number }
  speed?: number
}

type LayerSpec = OverrideLayer | AdditiveLayer

interface Scenario {
  base: { clip: number; time: number }
  /** Layers 1, 2, … in order. */
  layers: LayerSpec[]
  steps: number
  /** A weight ramp on layer `layer` (1-based) after `after` steps: 'in' from 0 to its weight, 'stop' to 0. */
  ramp?: { layer: number; after: number; seconds: number; kind: 'in' | 'stop' }
  /** Ours only: added to every layer's weight (clamped into [0, 1], 1 goes to 0.9), to see the test fail. */
  sabotage?: number
  /** Ours only: multiplies the ramp's seconds, to see the test fail. */
  sabotageFade?: number
  /** Ours only: added to an additive layer's reference time, to see the test fail. */
  sabotageReference?: number
}

interface Worst {
  value: number
  where: string
  /** Largest change the layers make to the pose (ours: composed pose vs layer 0's), over the run. */
  moved: number
  /** Morph weights compared (0 when the rig has none animated). */
  morphs: number
}

/** glTF node index of a mask entry, by the file's node names (unique among the nodes) or index. */
function maskNodeIndex(asset: AnimationAsset, joint: string | number): number {
  if (typeof joint === 'number') return joint
  const found = asset.nodes.filter((n) => n.name === joint)
  if (found.length !== 1) throw new Error(`${asset.source}: ${found.length} nodes named ${joint}`)
  return found[0]!.index
}

/** Mask weight by three object: entries applied shallowest first, each over its subtree. */
function maskWeights(
  asset: AnimationAsset,
  three: ThreeRig,
  mask: readonly MaskEntry[] | null,
): Map<Object3D, number> {
  const out = new Map<Object3D, number>()
  if (mask === null) {
    three.root.traverse((o) => void out.set(o, 1))
    return out
  }
  const entries = mask.map((e) => {
    const joint = typeof e === 'object' ? e.joint : e
    const weight = typeof e === 'object' ? (e.weight ?? 1) : 1
    const object = three.nodes[maskNodeIndex(asset, joint)]!
    let depth = 0
    for (let p = object.parent; p; p = p.parent) depth++
    return { object, weight, depth }
  })
  entries.sort((a, b) => a.depth - b.depth)
  for (const e of entries) e.object.traverse((o) => void out.set(o, e.weight))
  return out
}

function trackTarget(three: ThreeRig, track: KeyframeTrack): Object3D {
  const target = PropertyBinding.findNode(three.root, PropertyBinding.parseTrackName(track.name).nodeName)
  if (!target) throw new Error(`no node for track ${track.name}`)
  return target as Object3D
}

/** The clip's tracks grouped by `key(track)`, one clip per group. */
function groupTracks(clip: AnimationClip, key: (t: KeyframeTrack) => number): Map<number, AnimationClip> {
  const groups = new Map<number, KeyframeTrack[]>()
  for (const t of clip.tracks) {
    const k = key(t)
    if (!groups.has(k)) groups.set(k, [])
    groups.get(k)!.push(t)
  }
  const out = new Map<number, AnimationClip>()
  for (const [k, tracks] of groups) out.set(k, new AnimationClip(`${clip.name}-${k}`, clip.duration, tracks))
  return out
}

/** A rest-valued constant track for the property `track` animates (its node's value before any action ran). */
function restTrack(three: ThreeRig, track: KeyframeTrack, rest: Map<string, number[]>): KeyframeTrack {
  const values = rest.get(track.name)
  if (!values) throw new Error(`no rest value for ${track.name}`)
  const type = track.ValueTypeName
  if (type === 'quaternion') return new QuaternionKeyframeTrack(track.name, [0], values)
  if (type === 'vector') return new VectorKeyframeTrack(track.name, [0], values)
  return new NumberKeyframeTrack(track.name, [0], values)
}

function isCubic(track: KeyframeTrack): boolean {
  const f = (
    track as unknown as { createInterpolant: { isInterpolantFactoryMethodGLTFCubicSpline?: boolean } }
  ).createInterpolant
  return f.isInterpolantFactoryMethodGLTFCubicSpline === true
}

/**
 * makeClipAdditive on a copy of `clip` against `reference` (default: the clip at time 0), with the two additions
 * of the header: rest-valued reference tracks where the reference clip has none, and CUBICSPLINE rotation
 * tangents mapped like the keys.
 */
function additiveClip(
  three: ThreeRig,
  clip: AnimationClip,
  reference: { clip: AnimationClip; time: number } | undefined,
  rest: Map<string, number[]>,
): AnimationClip {
  const target = clip.clone()
  let refClip = target
  if (reference) {
    const tracks = reference.clip.tracks.slice()
    for (const t of clip.tracks) {
      if (!tracks.some((r) => r.name === t.name)) tracks.push(restTrack(three, t, rest))
    }
    refClip = new AnimationClip('reference', -1, tracks)
  }
  const before = target.tracks.map((t) => t.values.slice())
  AnimationUtils.makeClipAdditive(target, reference?.time ?? 0, refClip, 1)
  for (let i = 0; i < target.tracks.length; i++) {
    const track = target.tracks[i]!
    if (track.ValueTypeName !== 'quaternion' || !isCubic(track)) continue
    // r⁻¹ from key 0's value before (unit) and after: after = r⁻¹·before, so r⁻¹ = after·before⁻¹.
    const b = new Quaternion().fromArray(before[i]!, 4)
    const a = new Quaternion().fromArray(track.values, 4)
    const rInv = a.multiply(b.conjugate()).normalize().toArray([])
    const values = track.values as unknown as number[]
    for (let j = 0; j < track.times.length; j++) {
      Quaternion.multiplyQuaternionsFlat(values, j * 12, rInv, 0, values, j * 12)
      Quaternion.multiplyQuaternionsFlat(values, j * 12 + 8, rInv, 0, values, j * 12 + 8)
    }
  }
  return target
}

/** The rest value of every property the rig's clips animate, read before any action runs. */
function restValues(three: ThreeRig): Map<string, number[]> {
  const out = new Map<string, number[]>()
  for (const clip of three.clips) {
    for (const t of clip.tracks) {
      const node = trackTarget(three, t) as unknown as Record<string, unknown>
      const property = PropertyBinding.parseTrackName(t.name).propertyName
      const v = node[property] as { toArray?: () => number[] } | number[]
      out.set(t.name, Array.isArray(v) ? [...v] : v.toArray!())
    }
  }
  return out
}

/** The three side of a scenario: the actions, and what a ramp does to them. */
function threeActions(asset: AnimationAsset, three: ThreeRig, s: Scenario): (step: number) => void {
  const rest = restValues(three)
  const over = s.layers.findIndex((l) => l.mode === 'override')
  const o = over >= 0 ? (s.layers[over] as OverrideLayer) : undefined
  const overWeights = o ? maskWeights(asset, three, o.mask) : new Map<Object3D, number>()
  const g = (t: KeyframeTrack) => (o ? o.weight * (overWeights.get(trackTarget(three, t)) ?? 0) : 0)
  const ramped: { action: AnimationAction; dir: 1 | -1 }[] = []
  const rampOf = s.ramp ? s.layers[s.ramp.layer - 1] : undefined
  if (s.layers.filter((l) => l.mode === 'override').length > 1) throw new Error('one override layer at most')

  const start = (clip: AnimationClip, time: number, weight: number, speed = 1): AnimationAction => {
    const action = three.mixer.clipAction(clip)
    action.time = time
    action.timeScale = speed
    action.setEffectiveWeight(weight)
    action.play()
    return action
  }

  for (const [k, clip] of groupTracks(three.clips[s.base.clip]!, g)) {
    const action = start(clip, s.base.time, 1 - k)
    if (o && rampOf === o && k > 0) {
      if (k !== 1) throw new Error('an override ramp needs w·m in {0, 1}')
      if (s.ramp!.kind === 'in') action.setEffectiveWeight(1)
      ramped.push({ action, dir: -1 })
    }
  }
  if (o) {
    for (const [k, clip] of groupTracks(three.clips[o.clip]!, g)) {
      if (k === 0) continue
      const action = start(clip, o.time, s.ramp?.kind === 'in' && rampOf === o ? 0 : k)
      if (rampOf === o) ramped.push({ action, dir: 1 })
    }
  }
  s.layers.forEach((l, index) => {
    if (l.mode !== 'additive') return
    const ref = l.reference ? { clip: three.clips[l.reference.clip]!, time: l.reference.time } : undefined
    let clip = additiveClip(three, three.clips[l.clip]!, ref, rest)
    if (o && over > index) {
      // Additive below the override: where the override shows its own clip exactly, the additive is gone.
      const groups = groupTracks(clip, (t) => {
        const k = g(t)
        if (k !== 0 && k !== 1) throw new Error('an override over an additive layer needs w·m in {0, 1}')
        return k
      })
      clip = groups.get(0) ?? new AnimationClip('empty', clip.duration, [])
    }
    const action = start(clip, l.time, s.ramp?.kind === 'in' && rampOf === l ? 0 : l.weight, l.speed)
    action.blendMode = AdditiveAnimationBlendMode
    if (rampOf === l) ramped.push({ action, dir: 1 })
  })

  return (step) => {
    if (!s.ramp || step !== s.ramp.after) return
    const l = rampOf!
    for (const { action, dir } of ramped) {
      const full = l.mode === 'additive' ? l.weight : 1
      if (s.ramp.kind === 'in') {
        action.setEffectiveWeight(full)
        if (dir === 1) action.fadeIn(s.ramp.seconds)
        else action.fadeOut(s.ramp.seconds)
      } else if (dir === 1) action.fadeOut(s.ramp.seconds)
      else {
        action.setEffectiveWeight(1)
        action.fadeIn(s.ramp.seconds)
      }
    }
  }
}

/** Runs a scenario on both sides and returns the worst world-matrix (and morph weight) difference. */
async function run(rig: Rig, s: Scenario): Promise<Worst> {
  const asset = await rig.asset()
  const three = await rig.three()
  expect(three.nodes.length).toBe(asset.nodes.length)

  // three's first update(0) does not wrap a start time past the clip's end: give both sides one inside it.
  const inside = (clip: number, time: number) => time % asset.clips[clip]!.duration
  s = {
    ...s,
    base: { ...s.base, time: inside(s.base.clip, s.base.time) },
    layers: s.layers.map((l) => ({ ...l, time: inside(l.clip, l.time) })),
  }

  const plugin = createAnimationPlugin(createWorld(), { physics: { ground: false } })
  const eid = plugin.addCharacter(asset)
  const off = (w: number) => (s.sabotage === undefined ? w : w >= 1 ? 0.9 : Math.min(1, w + s.sabotage))
  plugin.play(eid, s.base.clip, { time: s.base.time })
  s.layers.forEach((l, i) => {
    const k = i + 1
    const rampIn = s.ramp?.kind === 'in' && s.ramp.layer === k
    if (l.mode === 'override') plugin.setLayer(eid, k, { mask: l.mask, weight: rampIn ? 0 : off(l.weight) })
    else {
      const reference = l.reference
        ? { clip: l.reference.clip, time: l.reference.time + (s.sabotageReference ?? 0) }
        : undefined
      plugin.setLayer(eid, k, { mode: 'additive', weight: rampIn ? 0 : off(l.weight), reference })
    }
    plugin.play(eid, l.clip, { layer: k, time: l.time })
    if (l.mode === 'additive' && l.speed !== undefined) plugin.setSpeed(eid, l.speed, { layer: k })
  })
  const rampThree = threeActions(asset, three, s)

  const morphView = plugin.morphWeights(eid)
  const animatedMorphs = new Set<number>()
  for (const c of asset.clips)
    for (const ch of c.channels) if (ch.path === 'weights') animatedMorphs.add(ch.node)

  const worst: Worst = { value: 0, where: 'nowhere', moved: 0, morphs: 0 }
  for (let k = 1; k <= s.steps; k++) {
    if (s.ramp && k - 1 === s.ramp.after) {
      const l = s.layers[s.ramp.layer - 1]!
      if (s.ramp.kind === 'in') {
        plugin.setLayer(eid, s.ramp.layer, {
          weight: l.mode === 'additive' ? off(l.weight) : off(1),
          fadeSeconds: s.ramp.seconds * (s.sabotageFade ?? 1),
        })
      } else plugin.stopLayer(eid, s.ramp.layer, s.ramp.seconds * (s.sabotageFade ?? 1))
    }
    rampThree(k - 1)
    plugin.step()
    three.mixer.update(k === 1 ? 0 : DT)
    three.root.updateMatrixWorld(true)
    worst.moved = Math.max(worst.moved, poseDistanceFromBase(plugin, eid))
    for (let i = 0; i < asset.nodes.length; i++) {
      const ours = plugin.stores.SceneNode.world.subarray(plugin.jointEntity(eid, i) * 16).subarray(0, 16)
      const theirs = three.nodes[i]!.matrixWorld.elements
      for (let c = 0; c < 16; c++) {
        const d = Math.abs(ours[c]! - theirs[c]!)
        if (d > worst.value) {
          worst.value = d
          worst.where = `step ${k}, node ${i} (${asset.nodes[i]!.name}), matrix[${c}]: ours ${ours[c]} three ${theirs[c]}`
        }
      }
    }
    if (morphView) {
      for (let m = 0; m < morphView.nodes.length; m++) {
        const node = morphView.nodes[m]!
        if (!animatedMorphs.has(node)) continue
        const theirs = morphHolder(three.nodes[node]!)
        for (let x = morphView.offsets[m]!; x < morphView.offsets[m + 1]!; x++) {
          const t = theirs[x - morphView.offsets[m]!]!
          const d = Math.abs(morphView.weights[x]! - t)
          worst.morphs++
          if (d > worst.value) {
            worst.value = d
            worst.where = `step ${k}, node ${node} morph weight ${x - morphView.offsets[m]!}: ours ${morphView.weights[x]} three ${t}`
          }
        }
      }
    }
  }
  return worst
}

/** The weights three binds a node's morph targets to: the node's own, or its first primitive's. */
function morphHolder(object: Object3D): number[] {
  const own = (object as { morphTargetInfluences?: number[] }).morphTargetInfluences
  if (own) return own
  for (const child of object.children) {
    const w = (child as { morphTargetInfluences?: number[] }).morphTargetInfluences
    if (w) return w
  }
  throw new Error('no morph targets')
}

async function expectAgree(rig: Rig, s: Scenario): Promise<void> {
  const w = await run(rig, s)
  if (w.morphs === 0) expect(w.moved, 'the layers change the pose').toBeGreaterThan(1e-3)
  expect(w.value, w.where).toBeLessThan(TOLERANCE)
}

async function expectDisagree(rig: Rig, s: Scenario): Promise<void> {
  const w = await run(rig, s)
  expect(w.value, w.where).toBeGreaterThan(TOLERANCE)
}

// ---------------------------------------------------------------------------------------------------------------
// The rigs and their clips.

interface RigCase {
  rig: Rig
  /** Clip indices: base, layer (may equal base: then the layer runs at another time) and a third one. */
  base: number
  layer: number
  other: number
  /** Start times of the base and the layer (chosen so both wrap within the run). */
  baseTime: number
  layerTime: number
  /** Reference time (s) for `reference: { clip: other, time }`, off any key. */
  referenceTime: number
  mask: readonly MaskEntry[]
  /** A mask with a nested entry at another weight, or undefined when the rig has no depth for it. */
  nestedMask?: readonly MaskEntry[]
  steps: number
}

const FOX = fileRig('Fox', 'assets/Fox/glTF-Binary/Fox.glb')
const FOX_CLIPS = { Survey: 0, Walk: 1, Run: 2 }
const RIG_CLIPS = { Walk: 0, Run: 1, Idle: 2 }

const CASES: RigCase[] = [
  {
    rig: FOX,
    base: FOX_CLIPS.Walk,
    layer: FOX_CLIPS.Survey,
    other: FOX_CLIPS.Run,
    baseTime: 0.2,
    layerTime: 3.0,
    referenceTime: 0.537,
    mask: ['b_Spine01_02'],
    nestedMask: [
      { joint: 'b_Spine01_02', weight: 1 },
      { joint: 'b_Neck_04', weight: 0.4 },
    ],
    steps: 75,
  },
  {
    rig: fileRig('RiggedFigure', 'assets/RiggedFigure/glTF-Binary/RiggedFigure.glb'),
    base: 0,
    layer: 0,
    other: 0,
    baseTime: 1.0,
    layerTime: 0.35,
    referenceTime: 0.613,
    mask: ['torso_joint_2'],
    nestedMask: [
      { joint: 'torso_joint_2', weight: 0.8 },
      { joint: 'arm_joint_L_1', weight: 0.3 },
    ],
    steps: 75,
  },
  {
    rig: fileRig('RiggedSimple', 'assets/RiggedSimple/glTF-Binary/RiggedSimple.glb'),
    base: 0,
    layer: 0,
    other: 0,
    baseTime: 1.9,
    layerTime: 0.7,
    referenceTime: 1.13,
    mask: ['Bone.001'],
    steps: 75,
  },
  {
    rig: fileRig('SimpleSkin', 'assets/SimpleSkin/glTF/SimpleSkin.gltf'),
    base: 0,
    layer: 0,
    other: 0,
    baseTime: 5.2,
    layerTime: 1.6,
    referenceTime: 2.71,
    mask: [2],
    steps: 75,
  },
  {
    rig: fileRig('BoxAnimated', 'assets/BoxAnimated/glTF-Binary/BoxAnimated.glb'),
    base: 0,
    layer: 0,
    other: 0,
    baseTime: 3.3,
    layerTime: 1.2,
    referenceTime: 1.77,
    mask: [1],
    nestedMask: [
      { joint: 1, weight: 0.7 },
      { joint: 2, weight: 0.25 },
    ],
    steps: 75,
  },
  {
    rig: fileRig('AnimatedMorphCube', 'assets/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb'),
    base: 0,
    layer: 0,
    other: 0,
    baseTime: 3.9,
    layerTime: 1.1,
    referenceTime: 2.33,
    mask: [0],
    steps: 75,
  },
  ...(['LINEAR', 'CUBICSPLINE'] as const).map((interpolation): RigCase => ({
    rig: benchRig(interpolation),
    base: RIG_CLIPS.Walk,
    layer: RIG_CLIPS.Run,
    other: RIG_CLIPS.Idle,
    baseTime: 1.7,
    layerTime: 0.4,
    referenceTime: 0.731,
    mask: ['chest'],
    nestedMask: [
      { joint: 'chest', weight: 1 },
      { joint: 'upperArmL', weight: 0.45 },
    ],
    steps: 120,
  })),
]

const WEIGHTS = [0.3, 0.5, 1]

describe('layers vs three.js AnimationMixer on every other animated rig', () => {
  for (const c of CASES) {
    describe(c.rig.label, () => {
      const layer = { clip: c.layer, time: c.layerTime }
      const base = { clip: c.base, time: c.baseTime }
      for (const weight of WEIGHTS) {
        it(`additive (reference: its clip at 0) at ${weight}`, () =>
          expectAgree(c.rig, {
            base,
            layers: [{ mode: 'additive', ...layer, weight }],
            steps: c.steps,
          }))
      }
      for (const weight of [0.5, 1]) {
        it(`additive, reference ${c.other === c.layer ? 'its own clip' : 'another clip'} at ${c.referenceTime} s, at ${weight}`, () =>
          expectAgree(c.rig, {
            base,
            layers: [
              { mode: 'additive', ...layer, weight, reference: { clip: c.other, time: c.referenceTime } },
            ],
            steps: c.steps,
          }))
      }
      for (const weight of WEIGHTS) {
        it(`masked override ${JSON.stringify(c.mask)} at ${weight}`, () =>
          expectAgree(c.rig, {
            base,
            layers: [{ mode: 'override', ...layer, weight, mask: c.mask }],
            steps: c.steps,
          }))
      }
      if (c.nestedMask) {
        it(`masked override with per-joint weights ${JSON.stringify(c.nestedMask)} at 0.7`, () =>
          expectAgree(c.rig, {
            base,
            layers: [{ mode: 'override', ...layer, weight: 0.7, mask: c.nestedMask! }],
            steps: c.steps,
          }))
      }
      it('masked override (0.6) below an additive layer (0.5)', () =>
        expectAgree(c.rig, {
          base,
          layers: [
            { mode: 'override', ...layer, weight: 0.6, mask: c.mask },
            { mode: 'additive', clip: c.other, time: c.layerTime / 2, weight: 0.5 },
          ],
          steps: c.steps,
        }))
      it('an additive layer (0.7) below a masked override at 1', () =>
        expectAgree(c.rig, {
          base,
          layers: [
            { mode: 'additive', clip: c.other, time: c.layerTime / 2, weight: 0.7 },
            { mode: 'override', ...layer, weight: 1, mask: c.mask },
          ],
          steps: c.steps,
        }))
      it('an additive layer fading in to 0.8 over 0.4 s, then stopped over 0.3 s', async () => {
        await expectAgree(c.rig, {
          base,
          layers: [{ mode: 'additive', ...layer, weight: 0.8 }],
          steps: 60,
          ramp: { layer: 1, after: 10, seconds: 0.4, kind: 'in' },
        })
        await expectAgree(c.rig, {
          base,
          layers: [{ mode: 'additive', ...layer, weight: 0.8 }],
          steps: 60,
          ramp: { layer: 1, after: 10, seconds: 0.3, kind: 'stop' },
        })
      })
      it('a masked override fading in to 1 over 0.4 s, and another stopped over 0.3 s', async () => {
        await expectAgree(c.rig, {
          base,
          layers: [{ mode: 'override', ...layer, weight: 1, mask: c.mask }],
          steps: 60,
          ramp: { layer: 1, after: 10, seconds: 0.4, kind: 'in' },
        })
        await expectAgree(c.rig, {
          base,
          layers: [{ mode: 'override', ...layer, weight: 1, mask: c.mask }],
          steps: 60,
          ramp: { layer: 1, after: 10, seconds: 0.3, kind: 'stop' },
        })
      })
    })
  }
})

describe('layers vs three.js AnimationMixer: a layer at another speed', () => {
  for (const speed of [1.5, -0.75]) {
    it(`Fox: an additive layer (0.6) at speed ${speed} (three: timeScale)`, () =>
      expectAgree(FOX, {
        base: { clip: FOX_CLIPS.Walk, time: 0.2 },
        layers: [{ mode: 'additive', clip: FOX_CLIPS.Run, time: 0.3, weight: 0.6, speed }],
        steps: 90,
      }))
  }
})

// InterpolationTest: nine clips, each animating its own node (STEP / LINEAR / CUBICSPLINE × T / R / S). Each clip is
// layered over itself at another time, masked to its node; and one override layers a clip over a base that
// drives another node.
const INTERPOLATION = fileRig(
  'InterpolationTest',
  'assets/InterpolationTest/glTF-Binary/InterpolationTest.glb',
)
const INTERPOLATION_CLIPS = [
  { name: 'Step Scale', node: 0 },
  { name: 'Linear Scale', node: 3 },
  { name: 'CubicSpline Scale', node: 4 },
  { name: 'Step Rotation', node: 5 },
  { name: 'CubicSpline Rotation', node: 6 },
  { name: 'Linear Rotation', node: 7 },
  { name: 'Step Translation', node: 8 },
  { name: 'CubicSpline Translation', node: 9 },
  { name: 'Linear Translation', node: 10 },
]

describe('layers vs three.js AnimationMixer on InterpolationTest', () => {
  INTERPOLATION_CLIPS.forEach(({ name, node }, clip) => {
    describe(name, () => {
      const base = { clip, time: 1.3 }
      const layer = { clip, time: 0.45 }
      // Additive scale differs by design (see 'additive scale' below): three adds, the library multiplies.
      const scale = name.endsWith('Scale')
      for (const weight of WEIGHTS) {
        if (!scale) {
          it(`additive at ${weight}`, () =>
            expectAgree(INTERPOLATION, { base, layers: [{ mode: 'additive', ...layer, weight }], steps: 60 }))
        }
        it(`masked override [${node}] at ${weight}`, () =>
          expectAgree(INTERPOLATION, {
            base,
            layers: [{ mode: 'override', ...layer, weight, mask: [node] }],
            steps: 60,
          }))
      }
      if (!scale) {
        it('additive at 0.5, reference: the clip at 0.9 s', () =>
          expectAgree(INTERPOLATION, {
            base,
            layers: [{ mode: 'additive', ...layer, weight: 0.5, reference: { clip, time: 0.9 } }],
            steps: 60,
          }))
      }
    })
  })
  // Clip 8 drives node 10, which clip 5 does not: neither side applies a difference there.
  it('additive rotation, referenced to a clip that drives another node', () =>
    expectAgree(INTERPOLATION, {
      base: { clip: 5, time: 0.3 },
      layers: [{ mode: 'additive', clip: 5, time: 1.1, weight: 0.6, reference: { clip: 8, time: 0.5 } }],
      steps: 60,
    }))
  it("an override of another node's clip, masked to that node, over a base on its own node", () =>
    expectAgree(INTERPOLATION, {
      base: { clip: 5, time: 0.2 },
      layers: [{ mode: 'override', clip: 4, time: 0.9, weight: 0.5, mask: [6] }],
      steps: 60,
    }))
})

// Each comparison kind, with our side deliberately wrong, must disagree (the test can fail).
describe('the comparisons can fail', () => {
  const fox = CASES[0]!
  const base = { clip: fox.base, time: fox.baseTime }
  const layer = { clip: fox.layer, time: fox.layerTime }
  it('additive with a wrong weight', () =>
    expectDisagree(FOX, {
      base,
      layers: [{ mode: 'additive', ...layer, weight: 0.5 }],
      steps: 30,
      sabotage: 0.05,
    }))
  it('additive with a wrong reference time', () =>
    expectDisagree(FOX, {
      base,
      layers: [{ mode: 'additive', ...layer, weight: 1, reference: { clip: fox.other, time: 0.5 } }],
      steps: 30,
      sabotageReference: 0.05,
    }))
  it('masked override with a wrong weight', () =>
    expectDisagree(FOX, {
      base,
      layers: [{ mode: 'override', ...layer, weight: 0.5, mask: fox.mask }],
      steps: 30,
      sabotage: 0.05,
    }))
  for (const kind of ['in', 'stop'] as const) {
    it(`an additive fade-${kind} 10 % too long`, () =>
      expectDisagree(FOX, {
        base,
        layers: [{ mode: 'additive', ...layer, weight: 0.8 }],
        steps: 40,
        ramp: { layer: 1, after: 10, seconds: 0.3, kind },
        sabotageFade: 1.1,
      }))
    it(`a masked override fade-${kind} 10 % too long`, () =>
      expectDisagree(FOX, {
        base,
        layers: [{ mode: 'override', ...layer, weight: 1, mask: fox.mask }],
        steps: 40,
        ramp: { layer: 1, after: 10, seconds: 0.3, kind },
        sabotageFade: 1.1,
      }))
  }
  it('an override below an additive layer, with wrong weights', () =>
    expectDisagree(FOX, {
      base,
      layers: [
        { mode: 'override', ...layer, weight: 0.6, mask: fox.mask },
        { mode: 'additive', clip: fox.other, time: 0.4, weight: 0.5 },
      ],
      steps: 30,
      sabotage: 0.05,
    }))
  it('morph weights with a wrong weight', () =>
    expectDisagree(CASES[5]!.rig, {
      base: { clip: 0, time: 3.9 },
      layers: [{ mode: 'override', clip: 0, time: 1.1, weight: 0.5, mask: [0] }],
      steps: 30,
      sabotage: 0.05,
    }))
  it('InterpolationTest CUBICSPLINE rotation with a wrong weight', () =>
    expectDisagree(INTERPOLATION, {
      base: { clip: 4, time: 1.3 },
      layers: [{ mode: 'additive', clip: 4, time: 0.45, weight: 0.5 }],
      steps: 30,
      sabotage: 0.05,
    }))
})

/**
 * Additive scale: the library multiplies (`scale = result × (pose / reference)^w`, README "Layers"), three's
 * mixer adds (`result + w·(pose − reference)`, PropertyMixer's additive lerp on makeClipAdditive's differences),
 * so the two disagree wherever an additive layer's clip animates scale (InterpolationTest's three scale clips:
 * up to 0.25 in a matrix element at weight 1). Here three only samples: our world scale against three's own
 * sampled scales (threeOracle.ts, LoopOnce at the step's clip time) composed by the library's rule.
 */
describe("additive scale on InterpolationTest: ours = three's samples composed multiplicatively", () => {
  const SCALE_CLIPS = INTERPOLATION_CLIPS.flatMap((c, clip) =>
    c.name.endsWith('Scale') ? [{ ...c, clip }] : [],
  )
  for (const { name, node, clip } of SCALE_CLIPS) {
    it(`${name}: additive at 0.3, 0.5 and 1, reference the clip at 0 and at 0.9 s`, async () => {
      const oracle = await loadThreeOracle('assets/InterpolationTest/glTF-Binary/InterpolationTest.glb')
      const asset = await INTERPOLATION.asset()
      const duration = asset.clips[clip]!.duration
      const scaleAt = (t: number) => oracle.sample(clip, t)[0]!.scale
      let worst = 0
      let where = ''
      for (const [weight, refTime] of [
        [0.3, 0],
        [0.5, 0],
        [1, 0],
        [0.5, 0.9],
      ] as const) {
        const plugin = createAnimationPlugin(createWorld(), { physics: { ground: false } })
        const eid = plugin.addCharacter(asset)
        plugin.play(eid, clip, { time: 1.3 })
        plugin.setLayer(eid, 1, { mode: 'additive', weight, reference: { clip, time: refTime } })
        plugin.play(eid, clip, { layer: 1, time: 0.45 })
        const ref = scaleAt(refTime)
        for (let k = 1; k <= 60; k++) {
          plugin.step()
          const tBase = (1.3 + (k - 1) * DT) % duration
          const tLayer = (0.45 + (k - 1) * DT) % duration
          // STEP keys: a clip time within float noise of a key is skipped (which key shows is a coin toss).
          const nearKey = (t: number) => Math.abs(t * 24 - Math.round(t * 24)) < 1e-6
          if (name.startsWith('Step') && (nearKey(tBase) || nearKey(tLayer))) continue
          const b = scaleAt(tBase)
          const p = scaleAt(tLayer)
          const m = plugin.stores.SceneNode.world.subarray(plugin.jointEntity(eid, node) * 16)
          for (let a = 0; a < 3; a++) {
            const ours = Math.hypot(m[4 * a]!, m[4 * a + 1]!, m[4 * a + 2]!)
            const expected = b[a]! * Math.pow(p[a]! / ref[a]!, weight)
            const d = Math.abs(ours - expected)
            if (d > worst) {
              worst = d
              where = `w ${weight}, ref ${refTime}, step ${k}, axis ${a}: ours ${ours} expected ${expected}`
            }
          }
        }
      }
      expect(worst, where).toBeLessThan(TOLERANCE)
    })
  }
})
