/**
 * What every character of a benchmark crowd does, decided once and given to both sides (the project and
 * three.js), so they animate the same characters the same way.
 *
 * Roles:
 *   play      clip A, looping, speed 1
 *   fade      clip A, then a cross-fade to clip B (looping) that lasts `fadeSeconds`
 *   paused    clip A at speed 0 (holds still)
 *   finished  clip A played once and already at its end (holds still)
 *
 *   playing crowd: every character plays (sampling and world matrices only, no cross-fade)
 *   moving crowd:  even characters play, odd ones fade (half of them cross-fading at any time)
 *   idle crowd:    every 10th character moves (alternately play / fade); of the other 90%, odd ones are
 *                  paused and even ones finished
 *   layered crowd: every character plays clip A on layer 0, an upper-body masked override of clip B on
 *                  layer 1 (weight 0.7) and an additive clip C on layer 2 (weight 0.5, reference: clip C at
 *                  time 0). Override below additive: three.js's mixer applies additive actions after the
 *                  weighted ones, so this order is the one both sides can express (see three.ts).
 *   blend-space crowd: every character plays a 1D blend space of three clips (`blend.clips` at 0, 1, 2) on
 *                  layer 0, sync on, its parameter spread over (0.1, 1.9): between two points, so two clips
 *                  contribute (half of the crowd blends points 0–1, half 1–2; the third point's weight is 0).
 *   lod crowd:     every character plays clip A, on a square grid (1 unit apart) around a LOD camera at the
 *                  origin, with update-rate levels of detail: the nearest ~10 % every step, the next ~20 % every
 *                  2nd step, the rest every 4th (`lod`: positions, distances, each character's rate).
 *
 * Start phases are spread over the clip (golden-ratio steps), so characters sit in different key segments.
 * The timed fades are long (`fadeSeconds` default 3600 s) so none ends during a run: a fade costs the same at
 * any blend weight strictly between 0 and 1, and the fade semantics themselves are checked separately, with
 * short fades, by the correctness check (see run.ts).
 */
import type { RotationMode } from '../../src/clip/clip.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'

export type Role = 'play' | 'fade' | 'paused' | 'finished'
export type CrowdKind = 'playing' | 'moving' | 'idle' | 'layered' | 'blend-space' | 'lod'
export const CROWD_KINDS: readonly CrowdKind[] = [
  'playing',
  'moving',
  'idle',
  'layered',
  'blend-space',
  'lod',
]

/** The layered crowd's layers (see above); clips are asset clip indices, mask roots glTF node indices. */
export interface LayeredPlan {
  /** Layer 1: override, masked to `maskRoots` and their subtrees (the upper body), at `overrideWeight`. */
  readonly overrideClip: number
  readonly overrideWeight: number
  readonly maskRoots: readonly number[]
  /** glTF node index → inside the mask (a root or a descendant of one). */
  readonly inMask: readonly boolean[]
  /** Layer 2: additive, at `additiveWeight`, reference its own clip at time 0. */
  readonly additiveClip: number
  readonly additiveWeight: number
  /** Start times in the override and additive clips, seconds, per character. */
  readonly phaseOverride: Float64Array
  readonly phaseAdditive: Float64Array
}

/** The blend-space crowd's 1D blend space (see above). */
export interface BlendPlan {
  /** Asset clip indices of the points, at `at[p]` (increasing). */
  readonly clips: readonly number[]
  readonly at: readonly number[]
  /** Per character: its parameter, and each point's weight (count × points, row-major). */
  readonly parameter: Float64Array
  readonly weights: Float64Array
  /** Per character: the synchronized cycle's length Σ wₚ·durationₚ, s, and its start phase in [0, 1). */
  readonly cycle: Float64Array
  readonly phase: Float64Array
}

/** The lod crowd's places and levels of detail (see above). */
export interface LodPlan {
  /** Per character its place on the ground: x, z (world units). */
  readonly positions: Float64Array
  /** setLod's distances, each half-way between two distances of the grid, so no character sits on one. */
  readonly near: number
  readonly far: number
  /** Per character: 1, 2 or 4 (from its distance, as the project's scheduleLod rates it). */
  readonly rate: Uint8Array
  /** Σ 1/rate over the crowd, / count: the share of a full-rate crowd's sampling the schedule asks for. */
  readonly share: number
}

export interface CrowdPlan {
  readonly asset: AnimationAsset
  /** Asset clip indices of clip A and clip B. */
  readonly clipA: number
  readonly clipB: number
  readonly roles: readonly Role[]
  /** Start time in clip A / clip B, seconds, per character. */
  readonly phaseA: Float64Array
  readonly phaseB: Float64Array
  readonly fadeSeconds: number
  readonly rotation: RotationMode
  /** Fixed step, seconds. */
  readonly dt: number
  readonly kind: CrowdKind
  /** The layered crowd's layers; null in other crowds. */
  readonly layered: LayeredPlan | null
  /** The blend-space crowd's blend space; null in other crowds. */
  readonly blend: BlendPlan | null
  /** The lod crowd's places and rates; null in other crowds. */
  readonly lod: LodPlan | null
}

export function crowdRoles(count: number, kind: CrowdKind): Role[] {
  const roles: Role[] = []
  for (let i = 0; i < count; i++) {
    if (kind === 'playing') roles.push('play')
    else if (kind === 'layered' || kind === 'blend-space' || kind === 'lod') roles.push('play')
    else if (kind === 'moving') roles.push(i % 2 === 0 ? 'play' : 'fade')
    else if (i % 10 === 0) roles.push((i / 10) % 2 === 0 ? 'play' : 'fade')
    else roles.push(i % 2 === 1 ? 'paused' : 'finished')
  }
  return roles
}

export interface PlanOptions {
  clipA: number
  clipB: number
  /** The layered crowd: clip B is the upper-body override, clip C the additive layer. */
  clipC?: number
  /** The layered crowd's mask: node names, each with its subtree. */
  mask?: readonly string[]
  /** The blend-space crowd's three points' clips (at 0, 1, 2). */
  blendClips?: readonly number[]
  fadeSeconds?: number
  rotation?: RotationMode
  dt?: number
}

export function makeCrowdPlan(
  asset: AnimationAsset,
  count: number,
  kind: CrowdKind,
  options: PlanOptions,
): CrowdPlan {
  const a = asset.clips[options.clipA]
  const b = asset.clips[options.clipB]
  if (!a || !b) throw new Error(`${asset.source}: no clip ${options.clipA} or ${options.clipB}`)
  const phaseA = new Float64Array(count)
  const phaseB = new Float64Array(count)
  const golden = GOLDEN
  for (let i = 0; i < count; i++) {
    phaseA[i] = ((i * golden) % 1) * a.duration
    phaseB[i] = (((i + 0.5) * golden * golden) % 1) * b.duration
  }
  return {
    asset,
    clipA: options.clipA,
    clipB: options.clipB,
    roles: crowdRoles(count, kind),
    phaseA,
    phaseB,
    fadeSeconds: options.fadeSeconds ?? 3600,
    rotation: options.rotation ?? 'slerp',
    dt: options.dt ?? 1 / 60,
    kind,
    layered: kind === 'layered' ? layeredPlan(asset, count, options) : null,
    blend: kind === 'blend-space' ? blendPlan(asset, count, options) : null,
    lod: kind === 'lod' ? lodPlan(count) : null,
  }
}

/** Shares of the lod crowd sampled every step, and every step or every 2nd (the rest: every 4th). */
const LOD_NEAR_SHARE = 0.1
const LOD_MID_SHARE = 0.3

/**
 * The lod crowd: a square grid of `count` places 1 unit apart, centred on the origin; near and far half-way
 * between the grid's distinct distances at about 10 % and 30 % of the crowd (at least that many, ties kept
 * together).
 */
export function lodPlan(count: number): LodPlan {
  const side = Math.ceil(Math.sqrt(count))
  const positions = new Float64Array(2 * count)
  const distances: number[] = []
  for (let i = 0; i < count; i++) {
    const x = (i % side) - Math.floor(side / 2)
    const z = Math.floor(i / side) - Math.floor(side / 2)
    positions[2 * i] = x
    positions[2 * i + 1] = z
    distances.push(Math.hypot(x, z))
  }
  const sorted = [...distances].sort((a, b) => a - b)
  const cut = (share: number): number => {
    const k = Math.min(count - 1, Math.max(0, Math.ceil(share * count) - 1))
    const next = sorted.find((d) => d > sorted[k]!)
    return next === undefined ? sorted[k]! + 1 : (sorted[k]! + next) / 2
  }
  const near = cut(LOD_NEAR_SHARE)
  const far = Math.max(near, cut(LOD_MID_SHARE))
  const rate = Uint8Array.from(distances, (d) => (d < near ? 1 : d < far ? 2 : 4))
  let share = 0
  for (const r of rate) share += 1 / r
  return { positions, near, far, rate, share: share / Math.max(1, count) }
}

const GOLDEN = 0.6180339887498949

function layeredPlan(asset: AnimationAsset, count: number, options: PlanOptions): LayeredPlan {
  const over = asset.clips[options.clipB]!
  const add = asset.clips[options.clipC ?? -1]
  if (!add) throw new Error(`${asset.source}: the layered crowd needs clipC`)
  const maskRoots = (options.mask ?? []).map((name) => {
    const node = asset.nodes.find((n) => n.name === name)
    if (!node) throw new Error(`${asset.source}: no node "${name}" for the mask`)
    return node.index
  })
  const inMask = asset.nodes.map(() => false)
  const mark = (i: number): void => {
    inMask[i] = true
    for (const c of asset.nodes[i]!.children) mark(c)
  }
  for (const r of maskRoots) mark(r)
  const phaseOverride = new Float64Array(count)
  const phaseAdditive = new Float64Array(count)
  for (let i = 0; i < count; i++) {
    phaseOverride[i] = (((i + 0.25) * GOLDEN) % 1) * over.duration
    phaseAdditive[i] = (((i + 0.75) * GOLDEN * GOLDEN) % 1) * add.duration
  }
  return {
    overrideClip: options.clipB,
    overrideWeight: 0.7,
    maskRoots,
    inMask,
    additiveClip: options.clipC!,
    additiveWeight: 0.5,
    phaseOverride,
    phaseAdditive,
  }
}

/**
 * Weights of a 1D blend space computed here, independently of the project: between neighbouring points
 * linear, (at[k+1] − x) / (at[k+1] − at[k]) and the rest (what gradient-band weights are in 1D).
 */
function blendPlan(asset: AnimationAsset, count: number, options: PlanOptions): BlendPlan {
  const clips = options.blendClips ?? []
  if (clips.length !== 3) throw new Error(`${asset.source}: the blend-space crowd needs three blendClips`)
  const at = [0, 1, 2]
  const m = clips.length
  const durations = clips.map((c) => asset.clips[c]!.duration)
  const parameter = new Float64Array(count)
  const weights = new Float64Array(count * m)
  const cycle = new Float64Array(count)
  const phase = new Float64Array(count)
  for (let i = 0; i < count; i++) {
    const x = 0.1 + 1.8 * (((i + 0.5) * GOLDEN) % 1)
    parameter[i] = x
    const k = x < at[1]! ? 0 : 1
    const wk = (at[k + 1]! - x) / (at[k + 1]! - at[k]!)
    weights[i * m + k] = wk
    weights[i * m + k + 1] = 1 - wk
    let d = 0
    for (let p = 0; p < m; p++) d += weights[i * m + p]! * durations[p]!
    cycle[i] = d
    phase[i] = (i * GOLDEN * GOLDEN) % 1
  }
  return { clips, at, parameter, weights, cycle, phase }
}
