/**
 * Animation layers, the shaped half: per character, up to MAX_LAYERS layers applied in index order over the
 * result of the ones below (systems/composeLayers.ts). A layer's numbers are rows of the stores at its slot —
 * Sampler (its clip's track), CrossFade (the fade inside it and the track it leaves) and AnimLayer (weight and
 * its ramp, mode, source, pause, additive reference, blend-space phase) — and what has a shape is here: its mask
 * and the runs the kernels walk, its block of pose buffers, its blend space, its additive delta clip.
 *
 * Slots: a character's layer 0 is the character's own entity id, so a character that only ever plays on layer 0
 * (a crowd) has every number in the eid-indexed rows and no Layer object at all. Layers 1–7 take a slot each from
 * [capacity, capacity + maxLayers) (LayerSlots). A character gets a LayerStack (its Layer objects, layer 0's among
 * them) once a layer other than 0 is used or layer 0 is configured (setLayer, playBlendSpace).
 *
 * A layer's block of pose buffers, in units of the character's n joints: OUT (what the layer shows: a pose, or
 * for an additive layer its difference from the reference), FROM and TO (the two sides of a fade inside the
 * layer), REF_FROM and REF_TO (their additive references), DELTA (scratch) and one per blend-space point.
 */
import { JOINT_STRIDE } from '../src/math/poseLayout.ts'
import type { DeltaClip } from '../src/clip/additiveClip.ts'
import { blendPointPaths, gradientBandWeights } from '../src/clip/layerBlend.ts'
import type { SamplerStore } from '../components/Sampler.ts'
import { MODE_OVERRIDE, SOURCE_BLEND_SPACE, type AnimLayerStore } from '../components/AnimLayer.ts'

export {
  LAYER_MODES,
  MODE_ADDITIVE,
  MODE_OVERRIDE,
  SOURCE_BLEND_SPACE,
  SOURCE_CLIP,
  SOURCE_NONE,
  type LayerMode,
} from '../components/AnimLayer.ts'

/** Layers per character: indices 0 (the base layer) to 7. */
export const MAX_LAYERS = 8

/** Block buffers (×n joints) of a layer. */
export const BLOCK_OUT = 0
export const BLOCK_FROM = 1
export const BLOCK_TO = 2
export const BLOCK_REF_FROM = 3
export const BLOCK_REF_TO = 4
export const BLOCK_DELTA = 5
/** First blend-space point's buffer; point p is at BLOCK_POINTS + p. */
export const BLOCK_POINTS = 6

/**
 * A blend space on a layer: its points, each a track of `points` (clip, phase when unsynchronized, clip-local
 * time sampled, 'finished' flag; every point repeats), and this parameter's weights. All its numbers, the points'
 * tracks and cursors included, are views of one buffer, so a step's first reads of a blend space are a cache
 * miss or two rather than one per array.
 */
export interface BlendSpaceState {
  /** 1 or 2. */
  readonly dims: number
  /** The points as tracks, one row each. */
  readonly points: SamplerStore
  /** Per point: coordinates (y 0 in 1D). */
  readonly xs: Float64Array
  readonly ys: Float64Array
  /** The parameter (x, y) and the point weights it gives (gradient band, src/clip/layerBlend.ts). */
  readonly param: Float64Array
  readonly weights: Float64Array
  /** 1: one normalized phase (AnimLayer.phase) for all points; 0: each point's own phase. */
  readonly sync: number
  /** Per point: its clip's duration. */
  readonly durations: Float64Array
  /** Per point: channel bindings on the character's asset and key cursors. */
  readonly bindings: readonly Int32Array[]
  readonly cursors: readonly Uint32Array[]
  /** Per point: float offset of its pose buffer in the pool (slots are stable; the pool's array may grow). */
  readonly offsets: Int32Array
  /**
   * Per joint, whether a point's clip drives its translation / scale (blendPointPaths of src/clip/layerBlend.ts,
   * from the bindings and the rest pose): the mix copies the others. Derived, so neither hashed nor stored.
   */
  readonly paths: Uint8Array
}

/** What a blend space is made of; createBlendSpaceState copies it. */
export interface BlendSpaceInit {
  readonly dims: number
  readonly sync: number
  /** Per point: clip id, coordinates, clip duration, phase (seconds), key cursors, pose buffer offset. */
  readonly clips: ArrayLike<number>
  readonly xs: ArrayLike<number>
  readonly ys: ArrayLike<number>
  readonly durations: ArrayLike<number>
  readonly times: ArrayLike<number> | null
  readonly cursors: readonly ArrayLike<number>[]
  readonly offsets: ArrayLike<number>
  /** The parameter, (x, y). */
  readonly param: ArrayLike<number>
  readonly bindings: readonly Int32Array[]
  /** The character's joints and rest pose (for `paths`). */
  readonly joints: number
  readonly rest: Float32Array
}

/**
 * A blend space's state in one buffer (see BlendSpaceState): doubles first (xs, ys, weights, durations, the
 * points' time, speed, local and lastTime, the parameter), then 32-bit words (clips, offsets, cursors), then bytes
 * (the points' loop, rotation, reset and finished flags, the paths). Its weights for the parameter
 * (gradientBandWeights) and its paths (blendPointPaths) are derived here.
 */
export function createBlendSpaceState(init: BlendSpaceInit): BlendSpaceState {
  const m = init.clips.length
  let cursorWords = 0
  for (const c of init.cursors) cursorWords += c.length
  const doubles = 8 * m + 2
  const words = 2 * m + cursorWords
  const buffer = new ArrayBuffer(doubles * 8 + words * 4 + 4 * m + init.joints)
  const f64 = (k: number) => new Float64Array(buffer, k * m * 8, m)
  const u8 = (k: number) => new Uint8Array(buffer, doubles * 8 + words * 4 + k * m, m)
  const points: SamplerStore = {
    clip: new Int32Array(buffer, doubles * 8, m),
    time: f64(4),
    speed: f64(5),
    loop: u8(0),
    rotation: u8(1),
    local: f64(6),
    lastTime: f64(7),
    reset: u8(2),
    finished: u8(3),
  }
  const xs = f64(0)
  const ys = f64(1)
  const weights = f64(2)
  const durations = f64(3)
  const param = new Float64Array(buffer, 8 * m * 8, 2)
  let at = doubles * 8 + 4 * m
  const offsets = new Int32Array(buffer, at, m)
  at += 4 * m
  const cursors = init.cursors.map((c) => {
    const view = new Uint32Array(buffer, at, c.length)
    at += 4 * c.length
    return view
  })
  points.clip.set(init.clips)
  offsets.set(init.offsets)
  xs.set(init.xs)
  ys.set(init.ys)
  durations.set(init.durations)
  const paths = blendPointPaths(
    new Uint8Array(buffer, doubles * 8 + words * 4 + 4 * m, init.joints),
    init.bindings,
    init.rest,
    init.joints,
  )
  const bs: BlendSpaceState = {
    dims: init.dims,
    points,
    xs,
    ys,
    param,
    weights,
    sync: init.sync,
    durations,
    bindings: init.bindings,
    cursors,
    offsets,
    paths,
  }
  restartBlendSpace(bs, Float64Array.of(init.param[0]!, init.param[1]!))
  if (init.times !== null) points.time.set(init.times)
  for (let p = 0; p < m; p++) cursors[p]!.set(init.cursors[p]!)
  return bs
}

/**
 * Puts a blend space back as createBlendSpaceState makes it (every point at its start, no cursor hint, the
 * parameter `param[0..2)` (x, y) and its weights), keeping its points, clips and offsets: a state machine re-enters a
 * blend-space state with the one it made, allocating nothing, in the same bits as a new one.
 */
export function restartBlendSpace(bs: BlendSpaceState, param: Float64Array): void {
  const t = bs.points
  t.time.fill(0)
  t.speed.fill(1)
  t.loop.fill(1)
  t.rotation.fill(0)
  t.local.fill(0)
  t.lastTime.fill(NaN)
  t.reset.fill(0)
  t.finished.fill(0)
  for (let p = 0; p < bs.cursors.length; p++) bs.cursors[p]!.fill(0)
  bs.param[0] = param[0]!
  bs.param[1] = param[1]!
  gradientBandWeights(bs.weights, bs.xs, bs.ys, t.clip.length, bs.param)
}

/** The shaped parts of one layer of a character (its numbers are the stores' rows at `slot`). */
export interface Layer {
  readonly index: number
  /** Its row in Sampler, CrossFade and AnimLayer: the character's id for layer 0, a LayerSlots slot otherwise. */
  readonly slot: number
  /** First slot of the layer's block in the pose pool and its size in slots; -1 and 0 for none. */
  base: number
  slots: number
  /** Per joint mask weight in [0, 1], null for the whole body; and the runs of equal nonzero weight. */
  mask: Float32Array | null
  /** Which joints the mask includes (weight > 0), one '0'/'1' per joint; '' without a mask (maskedBinding's key). */
  maskKey: string
  runs: Int32Array
  runMask: Float64Array
  runCount: number
  /**
   * What the layer samples its clip (and the clip it fades from) with: their bindings (StepState.binding and
   * .fromBinding at the slot) with the channels of joints outside its mask left out (-1), the same arrays when it
   * has no mask (shared by all layers with that binding and mask: never written). A masked joint's pose is never
   * read, so it stays what the block held (the rest pose, or an earlier clip's); the result is the same bits as
   * sampling every joint. Set with setLayerBinding / setLayerFromBinding.
   */
  sampleBinding: Int32Array | undefined
  fromSampleBinding: Int32Array | undefined
  /**
   * An additive layer's clip as differences from its reference (src/clip/additiveClip.ts), for `deltaClip`
   * (its clip); null otherwise. A step without a fade samples it over its base instead of sampling the clip
   * and taking the difference; set with the references (plugin/layers.ts updateReferences) and on restore.
   */
  delta: DeltaClip | null
  deltaClip: number
  /**
   * What OUT holds besides the channels sampled last (a clip layer without a fade): the pose `outBase` (the rest
   * pose or the delta clip's base) with the channels of `outBinding` sampled, at float offset `outAt`; null when
   * anything else wrote OUT. A step sampling the same channels over the same base skips re-copying the base:
   * the other channels hold it already, so OUT ends the same bits either way.
   */
  outBase: Float32Array | null
  outBinding: Int32Array | null
  outAt: number
  blendSpace: BlendSpaceState | null
}

/** A character's layers, by index; undefined where never used. */
export interface LayerStack {
  readonly layers: (Layer | undefined)[]
}

/** An empty stack. */
export function createLayerStack(): LayerStack {
  return { layers: new Array<Layer | undefined>(MAX_LAYERS).fill(undefined) }
}

/** The shaped parts of layer `index` at `slot`, as a new layer has them (its rows are set by the caller). */
export function createLayer(index: number, slot: number): Layer {
  return {
    index,
    slot,
    base: -1,
    slots: 0,
    mask: null,
    maskKey: '',
    runs: new Int32Array(0),
    runMask: new Float64Array(0),
    runCount: 0,
    sampleBinding: undefined,
    fromSampleBinding: undefined,
    delta: null,
    deltaClip: -1,
    outBase: null,
    outBinding: null,
    outAt: -1,
    blendSpace: null,
  }
}

/** A weight ramp's numbers (startWeightRamp), through memory: a float argument of a call is boxed. */
export const RAMP_FROM = 0
export const RAMP_TO = 1
export const RAMP_SECONDS = 2
export const RAMP_LENGTH = 3

/**
 * Starts a ramp of layer slot `l`'s weight from `ramp[RAMP_FROM]` (shown from now) to `ramp[RAMP_TO]` over
 * `ramp[RAMP_SECONDS]` seconds (> 0), which the step advances (advanceTracks); `stopping` 1 empties the layer when
 * the ramp ends at 0 (stopLayer). setLayer's fadeSeconds, stopLayer, a clip played during a stop and a fade into
 * an empty layer all start here.
 */
export function startWeightRamp(s: AnimLayerStore, l: number, ramp: Float64Array, stopping: number): void {
  s.weight[l] = ramp[RAMP_FROM]!
  s.weightFrom[l] = ramp[RAMP_FROM]!
  s.weightTo[l] = ramp[RAMP_TO]!
  s.weightDuration[l] = ramp[RAMP_SECONDS]!
  s.weightSteps[l] = 0
  s.stopping[l] = stopping
}

/** The per-slot bindings a layer's masked bindings are made from (StepState's). */
export interface LayerBindings {
  readonly binding: (Int32Array | undefined)[]
  readonly fromBinding: (Int32Array | undefined)[]
}

/**
 * Sets `mask` (per joint weights, or null for all joints) and the runs the kernels walk: maximal ranges of
 * joints with the same nonzero weight. Setup code (allocates).
 */
export function setLayerMask(b: LayerBindings, layer: Layer, mask: Float32Array | null, n: number): void {
  const runs: number[] = []
  const weights: number[] = []
  if (mask === null) {
    if (n > 0) (runs.push(0, n), weights.push(1))
  } else {
    for (let j = 0; j < n;) {
      const w = mask[j]!
      let k = j + 1
      while (k < n && mask[k] === w) k++
      if (w > 0) (runs.push(j, k - j), weights.push(w))
      j = k
    }
  }
  layer.mask = mask
  layer.maskKey = mask === null ? '' : Array.from(mask, (w) => (w > 0 ? '1' : '0')).join('')
  layer.runs = Int32Array.from(runs)
  layer.runMask = Float64Array.from(weights)
  layer.runCount = weights.length
  setLayerBinding(b, layer, b.binding[layer.slot])
  setLayerFromBinding(b, layer, b.fromBinding[layer.slot])
}

/** Sets the binding of the clip the layer plays, and the one it samples with (see Layer). */
export function setLayerBinding(b: LayerBindings, layer: Layer, binding: Int32Array | undefined): void {
  b.binding[layer.slot] = binding
  layer.sampleBinding = maskedBinding(binding, layer)
}

/** Sets the binding of the clip the layer fades out of, and the one it samples with (see Layer). */
export function setLayerFromBinding(b: LayerBindings, layer: Layer, binding: Int32Array | undefined): void {
  b.fromBinding[layer.slot] = binding
  layer.fromSampleBinding =
    binding !== undefined && binding === b.binding[layer.slot]
      ? layer.sampleBinding
      : maskedBinding(binding, layer)
}

/**
 * The masked bindings made so far, per binding (bindClip's, one per clip and asset) and per set of joints a mask
 * includes: characters with the same mask on the same clip share one array, which a crowd's step then reads from
 * cache rather than one copy per character (an array of a channel count's ints, missed in cache every step).
 */
const maskedBindings = new WeakMap<Int32Array, Map<string, Int32Array>>()

/**
 * `binding` without the channels of joints whose mask weight is 0; `binding` itself when there is no mask. The
 * same array for the same binding and the same joints of weight > 0 (see maskedBindings); nothing writes it.
 * Allocates only the first time a binding meets a mask's joints (a state machine's transitions, run in the step,
 * meet the same few again and again).
 */
function maskedBinding(binding: Int32Array | undefined, layer: Layer): Int32Array | undefined {
  const mask = layer.mask
  if (binding === undefined || mask === null) return binding
  let byMask = maskedBindings.get(binding)
  if (byMask === undefined) {
    byMask = new Map()
    maskedBindings.set(binding, byMask)
  }
  const key = layer.maskKey
  const known = byMask.get(key)
  if (known !== undefined) return known
  const out = new Int32Array(binding.length)
  for (let c = 0; c < binding.length; c++) {
    const b = binding[c]!
    out[c] = b >= 0 && mask[Math.floor(b / JOINT_STRIDE)]! > 0 ? b : -1
  }
  byMask.set(key, out)
  return out
}

/** Whether layer 0 is as a character without layers has it: full weight, override, whole body, no blend space. */
export function isPlainBase(s: AnimLayerStore, layer: Layer): boolean {
  const l = layer.slot
  // The layer object's fields first: a crowd's store rows are a cache miss each.
  return (
    layer.blendSpace === null &&
    layer.mask === null &&
    s.weight[l] === 1 &&
    s.weightDuration[l] === 0 &&
    s.mode[l] === MODE_OVERRIDE
  )
}

/**
 * The slots of layers other than 0: [first, first + count), taken lowest first, so which slots are in use follows
 * from the layers alone (a restore marks them again and the next layer gets the slot it would have got).
 */
export interface LayerSlots {
  readonly first: number
  readonly count: number
  /** 1 where the slot (first + index) is in use. */
  readonly used: Uint8Array
  /** No slot below first + `lowest` is free. */
  lowest: number
}

export function createLayerSlots(first: number, count: number): LayerSlots {
  return { first, count, used: new Uint8Array(count), lowest: 0 }
}

/** The lowest free slot, or -1 when every slot is in use. Does not take it. */
export function freeLayerSlot(s: LayerSlots): number {
  for (let k = s.lowest; k < s.count; k++) if (s.used[k] === 0) return s.first + k
  return -1
}

/** Marks `slot` in use. */
export function takeLayerSlot(s: LayerSlots, slot: number): void {
  const k = slot - s.first
  s.used[k] = 1
  while (s.lowest < s.count && s.used[s.lowest] === 1) s.lowest++
}

/** Returns `slot` to the free slots. */
export function releaseLayerSlot(s: LayerSlots, slot: number): void {
  const k = slot - s.first
  s.used[k] = 0
  if (k < s.lowest) s.lowest = k
}
