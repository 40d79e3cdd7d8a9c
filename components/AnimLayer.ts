/**
 * AnimLayer: how each animation layer combines with the ones below it, indexed by layer slot as Sampler and
 * CrossFade are (layer 0 of a character is its own entity id; layers 1–7 take slots from capacity on). A layer
 * shows a clip (its Sampler row, with a fade inside it in CrossFade), a blend space, or nothing, at a weight that
 * can ramp, as an override or an additive difference (systems/layerState.ts has its shaped parts: mask, pose
 * block, blend space).
 */
export const MODE_OVERRIDE = 0
export const MODE_ADDITIVE = 1
/** How a layer combines with the result of the layers below: stored in `mode` as 0, 1. */
export type LayerMode = 'override' | 'additive'
export const LAYER_MODES: readonly LayerMode[] = ['override', 'additive']

/** What a layer shows (`source`). */
export const SOURCE_NONE = 0
export const SOURCE_CLIP = 1
export const SOURCE_BLEND_SPACE = 2

export interface AnimLayerStore {
  /** The layer's weight now, in [0, 1]. */
  weight: Float64Array
  /** A weight ramp goes from `weightFrom` to `weightTo` over `weightDuration` seconds (0: none runs). */
  weightFrom: Float64Array
  weightTo: Float64Array
  weightDuration: Float64Array
  /** Fixed steps the weight ramp has run, each the time scale's share of one. */
  weightSteps: Float64Array
  /** 1 after stopLayer: the layer empties when its weight reaches 0. */
  stopping: Uint8Array
  /** MODE_OVERRIDE | MODE_ADDITIVE. */
  mode: Uint8Array
  /** SOURCE_NONE | SOURCE_CLIP | SOURCE_BLEND_SPACE. */
  source: Uint8Array
  /** 1 while paused: its tracks' times hold (speeds are kept for resume). */
  paused: Uint8Array
  /** An additive layer's reference clip id, -1 for the clip the layer plays (each clip of a fade its own). */
  refClip: Int32Array
  /** Additive reference time, seconds into the reference clip. */
  refTime: Float64Array
  /** A synchronized blend space's normalized phase, [0, 1). */
  phase: Float64Array
}

export function createAnimLayerStore(rows: number): AnimLayerStore {
  return {
    weight: new Float64Array(rows).fill(1),
    weightFrom: new Float64Array(rows).fill(1),
    weightTo: new Float64Array(rows).fill(1),
    weightDuration: new Float64Array(rows),
    weightSteps: new Float64Array(rows),
    stopping: new Uint8Array(rows),
    mode: new Uint8Array(rows),
    source: new Uint8Array(rows),
    paused: new Uint8Array(rows),
    refClip: new Int32Array(rows).fill(-1),
    refTime: new Float64Array(rows),
    phase: new Float64Array(rows),
  }
}

/** Layer slot `l` showing nothing at weight 1, no ramp, not stopping (what a stopped layer empties to). */
export function clearLayerWeight(s: AnimLayerStore, l: number): void {
  s.weight[l] = 1
  s.weightFrom[l] = 1
  s.weightTo[l] = 1
  s.weightDuration[l] = 0
  s.weightSteps[l] = 0
  s.stopping[l] = 0
  s.source[l] = SOURCE_NONE
}

/** Layer slot `l` as a new layer has it: weight 1, no ramp, override, showing nothing, not paused. */
export function resetAnimLayer(s: AnimLayerStore, l: number): void {
  clearLayerWeight(s, l)
  s.mode[l] = MODE_OVERRIDE
  s.paused[l] = 0
  s.refClip[l] = -1
  s.refTime[l] = 0
  s.phase[l] = 0
}
