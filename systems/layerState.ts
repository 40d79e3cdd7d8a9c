/**
 * Animation layers: per character, up to MAX_LAYERS layers applied in index order over the result of the ones
 * below (systems/sampleLayers.ts). Layer 0 is the character's Sampler and CrossFade (its clip state stays in
 * those stores); a character gets a LayerStack only when a layer other than 0 is used or layer 0 is configured
 * (setLayer, playBlendSpace), so a crowd that never uses layers pays nothing.
 *
 * A layer's numbers live in two small typed arrays (`f` floats, `i` integers, indexed by the F_ and I_
 * constants below), views of one buffer per stack, so the step writes them without allocating and hash/snapshot
 * copy them whole. Each layer other than a plain layer 0 owns a block of pose slots in the pose pool, in units
 * of the character's n joints: OUT (what the layer shows: a pose, or for an additive layer its difference from
 * the reference), FROM and TO (the two clips of a fade inside the layer), REF_FROM and REF_TO (their additive
 * references), DELTA (scratch) and one per blend-space point.
 */
import { JOINT_STRIDE } from '../src/math/poseLayout.ts'
import type { DeltaClip } from '../src/clip/additiveClip.ts'
import { blendPointPaths, gradientBandWeights } from '../src/clip/layerBlend.ts'

/** Layers per character: indices 0 (the base layer) to 7. */
export const MAX_LAYERS = 8

export const MODE_OVERRIDE = 0
export const MODE_ADDITIVE = 1
/** How a layer combines with the result of the layers below: stored in I_MODE as 0, 1. */
export type LayerMode = 'override' | 'additive'
export const LAYER_MODES: readonly LayerMode[] = ['override', 'additive']

export const SOURCE_NONE = 0
export const SOURCE_CLIP = 1
export const SOURCE_BLEND_SPACE = 2

/** Block slots (×n joints) of a layer. */
export const BLOCK_OUT = 0
export const BLOCK_FROM = 1
export const BLOCK_TO = 2
export const BLOCK_REF_FROM = 3
export const BLOCK_REF_TO = 4
export const BLOCK_DELTA = 5
/** First blend-space point's slot; point p is at BLOCK_POINTS + p. */
export const BLOCK_POINTS = 6

// Float fields (Layer.f).
/** Play phase, seconds (Sampler.time's convention). */
export const F_TIME = 0
/** Playback rate. */
export const F_SPEED = 1
/** Clip-local time sampled this step (read by sampleClipChannels). */
export const F_LOCAL = 2
/** Outgoing clip's phase, rate and sampled local time during a fade inside the layer. */
export const F_FROM_TIME = 3
export const F_FROM_SPEED = 4
export const F_FROM_LOCAL = 5
/** Fade blend 0 → 1, and its duration in seconds. */
export const F_BLEND = 6
export const F_FADE_DURATION = 7
/** The layer's weight now; a ramp goes from F_WEIGHT_FROM to F_WEIGHT_TO over F_WEIGHT_DURATION seconds. */
export const F_WEIGHT = 8
export const F_WEIGHT_FROM = 9
export const F_WEIGHT_TO = 10
export const F_WEIGHT_DURATION = 11
/** Additive reference time, seconds into the reference clip. */
export const F_REF_TIME = 12
/** A synchronized blend space's normalized phase, [0, 1). */
export const F_PHASE = 13
export const LAYER_FLOATS = 14

// Integer fields (Layer.i).
/** SOURCE_NONE | SOURCE_CLIP | SOURCE_BLEND_SPACE. */
export const I_SOURCE = 0
/** Clip id (SOURCE_CLIP, layers other than 0), loop and rotation modes (Sampler's conventions). */
export const I_CLIP = 1
export const I_LOOP = 2
export const I_ROTATION = 3
/** 1 while paused (time holds; the speed is kept for resume). */
export const I_PAUSED = 4
/** 1: the next step samples the current time without advancing it (after play, setTime). */
export const I_HOLD = 5
/** 1 while a fade inside the layer runs; the outgoing clip (-1: a frozen pose), its loop and rotation modes. */
export const I_FADE = 6
export const I_FROM_CLIP = 7
export const I_FROM_LOOP = 8
export const I_FROM_ROTATION = 9
/** Fixed steps the fade (I_FADE_STEPS) and the weight ramp (I_WEIGHT_STEPS) have run. */
export const I_FADE_STEPS = 10
export const I_WEIGHT_STEPS = 11
/** MODE_OVERRIDE | MODE_ADDITIVE. */
export const I_MODE = 12
/** 1 after stopLayer: the layer empties when its weight reaches 0. */
export const I_STOPPING = 13
/** Additive reference clip id, -1 for the clip the layer plays (each clip of a fade its own). */
export const I_REF_CLIP = 14
export const LAYER_INTS = 15

/** A blend space on a layer: its points and this parameter's weights. */
export interface BlendSpaceState {
  /** 1 or 2. */
  readonly dims: number
  /** Per point: clip id, coordinates (y 0 in 1D). */
  readonly clips: Int32Array
  readonly xs: Float64Array
  readonly ys: Float64Array
  /** The parameter (x, y) and the point weights it gives (gradient band, src/clip/layerBlend.ts). */
  readonly param: Float64Array
  readonly weights: Float64Array
  /** 1: one normalized phase (F_PHASE) for all points; 0: each point's own phase (`times`). */
  readonly sync: number
  /** Per point: its clip's duration, and its phase in seconds when not synchronized. */
  readonly durations: Float64Array
  readonly times: Float64Array
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
 * A blend space's state with all its numbers in one buffer (cursors included), so a step's first reads of a
 * blend space are a cache miss or two rather than one per array; its weights for the parameter
 * (gradientBandWeights) and its paths (blendPointPaths) are derived here.
 */
export function createBlendSpaceState(init: BlendSpaceInit): BlendSpaceState {
  const m = init.clips.length
  let cursorWords = 0
  for (const c of init.cursors) cursorWords += c.length
  const doubles = 5 * m + 2
  const words = 2 * m + cursorWords
  const buffer = new ArrayBuffer(doubles * 8 + words * 4 + init.joints)
  const f64 = (k: number) => new Float64Array(buffer, k * m * 8, m)
  const xs = f64(0)
  const ys = f64(1)
  const weights = f64(2)
  const durations = f64(3)
  const times = f64(4)
  const param = new Float64Array(buffer, 5 * m * 8, 2)
  let at = doubles * 8
  const clips = new Int32Array(buffer, at, m)
  const offsets = new Int32Array(buffer, at + 4 * m, m)
  at += 8 * m
  const cursors = init.cursors.map((c) => {
    const view = new Uint32Array(buffer, at, c.length)
    view.set(c)
    at += 4 * c.length
    return view
  })
  clips.set(init.clips)
  offsets.set(init.offsets)
  xs.set(init.xs)
  ys.set(init.ys)
  durations.set(init.durations)
  if (init.times !== null) times.set(init.times)
  param.set(init.param)
  const paths = blendPointPaths(
    new Uint8Array(buffer, at, init.joints),
    init.bindings,
    init.rest,
    init.joints,
  )
  gradientBandWeights(weights, xs, ys, m, param)
  return {
    dims: init.dims,
    clips,
    xs,
    ys,
    param,
    weights,
    sync: init.sync,
    durations,
    times,
    bindings: init.bindings,
    cursors,
    offsets,
    paths,
  }
}

/** One layer of a character. */
export interface Layer {
  readonly index: number
  readonly f: Float64Array
  readonly i: Int32Array
  /** First slot of the layer's block in the pose pool and its size in slots; -1 and 0 for none. */
  base: number
  slots: number
  /** Per joint mask weight in [0, 1], null for the whole body; and the runs of equal nonzero weight. */
  mask: Float32Array | null
  runs: Int32Array
  runMask: Float64Array
  runCount: number
  /**
   * Bindings (current and outgoing clip) and key cursors `| current | outgoing |` (layers other than 0). Set
   * them with setLayerBinding / setLayerFromBinding, which also make the ones sampled with.
   */
  binding: Int32Array | undefined
  fromBinding: Int32Array | undefined
  /**
   * What the layer samples with: its bindings with the channels of joints outside its mask left out (-1), the
   * same arrays when it has no mask (shared by all layers with that binding and mask: never written). A masked
   * joint's pose is never read, so it stays what the block held (the rest pose, or an earlier clip's); the
   * result is the same bits as sampling every joint.
   */
  sampleBinding: Int32Array | undefined
  fromSampleBinding: Int32Array | undefined
  cursors: Uint32Array
  /**
   * An additive layer's clip as differences from its reference (src/clip/additiveClip.ts), for `deltaClip`
   * (its I_CLIP); null otherwise. A step without a fade samples it over its base instead of sampling the clip
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
  /** Once-only 'finished' flags (systems/clipEvents.ts): [0] the clip it plays, [1] the clip it fades out of. */
  readonly finished: Uint8Array
}

/** A character's layers, by index; undefined where never used. */
export interface LayerStack {
  readonly layers: (Layer | undefined)[]
  /** Every layer's `f` and `i`, side by side (see createLayerStack). */
  readonly numbers: ArrayBuffer
}

/** Bytes of one layer's numbers in LayerStack.numbers: its floats, then its ints, on a 16-byte boundary. */
const LAYER_NUMBER_BYTES = Math.ceil((LAYER_FLOATS * 8 + LAYER_INTS * 4) / 16) * 16

/**
 * An empty stack. Its layers' numbers share one buffer, in layer order: a step reads each layer's few numbers
 * once, and one small buffer per character is a cache miss or two where a buffer per array was one per layer.
 */
export function createLayerStack(): LayerStack {
  return {
    layers: new Array<Layer | undefined>(MAX_LAYERS).fill(undefined),
    numbers: new ArrayBuffer(MAX_LAYERS * LAYER_NUMBER_BYTES),
  }
}

/** A layer of `stack` at `index`, with its defaults (the stack's numbers for it are overwritten). */
export function createLayer(index: number, stack: LayerStack = createLayerStack()): Layer {
  const at = index * LAYER_NUMBER_BYTES
  const f = new Float64Array(stack.numbers, at, LAYER_FLOATS)
  f.fill(0)
  f[F_SPEED] = 1
  f[F_WEIGHT] = 1
  f[F_WEIGHT_FROM] = 1
  f[F_WEIGHT_TO] = 1
  const i = new Int32Array(stack.numbers, at + LAYER_FLOATS * 8, LAYER_INTS)
  i.fill(0)
  i[I_CLIP] = -1
  i[I_FROM_CLIP] = -1
  i[I_REF_CLIP] = -1
  i[I_LOOP] = 1
  return {
    index,
    f,
    i,
    base: -1,
    slots: 0,
    mask: null,
    runs: new Int32Array(0),
    runMask: new Float64Array(0),
    runCount: 0,
    binding: undefined,
    fromBinding: undefined,
    sampleBinding: undefined,
    fromSampleBinding: undefined,
    cursors: new Uint32Array(0),
    delta: null,
    deltaClip: -1,
    outBase: null,
    outBinding: null,
    outAt: -1,
    blendSpace: null,
    finished: new Uint8Array(2),
  }
}

/**
 * Starts a ramp of the layer's weight from `from` (shown from now) to `to` over `seconds` (> 0), which the step
 * advances (sampleLayers' advanceWeight); `stopping` 1 empties the layer when the ramp ends at 0 (stopLayer).
 * setLayer's fadeSeconds, stopLayer, a clip played during a stop and a fade into an empty layer all start here.
 */
export function startWeightRamp(
  layer: Layer,
  from: number,
  to: number,
  seconds: number,
  stopping: number,
): void {
  const f = layer.f
  f[F_WEIGHT] = from
  f[F_WEIGHT_FROM] = from
  f[F_WEIGHT_TO] = to
  f[F_WEIGHT_DURATION] = seconds
  layer.i[I_WEIGHT_STEPS] = 0
  layer.i[I_STOPPING] = stopping
}

/**
 * Sets `mask` (per joint weights, or null for all joints) and the runs the kernels walk: maximal ranges of
 * joints with the same nonzero weight. Setup code (allocates).
 */
export function setLayerMask(layer: Layer, mask: Float32Array | null, n: number): void {
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
  layer.runs = Int32Array.from(runs)
  layer.runMask = Float64Array.from(weights)
  layer.runCount = weights.length
  setLayerBinding(layer, layer.binding)
  setLayerFromBinding(layer, layer.fromBinding)
}

/** Sets the binding of the clip the layer plays, and the one it samples with (see Layer). */
export function setLayerBinding(layer: Layer, binding: Int32Array | undefined): void {
  layer.binding = binding
  layer.sampleBinding = maskedBinding(binding, layer.mask)
}

/** Sets the binding of the clip the layer fades out of, and the one it samples with (see Layer). */
export function setLayerFromBinding(layer: Layer, binding: Int32Array | undefined): void {
  layer.fromBinding = binding
  layer.fromSampleBinding =
    binding !== undefined && binding === layer.binding
      ? layer.sampleBinding
      : maskedBinding(binding, layer.mask)
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
 * Allocates (called when a clip, a fade or a mask starts, never in a step: undefined and no mask allocate nothing).
 */
function maskedBinding(binding: Int32Array | undefined, mask: Float32Array | null): Int32Array | undefined {
  if (binding === undefined || mask === null) return binding
  let byMask = maskedBindings.get(binding)
  if (byMask === undefined) {
    byMask = new Map()
    maskedBindings.set(binding, byMask)
  }
  const key = Array.from(mask, (w) => (w > 0 ? '1' : '0')).join('')
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
export function isPlainBase(layer: Layer): boolean {
  return (
    layer.f[F_WEIGHT] === 1 &&
    layer.f[F_WEIGHT_DURATION] === 0 &&
    layer.i[I_MODE] === MODE_OVERRIDE &&
    layer.mask === null &&
    layer.i[I_SOURCE] !== SOURCE_BLEND_SPACE
  )
}
