import type { AnimationContext } from './context.ts'
import { bindClip } from './assets.ts'
import { makeDeltaClip } from '../src/clip/additiveClip.ts'
import { sampleClip } from '../src/clip/sample.ts'
import { MODE_ADDITIVE, SOURCE_CLIP, type Layer } from '../systems/layerState.ts'
import type { DeltaClip } from '../src/clip/additiveClip.ts'

/** An additive layer's references for what it shows, made ahead (see updateReferences). */
export interface LayerReferences {
  /** The reference pose (REF_TO): referencePose's result for the layer's clips, n joints. */
  readonly refTo: Float32Array
  /** The delta clip of the clip it plays (deltaClipFor), null for a blend space or where none could be made. */
  readonly delta: DeltaClip | null
}

/**
 * Gives an additive clip layer (other than 0) its delta clip (src/clip/additiveClip.ts): the clip it plays as
 * differences from its reference (the setLayer reference clip, or the clip itself, at the reference time), made
 * once per asset, clip and reference and shared by every character; null for any other layer. Called where the
 * references are set (updateReferences) and when a snapshot is restored, so a restored run samples what an
 * uninterrupted one does. With `known` (made ahead by layerReferences for what the layer now shows) it takes the
 * delta clip from there and allocates nothing. Setup code otherwise (allocates on first use; never throws).
 */
export function setLayerDelta(
  ctx: AnimationContext,
  eid: number,
  layer: Layer,
  known: LayerReferences | null = null,
): void {
  layer.delta = null
  layer.deltaClip = -1
  const A = ctx.stores.AnimLayer
  const l = layer.slot
  if (layer.index === 0 || A.mode[l] !== MODE_ADDITIVE || A.source[l] !== SOURCE_CLIP) return
  const clipId = ctx.stores.Sampler.clip[l]!
  const refClip = A.refClip[l]! >= 0 ? A.refClip[l]! : clipId
  const assetId = ctx.stores.Pose.asset[eid]!
  layer.delta = known !== null ? known.delta : deltaClipFor(ctx, assetId, clipId, refClip, A.refTime[l]!)
  layer.deltaClip = clipId
}

/** Clip `clipId`'s delta clip on asset `assetId` against `refClip` at `time`, made once and cached. */
function deltaClipFor(ctx: AnimationContext, assetId: number, clipId: number, refClip: number, time: number) {
  const clip = ctx.clips[clipId]!
  const key = `${assetId}/${refClip}/${time}`
  let delta = clip.deltas.get(key)
  if (delta === undefined) {
    const rest = ctx.assets[assetId]!.rest
    const n = ctx.assets[assetId]!.jointNodes.length
    delta = makeDeltaClip(
      clip.clip,
      bindClip(ctx, clip, assetId),
      referencePose(ctx, new Float32Array(rest.length), 0, assetId, refClip, time, [clipId]),
      0,
      rest,
      n,
    )
    clip.deltas.set(key, delta)
  }
  return delta
}

/**
 * The references updateReferences gives an additive layer (other than 0, with no reference clip set) of a
 * character of asset `assetId` that shows `clips` — one clip, or a blend space's points (`blendSpace`) — made
 * ahead: a state machine makes them for each of its states when it is compiled, so entering a state in the step
 * allocates nothing and gives the same bits. Setup code (allocates).
 */
export function layerReferences(
  ctx: AnimationContext,
  assetId: number,
  clips: readonly number[],
  blendSpace: boolean,
): LayerReferences {
  const refTo = referencePose(
    ctx,
    new Float32Array(ctx.assets[assetId]!.rest.length),
    0,
    assetId,
    clips[0]!,
    0,
    clips,
  )
  return { refTo, delta: blendSpace ? null : deltaClipFor(ctx, assetId, clips[0]!, clips[0]!, 0) }
}

/**
 * An additive layer's reference pose into `out[at ..]`: clip `clipId` (none: -1) at `time` (clamped to the clip)
 * over the rest pose, on the paths some clip of `drivers` (the clips the layer shows) drives. Elsewhere it is
 * the rest pose, where the layer's own pose is the rest pose too, so the layer adds no difference there: a
 * reference clip that drives a joint the layer's clips do not leaves that joint as the layers below made it (as
 * three.js's makeClipAdditive does, and as an additive layer's morph weights do). Setup code (allocates).
 */
export function referencePose(
  ctx: AnimationContext,
  out: Float32Array,
  at: number,
  assetId: number,
  clipId: number,
  time: number,
  drivers: ArrayLike<number>,
): Float32Array {
  out.set(ctx.assets[assetId]!.rest, at)
  if (clipId < 0) return out
  const clip = ctx.clips[clipId]!
  const driven = new Set<number>()
  for (let k = 0; k < drivers.length; k++) {
    const d = drivers[k]!
    if (d >= 0) for (const o of bindClip(ctx, ctx.clips[d]!, assetId)) driven.add(o)
  }
  const binding = bindClip(ctx, clip, assetId).map((o) => (o >= 0 && driven.has(o) ? o : -1))
  const t = Math.min(Math.max(time, 0), clip.clip.duration)
  return sampleClip(out, at, clip.clip, binding, t, new Uint32Array(clip.clip.channels.length), 0)
}
