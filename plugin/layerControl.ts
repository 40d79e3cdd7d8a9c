import { AnimationError, showValue } from '../src/errors.ts'
import { finiteNumber, optionsObject } from './checks.ts'
import type { AnimationContext } from './context.ts'
import { LAYER_SELECTOR, layerIndex, type LayerSelector } from './layers.ts'
import { checkCharacter } from './characters.ts'
import { boundChannels } from './clipRig.ts'
import { advancePhase, localTime } from '../src/clip/phase.ts'
import { SAMPLER_HOLD } from '../components/Sampler.ts'
import {
  LAYER_MODES,
  MAX_LAYERS,
  SOURCE_BLEND_SPACE,
  SOURCE_CLIP,
  SOURCE_NONE,
  type LayerMode,
} from '../systems/layerState.ts'

/**
 * The row of a character's layer k that plays something (layer 0: the character's own id), or a throw naming
 * `what`: the control calls act on any layer the same way.
 */
function playingSlot(ctx: AnimationContext, eid: number, k: number, what: string): number {
  const slot = k === 0 ? eid : (ctx.layers[eid]?.layers[k]?.slot ?? -1)
  const A = ctx.stores.AnimLayer
  const playing =
    slot >= 0 && (A.source[slot] !== SOURCE_NONE || (k === 0 && ctx.stores.Sampler.clip[eid]! >= 0))
  if (!playing) throw new AnimationError('argument', `${what}: layer ${k} plays nothing`)
  return slot
}

/** Sets a layer's playback rate (finite; negative plays backwards), keeping its time: no restart, no pop. */
export function setSpeed(ctx: AnimationContext, eid: number, speed: number, options?: LayerSelector): void {
  const what = `setSpeed(${showValue(eid)}, ${showValue(speed)})`
  checkCharacter(ctx, eid, what)
  const k = layerIndex(optionsObject<LayerSelector>(options, what, LAYER_SELECTOR).layer, what)
  const v = finiteNumber(speed, what, 'speed')
  ctx.stores.Sampler.speed[playingSlot(ctx, eid, k, what)] = v
}

/**
 * Moves a layer's clip to `seconds` (finite; wrapped or clamped by its loop mode); the next step shows that
 * time. On a blend space: its phase (sync: `seconds` into the blended cycle) or each clip's time.
 */
export function setTime(ctx: AnimationContext, eid: number, seconds: number, options?: LayerSelector): void {
  const what = `setTime(${showValue(eid)}, ${showValue(seconds)})`
  checkCharacter(ctx, eid, what)
  const k = layerIndex(optionsObject<LayerSelector>(options, what, LAYER_SELECTOR).layer, what)
  const t = finiteNumber(seconds, what, 'seconds', ' s')
  const l = playingSlot(ctx, eid, k, what)
  const { Sampler, AnimLayer } = ctx.stores
  const clipId = Sampler.clip[l]!
  const bs = ctx.layers[eid]?.layers[k]?.blendSpace ?? null
  if (clipId >= 0) {
    const clip = ctx.clips[clipId]!.clip
    const loop = Sampler.loop[l]!
    Sampler.time[l] = advancePhase(0, loop === 0 ? clamp(t, clip.duration) : t, clip.duration, loop)
    Sampler.lastTime[l] = NaN
  } else if (bs !== null) {
    const m = bs.points.clip.length
    if (bs.sync === 1) {
      let duration = 0
      for (let p = 0; p < m; p++) duration += bs.weights[p]! * bs.durations[p]!
      AnimLayer.phase[l] = duration > 0 ? advancePhase(0, t / duration, 1, 1) : 0
    } else for (let p = 0; p < m; p++) bs.points.time[p] = advancePhase(0, t, bs.durations[p]!, 1)
  }
  Sampler.reset[l] = Sampler.reset[l]! | SAMPLER_HOLD
}

function clamp(t: number, duration: number): number {
  return Math.min(Math.max(t, 0), duration)
}

/** Holds a layer's time (its clip, the clip it fades from, or its blend space); resume goes on from there. */
export function pause(ctx: AnimationContext, eid: number, options?: LayerSelector): void {
  setPaused(ctx, eid, options, 'pause', 1)
}

/** Undoes pause: the layer's time runs again at its speed. */
export function resume(ctx: AnimationContext, eid: number, options?: LayerSelector): void {
  setPaused(ctx, eid, options, 'resume', 0)
}

function setPaused(ctx: AnimationContext, eid: number, options: unknown, name: string, paused: number): void {
  const what = `${name}(${showValue(eid)})`
  checkCharacter(ctx, eid, what)
  const k = layerIndex(optionsObject<LayerSelector>(options, what, LAYER_SELECTOR).layer, what)
  ctx.stores.AnimLayer.paused[playingSlot(ctx, eid, k, what)] = paused
}

/** What a layer shows: for UIs and game logic. */
export interface LayerInfo {
  /** The layer index. */
  readonly layer: number
  /** Its weight now, in [0, 1]. */
  readonly weight: number
  /** The weight a ramp (setLayer's fadeSeconds, stopLayer) is heading to; `weight` when none runs. */
  readonly targetWeight: number
  /** How it combines with the layers below. */
  readonly mode: LayerMode
  /** Whether a mask limits it to part of the body. */
  readonly masked: boolean
  /** 'none', 'clip' (a clip, or a fade between two) or 'blend-space'. */
  readonly source: 'none' | 'clip' | 'blend-space'
  /** The clip it plays (or fades into), or null. */
  readonly clip: string | null
  /**
   * How many of that clip's channels drive this character (its joints' transforms, its morph weights), of
   * how many: a clip made for a rig with other node names binds only the channels whose names match. Null
   * without a clip.
   */
  readonly channels: {
    /** Channels that drive one of the character's joints or morph weights. */
    readonly bound: number
    /** All the clip's channels. */
    readonly total: number
  } | null
  /** Clip-local time of that clip, seconds; for a blend space its normalized phase (sync) or 0. */
  readonly time: number
  /** Playback rate (kept while paused). */
  readonly speed: number
  /** Whether pause holds its time. */
  readonly paused: boolean
  /** The fade inside the layer, or null. */
  readonly fade: {
    /** The clip faded from, null for a frozen pose. */
    readonly from: string | null
    /** 0 (all `from`) → 1 (all `clip`). */
    readonly blend: number
  } | null
  /** The blend space, or null. */
  readonly blendSpace: {
    /** Its clips, in point order. */
    readonly clips: readonly string[]
    /** Each point's weight for the parameter now (summing to 1). */
    readonly weights: readonly number[]
    /** The parameter: [x] or [x, y]. */
    readonly parameter: readonly number[]
  } | null
}

/** Checked layer index of getLayer. */
export function getLayer(ctx: AnimationContext, eid: number, index: number): LayerInfo {
  const what = `getLayer(${showValue(eid)}, ${showValue(index)})`
  checkCharacter(ctx, eid, what)
  return layerInfo(ctx, eid, layerIndex(index, what))
}

/** Every layer of a character that shows something or is configured, in index order (layer 0 always). */
export function getLayers(ctx: AnimationContext, eid: number): LayerInfo[] {
  checkCharacter(ctx, eid, `getLayers(${showValue(eid)})`)
  const out = [layerInfo(ctx, eid, 0)]
  const stack = ctx.layers[eid]
  if (stack)
    for (let k = 1; k < MAX_LAYERS; k++) if (stack.layers[k] !== undefined) out.push(layerInfo(ctx, eid, k))
  return out
}

/** What layer k of a character shows (see LayerInfo): the same rows for every layer. */
export function layerInfo(ctx: AnimationContext, eid: number, k: number): LayerInfo {
  const layer = k === 0 ? undefined : ctx.layers[eid]?.layers[k]
  const l = k === 0 ? eid : (layer?.slot ?? -1)
  const bs = (k === 0 ? ctx.layers[eid]?.layers[0] : layer)?.blendSpace ?? null
  const name = (id: number): string | null => (id >= 0 ? ctx.clips[id]!.clip.name : null)
  if (l < 0) {
    return {
      layer: k,
      weight: 0,
      targetWeight: 0,
      mode: 'override',
      masked: false,
      source: 'none',
      clip: null,
      channels: null,
      time: 0,
      speed: 1,
      paused: false,
      fade: null,
      blendSpace: null,
    }
  }
  const { Sampler, CrossFade, AnimLayer: A } = ctx.stores
  const weight = A.weight[l]!
  const clip = Sampler.clip[l]!
  const source = A.source[l]
  const duration = clip >= 0 ? ctx.clips[clip]!.clip.duration : 0
  return {
    layer: k,
    weight,
    targetWeight: A.weightDuration[l]! > 0 ? A.weightTo[l]! : weight,
    mode: LAYER_MODES[A.mode[l]!]!,
    masked: (k === 0 ? ctx.layers[eid]?.layers[0] : layer)?.mask != null,
    source: clip >= 0 ? 'clip' : source === SOURCE_BLEND_SPACE && bs !== null ? 'blend-space' : 'none',
    clip: name(clip),
    channels: clip >= 0 ? clipChannels(ctx, clip, eid) : null,
    time: clip >= 0 ? localTime(Sampler.time[l]!, duration, Sampler.loop[l]!) : bs ? A.phase[l]! : 0,
    speed: Sampler.speed[l]!,
    paused: A.paused[l] === 1,
    fade:
      CrossFade.active[l] !== 1 ? null : { from: name(CrossFade.from.clip[l]!), blend: CrossFade.blend[l]! },
    blendSpace: bs && {
      clips: Array.from(bs.points.clip, (id) => name(id)!),
      weights: Array.from(bs.weights),
      parameter: Array.from(bs.param.subarray(0, bs.dims)),
    },
  }
}

function clipChannels(ctx: AnimationContext, clip: number, eid: number): LayerInfo['channels'] {
  const rc = ctx.clips[clip]!
  return { bound: boundChannels(ctx, rc, ctx.stores.Pose.asset[eid]!), total: rc.clip.channels.length }
}
