import type { AnimationContext, RegisteredClip } from './context.ts'
import type { LayerReferences } from './additiveLayers.ts'
import { bindClip, maxChannels } from './assets.ts'
import { blockOffset, endLayerFade, identityPose, layerFor, updateReferences } from './layers.ts'
import { JOINT_STRIDE } from '../components/Pose.ts'
import { copyTrack, SAMPLER_HOLD } from '../components/Sampler.ts'
import {
  BLOCK_FROM,
  BLOCK_OUT,
  BLOCK_REF_FROM,
  BLOCK_REF_TO,
  BLOCK_TO,
  MODE_ADDITIVE,
  SOURCE_CLIP,
  SOURCE_NONE,
  type Layer,
  setLayerBinding,
  setLayerFromBinding,
  startWeightRamp,
  RAMP_FROM,
  RAMP_LENGTH,
  RAMP_SECONDS,
  RAMP_TO,
} from '../systems/layerState.ts'

/** Settings of play/crossFade on a layer (plugin/playback.ts checks them). */
export interface LayerPlay {
  readonly speed: number
  readonly loop: number
  readonly phase: number
  /** The phase the clip starts at (PlaySettings.start). */
  readonly start: number
  readonly rotation: number
}

/** Cuts layer k (> 0) to `clip`; `known`: an additive layer's references made ahead (updateReferences). */
export function playOnLayer(
  ctx: AnimationContext,
  eid: number,
  k: number,
  clip: RegisteredClip,
  s: LayerPlay,
  known: LayerReferences | null = null,
): void {
  const layer = layerFor(ctx, eid, k)
  const binding = bindClip(ctx, clip, ctx.stores.Pose.asset[eid]!)
  const cursors = layerCursors(ctx, eid, layer.slot, clip.clip.channels.length)
  cursors.fill(0)
  endLayerFade(ctx, layer)
  startLayerClip(ctx, layer, clip, s, binding, cursors)
  layer.blendSpace = null
  updateReferences(ctx, eid, layer, true, known)
}

/**
 * Fades layer k (> 0) from what it shows into `clip` over `fade[0]` seconds (≥ 0; 0 cuts). No-op when it plays
 * `clip` already, unless that is a finished 'once' clip (holding its last pose), which is faded into again from
 * its start.
 */
export function crossFadeOnLayer(
  ctx: AnimationContext,
  eid: number,
  k: number,
  clip: RegisteredClip,
  fade: Float64Array,
  s: LayerPlay,
  known: LayerReferences | null = null,
): void {
  const { Sampler, CrossFade, AnimLayer } = ctx.stores
  const existing = ctx.layers[eid]?.layers[k]
  const e = existing?.slot ?? -1
  const same = existing !== undefined && AnimLayer.source[e] === SOURCE_CLIP && Sampler.clip[e] === clip.id
  if (same && Sampler.finished[e] === 0) return
  if (fade[0] === 0 || existing === undefined || AnimLayer.source[e] === SOURCE_NONE) {
    playOnLayer(ctx, eid, k, clip, s, known)
    if (fade[0]! > 0) fadeLayerIn(ctx, ctx.layers[eid]!.layers[k]!, fade)
    return
  }
  const layer = layerFor(ctx, eid, k)
  const l = layer.slot
  const binding = bindClip(ctx, clip, ctx.stores.Pose.asset[eid]!)
  const old = ctx.cursors[l] ?? NO_CURSORS
  const cursors = layerCursors(ctx, eid, l, Math.max(clip.clip.channels.length, old.length >>> 1))
  const half = cursors.length >>> 1
  const n = ctx.stores.Pose.count[eid]!
  const data = ctx.pool.data
  const rest = ctx.assets[ctx.stores.Pose.asset[eid]!]!.rest
  const additive = AnimLayer.mode[l] === MODE_ADDITIVE
  const out = blockOffset(layer, BLOCK_OUT, n)
  const from = blockOffset(layer, BLOCK_FROM, n)
  const live = AnimLayer.source[l] === SOURCE_CLIP && CrossFade.active[l] === 0
  if (live) {
    // The clip playing now goes on as the track the fade leaves.
    copyTrack(CrossFade.from, l, Sampler, l)
    setLayerFromBinding(ctx, layer, ctx.binding[l])
    // The outgoing clip's cursors move to the second half (a reused array: its first half onto its second).
    if (cursors === old) cursors.copyWithin(half, 0, half)
    else cursors.set(old.subarray(0, old.length >>> 1), half)
    // The outgoing clip is sampled again each step over what it showed (or, additive, over the rest pose;
    // its difference is taken against its own reference).
    if (additive) {
      data.set(rest, from)
      const refTo = blockOffset(layer, BLOCK_REF_TO, n)
      data.copyWithin(blockOffset(layer, BLOCK_REF_FROM, n), refTo, refTo + n * JOINT_STRIDE)
    } else data.copyWithin(from, out, out + n * JOINT_STRIDE)
  } else {
    // Mid-fade or from a blend space: what the layer shows now is frozen as the pose faded from (additive: a
    // difference already, taken against the identity).
    CrossFade.from.clip[l] = -1
    setLayerFromBinding(ctx, layer, undefined)
    data.copyWithin(from, out, out + n * JOINT_STRIDE)
    if (additive) identityPose(data, blockOffset(layer, BLOCK_REF_FROM, n), n)
  }
  layer.blendSpace = null
  cursors.fill(0, 0, half)
  startLayerClip(ctx, layer, clip, s, binding, cursors)
  data.set(rest, blockOffset(layer, BLOCK_TO, n))
  CrossFade.active[l] = 1
  CrossFade.steps[l] = 0
  CrossFade.blend[l] = 0
  CrossFade.duration[l] = fade[0]!
  updateReferences(ctx, eid, layer, false, known)
}

function startLayerClip(
  ctx: AnimationContext,
  layer: Layer,
  clip: RegisteredClip,
  s: LayerPlay,
  binding: Int32Array,
  cursors: Uint32Array,
): void {
  const { Sampler, AnimLayer } = ctx.stores
  const l = layer.slot
  cancelStop(ctx, layer)
  Sampler.finished[l] = 0
  AnimLayer.source[l] = SOURCE_CLIP
  Sampler.clip[l] = clip.id
  Sampler.loop[l] = s.loop
  Sampler.rotation[l] = s.rotation
  AnimLayer.paused[l] = 0
  Sampler.reset[l] = SAMPLER_HOLD
  Sampler.speed[l] = s.speed
  Sampler.time[l] = s.start
  setLayerBinding(ctx, layer, binding)
  ctx.cursors[l] = cursors
}

/**
 * A layer that showed nothing fades in from the layers below: its weight ramps from 0 to the weight it is set
 * to (setLayer's, 1 by default and after a stop) over `fade[0]` seconds, as setLayer's `fadeSeconds` ramps.
 */
function fadeLayerIn(ctx: AnimationContext, layer: Layer, fade: Float64Array): void {
  const A = ctx.stores.AnimLayer
  RAMP[RAMP_FROM] = 0
  RAMP[RAMP_TO] = A.weightTo[layer.slot]!
  RAMP[RAMP_SECONDS] = fade[0]!
  startWeightRamp(A, layer.slot, RAMP, 0)
}

/** The weight ramps this file starts (startWeightRamp's numbers). */
const RAMP = new Float64Array(RAMP_LENGTH)

/** A clip played on a layer that stopLayer is fading out keeps it: the weight ramps back up to 1 instead. */
export function cancelStop(ctx: AnimationContext, layer: Layer): void {
  const A = ctx.stores.AnimLayer
  const l = layer.slot
  if (A.stopping[l] !== 1) return
  RAMP[RAMP_FROM] = A.weight[l]!
  RAMP[RAMP_TO] = 1
  RAMP[RAMP_SECONDS] = A.weightDuration[l]!
  startWeightRamp(A, l, RAMP, 0)
}

/**
 * Key cursors for layer slot `l` playing a clip of `channels` channels (StepState.cursors: `| its clip's | the
 * clip its fade leaves |`, each half `length / 2`): the slot's own array when it has room, reused, so a state
 * machine's transitions in the step allocate nothing; else a new one (zeros) sized for the larger of `channels`
 * and the character's asset's largest clip. The caller zeroes what it starts afresh.
 */
function layerCursors(ctx: AnimationContext, eid: number, l: number, channels: number): Uint32Array {
  const old = ctx.cursors[l]
  if (old !== undefined && old.length >>> 1 >= channels) return old
  const largest = maxChannels(ctx, ctx.assets[ctx.stores.Pose.asset[eid]!]!)
  return new Uint32Array(2 * Math.max(channels, largest))
}

/** The cursors of a layer that never played a clip. */
const NO_CURSORS = new Uint32Array(0)
