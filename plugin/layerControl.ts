import { AnimationError, showValue } from '../src/errors.ts'
import { finiteNumber, optionsObject } from './checks.ts'
import type { AnimationContext } from './context.ts'
import { LAYER_SELECTOR, layerIndex, type LayerSelector } from './layers.ts'
import { checkCharacter } from './characters.ts'
import { advancePhase, localTime, SAMPLER_HOLD } from '../components/Sampler.ts'
import {
  F_BLEND,
  F_PHASE,
  F_SPEED,
  F_TIME,
  F_WEIGHT,
  F_WEIGHT_DURATION,
  F_WEIGHT_TO,
  I_CLIP,
  I_FADE,
  I_FROM_CLIP,
  I_HOLD,
  I_LOOP,
  I_MODE,
  I_PAUSED,
  I_SOURCE,
  LAYER_MODES,
  MAX_LAYERS,
  SOURCE_CLIP,
  SOURCE_NONE,
  type LayerMode,
} from '../systems/layerState.ts'

/** Sets a layer's playback rate (finite; negative plays backwards), keeping its time: no restart, no pop. */
export function setSpeed(ctx: AnimationContext, eid: number, speed: number, options?: LayerSelector): void {
  const what = `setSpeed(${showValue(eid)}, ${showValue(speed)})`
  checkCharacter(ctx, eid, what)
  const k = layerIndex(optionsObject<LayerSelector>(options, what, LAYER_SELECTOR).layer, what)
  const v = finiteNumber(speed, what, 'speed')
  const layer = ctx.layers[eid]?.layers[k]
  if (k === 0 && ctx.stores.Sampler.clip[eid]! >= 0) ctx.stores.Sampler.speed[eid] = v
  else if (layer !== undefined && layer.i[I_SOURCE] !== SOURCE_NONE) layer.f[F_SPEED] = v
  else throw new AnimationError('argument', `${what}: layer ${k} plays nothing`)
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
  const layer = ctx.layers[eid]?.layers[k]
  const { Sampler } = ctx.stores
  if (k === 0 && Sampler.clip[eid]! >= 0) {
    const clip = ctx.clips[Sampler.clip[eid]!]!.clip
    const loop = Sampler.loop[eid]!
    Sampler.time[eid] = advancePhase(0, loop === 0 ? clamp(t, clip.duration) : t, clip.duration, loop)
    Sampler.lastTime[eid] = NaN
    Sampler.reset[eid] = Sampler.reset[eid]! | SAMPLER_HOLD
    return
  }
  if (layer === undefined || layer.i[I_SOURCE] === SOURCE_NONE) {
    throw new AnimationError('argument', `${what}: layer ${k} plays nothing`)
  }
  const i = layer.i
  if (i[I_SOURCE] === SOURCE_CLIP) {
    const clip = ctx.clips[i[I_CLIP]!]!.clip
    const loop = i[I_LOOP]!
    layer.f[F_TIME] = advancePhase(0, loop === 0 ? clamp(t, clip.duration) : t, clip.duration, loop)
  } else if (layer.blendSpace !== null) {
    const bs = layer.blendSpace
    if (bs.sync === 1) {
      let duration = 0
      for (let p = 0; p < bs.clips.length; p++) duration += bs.weights[p]! * bs.durations[p]!
      layer.f[F_PHASE] = duration > 0 ? advancePhase(0, t / duration, 1, 1) : 0
    } else for (let p = 0; p < bs.clips.length; p++) bs.times[p] = advancePhase(0, t, bs.durations[p]!, 1)
  }
  i[I_HOLD] = 1
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
  const layer = ctx.layers[eid]?.layers[k]
  if (k === 0 && ctx.stores.Sampler.clip[eid]! >= 0) ctx.stores.Sampler.paused[eid] = paused
  else if (layer !== undefined && layer.i[I_SOURCE] !== SOURCE_NONE) layer.i[I_PAUSED] = paused
  else throw new AnimationError('argument', `${what}: layer ${k} plays nothing`)
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

/** What layer k of a character shows (see LayerInfo); layer 0 is read from the Sampler and CrossFade stores. */
export function layerInfo(ctx: AnimationContext, eid: number, k: number): LayerInfo {
  const layer = ctx.layers[eid]?.layers[k]
  const name = (id: number): string | null => (id >= 0 ? ctx.clips[id]!.clip.name : null)
  const f = layer?.f
  const i = layer?.i
  const weight = f ? f[F_WEIGHT]! : k === 0 ? 1 : 0
  const bs = layer?.blendSpace ?? null
  // What plays: layer 0's clip and fade are its Sampler and CrossFade entries, the others' the layer's own.
  const { Sampler, CrossFade } = ctx.stores
  const base = k === 0 && Sampler.clip[eid]! >= 0
  const clip = base ? Sampler.clip[eid]! : i !== undefined && i[I_SOURCE] === SOURCE_CLIP ? i[I_CLIP]! : -1
  const duration = clip >= 0 ? ctx.clips[clip]!.clip.duration : 0
  const phase = base ? Sampler.time[eid]! : (f?.[F_TIME] ?? 0)
  const loop = base ? Sampler.loop[eid]! : (i?.[I_LOOP] ?? 1)
  const fading = base ? CrossFade.active[eid] === 1 : i?.[I_FADE] === 1
  return {
    layer: k,
    weight,
    targetWeight: f && f[F_WEIGHT_DURATION]! > 0 ? f[F_WEIGHT_TO]! : weight,
    mode: LAYER_MODES[i?.[I_MODE] ?? 0]!,
    masked: layer?.mask != null,
    source: clip >= 0 ? 'clip' : bs !== null ? 'blend-space' : 'none',
    clip: name(clip),
    time: clip >= 0 ? localTime(phase, duration, loop) : bs ? f![F_PHASE]! : 0,
    speed: base ? Sampler.speed[eid]! : (f?.[F_SPEED] ?? 1),
    paused: base ? Sampler.paused[eid] === 1 : i?.[I_PAUSED] === 1,
    fade: !fading
      ? null
      : base
        ? { from: name(CrossFade.fromClip[eid]!), blend: CrossFade.blend[eid]! }
        : { from: name(i![I_FROM_CLIP]!), blend: f![F_BLEND]! },
    blendSpace: bs && {
      clips: Array.from(bs.clips, (id) => name(id)!),
      weights: Array.from(bs.weights),
      parameter: Array.from(bs.param.subarray(0, bs.dims)),
    },
  }
}
