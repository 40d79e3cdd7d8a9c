import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import { LOOP_REPEAT } from '../src/clip/phase.ts'
import { ROTATION_SQUAD, SAMPLER_HOLD, type SamplerStore } from '../components/Sampler.ts'
import type { Clip } from '../src/clip/clipTypes.ts'
import { SOURCE_BLEND_SPACE, SOURCE_CLIP, SOURCE_NONE } from '../components/AnimLayer.ts'
import type { StepState, AnimationStores } from './state.ts'
import {
  createClipEventEmitter,
  EMIT_AFTER,
  EMIT_BEFORE,
  EMIT_DELTA,
  EMIT_FADING_OUT,
  EMIT_INPUT_LENGTH,
  EMIT_START,
  EMIT_WEIGHT,
  type ClipEventsInput,
} from './clipEvents.ts'
import { addRootMotionSource, composeRootMotionLayer } from './rootMotion.ts'
import { advanceFade, advanceTrack, advanceWeight, type RampInput } from './tracks.ts'
import type { BlendSpaceState, Layer } from './layerState.ts'

/** What advanceTracks reads and writes: a slice of the plugin's context (tests may pass just this). */
export type AdvanceTracksInput = Pick<
  StepState,
  | 'world'
  | 'dt'
  | 'timeScale'
  | 'assets'
  | 'clips'
  | 'binding'
  | 'fromBinding'
  | 'layers'
  | 'rootMotion'
  | 'uses'
> &
  RampInput &
  ClipEventsInput & {
    readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'CrossFade' | 'AnimLayer'>
  }

/**
 * advanceTracks: moves every track of every character one step on — its phase, its events, its root motion —
 * and every fade and weight ramp; sampleTracks then samples what it shows and composeLayers composes the layers.
 *
 * First each character's layer 0 (its rows at its own id): the fade's blend (src/clip/ramp.ts), the clip's phase
 * (held on the step right after play, crossFade or setTime, which shows the start time), then the clip a fade
 * leaves. Then, for characters with layers, each layer in index order: its weight ramp (a stopped layer that
 * reached 0 empties), its fade, its clip and the clip it leaves, or its blend space's points (synchronized: one
 * normalized phase, each point at the phase × its duration). Right after each track's phase it reports the clip's
 * loops, 'finished' and markers into `ctx.events` (systems/clipEvents.ts) — every character's layer-0 events come
 * before any other layer's — and, for a character with root motion, adds the clip's motion of the step by its
 * share of its layer, composing each layer's sum by its weight (systems/rootMotion.ts).
 * Paused layers hold their tracks; speed 0 reports nothing. Never throws; allocates nothing but event records.
 */
export function createAdvanceTracksSystem(ctx: AdvanceTracksInput) {
  const { Pose, Sampler, CrossFade, AnimLayer } = ctx.stores
  const characters = registerQuery(ctx.world, [Sampler, Pose])
  const emit = createClipEventEmitter(ctx)
  /** The clip events' inputs (systems/clipEvents.ts EMIT_*), through memory. */
  const motion = new Float64Array(EMIT_INPUT_LENGTH)
  /** [0]: this step's animation time, dt × the time scale, seconds (a float kept in a closure is boxed). */
  const clock = new Float64Array(1)
  /** A track's share of its layer (its root motion's weight), through memory. */
  const share = new Float64Array(1)
  /** A blend space's share of its layer (1, or its fade's blend) and the layer's weight, through memory. */
  const layerShare = new Float64Array(2)

  /** Layer 0's clip and the clip its fade leaves. */
  function advanceBase(eid: number): void {
    Pose.changed[eid] = 0
    advanceFade(ctx, eid, null)
    const clipId = Sampler.clip[eid]!
    if (clipId < 0) return
    const clip = ctx.clips[clipId]!.clip
    const flags = Sampler.reset[eid]!
    const hold = (flags & SAMPLER_HOLD) !== 0
    motion[EMIT_DELTA] = hold || AnimLayer.paused[eid] === 1 ? 0 : clock[0]! * Sampler.speed[eid]!
    advanceTrack(Sampler, eid, motion, clip, hold)
    const fading = CrossFade.active[eid] === 1
    motion[EMIT_WEIGHT] = fading ? CrossFade.blend[eid]! : 1
    share[0] = motion[EMIT_WEIGHT]!
    reportTrack(eid, 0, Sampler, eid, clip, hold ? EMIT_START : 0, ctx.binding[eid]!)
    // The hold is spent; a reset to the rest pose waits for the sample.
    Sampler.reset[eid] = flags & ~SAMPLER_HOLD
    if (fading && CrossFade.from.clip[eid]! >= 0) advanceLeft(eid, eid, 0)
  }

  /**
   * The clip the fade in layer slot `l` leaves (its CrossFade.from row): phase, events with `fading` and the
   * weight: the layer's × (1 − blend) (layer 0 reports its clips' shares alone), root motion by 1 − blend. Only
   * integers cross the call: a float argument of a call V8 does not inline is boxed.
   */
  function advanceLeft(eid: number, l: number, index: number): void {
    const from = CrossFade.from
    const fromId = from.clip[l]!
    const clip = ctx.clips[fromId]!.clip
    // pause holds the clip a fade leaves as well as the one it enters.
    motion[EMIT_DELTA] = AnimLayer.paused[l] === 1 ? 0 : clock[0]! * from.speed[l]!
    advanceTrack(from, l, motion, clip, false)
    share[0] = 1 - CrossFade.blend[l]!
    motion[EMIT_WEIGHT] = index === 0 ? share[0]! : AnimLayer.weight[l]! * share[0]!
    reportTrack(eid, index, from, l, clip, EMIT_FADING_OUT, ctx.fromBinding[l]!)
  }

  /** A clip layer other than 0: its clip, its fade and the clip that leaves. */
  function advanceLayerClip(eid: number, layer: Layer): void {
    const l = layer.slot
    const clipId = Sampler.clip[l]!
    const clip = ctx.clips[clipId]!.clip
    const hold = (Sampler.reset[l]! & SAMPLER_HOLD) !== 0
    motion[EMIT_DELTA] = hold || AnimLayer.paused[l] === 1 ? 0 : clock[0]! * Sampler.speed[l]!
    advanceTrack(Sampler, l, motion, clip, hold)
    Sampler.reset[l] = 0
    advanceFade(ctx, l, layer)
    const fading = CrossFade.active[l] === 1
    // Root motion sums each clip by its share of the layer; the layer's weight comes when it is composed.
    share[0] = fading ? CrossFade.blend[l]! : 1
    motion[EMIT_WEIGHT] = AnimLayer.weight[l]! * share[0]!
    reportTrack(eid, layer.index, Sampler, l, clip, hold ? EMIT_START : 0, ctx.binding[l]!)
    if (fading && CrossFade.from.clip[l]! >= 0) advanceLeft(eid, l, layer.index)
  }

  /**
   * A blend space's points (the layer's rate is its Sampler row's speed; synchronized, one normalized phase, a
   * cycle lasting the weighted mean of their durations, so each point's clip runs at the rate that keeps it in
   * step with the others) and each point's events and root motion.
   */
  function advanceBlendSpace(eid: number, layer: Layer, bs: BlendSpaceState): void {
    const l = layer.slot
    const rate = AnimLayer.paused[l] === 1 ? 0 : Sampler.speed[l]!
    const hold = (Sampler.reset[l]! & SAMPLER_HOLD) !== 0
    Sampler.reset[l] = 0
    const points = bs.points
    const m = points.clip.length
    // Fading in (playBlendSpace's fadeSeconds): the blend space's share of the layer so far.
    layerShare[0] = CrossFade.active[l] === 1 ? CrossFade.blend[l]! : 1
    layerShare[1] = AnimLayer.weight[l]!
    if (bs.sync === 1) {
      let duration = 0
      for (let p = 0; p < m; p++) duration += bs.weights[p]! * bs.durations[p]!
      const phase = AnimLayer.phase[l]!
      let next = phase
      let step = 0
      if (duration > 0 && !hold) {
        step = (clock[0]! * rate) / duration
        // advancePhase(phase, step, 1, LOOP_REPEAT) written out, the same operations (p / 1 and × 1 are exact):
        // its float arguments and result were boxed where V8 did not inline it (48 B per character per step).
        let p = phase + step
        if (p >= 1 || p < 0) p -= Math.floor(p)
        if (p < 0) p += 1
        next = p >= 1 ? 0 : p
      }
      if (next - next !== 0) next = 0
      AnimLayer.phase[l] = next
      for (let p = 0; p < m; p++) {
        const d = bs.durations[p]!
        motion[EMIT_BEFORE] = phase * d
        motion[EMIT_DELTA] = step * d
        motion[EMIT_AFTER] = next * d
        reportPoint(eid, layer, bs, p, hold)
      }
      return
    }
    for (let p = 0; p < m; p++) {
      motion[EMIT_DELTA] = hold ? 0 : clock[0]! * rate
      advanceTrack(points, p, motion, ctx.clips[points.clip[p]!]!.clip, hold)
      reportPoint(eid, layer, bs, p, hold)
    }
  }

  /** A point's events and root motion of the step; nothing for a point of weight 0. */
  function reportPoint(eid: number, layer: Layer, bs: BlendSpaceState, p: number, hold: boolean): void {
    if (!(bs.weights[p]! > 0)) return
    share[0] = bs.weights[p]! * layerShare[0]!
    motion[EMIT_WEIGHT] = share[0]! * layerShare[1]!
    const clip = ctx.clips[bs.points.clip[p]!]!.clip
    reportTrack(eid, layer.index, bs.points, p, clip, hold ? EMIT_START : 0, bs.bindings[p]!)
  }

  /**
   * Track t's events of the step (motion[EMIT_WEIGHT]: the weight they carry) and, for a character with root
   * motion, its motion by `share[0]`, its share of its layer. Floats through memory (see advanceTrack).
   */
  function reportTrack(
    eid: number,
    index: number,
    tracks: SamplerStore,
    t: number,
    clip: Clip,
    flags: number,
    binding: Int32Array,
  ): void {
    const loop = tracks.loop[t]!
    emit(eid, index, tracks.clip[t]!, loop, motion, flags, tracks.finished, t)
    const rm = ctx.uses.rootMotion ? ctx.rootMotion[eid] : undefined
    if (rm === undefined) return
    motion[EMIT_WEIGHT] = share[0]!
    const rest = ctx.assets[Pose.asset[eid]!]!.rest
    addRootMotionSource(rm, rest, clip, binding, loop, motion, tracks.rotation[t] === ROTATION_SQUAD)
  }

  /** The layers of a character with a stack: layer 0's blend space and weight, then layers 1–7. */
  function advanceLayers(eid: number, layers: readonly (Layer | undefined)[]): void {
    const base0 = layers[0]!
    // A layer shows a blend space exactly while it has one (its source SOURCE_BLEND_SPACE, its clip -1).
    if (base0.blendSpace !== null) advanceBlendSpace(eid, base0, base0.blendSpace)
    advanceWeight(ctx, base0)
    const rm = ctx.rootMotion[eid]
    if (rm !== undefined) composeRootMotionLayer(rm, AnimLayer, base0)
    for (let k = 1; k < layers.length; k++) {
      const layer = layers[k]
      if (layer === undefined || AnimLayer.source[layer.slot] === SOURCE_NONE) continue
      advanceWeight(ctx, layer)
      const source = AnimLayer.source[layer.slot]
      if (source === SOURCE_CLIP) advanceLayerClip(eid, layer)
      else if (source === SOURCE_BLEND_SPACE && layer.blendSpace !== null) {
        layer.outBase = null
        advanceFade(ctx, layer.slot, layer)
        advanceBlendSpace(eid, layer, layer.blendSpace)
      } else continue
      if (rm !== undefined) composeRootMotionLayer(rm, AnimLayer, layer)
    }
  }

  return function advanceTracks(_world: World): void {
    commitRemovals(ctx.world)
    // At the normal rate, dt · 1 is dt: the same bits as before time scales existed.
    clock[0] = ctx.dt * ctx.timeScale
    const dense = characters.dense
    for (let i = 0; i < dense.length; i++) advanceBase(dense[i]!)
    if (!ctx.uses.layers) return
    for (let i = 0; i < dense.length; i++) {
      const stack = ctx.layers[dense[i]!]
      if (stack !== undefined) advanceLayers(dense[i]!, stack.layers)
    }
  }
}
