import { addDeltaPoseRuns } from '../src/engine/layerBlend.ts'
import { blendPosesAt } from '../src/engine/blend.ts'
import { JOINT_STRIDE, POSE_ANIM, poseOffset } from '../components/Pose.ts'
import { MODE_ADDITIVE, SOURCE_NONE, type AnimLayerStore } from '../components/AnimLayer.ts'
import type { StepState, AnimationStores } from './state.ts'
import { BLOCK_OUT, isPlainBase, type Layer } from './layerState.ts'

/** What composeLayers reads and writes: a slice of the plugin's context (tests may pass just this). */
export type ComposeLayersInput = Pick<StepState, 'step' | 'pool' | 'assets'> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'AnimLayer'>
}

/**
 * composeLayers, the blending job of a character with layers (ozz's BlendingJob): its animated pose ANIM from the
 * OUT poses its layers hold this step, in layer order — the rest pose, then each layer — override: slerp/lerp
 * toward the layer's pose by weight × mask weight; additive: × the layer's difference from its reference, by
 * weight × mask weight. A layer 0 that shows its clip over the whole body at weight 1 is ANIM as sampleTracks
 * left it; a layer at weight 0 is not applied. sampleTracks runs it for each character right after sampling its
 * layers, while their poses are in cache (a pass of its own over a crowd's characters re-read every pose from
 * memory: the 64-joint layered crowd's blend kernels took ~45 % longer). Never throws; allocates nothing.
 */
export function createComposeLayers(ctx: ComposeLayersInput) {
  const { Pose, Sampler, AnimLayer } = ctx.stores
  const scratch: RunWeights = { weights: new Float64Array(RUN_WEIGHTS) }

  return function composeLayers(
    eid: number,
    layers: readonly (Layer | undefined)[],
    data: Float32Array,
  ): void {
    const n = Pose.count[eid]!
    const len = n * JOINT_STRIDE
    const anim = poseOffset(Pose.base[eid]!, n, POSE_ANIM)
    const base0 = layers[0]!
    const out0 = (base0.base + BLOCK_OUT * n) * JOINT_STRIDE
    if (isPlainBase(AnimLayer, base0)) {
      // ANIM already holds layer 0's clip when it has one (OUT is its copy, kept for crossFade).
      if (Sampler.clip[eid]! < 0) data.copyWithin(anim, out0, out0 + len)
    } else if (isFullOverride(AnimLayer, base0)) {
      // Weight 1 over the whole body shows OUT exactly (blendPoses copies at weight 1).
      data.copyWithin(anim, out0, out0 + len)
    } else {
      data.set(ctx.assets[Pose.asset[eid]!]!.rest, anim)
      applyLayer(AnimLayer, data, anim, base0, out0, scratch)
    }
    for (let k = 1; k < layers.length; k++) {
      const layer = layers[k]
      if (layer === undefined) continue
      const l = layer.slot
      if (AnimLayer.source[l] === SOURCE_NONE || !(AnimLayer.weight[l]! > 0)) continue
      applyLayer(AnimLayer, data, anim, layer, (layer.base + BLOCK_OUT * n) * JOINT_STRIDE, scratch)
    }
    Pose.changed[eid] = 1
    Pose.changedStep[eid] = ctx.step
  }
}

/** Whether the layer shows exactly its OUT: an override at weight 1 (not ramping) over the whole body. */
function isFullOverride(A: AnimLayerStore, layer: Layer): boolean {
  const l = layer.slot
  return A.weight[l]! >= 1 && A.weightDuration[l] === 0 && A.mode[l] !== MODE_ADDITIVE && layer.mask === null
}

/**
 * The kernels' run weights (layer weight × mask weight per run), scratch shared by every layer of the job:
 * an array per layer was one more cache miss per layer and character in a crowd's step (its backing store is
 * touched once a step, far from the others), ~2 % of the layered bench crowd's step in a CPU profile.
 */
interface RunWeights {
  weights: Float64Array
}

/** Runs the scratch holds before it first grows (a mask of subtrees is a few runs). */
const RUN_WEIGHTS = 64

/** Composes the layer's OUT (`out`) onto the result at `anim` by its mode, weight and mask. */
function applyLayer(
  A: AnimLayerStore,
  data: Float32Array,
  anim: number,
  layer: Layer,
  out: number,
  scratch: RunWeights,
): void {
  const w = A.weight[layer.slot]!
  const rm = layer.runMask
  const runs = layer.runs
  const count = layer.runCount
  // Grows only for a mask of more runs than any before (once, not per step).
  if (scratch.weights.length < count) scratch.weights = new Float64Array(count)
  const rw = scratch.weights
  for (let r = 0; r < count; r++) rw[r] = w * rm[r]!
  if (A.mode[layer.slot] === MODE_ADDITIVE) {
    addDeltaPoseRuns(data, anim, data, out, runs, count, rw)
    return
  }
  for (let r = 0; r < count; r++) {
    const o = runs[2 * r]! * JOINT_STRIDE
    // nearUnit: overridePose's normalization (src/clip/blendPoses.ts).
    blendPosesAt(data, anim + o, data, anim + o, data, out + o, runs[2 * r + 1]!, rw, r, null, true)
  }
}
