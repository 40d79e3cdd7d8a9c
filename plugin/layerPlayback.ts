import type { AnimationContext, RegisteredClip } from './context.ts'
import { bindClip } from './assets.ts'
import { blockOffset, endLayerFade, identityPose, layerFor, updateReferences } from './layers.ts'
import { JOINT_STRIDE } from '../components/Pose.ts'
import { advancePhase } from '../components/Sampler.ts'
import {
  BLOCK_FROM,
  BLOCK_OUT,
  BLOCK_REF_FROM,
  BLOCK_REF_TO,
  BLOCK_TO,
  F_BLEND,
  F_FADE_DURATION,
  F_FROM_SPEED,
  F_FROM_TIME,
  F_SPEED,
  F_TIME,
  F_WEIGHT,
  F_WEIGHT_DURATION,
  F_WEIGHT_TO,
  I_CLIP,
  I_FADE,
  I_FADE_STEPS,
  I_FROM_CLIP,
  I_FROM_LOOP,
  I_FROM_ROTATION,
  I_HOLD,
  I_LOOP,
  I_MODE,
  I_PAUSED,
  I_ROTATION,
  I_SOURCE,
  I_STOPPING,
  MODE_ADDITIVE,
  SOURCE_CLIP,
  SOURCE_NONE,
  type Layer,
  setLayerBinding,
  setLayerFromBinding,
  startWeightRamp,
} from '../systems/layerState.ts'

/** Settings of play/crossFade on a layer (plugin/playback.ts checks them). */
export interface LayerPlay {
  readonly speed: number
  readonly loop: number
  readonly phase: number
  readonly rotation: number
}

/** Cuts layer k (> 0) to `clip`. */
export function playOnLayer(
  ctx: AnimationContext,
  eid: number,
  k: number,
  clip: RegisteredClip,
  s: LayerPlay,
): void {
  const layer = layerFor(ctx, eid, k)
  const binding = bindClip(ctx, clip, ctx.stores.Pose.asset[eid]!)
  const cursors = new Uint32Array(2 * clip.clip.channels.length)
  endLayerFade(layer)
  startLayerClip(layer, clip, s, binding, cursors)
  layer.blendSpace = null
  updateReferences(ctx, eid, layer)
}

/**
 * Fades layer k (> 0) from what it shows into `clip` over `seconds` (> 0). No-op when it plays `clip` already,
 * unless that is a finished 'once' clip (holding its last pose), which is faded into again from its start.
 */
export function crossFadeOnLayer(
  ctx: AnimationContext,
  eid: number,
  k: number,
  clip: RegisteredClip,
  seconds: number,
  s: LayerPlay,
): void {
  const existing = ctx.layers[eid]?.layers[k]
  const same =
    existing !== undefined && existing.i[I_SOURCE] === SOURCE_CLIP && existing.i[I_CLIP] === clip.id
  if (same && existing.finished[0] === 0) return
  if (seconds === 0 || existing === undefined || existing.i[I_SOURCE] === SOURCE_NONE) {
    playOnLayer(ctx, eid, k, clip, s)
    if (seconds > 0) fadeLayerIn(ctx.layers[eid]!.layers[k]!, seconds)
    return
  }
  const layer = layerFor(ctx, eid, k)
  const binding = bindClip(ctx, clip, ctx.stores.Pose.asset[eid]!)
  const channels = Math.max(clip.clip.channels.length, layer.cursors.length >>> 1)
  const cursors = new Uint32Array(2 * channels)
  const n = ctx.stores.Pose.count[eid]!
  const data = ctx.pool.data
  const rest = ctx.assets[ctx.stores.Pose.asset[eid]!]!.rest
  const f = layer.f
  const i = layer.i
  const additive = i[I_MODE] === MODE_ADDITIVE
  const out = blockOffset(layer, BLOCK_OUT, n)
  const from = blockOffset(layer, BLOCK_FROM, n)
  const live = i[I_SOURCE] === SOURCE_CLIP && i[I_FADE] === 0
  if (live) {
    i[I_FROM_CLIP] = i[I_CLIP]!
    f[F_FROM_TIME] = f[F_TIME]!
    f[F_FROM_SPEED] = f[F_SPEED]!
    layer.finished[1] = layer.finished[0]!
    i[I_FROM_LOOP] = i[I_LOOP]!
    i[I_FROM_ROTATION] = i[I_ROTATION]!
    setLayerFromBinding(layer, layer.binding)
    const old = layer.cursors
    cursors.set(old.subarray(0, old.length >>> 1), channels)
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
    i[I_FROM_CLIP] = -1
    setLayerFromBinding(layer, undefined)
    data.copyWithin(from, out, out + n * JOINT_STRIDE)
    if (additive) identityPose(data, blockOffset(layer, BLOCK_REF_FROM, n), n)
  }
  layer.blendSpace = null
  startLayerClip(layer, clip, s, binding, cursors)
  data.set(rest, blockOffset(layer, BLOCK_TO, n))
  i[I_FADE] = 1
  i[I_FADE_STEPS] = 0
  f[F_BLEND] = 0
  f[F_FADE_DURATION] = seconds
  updateReferences(ctx, eid, layer, false)
}

function startLayerClip(
  layer: Layer,
  clip: RegisteredClip,
  s: LayerPlay,
  binding: Int32Array,
  cursors: Uint32Array,
): void {
  const f = layer.f
  const i = layer.i
  cancelStop(layer)
  layer.finished[0] = 0
  i[I_SOURCE] = SOURCE_CLIP
  i[I_CLIP] = clip.id
  i[I_LOOP] = s.loop
  i[I_ROTATION] = s.rotation
  i[I_PAUSED] = 0
  i[I_HOLD] = 1
  f[F_SPEED] = s.speed
  f[F_TIME] = advancePhase(0, s.phase, clip.clip.duration, s.loop)
  setLayerBinding(layer, binding)
  layer.cursors = cursors
}

/**
 * A layer that showed nothing fades in from the layers below: its weight ramps from 0 to the weight it is set
 * to (setLayer's, 1 by default and after a stop) over `seconds`, as setLayer's `fadeSeconds` ramps.
 */
function fadeLayerIn(layer: Layer, seconds: number): void {
  startWeightRamp(layer, 0, layer.f[F_WEIGHT_TO]!, seconds, 0)
}

/** A clip played on a layer that stopLayer is fading out keeps it: the weight ramps back up to 1 instead. */
export function cancelStop(layer: Layer): void {
  if (layer.i[I_STOPPING] !== 1) return
  startWeightRamp(layer, layer.f[F_WEIGHT]!, 1, layer.f[F_WEIGHT_DURATION]!, 0)
}
