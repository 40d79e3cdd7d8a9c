import { AnimationError, showValue } from '../src/errors.ts'
import { gradientBandWeights } from '../src/clip/layerBlend.ts'
import { finiteNumber, optionsObject, type OptionNames } from './checks.ts'
import type { AnimationContext, RegisteredClip } from './context.ts'
import { bindClip, findClip } from './assets.ts'
import { checkClipFits } from './clipRig.ts'
import {
  LAYER_SELECTOR,
  blockOffset,
  endLayerFade,
  layerFor,
  layerIndex,
  updateReferences,
  type LayerSelector,
} from './layers.ts'
import { cancelStop } from './layerPlayback.ts'
import type { LayerReferences } from './additiveLayers.ts'
import { checkCharacter } from './characters.ts'
import { JOINT_STRIDE } from '../components/Pose.ts'
import { SAMPLER_HOLD } from '../components/Sampler.ts'
import {
  BLOCK_FROM,
  BLOCK_OUT,
  BLOCK_POINTS,
  SOURCE_BLEND_SPACE,
  SOURCE_NONE,
  createBlendSpaceState,
  restartBlendSpace,
  setLayerBinding,
  type BlendSpaceState,
  type Layer,
} from '../systems/layerState.ts'

/** A point of a blend space: a clip and where it sits, a number (1D) or [x, y] (2D). */
export interface BlendSpacePoint {
  /** The clip at this point (name or asset clip index). */
  clip: string | number
  /** Where it sits: a finite number (1D) or [x, y] (2D); no two points at the same place. */
  at: number | readonly [number, number]
}

const POINT_OPTIONS: OptionNames<BlendSpacePoint> = { clip: true, at: true }

/** playBlendSpace's options. */
export interface BlendSpaceOptions {
  /** Layer index, default 0. */
  layer?: number
  /** Where in the space to start: a number (1D) or [x, y] (2D), like the points' `at`. */
  parameter: number | readonly [number, number]
  /** Run the clips phase-locked (one normalized time, the rate interpolated by weight). Default true. */
  sync?: boolean
  /** Playback rate, finite. Default 1. */
  speed?: number
  /**
   * Seconds to fade from what the layer shows now (frozen, as a cross-fade from a blend space freezes it) into
   * the blend space; 0 (the default) cuts. A layer that shows nothing cuts.
   */
  fadeSeconds?: number
}

const BLEND_SPACE_OPTIONS: OptionNames<BlendSpaceOptions> = {
  layer: true,
  parameter: true,
  sync: true,
  speed: true,
  fadeSeconds: true,
}

/** Most points a blend space may have. */
export const MAX_BLEND_POINTS = 16

/** Plays a blend space on a layer (see BlendSpaceOptions). */
export function playBlendSpace(
  ctx: AnimationContext,
  eid: number,
  points: readonly BlendSpacePoint[],
  options: BlendSpaceOptions,
): void {
  const what = `playBlendSpace(${showValue(eid)})`
  checkCharacter(ctx, eid, what)
  const o = optionsObject<BlendSpaceOptions>(options, what, BLEND_SPACE_OPTIONS)
  const k = layerIndex(o.layer, what)
  const speed = finiteNumber(o.speed ?? 1, what, 'speed')
  const fadeSeconds = finiteNumber(o.fadeSeconds ?? 0, what, 'fadeSeconds')
  if (fadeSeconds < 0) {
    throw new AnimationError('argument', `${what}: fadeSeconds ${fadeSeconds} must not be negative`)
  }
  if (o.sync !== undefined && typeof o.sync !== 'boolean') {
    throw new AnimationError('argument', `${what}: sync ${showValue(o.sync)} must be true or false`)
  }
  if (!Array.isArray(points) || points.length < 1 || points.length > MAX_BLEND_POINTS) {
    throw new AnimationError(
      'argument',
      `${what}: points ${showValue(points)} must be an array of 1 to ${MAX_BLEND_POINTS} { clip, at } points`,
    )
  }
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const list = Array.from(points as unknown[])
  const clips: RegisteredClip[] = []
  const coords: [number, number][] = []
  let dims = 0
  for (let p = 0; p < list.length; p++) {
    const pt = optionsObject<BlendSpacePoint>(list[p], what, POINT_OPTIONS, `points[${p}]`)
    const clip = ctx.clips[findClip(ctx, asset, pt.clip as string | number, `${what}: points[${p}]`)]!
    checkClipFits(ctx, clip, asset.id, `${what}: points[${p}]`)
    clips.push(clip)
    const at = coordinate(pt.at, what, `points[${p}].at`)
    if (dims !== 0 && at.length !== dims) {
      throw new AnimationError('argument', `${what}: points[${p}].at mixes 1D and 2D coordinates`)
    }
    dims = at.length
    const xy: [number, number] = [at[0]!, at[1] ?? 0]
    if (coords.some((c) => c[0] === xy[0] && c[1] === xy[1])) {
      throw new AnimationError(
        'argument',
        `${what}: points[${p}].at ${showValue(pt.at)} repeats another point`,
      )
    }
    coords.push(xy)
  }
  const param = coordinate(o.parameter, what, 'parameter')
  if (param.length !== dims) {
    throw new AnimationError(
      'argument',
      `${what}: parameter ${showValue(o.parameter)} must have the points' ${dims} dimension(s)`,
    )
  }
  const shown = layerShows(ctx, eid, k)
  const layer = layerFor(ctx, eid, k, clips.length)
  const bs = makeBlendSpace(
    ctx,
    eid,
    layer,
    clips,
    coords,
    dims,
    o.sync === false ? 0 : 1,
    param[0]!,
    param[1] ?? 0,
  )
  startBlendSpace(ctx, eid, layer, bs, Float64Array.of(0, 0, speed, fadeSeconds), shown, null)
}

/**
 * A new blend space of character `eid` on `layer` (its pose block has room for the points): checked clips at
 * `coords` ([x, y]; y 0 in 1D) of `dims` dimensions, synchronized when `sync` is 1, at parameter (x, y).
 * Setup code (allocates).
 */
export function makeBlendSpace(
  ctx: AnimationContext,
  eid: number,
  layer: Layer,
  clips: readonly RegisteredClip[],
  coords: readonly (readonly [number, number])[],
  dims: number,
  sync: number,
  x: number,
  y: number,
): BlendSpaceState {
  const n = ctx.stores.Pose.count[eid]!
  const assetId = ctx.stores.Pose.asset[eid]!
  return createBlendSpaceState({
    dims,
    sync,
    clips: clips.map((c) => c.id),
    xs: coords.map((c) => c[0]),
    ys: coords.map((c) => c[1]),
    durations: clips.map((c) => c.clip.duration),
    times: null,
    cursors: clips.map((c) => new Uint32Array(c.clip.channels.length)),
    offsets: clips.map((_, p) => blockOffset(layer, BLOCK_POINTS + p, n)),
    param: [x, y],
    bindings: clips.map((c) => bindClip(ctx, c, assetId)),
    joints: n,
    rest: ctx.assets[assetId]!.rest,
  })
}

/**
 * playBlendSpace after its checks, with a blend space made before (makeBlendSpace, for this character, with the
 * same points, on layer k): restarts it at the parameter in `args` (REPLAY_*) and plays it as playBlendSpace
 * plays a new one at args' rate and fade, in the same bits. For an additive layer, `known` holds its references
 * (layerReferences). Allocates nothing once the layer's pose block has room for the points (a state machine's
 * transitions call it in the step: systems/evaluateGraphs.ts); never throws.
 */
export function replayBlendSpace(
  ctx: AnimationContext,
  eid: number,
  k: number,
  bs: BlendSpaceState,
  args: Float64Array,
  known: LayerReferences | null,
): void {
  const m = bs.points.clip.length
  const shown = layerShows(ctx, eid, k)
  const layer = layerFor(ctx, eid, k, m)
  const n = ctx.stores.Pose.count[eid]!
  for (let p = 0; p < m; p++) bs.offsets[p] = blockOffset(layer, BLOCK_POINTS + p, n)
  restartBlendSpace(bs, args)
  startBlendSpace(ctx, eid, layer, bs, args, shown, known)
}

/**
 * replayBlendSpace's numbers, through memory (a float argument of a call is boxed): the parameter x, y (0 in
 * 1D), the rate and the fade's seconds.
 */
export const REPLAY_X = 0
export const REPLAY_Y = 1
export const REPLAY_SPEED = 2
export const REPLAY_FADE = 3
export const REPLAY_ARGS = 4

/** Whether layer k shows something now: layer 0 always (the rest pose at least), another while it plays. */
function layerShows(ctx: AnimationContext, eid: number, k: number): boolean {
  const existing = ctx.layers[eid]?.layers[k]
  return k === 0 || (existing !== undefined && ctx.stores.AnimLayer.source[existing.slot] !== SOURCE_NONE)
}

/** The layer plays `bs` at args' rate, fading from what it showed (when `shown`) over args' seconds (if > 0). */
function startBlendSpace(
  ctx: AnimationContext,
  eid: number,
  layer: Layer,
  bs: BlendSpaceState,
  args: Float64Array,
  shown: boolean,
  known: LayerReferences | null,
): void {
  const l = layer.slot
  const n = ctx.stores.Pose.count[eid]!
  const rest = ctx.assets[ctx.stores.Pose.asset[eid]!]!.rest
  const m = bs.points.clip.length
  for (let p = 0; p < m; p++) ctx.pool.data.set(rest, bs.offsets[p]!)
  const { Sampler, CrossFade, AnimLayer } = ctx.stores
  Sampler.clip[l] = -1
  setLayerBinding(ctx, layer, undefined)
  endLayerFade(ctx, layer)
  if (args[REPLAY_FADE]! > 0 && shown) {
    // What the layer shows now (layer 0: its own pose, kept in its OUT; additive: its difference) is frozen as
    // the pose faded from (sampleTracks blends it out).
    const out = blockOffset(layer, BLOCK_OUT, n)
    ctx.pool.data.copyWithin(blockOffset(layer, BLOCK_FROM, n), out, out + n * JOINT_STRIDE)
    CrossFade.active[l] = 1
    CrossFade.duration[l] = args[REPLAY_FADE]!
  }
  cancelStop(ctx, layer)
  AnimLayer.source[l] = SOURCE_BLEND_SPACE
  AnimLayer.paused[l] = 0
  AnimLayer.phase[l] = 0
  // The layer's rate is its Sampler row's; the step after this one shows the points' start.
  Sampler.speed[l] = args[REPLAY_SPEED]!
  Sampler.reset[l] = SAMPLER_HOLD
  layer.blendSpace = bs
  updateReferences(ctx, eid, layer, true, known)
}

/** Moves a blend space's parameter; the weights change from the next step. */
export function setBlendParameter(
  ctx: AnimationContext,
  eid: number,
  value: unknown,
  options?: LayerSelector,
): void {
  const what = `setBlendParameter(${showValue(eid)})`
  checkCharacter(ctx, eid, what)
  const o = optionsObject<LayerSelector>(options, what, LAYER_SELECTOR)
  const k = layerIndex(o.layer, what)
  const bs = ctx.layers[eid]?.layers[k]?.blendSpace ?? null
  if (bs === null) throw new AnimationError('argument', `${what}: layer ${k} plays no blend space`)
  const v = coordinate(value, what, 'value')
  if (v.length !== bs.dims) {
    throw new AnimationError(
      'argument',
      `${what}: value ${showValue(value)} must have ${bs.dims} dimension(s)`,
    )
  }
  bs.param[0] = v[0]!
  bs.param[1] = v[1] ?? 0
  updateBlendWeights(bs)
}

/**
 * setBlendParameter after its checks: the blend space's weights for the parameter now in `bs.param` (x, y; y 0
 * in 1D). Allocates nothing (the parameter goes through memory: a float argument of a call is boxed).
 */
export function updateBlendWeights(bs: BlendSpaceState): void {
  gradientBandWeights(bs.weights, bs.xs, bs.ys, bs.points.clip.length, bs.param)
}

/** A 1D (number) or 2D ([x, y]) coordinate, finite. */
function coordinate(v: unknown, what: string, name: string): number[] {
  if (typeof v === 'number' && Number.isFinite(v)) return [v]
  const copy = Array.isArray(v) && v.length === 2 ? [v[0] as unknown, v[1] as unknown] : null
  if (copy && copy.every((x) => typeof x === 'number' && Number.isFinite(x))) return copy as number[]
  throw new AnimationError('argument', `${what}: ${name} ${showValue(v)} must be a finite number or [x, y]`)
}
