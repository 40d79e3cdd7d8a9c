import type { World } from 'bitecs'
import { registerQuery } from 'bitecs'
import { sampleClipChannels } from '../src/clip/sample.ts'
import { blendJointLayers } from '../src/clip/blendLayers.ts'
import { addDeltaPose, toDeltaPose } from '../src/clip/layerBlend.ts'
import { awaitingBodies, type StepState, type AnimationStores } from './state.ts'
import { FADE_END_TOLERANCE } from './advanceCrossFades.ts'
import {
  advanceClipPhase,
  createClipEventEmitter,
  EMIT_BEFORE,
  EMIT_DELTA,
  EMIT_FADING_OUT,
  EMIT_INPUT_LENGTH,
  EMIT_START,
  EMIT_WEIGHT,
  type ClipEventEmitter,
  type ClipEventsInput,
} from './clipEvents.ts'
import { JOINT_STRIDE, POSE_ANIM, POSE_PREV, poseOffset } from '../components/Pose.ts'
import { ROTATION_SQUAD } from '../components/Sampler.ts'
import {
  advanceBlendSpace,
  advanceLayerFade,
  blendBlendSpaceFade,
  sampleBlendSpace,
} from './blendSpaceStep.ts'
import { addRootMotionSource, composeRootMotionLayer } from './rootMotion.ts'
import {
  BLOCK_DELTA,
  BLOCK_FROM,
  BLOCK_OUT,
  BLOCK_REF_FROM,
  BLOCK_REF_TO,
  BLOCK_TO,
  F_BLEND,
  F_FROM_LOCAL,
  F_FROM_SPEED,
  F_FROM_TIME,
  F_LOCAL,
  F_SPEED,
  F_TIME,
  F_WEIGHT,
  F_WEIGHT_DURATION,
  F_WEIGHT_FROM,
  F_WEIGHT_TO,
  I_CLIP,
  I_FADE,
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
  I_WEIGHT_STEPS,
  isPlainBase,
  MODE_ADDITIVE,
  SOURCE_BLEND_SPACE,
  SOURCE_CLIP,
  SOURCE_NONE,
  type Layer,
  setLayerBinding,
  setLayerFromBinding,
} from './layerState.ts'

/** What sampleLayers reads and writes: a slice of the plugin's context (tests may pass just this). */
export type SampleLayersInput = Pick<
  StepState,
  'world' | 'dt' | 'step' | 'pool' | 'assets' | 'clips' | 'layers' | 'ragdolls' | 'rootMotion' | 'uses'
> &
  // PREV kept for a ragdoll hand-off marks the layer used.
  Pick<StepState, 'posesUsed'> &
  ClipEventsInput & {
    readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'Ragdoll'>
  }

/**
 * sampleLayers: for every character with layers (systems/layerState.ts), runs after sampleClips, which left
 * layer 0's clip (or fade) in ANIM. Keeps that as layer 0's pose (or samples layer 0's blend space, or the rest
 * pose when layer 0 shows nothing), advances every layer's weight ramp, fade and time, samples each layer into
 * its OUT, and composes ANIM: the rest pose, then each layer in index order — override: slerp/lerp toward the
 * layer's pose by weight × mask; additive: × the layer's difference from its reference, by weight × mask.
 * A layer at weight 0 still advances its time but is neither sampled nor applied. A clip layer's clips report
 * their loops, 'finished' and markers (systems/clipEvents.ts) with `layer` set and weight = layer weight × their
 * share of a fade, after every character's layer-0 events (sampleClips runs first); a blend space's points
 * report theirs (systems/blendSpaceStep.ts). For a character with root motion, every clip's motion is summed by
 * its share of its layer and each layer composed by its weight (systems/rootMotion.ts). Characters without
 * layers are not touched. Never throws; allocates nothing when no event fires.
 */
export function createSampleLayersSystem(ctx: SampleLayersInput) {
  const { Pose, Sampler } = ctx.stores
  const characters = registerQuery(ctx.world, [Sampler, Pose])
  const emit = createClipEventEmitter(ctx)
  /** The emitter's float inputs (systems/clipEvents.ts), through memory. */
  const motion = new Float64Array(EMIT_INPUT_LENGTH)
  const scratch: RunWeights = { weights: new Float64Array(RUN_WEIGHTS) }

  return function sampleLayers(_world: World): void {
    if (!ctx.uses.layers) return
    const dense = characters.dense
    const data = ctx.pool.data
    for (let c = 0; c < dense.length; c++) {
      const eid = dense[c]!
      const stack = ctx.layers[eid]
      if (stack === undefined) continue
      const n = Pose.count[eid]!
      const len = n * JOINT_STRIDE
      const base = Pose.base[eid]!
      const anim = poseOffset(base, n, POSE_ANIM)
      const rest = ctx.assets[Pose.asset[eid]!]!.rest
      const layers = stack.layers
      const base0 = layers[0]!
      const out0 = (base0.base + BLOCK_OUT * n) * JOINT_STRIDE
      if (Sampler.clip[eid]! >= 0) {
        data.copyWithin(out0, anim, anim + len)
      } else {
        // sampleClips skipped this character: keep the previous pose for a ragdoll hand-off here.
        if (awaitingBodies(ctx, eid)) {
          data.copyWithin(poseOffset(base, n, POSE_PREV), anim, anim + len)
          ctx.posesUsed[eid] = ctx.posesUsed[eid]! | (1 << POSE_PREV)
        }
        if (base0.i[I_SOURCE] === SOURCE_BLEND_SPACE && base0.blendSpace !== null) {
          advanceLayerFade(ctx, base0)
          sampleBlendSpace(ctx, eid, data, base0, base0.blendSpace, out0, n, rest, emit, motion)
          blendBlendSpaceFade(data, base0, out0, n)
        } else {
          data.set(rest, out0)
        }
      }
      advanceWeight(ctx, base0)
      if (isPlainBase(base0)) {
        // ANIM already holds layer 0's clip when it has one (OUT is its copy, kept for crossFade).
        if (Sampler.clip[eid]! < 0) data.copyWithin(anim, out0, out0 + len)
      } else if (isFullOverride(base0)) {
        // Weight 1 over the whole body shows OUT exactly (blendJointLayers copies at weight 1).
        data.copyWithin(anim, out0, out0 + len)
      } else {
        data.set(rest, anim)
        applyLayer(data, anim, base0, out0, scratch)
      }
      const rm = ctx.rootMotion[eid]
      if (rm !== undefined) composeRootMotionLayer(rm, base0)
      for (let k = 1; k < layers.length; k++) {
        const layer = layers[k]
        if (layer === undefined || layer.i[I_SOURCE] === SOURCE_NONE) continue
        advanceWeight(ctx, layer)
        if (layer.i[I_SOURCE] === SOURCE_NONE) continue
        const out = (layer.base + BLOCK_OUT * n) * JOINT_STRIDE
        const visible = layer.f[F_WEIGHT]! > 0
        if (layer.i[I_SOURCE] === SOURCE_CLIP) {
          sampleLayerClip(ctx, data, eid, layer, rest, n, visible, emit, motion)
        } else if (layer.blendSpace !== null) {
          const bs = layer.blendSpace
          layer.outBase = null
          advanceLayerFade(ctx, layer)
          if (visible) sampleBlendSpace(ctx, eid, data, layer, bs, out, n, rest, emit, motion)
          else advanceBlendSpace(ctx, eid, layer, bs, rest, emit, motion)
          if (visible && layer.i[I_MODE] === MODE_ADDITIVE) {
            toDeltaPose(data, out, data, (layer.base + BLOCK_REF_TO * n) * JOINT_STRIDE, n)
          }
          if (visible) blendBlendSpaceFade(data, layer, out, n)
        }
        if (visible) applyLayer(data, anim, layer, out, scratch)
        if (rm !== undefined) composeRootMotionLayer(rm, layer)
      }
      Pose.changed[eid] = 1
      Pose.changedStep[eid] = ctx.step
    }
  }
}

/**
 * One step of a layer's weight ramp; a stopped layer that reached 0 empties. Takes the context, not dt: a float
 * argument of a call V8 does not inline is boxed (a heap number per call, per layer, per character).
 */
function advanceWeight(ctx: SampleLayersInput, layer: Layer): void {
  const f = layer.f
  const duration = f[F_WEIGHT_DURATION]!
  if (duration === 0) return
  const steps = layer.i[I_WEIGHT_STEPS]! + 1
  layer.i[I_WEIGHT_STEPS] = steps
  const t = (steps * ctx.dt) / duration
  if (!(t > 0 && t < 1 - FADE_END_TOLERANCE)) {
    f[F_WEIGHT] = f[F_WEIGHT_TO]!
    f[F_WEIGHT_DURATION] = 0
    if (layer.i[I_STOPPING] === 1 && f[F_WEIGHT] === 0) emptyLayer(layer)
  } else {
    const from = f[F_WEIGHT_FROM]!
    f[F_WEIGHT] = from + (f[F_WEIGHT_TO]! - from) * t
  }
}

/** What stopLayer leaves once faded out: nothing to show, weight 1 for its next clip, the block kept. */
export function emptyLayer(layer: Layer): void {
  const i = layer.i
  const f = layer.f
  f[F_WEIGHT] = 1
  f[F_WEIGHT_FROM] = 1
  f[F_WEIGHT_TO] = 1
  f[F_WEIGHT_DURATION] = 0
  i[I_SOURCE] = SOURCE_NONE
  i[I_STOPPING] = 0
  i[I_CLIP] = -1
  i[I_FADE] = 0
  i[I_FROM_CLIP] = -1
  setLayerBinding(layer, undefined)
  setLayerFromBinding(layer, undefined)
  layer.blendSpace = null
  layer.delta = null
  layer.deltaClip = -1
  layer.outBase = null
}

/** Whether the layer shows exactly its OUT: an override at weight 1 (not ramping) over the whole body. */
function isFullOverride(layer: Layer): boolean {
  return (
    layer.f[F_WEIGHT]! >= 1 &&
    layer.f[F_WEIGHT_DURATION] === 0 &&
    layer.i[I_MODE] !== MODE_ADDITIVE &&
    layer.mask === null
  )
}

/**
 * The kernels' run weights (layer weight × mask weight per run), scratch shared by every layer of the system:
 * an array per layer was one more cache miss per layer and character in a crowd's step (its backing store is
 * touched once a step, far from the others), ~2 % of the layered bench crowd's step in a CPU profile.
 */
interface RunWeights {
  weights: Float64Array
}

/** Runs the scratch holds before it first grows (a mask of subtrees is a few runs). */
const RUN_WEIGHTS = 64

/** Composes the layer's OUT (`out`) onto the result at `anim` by its mode, weight and mask. */
function applyLayer(data: Float32Array, anim: number, layer: Layer, out: number, scratch: RunWeights): void {
  const w = layer.f[F_WEIGHT]!
  const rm = layer.runMask
  const runs = layer.runs
  const count = layer.runCount
  // Grows only for a mask of more runs than any before (once, not per step).
  if (scratch.weights.length < count) scratch.weights = new Float64Array(count)
  const rw = scratch.weights
  for (let r = 0; r < count; r++) rw[r] = w * rm[r]!
  if (layer.i[I_MODE] === MODE_ADDITIVE) {
    addDeltaPose(data, anim, data, out, runs, count, rw)
    return
  }
  for (let r = 0; r < count; r++) {
    const o = runs[2 * r]! * JOINT_STRIDE
    // nearUnit: no square root on the rotation's chain (blendJointLayers); fades keep the default.
    blendJointLayers(data, anim + o, data, anim + o, data, out + o, runs[2 * r + 1]!, rw, r, null, true)
  }
}

/** Advances the layer's clip (and its fade) by one step and, when visible, samples it into OUT. */
function sampleLayerClip(
  ctx: SampleLayersInput,
  data: Float32Array,
  eid: number,
  layer: Layer,
  rest: Float32Array,
  n: number,
  visible: boolean,
  emit: ClipEventEmitter,
  motion: Float64Array,
): void {
  const f = layer.f
  const i = layer.i
  const clip = ctx.clips[i[I_CLIP]!]!.clip
  const loop = i[I_LOOP]!
  const rate = i[I_PAUSED] === 1 ? 0 : f[F_SPEED]!
  const hold = i[I_HOLD] === 1
  motion[EMIT_BEFORE] = f[F_TIME]!
  motion[EMIT_DELTA] = hold ? 0 : ctx.dt * rate
  advanceClipPhase(f, F_TIME, F_LOCAL, motion, clip, loop, hold)
  const phase = f[F_TIME]!
  i[I_HOLD] = 0
  const additive = i[I_MODE] === MODE_ADDITIVE
  const block = layer.base * JOINT_STRIDE
  const stride = n * JOINT_STRIDE
  const out = block + BLOCK_OUT * stride
  const cursors = layer.cursors
  const squad = i[I_ROTATION] === ROTATION_SQUAD
  advanceLayerFade(ctx, layer)

  motion[EMIT_WEIGHT] = f[F_WEIGHT]! * (i[I_FADE] === 1 ? f[F_BLEND]! : 1)
  emit(eid, layer.index, i[I_CLIP]!, loop, motion, hold ? EMIT_START : 0, layer.finished, 0)
  const rm = ctx.rootMotion[eid]
  if (rm !== undefined) {
    // Root motion sums each clip by its share of the layer; the layer's weight comes when it is composed.
    motion[EMIT_WEIGHT] = i[I_FADE] === 1 ? f[F_BLEND]! : 1
    addRootMotionSource(rm, rest, clip, layer.binding!, loop, motion, squad)
  }
  const fromId = i[I_FADE] === 1 ? i[I_FROM_CLIP]! : -1
  if (fromId >= 0) {
    const fromClip = ctx.clips[fromId]!.clip
    const fromLoop = i[I_FROM_LOOP]!
    const fromDelta = i[I_PAUSED] === 1 ? 0 : ctx.dt * f[F_FROM_SPEED]!
    motion[EMIT_BEFORE] = f[F_FROM_TIME]!
    motion[EMIT_DELTA] = fromDelta
    advanceClipPhase(f, F_FROM_TIME, F_FROM_LOCAL, motion, fromClip, fromLoop, false)
    motion[EMIT_WEIGHT] = f[F_WEIGHT]! * (1 - f[F_BLEND]!)
    emit(eid, layer.index, fromId, fromLoop, motion, EMIT_FADING_OUT, layer.finished, 1)
    if (rm !== undefined) {
      motion[EMIT_WEIGHT] = 1 - f[F_BLEND]!
      const fromSquad = i[I_FROM_ROTATION] === ROTATION_SQUAD
      addRootMotionSource(rm, rest, fromClip, layer.fromBinding!, fromLoop, motion, fromSquad)
    }
    if (visible) {
      const from = block + BLOCK_FROM * stride
      const fromSquad = i[I_FROM_ROTATION] === ROTATION_SQUAD
      sampleClipChannels(
        data,
        from,
        fromClip,
        layer.fromSampleBinding!,
        f,
        F_FROM_LOCAL,
        cursors,
        cursors.length >>> 1,
        fromSquad,
      )
    }
  }
  if (!visible) return
  if (i[I_FADE] === 1) {
    layer.outBase = null
    const to = block + BLOCK_TO * stride
    sampleClipChannels(data, to, clip, layer.sampleBinding!, f, F_LOCAL, cursors, 0, squad)
    if (additive) {
      const delta = block + BLOCK_DELTA * stride
      data.copyWithin(delta, block + BLOCK_FROM * stride, block + BLOCK_FROM * stride + stride)
      toDeltaPose(data, delta, data, block + BLOCK_REF_FROM * stride, n)
      data.copyWithin(out, to, to + stride)
      toDeltaPose(data, out, data, block + BLOCK_REF_TO * stride, n)
      blendJointLayers(data, out, data, delta, data, out, n, f, F_BLEND)
    } else {
      blendJointLayers(data, out, data, block + BLOCK_FROM * stride, data, to, n, f, F_BLEND)
    }
    return
  }
  const delta = layer.delta
  const binding = layer.sampleBinding!
  if (additive && (delta === null || layer.deltaClip !== i[I_CLIP])) {
    // No delta clip (a difference not finite as a float32): the difference of the sampled pose.
    layer.outBase = null
    data.set(rest, out)
    sampleClipChannels(data, out, clip, binding, f, F_LOCAL, cursors, 0, squad)
    toDeltaPose(data, out, data, block + BLOCK_REF_TO * stride, n)
    return
  }
  // Additive: the differences sampled directly (made once per clip and reference: src/clip/additiveClip.ts).
  const from = additive ? delta!.base : rest
  if (layer.outBase !== from || layer.outBinding !== binding || layer.outAt !== out) {
    data.set(from, out)
    layer.outBase = from
    layer.outBinding = binding
    layer.outAt = out
  }
  sampleClipChannels(data, out, additive ? delta!.clip : clip, binding, f, F_LOCAL, cursors, 0, squad)
}
