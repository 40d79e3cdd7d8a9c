/**
 * The playback model's step functions, one of each: a track's phase (every track: a layer's clip, the clip a
 * fade leaves, a blend-space point), a fade's blend and a layer's weight ramp (every layer, layer 0 included).
 * advanceTracks calls them; they allocate nothing and never throw.
 */
import type { Clip } from '../src/clip/clipTypes.ts'
import { advancePhase, localTime } from '../src/clip/phase.ts'
import { stepRamp } from '../src/clip/ramp.ts'
import { resetTrack, SAMPLER_RESET_REST, type SamplerStore } from '../components/Sampler.ts'
import { clearLayerWeight } from '../components/AnimLayer.ts'
import { resetFade } from '../components/CrossFade.ts'
import type { AnimationStores, StepState } from './state.ts'
import { EMIT_AFTER, EMIT_BEFORE, EMIT_DELTA } from './clipEvents.ts'
import { setLayerBinding, setLayerFromBinding, type Layer } from './layerState.ts'

/**
 * Advances track `t` of `tracks` by `input[EMIT_DELTA]` seconds (the caller's dt · speed, 0 when paused or
 * held), or holds it at its phase when `hold` (the step after play or setTime shows the start time): writes the
 * phase (a non-finite result restarts the clip at 0), its clip-local time, and the clip event emitter's inputs
 * (systems/clipEvents.ts: phase before and after). Only integers and objects cross the call (src/engine/v8.ts).
 */
export function advanceTrack(
  tracks: SamplerStore,
  t: number,
  input: Float64Array,
  clip: Clip,
  hold: boolean,
): void {
  const before = tracks.time[t]!
  const loop = tracks.loop[t]!
  input[EMIT_BEFORE] = before
  let phase = hold ? before : advancePhase(before, input[EMIT_DELTA]!, clip.duration, loop)
  // Public calls accept only finite times and speeds, but a game may write the store directly; a NaN phase
  // would stay NaN forever, so a non-finite phase restarts the clip.
  if (phase - phase !== 0) phase = 0
  tracks.time[t] = phase
  input[EMIT_AFTER] = phase
  tracks.local[t] = localTime(phase, clip.duration, loop)
}

/** What the fade and weight ramps read and write. */
export type RampInput = Pick<StepState, 'dt' | 'timeScale' | 'binding' | 'fromBinding'> & {
  readonly stores: Pick<AnimationStores, 'Sampler' | 'CrossFade' | 'AnimLayer'>
}

/**
 * One step of the fade inside layer slot `l`, if one runs: its blend, the share of what the layer fades into,
 * goes steps·dt / duration (src/clip/ramp.ts). At 1 the fade ends: the track it left is dropped, and the layer's
 * next sample starts from the rest pose (SAMPLER_RESET_REST), so nothing of the clip it left lingers on joints
 * the new one does not animate. `layer` (null for a layer 0 without a stack) gets its masked binding dropped.
 */
export function advanceFade(ctx: RampInput, l: number, layer: Layer | null): void {
  const { CrossFade, Sampler } = ctx.stores
  if (CrossFade.active[l] !== 1) return
  if (!stepRamp(ctx, CrossFade.steps, CrossFade.duration, l, CrossFade.blend, l)) return
  CrossFade.active[l] = 0
  CrossFade.from.clip[l] = -1
  if (layer !== null) setLayerFromBinding(ctx, layer, undefined)
  else ctx.fromBinding[l] = undefined
  Sampler.reset[l] = Sampler.reset[l]! | SAMPLER_RESET_REST
}

/** One step of a layer's weight ramp, if one runs; a stopped layer whose weight reached 0 empties. */
export function advanceWeight(ctx: RampInput, layer: Layer): void {
  const A = ctx.stores.AnimLayer
  const l = layer.slot
  if (A.weightDuration[l] === 0) return
  if (stepRamp(ctx, A.weightSteps, A.weightDuration, l, fraction, 0)) {
    A.weight[l] = A.weightTo[l]!
    A.weightDuration[l] = 0
    if (A.stopping[l] === 1 && A.weight[l] === 0) emptyLayer(ctx, layer)
  } else {
    const from = A.weightFrom[l]!
    A.weight[l] = from + (A.weightTo[l]! - from) * fraction[0]!
  }
}

/** advanceWeight's ramp fraction, through memory (see stepRamp). */
const fraction = new Float64Array(1)

/**
 * What stopLayer leaves once faded out: nothing to show, weight 1 for its next clip, no fade; its mode, mask,
 * additive reference and pose block stay.
 */
export function emptyLayer(ctx: RampInput, layer: Layer): void {
  const { AnimLayer, Sampler, CrossFade } = ctx.stores
  const l = layer.slot
  clearLayerWeight(AnimLayer, l)
  resetTrack(Sampler, l)
  resetFade(CrossFade, l)
  setLayerBinding(ctx, layer, undefined)
  setLayerFromBinding(ctx, layer, undefined)
  layer.blendSpace = null
  layer.delta = null
  layer.deltaClip = -1
  layer.outBase = null
}
