import { AnimationError, showValue } from '../src/errors.ts'
import { finiteNumber, optionsObject, type OptionNames } from './checks.ts'
import type { AnimationContext, RegisteredAsset } from './context.ts'
import { findClip } from './assets.ts'
import { referencePose, setLayerDelta, type LayerReferences } from './additiveLayers.ts'
import { checkCharacter, packLayerSlots } from './characters.ts'
import { findJoint } from '../src/skeleton/rig.ts'
import { allocatePoseSlots, freePoseSlots, JOINT_STRIDE } from '../components/Pose.ts'
import { resetAnimLayer, type AnimLayerStore } from '../components/AnimLayer.ts'
import { resetTrack } from '../components/Sampler.ts'
import { resetFade } from '../components/CrossFade.ts'
import { emptyLayer } from '../systems/tracks.ts'
import {
  BLOCK_POINTS,
  BLOCK_REF_FROM,
  BLOCK_REF_TO,
  createLayer,
  createLayerStack,
  freeLayerSlot,
  LAYER_MODES,
  MAX_LAYERS,
  MODE_ADDITIVE,
  setLayerMask,
  SOURCE_BLEND_SPACE,
  SOURCE_CLIP,
  SOURCE_NONE,
  takeLayerSlot,
  type Layer,
  type LayerMode,
  setLayerFromBinding,
  startWeightRamp,
  RAMP_FROM,
  RAMP_LENGTH,
  RAMP_SECONDS,
  RAMP_TO,
} from '../systems/layerState.ts'

/** A joint of a layer mask (node name or glTF node index) with its subtree, at weight 1 or the one given. */
export type MaskEntry =
  | string
  | number
  | {
      /** The joint: node name or glTF node index. */
      joint: string | number
      /** Its weight (and its subtree's) in [0, 1]. Default 1. */
      weight?: number
    }

/** The reference pose of an additive layer: `clip` (default the clip the layer plays) at `time` (default 0). */
export interface LayerReference {
  /** The reference clip (name or asset clip index). Default: each clip the layer plays, its own. */
  clip?: string | number
  /** Seconds into that clip, finite (clamped to the clip). Default 0. */
  time?: number
}

const REFERENCE_OPTIONS: OptionNames<LayerReference> = { clip: true, time: true }

/** setLayer's options; what is not given stays as it is. */
export interface LayerOptions {
  /** In [0, 1]; ramped linearly over `fadeSeconds` when that is given. Default: unchanged (1 for a new layer). */
  weight?: number
  /** 'override' (default) or 'additive'. */
  mode?: LayerMode
  /**
   * Joints the layer acts on, each with all its descendants (a deeper entry overrides its ancestors'
   * weight), or null for the whole body (the default).
   */
  mask?: readonly MaskEntry[] | null
  /** Seconds over which `weight` is reached, finite, ≥ 0. Default 0: at once. */
  fadeSeconds?: number
  /** Additive layers: the pose the difference is taken against. Default: the layer's clip at time 0. */
  reference?: LayerReference | null
}

const LAYER_OPTIONS: OptionNames<LayerOptions> = {
  weight: true,
  mode: true,
  mask: true,
  fadeSeconds: true,
  reference: true,
}

/** Options naming a layer (setSpeed, setTime, pause, resume, setBlendParameter). */
export interface LayerSelector {
  /** Layer index in [0, 8), default 0. */
  layer?: number
}

/** LayerSelector's option names (optionsObject). */
export const LAYER_SELECTOR: OptionNames<LayerSelector> = { layer: true }

/** A layer index argument: an integer in [0, MAX_LAYERS). */
export function layerIndex(v: unknown, what: string): number {
  if (v === undefined) return 0
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= MAX_LAYERS) {
    throw new AnimationError(
      'argument',
      `${what}: layer ${showValue(v)} must be an integer in [0, ${MAX_LAYERS})`,
    )
  }
  return v
}

/**
 * The character's layer `index`, made (with the stack and layer 0) when missing, with a pose block of at least
 * `points` blend-space points. Takes every pose slot and layer slot it needs before changing anything, so an
 * AnimationError('capacity') leaves the character as it was.
 */
export function layerFor(ctx: AnimationContext, eid: number, index: number, points = 0): Layer {
  const n = ctx.stores.Pose.count[eid]!
  const stack = ctx.layers[eid]
  const current = stack?.layers[index]
  const slot = index === 0 ? eid : (current?.slot ?? freeLayerSlot(ctx.layerSlots))
  if (slot < 0) {
    throw new AnimationError(
      'capacity',
      `layer ${index} of character ${eid}: all ${ctx.layerSlots.count} layer slots are in use ` +
        `(raise the plugin's maxLayers option)`,
    )
  }
  const needed = (BLOCK_POINTS + points) * n
  const newBase = stack === undefined && index !== 0
  const slots0 = newBase ? allocatePoseSlots(ctx.pool, BLOCK_POINTS * n) : -1
  let slots = -1
  if (current === undefined || current.slots < needed) {
    try {
      slots = allocatePoseSlots(ctx.pool, needed)
    } catch (error) {
      if (slots0 >= 0) freePoseSlots(ctx.pool, slots0, BLOCK_POINTS * n)
      throw error
    }
  }
  const data = ctx.pool.data
  const rest = ctx.assets[ctx.stores.Pose.asset[eid]!]!.rest
  let s = stack
  if (s === undefined) {
    s = createLayerStack()
    ctx.layers[eid] = s
    ctx.uses.layers = true
    if (newBase) {
      const l0 = createLayer(0, eid)
      setLayerMask(ctx, l0, null, n)
      ctx.stores.AnimLayer.source[eid] = ctx.stores.Sampler.clip[eid]! >= 0 ? SOURCE_CLIP : SOURCE_NONE
      l0.base = slots0
      l0.slots = BLOCK_POINTS * n
      fillBlock(data, rest, slots0, BLOCK_POINTS, n)
      seedBaseOut(ctx, eid, l0, n)
      s.layers[0] = l0
    }
  }
  let layer = current
  if (layer === undefined) {
    if (index > 0) {
      takeLayerSlot(ctx.layerSlots, slot)
      packLayerSlots(ctx, slot)
      resetTrack(ctx.stores.Sampler, slot)
      resetFade(ctx.stores.CrossFade, slot)
      resetAnimLayer(ctx.stores.AnimLayer, slot)
    } else {
      ctx.stores.AnimLayer.source[eid] = ctx.stores.Sampler.clip[eid]! >= 0 ? SOURCE_CLIP : SOURCE_NONE
    }
    layer = createLayer(index, slot)
    setLayerMask(ctx, layer, null, n)
    s.layers[index] = layer
  }
  if (slots >= 0) {
    if (layer.base >= 0) {
      // Keep what the layer shows (OUT … DELTA) in the new block.
      data.copyWithin(
        slots * JOINT_STRIDE,
        layer.base * JOINT_STRIDE,
        (layer.base + BLOCK_POINTS * n) * JOINT_STRIDE,
      )
      freePoseSlots(ctx.pool, layer.base, layer.slots)
      fillBlock(ctx.pool.data, rest, slots + BLOCK_POINTS * n, points, n)
    } else {
      fillBlock(data, rest, slots, BLOCK_POINTS + points, n)
    }
    layer.base = slots
    layer.slots = needed
    if (index === 0 && current === undefined) seedBaseOut(ctx, eid, layer, n)
  }
  return layer
}

/**
 * A new layer 0 starts out showing what the character shows now (ANIM): a crossFade on layer 0 fades from
 * layer 0's OUT, and before the next step that must be the current pose, not the rest pose.
 */
function seedBaseOut(ctx: AnimationContext, eid: number, l0: Layer, n: number): void {
  const anim = ctx.stores.Pose.base[eid]! * JOINT_STRIDE
  ctx.pool.data.copyWithin(l0.base * JOINT_STRIDE, anim, anim + n * JOINT_STRIDE)
}

/** Sets `count` pose buffers of n joints from slot `first` on to the rest pose. */
function fillBlock(data: Float32Array, rest: Float32Array, first: number, count: number, n: number): void {
  for (let b = 0; b < count; b++) data.set(rest, (first + b * n) * JOINT_STRIDE)
}

/** Float offset of buffer `slot` (BLOCK_…) of a layer of a character with n joints. */
export function blockOffset(layer: Layer, slot: number, n: number): number {
  return (layer.base + slot * n) * JOINT_STRIDE
}

/** Checked setLayer options, resolved. */
interface LayerSettings {
  readonly weight: number | undefined
  readonly mode: number | undefined
  readonly mask: Float32Array | null | undefined
  readonly fadeSeconds: number
  readonly reference: { readonly clip: number; readonly time: number } | null | undefined
}

/** Configures a layer (see LayerOptions); it may show nothing yet. */
export function setLayer(
  ctx: AnimationContext,
  eid: number,
  index: number,
  o: LayerOptions | undefined,
): void {
  const what = `setLayer(${showValue(eid)}, ${showValue(index)})`
  checkCharacter(ctx, eid, what)
  const k = layerIndex(index, what)
  const s = layerSettings(ctx, eid, what, o)
  if (k === 0 && s.mode === MODE_ADDITIVE) {
    throw new AnimationError(
      'argument',
      `${what}: layer 0 is the base layer; an additive layer needs one below it`,
    )
  }
  const layer = layerFor(ctx, eid, k)
  const n = ctx.stores.Pose.count[eid]!
  const A = ctx.stores.AnimLayer
  const l = layer.slot
  if (s.mask !== undefined) setLayerMask(ctx, layer, s.mask, n)
  if (s.reference !== undefined) {
    A.refClip[l] = s.reference === null ? -1 : s.reference.clip
    A.refTime[l] = s.reference === null ? 0 : s.reference.time
  }
  const modeChanged = s.mode !== undefined && s.mode !== A.mode[l]
  if (s.mode !== undefined) A.mode[l] = s.mode
  // A fade inside the layer that changes mode ends (its frozen side is a pose of the old mode).
  if (modeChanged && ctx.stores.CrossFade.active[l] === 1) endLayerFade(ctx, layer)
  if (k > 0 && (modeChanged || s.reference !== undefined)) updateReferences(ctx, eid, layer)
  if (s.weight !== undefined) {
    RAMP[RAMP_TO] = s.weight
    RAMP[RAMP_SECONDS] = s.fadeSeconds
    setLayerWeight(A, l, RAMP)
  }
}

/** setLayer's and stopLayer's weight ramp (RAMP_*), on its way to setLayerWeight and stopLayerResolved. */
const RAMP = new Float64Array(RAMP_LENGTH)

/**
 * setLayer's weight after its checks: layer slot `l`'s weight goes to `ramp[RAMP_TO]` (in [0, 1]) over
 * `ramp[RAMP_SECONDS]` (≥ 0; 0 at once), and a stop under way is called off. Writes `ramp[RAMP_FROM]`.
 * Allocates nothing (the numbers come through memory), never throws.
 */
export function setLayerWeight(A: AnimLayerStore, l: number, ramp: Float64Array): void {
  if (ramp[RAMP_SECONDS]! > 0) {
    ramp[RAMP_FROM] = A.weight[l]!
    startWeightRamp(A, l, ramp, 0)
    return
  }
  const weight = ramp[RAMP_TO]!
  A.stopping[l] = 0
  A.weight[l] = weight
  A.weightFrom[l] = weight
  A.weightTo[l] = weight
  A.weightDuration[l] = 0
}

/** Fades a layer's weight to 0 over `fadeSeconds` (default 0: at once) and empties it then. */
export function stopLayer(ctx: AnimationContext, eid: number, index: number, fadeSeconds?: number): void {
  const what = `stopLayer(${showValue(eid)}, ${showValue(index)})`
  checkCharacter(ctx, eid, what)
  const k = layerIndex(index, what)
  const seconds = fadeSeconds === undefined ? 0 : finiteNumber(fadeSeconds, what, 'fadeSeconds', ' s')
  if (seconds < 0) throw new AnimationError('argument', `${what}: fadeSeconds ${seconds} s must be ≥ 0`)
  if (k === 0) {
    throw new AnimationError(
      'argument',
      `${what}: layer 0 is the base layer; play or crossFade another clip on it`,
    )
  }
  const layer = ctx.layers[eid]?.layers[k]
  RAMP[RAMP_SECONDS] = seconds
  if (layer !== undefined) stopLayerResolved(ctx, layer, RAMP)
}

/**
 * stopLayer after its checks, on a layer other than 0, over `ramp[RAMP_SECONDS]` (≥ 0; writes the ramp's other
 * numbers). Allocates nothing, never throws.
 */
export function stopLayerResolved(ctx: AnimationContext, layer: Layer, ramp: Float64Array): void {
  const A = ctx.stores.AnimLayer
  if (A.source[layer.slot] === SOURCE_NONE) return
  // At once: what the step does when a stopLayer fade reaches 0.
  if (ramp[RAMP_SECONDS] === 0) {
    emptyLayer(ctx, layer)
    return
  }
  ramp[RAMP_FROM] = A.weight[layer.slot]!
  ramp[RAMP_TO] = 0
  startWeightRamp(A, layer.slot, ramp, 1)
}

/** Ends the fade inside a layer now: the clip it left (or the frozen pose) is dropped. */
export function endLayerFade(ctx: AnimationContext, layer: Layer): void {
  const { CrossFade } = ctx.stores
  const l = layer.slot
  CrossFade.active[l] = 0
  CrossFade.from.clip[l] = -1
  CrossFade.steps[l] = 0
  CrossFade.blend[l] = 0
  CrossFade.duration[l] = 0
  setLayerFromBinding(ctx, layer, undefined)
}

export function identityPose(data: Float32Array, at: number, n: number): void {
  for (let j = 0; j < n; j++) {
    const o = at + j * JOINT_STRIDE
    data.fill(0, o, o + 6)
    data[o + 6] = 1
    data.fill(1, o + 7, o + 10)
  }
}

/**
 * The additive references of a layer: REF_TO for the clip (or blend space) it shows, and, when `both`, REF_FROM
 * for the clip it fades from: the reference clip of setLayer, or each clip itself, at the reference time. With
 * `known` (layerReferences' for what the layer now shows, with no reference clip set) REF_TO and the delta clip
 * come from there, the same bits, and nothing is allocated unless `both` finds a clip faded from.
 */
export function updateReferences(
  ctx: AnimationContext,
  eid: number,
  layer: Layer,
  both = true,
  known: LayerReferences | null = null,
): void {
  setLayerDelta(ctx, eid, layer, known)
  const A = ctx.stores.AnimLayer
  const l = layer.slot
  if (A.mode[l] !== MODE_ADDITIVE || layer.index === 0) return
  const n = ctx.stores.Pose.count[eid]!
  const refClip = A.refClip[l]!
  const time = A.refTime[l]!
  const assetId = ctx.stores.Pose.asset[eid]!
  const data = ctx.pool.data
  if (known !== null) data.set(known.refTo, blockOffset(layer, BLOCK_REF_TO, n))
  else {
    const shown: ArrayLike<number> =
      A.source[l] === SOURCE_BLEND_SPACE
        ? (layer.blendSpace?.points.clip ?? [])
        : [ctx.stores.Sampler.clip[l]!]
    const ref = refClip >= 0 ? refClip : shown.length > 0 ? shown[0]! : -1
    referencePose(ctx, data, blockOffset(layer, BLOCK_REF_TO, n), assetId, ref, time, shown)
  }
  const from = ctx.stores.CrossFade.from.clip[l]!
  if (both && ctx.stores.CrossFade.active[l] === 1 && from >= 0) {
    const fromRef = refClip >= 0 ? refClip : from
    referencePose(ctx, data, blockOffset(layer, BLOCK_REF_FROM, n), assetId, fromRef, time, [from])
  }
}

function layerSettings(ctx: AnimationContext, eid: number, what: string, options: unknown): LayerSettings {
  const o = optionsObject<LayerOptions>(options, what, LAYER_OPTIONS)
  const weight = o.weight === undefined ? undefined : finiteNumber(o.weight, what, 'weight')
  if (weight !== undefined && !(weight >= 0 && weight <= 1)) {
    throw new AnimationError('argument', `${what}: weight ${weight} must be in [0, 1]`)
  }
  let mode: number | undefined
  if (o.mode !== undefined) {
    mode = LAYER_MODES.indexOf(o.mode as LayerMode)
    if (mode < 0) {
      throw new AnimationError(
        'argument',
        `${what}: mode ${showValue(o.mode)} is not one of ${LAYER_MODES.join(', ')}`,
      )
    }
  }
  const fadeSeconds = o.fadeSeconds === undefined ? 0 : finiteNumber(o.fadeSeconds, what, 'fadeSeconds', ' s')
  if (fadeSeconds < 0)
    throw new AnimationError('argument', `${what}: fadeSeconds ${fadeSeconds} s must be ≥ 0`)
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const mask =
    o.mask === undefined ? undefined : o.mask === null ? null : maskWeights(ctx, asset, what, o.mask)
  let reference: LayerSettings['reference']
  if (o.reference === null) reference = null
  else if (o.reference !== undefined) {
    const r = optionsObject<LayerReference>(o.reference, what, REFERENCE_OPTIONS, 'reference')
    const clip = r.clip === undefined ? -1 : findClip(ctx, asset, r.clip, `${what}: reference`)
    const time = r.time === undefined ? 0 : finiteNumber(r.time, what, 'reference.time', ' s')
    reference = { clip, time }
  }
  return { weight, mode, mask, fadeSeconds, reference }
}

/**
 * Per joint weights of a mask on characters of `rig`: each entry's joint and its subtree, deeper entries over
 * their ancestors'. Messages name the mask `name` (setLayer's `mask`, a graph layer's path). Setup code.
 */
export function maskWeights(
  ctx: AnimationContext,
  rig: RegisteredAsset,
  what: string,
  mask: unknown,
  name = 'mask',
): Float32Array {
  if (!Array.isArray(mask)) {
    throw new AnimationError(
      'argument',
      `${what}: ${name} ${showValue(mask)} must be an array of joints or null`,
    )
  }
  const entries: { joint: number; weight: number }[] = []
  const list = Array.from(mask as unknown[])
  for (let e = 0; e < list.length; e++) {
    const item = list[e]
    let node: unknown = item
    let weight = 1
    if (typeof item === 'object' && item !== null) {
      const entry = item as { joint?: unknown; weight?: unknown }
      node = entry.joint
      weight = entry.weight === undefined ? 1 : finiteNumber(entry.weight, what, `${name}[${e}].weight`)
      if (!(weight >= 0 && weight <= 1)) {
        throw new AnimationError('argument', `${what}: ${name}[${e}].weight ${weight} must be in [0, 1]`)
      }
    }
    if (typeof node !== 'string' && typeof node !== 'number') {
      throw new AnimationError(
        'argument',
        `${what}: ${name}[${e}] ${showValue(item)} is not a joint name or node index`,
      )
    }
    entries.push({ joint: findJoint(rig, rig.asset, node, `${what}: ${name}[${e}]`), weight })
  }
  const n = rig.jointParents.length
  const size = new Int32Array(n).fill(1)
  for (let j = n - 1; j > 0; j--) {
    const p = rig.jointParents[j]!
    if (p >= 0) size[p] = size[p]! + size[j]!
  }
  // Parents come first in joint order, so applying entries by joint index lets deeper ones override.
  const order = entries.map((_, e) => e).sort((a, b) => entries[a]!.joint - entries[b]!.joint || a - b)
  const weights = new Float32Array(n)
  for (const e of order) {
    const { joint, weight } = entries[e]!
    weights.fill(weight, joint, joint + size[joint]!)
  }
  return weights
}
