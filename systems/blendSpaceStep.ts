import { sampleClipChannels } from '../src/clip/sample.ts'
import { blendWeightedPoses } from '../src/clip/layerBlend.ts'
import { blendJointLayers } from '../src/clip/blendLayers.ts'
import { JOINT_STRIDE } from '../components/Pose.ts'
import { FADE_END_TOLERANCE } from './advanceCrossFades.ts'
import { LOOP_REPEAT } from '../components/Sampler.ts'
import type { StepState } from './state.ts'
import {
  advanceClipPhase,
  EMIT_AFTER,
  EMIT_BEFORE,
  EMIT_DELTA,
  EMIT_START,
  EMIT_WEIGHT,
  type ClipEventEmitter,
} from './clipEvents.ts'
import { addRootMotionSource } from './rootMotion.ts'
import {
  BLOCK_FROM,
  F_BLEND,
  F_FADE_DURATION,
  F_LOCAL,
  F_PHASE,
  F_SPEED,
  F_WEIGHT,
  I_FADE,
  I_FADE_STEPS,
  I_FROM_CLIP,
  I_HOLD,
  I_PAUSED,
  type BlendSpaceState,
  type Layer,
  setLayerFromBinding,
} from './layerState.ts'

/**
 * One step of a fade inside a layer (between two clips, or into a blend space: playBlendSpace's fadeSeconds):
 * F_BLEND, the share of what the layer fades into, goes steps·dt / duration; at 1 the fade ends. A blend space
 * advances it before advanceBlendSpace, which weighs the points' events and root motion by it.
 */
export function advanceLayerFade(ctx: Pick<StepState, 'dt'>, layer: Layer): void {
  const i = layer.i
  const f = layer.f
  if (i[I_FADE] !== 1) return
  const steps = i[I_FADE_STEPS]! + 1
  i[I_FADE_STEPS] = steps
  const blend = (steps * ctx.dt) / f[F_FADE_DURATION]!
  if (!(blend > 0 && blend < 1 - FADE_END_TOLERANCE)) {
    i[I_FADE] = 0
    i[I_FROM_CLIP] = -1
    f[F_BLEND] = 1
    setLayerFromBinding(layer, undefined)
  } else {
    f[F_BLEND] = blend
  }
}

/**
 * The fade in's pose: the layer's OUT (the blend space's mix, or for an additive layer its difference) blended
 * from FROM by F_BLEND (blendJointLayers: lerp, shortest-arc slerp). Nothing once the fade has ended.
 */
export function blendBlendSpaceFade(data: Float32Array, layer: Layer, out: number, n: number): void {
  if (layer.i[I_FADE] !== 1) return
  const from = (layer.base + BLOCK_FROM * n) * JOINT_STRIDE
  blendJointLayers(data, out, data, from, data, out, n, layer.f, F_BLEND)
}

/** What a blend space's step reads and writes (a slice of sampleLayers' input). */
export type BlendSpaceStepInput = Pick<StepState, 'dt' | 'clips' | 'rootMotion'>

/**
 * Advances a blend space's phases by one step (the layer's speed; sync: one normalized phase) and reports each
 * point of nonzero weight: its clip events (`emit`, with the layer's index and weight = the point's weight ×
 * the layer's) and, for a character with root motion, its motion by the point's weight. A point's clip plays
 * as 'repeat': synchronized, its local time is the shared phase × its duration, so every point wraps (its
 * 'loop') at the step the shared phase does; unsynchronized, at its own end. `motion` is the emitter's input
 * array (systems/clipEvents.ts).
 */
export function advanceBlendSpace(
  ctx: BlendSpaceStepInput,
  eid: number,
  layer: Layer,
  bs: BlendSpaceState,
  rest: Float32Array,
  emit: ClipEventEmitter,
  motion: Float64Array,
): void {
  const dt = ctx.dt
  const rate = layer.i[I_PAUSED] === 1 ? 0 : layer.f[F_SPEED]!
  const hold = layer.i[I_HOLD] === 1
  layer.i[I_HOLD] = 0
  const m = bs.clips.length
  if (bs.sync === 1) {
    // One phase for all points; a cycle lasts the weighted mean of their durations, so each point's clip runs
    // at the rate that keeps it in step with the others.
    let duration = 0
    for (let p = 0; p < m; p++) duration += bs.weights[p]! * bs.durations[p]!
    const phase = layer.f[F_PHASE]!
    let next = phase
    let step = 0
    if (duration > 0 && !hold) {
      step = (dt * rate) / duration
      // advancePhase(phase, step, 1, LOOP_REPEAT) written out, the same operations (p / 1 and × 1 are exact):
      // its float arguments and result were boxed where V8 did not inline it (48 B per character per step).
      let p = phase + step
      if (p >= 1 || p < 0) p -= Math.floor(p)
      if (p < 0) p += 1
      next = p >= 1 ? 0 : p
    }
    if (next - next !== 0) next = 0
    layer.f[F_PHASE] = next
    for (let p = 0; p < m; p++) {
      const d = bs.durations[p]!
      motion[EMIT_BEFORE] = phase * d
      motion[EMIT_DELTA] = step * d
      motion[EMIT_AFTER] = next * d
      reportPoint(ctx, eid, layer, bs, p, rest, hold, emit, motion)
    }
    return
  }
  for (let p = 0; p < m; p++) {
    motion[EMIT_BEFORE] = bs.times[p]!
    motion[EMIT_DELTA] = hold ? 0 : dt * rate
    advanceClipPhase(bs.times, p, -1, motion, ctx.clips[bs.clips[p]!]!.clip, LOOP_REPEAT, hold)
    reportPoint(ctx, eid, layer, bs, p, rest, hold, emit, motion)
  }
}

/** A point's events and root motion of the step (see advanceBlendSpace); nothing for a point of weight 0. */
function reportPoint(
  ctx: BlendSpaceStepInput,
  eid: number,
  layer: Layer,
  bs: BlendSpaceState,
  p: number,
  rest: Float32Array,
  hold: boolean,
  emit: ClipEventEmitter,
  motion: Float64Array,
): void {
  if (!(bs.weights[p]! > 0)) return
  const clipId = bs.clips[p]!
  // Fading in (playBlendSpace's fadeSeconds): the blend space's share of the layer so far.
  const share = layer.i[I_FADE] === 1 ? layer.f[F_BLEND]! : 1
  motion[EMIT_WEIGHT] = bs.weights[p]! * share * layer.f[F_WEIGHT]!
  emit(eid, layer.index, clipId, LOOP_REPEAT, motion, hold ? EMIT_START : 0, layer.finished, 0)
  const rm = ctx.rootMotion[eid]
  if (rm === undefined) return
  motion[EMIT_WEIGHT] = bs.weights[p]! * share
  addRootMotionSource(rm, rest, ctx.clips[clipId]!.clip, bs.bindings[p]!, LOOP_REPEAT, motion, false)
}

/**
 * Advances and samples a blend space into `dest`: each point of nonzero weight into its own buffer (made from
 * the rest pose when the blend space started) at its time — synchronized, the normalized phase × its clip's
 * duration —, then their weighted mix (blendWeightedPoses).
 */
export function sampleBlendSpace(
  ctx: BlendSpaceStepInput,
  eid: number,
  data: Float32Array,
  layer: Layer,
  bs: BlendSpaceState,
  dest: number,
  n: number,
  rest: Float32Array,
  emit: ClipEventEmitter,
  motion: Float64Array,
): void {
  advanceBlendSpace(ctx, eid, layer, bs, rest, emit, motion)
  const m = bs.clips.length
  const sync = bs.sync === 1
  const f = layer.f
  for (let p = 0; p < m; p++) {
    if (!(bs.weights[p]! > 0)) continue
    const clip = ctx.clips[bs.clips[p]!]!.clip
    // sampleClipChannels reads the time from an array: the layer's F_LOCAL slot.
    f[F_LOCAL] = sync ? f[F_PHASE]! * bs.durations[p]! : bs.times[p]!
    sampleClipChannels(data, bs.offsets[p]!, clip, bs.bindings[p]!, f, F_LOCAL, bs.cursors[p]!, 0, false)
  }
  blendWeightedPoses(data, dest, data, bs.offsets, bs.weights, m, n, bs.paths)
}
