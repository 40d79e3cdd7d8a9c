import type { World } from 'bitecs'
import { registerQuery } from 'bitecs'
import { sampleClipChannels } from '../src/engine/sample.ts'
import type { Clip } from '../src/clip/clip.ts'
import type { AnimationStores, MorphState, RegisteredClip, StepState } from './state.ts'
import { MODE_ADDITIVE, SOURCE_BLEND_SPACE, SOURCE_CLIP, type Layer } from './layerState.ts'

/** What sampleMorphWeights reads and writes (tests may pass just this). */
export type SampleMorphWeightsInput = Pick<
  StepState,
  'world' | 'clips' | 'assets' | 'layers' | 'morphs' | 'morphed' | 'morphCursors'
> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'CrossFade' | 'AnimLayer'>
}

/** Scratch copies in MorphState.scratch (m floats each). */
const A = 0
const B = 1
const C = 2
const S = 3

/**
 * sampleMorphWeights: for every character with morph targets, this step's morph weights: the file's defaults,
 * then each layer in index order (layer 0 is the Sampler's clip and its cross-fade) blended over them on the
 * mesh nodes its clips drive — override: lerp toward the clip's weights by weight × mask (at the mesh
 * node's joint), additive: + weight × mask × (clip − reference). A fade inside a layer lerps its two clips'
 * weights by the blend; a blend space takes its points' weighted sum. Weights a layer's clips do not drive are
 * left exactly as the layers below made them. Last, the game's own weights (setMorphWeights) replace the
 * result where it set any. Runs after advanceTracks (clip times are this step's). Never
 * throws; allocates nothing.
 */
export function createSampleMorphWeightsSystem(ctx: SampleMorphWeightsInput) {
  const { Pose, Sampler, CrossFade, AnimLayer } = ctx.stores
  // Characters with morph targets only (a character whose Pose the game removed keeps the tag: skipped below).
  const characters = registerQuery(ctx.world, [ctx.morphed])
  /**
   * Floats handed to the helpers below through memory, not as arguments (src/engine/v8.ts): [0] the time
   * sampleOver samples at, [1] a source's clip-local
   * time, [2] its fade's outgoing clip-local time, [3] the fade's blend.
   */
  const time = new Float64Array(4)

  /** Samples `clip` (driving morphs through `binding`) at `t` over a copy of the weights into scratch `into`. */
  /** Samples `clip` (driving morphs through `binding`) at time[0] over a copy of the weights into scratch `into`. */
  function sampleOver(ms: MorphState, m: number, into: number, clip: Clip, binding: Int32Array): void {
    copyWeights(ms, m, into)
    // The cursors are search hints only (any value gives the same sample), so all characters share them.
    sampleClipChannels(ms.scratch, into * m, clip, binding, time, 0, ctx.morphCursors, 0, false)
  }

  /**
   * The weights a layer's source shows into scratch C (over the current weights), or false when it drives no
   * morph weights. `clipId`/`local` are its clip and clip-local time; `fromId`/`fromLocal`/`blend` its fade's.
   */
  function sourceWeights(ms: MorphState, m: number, asset: number, clipId: number, fromId: number): boolean {
    const blend = time[3]!
    const to = clipId >= 0 ? morphBinding(ctx.clips[clipId]!, asset) : null
    const from = fromId >= 0 ? morphBinding(ctx.clips[fromId]!, asset) : null
    if (to === null && from === null) return false
    if (fromId >= 0 && blend < 1) {
      time[0] = time[2]!
      if (from !== null) sampleOver(ms, m, A, ctx.clips[fromId]!.clip, from)
      else copyWeights(ms, m, A)
      time[0] = time[1]!
      if (to !== null) sampleOver(ms, m, B, ctx.clips[clipId]!.clip, to)
      else copyWeights(ms, m, B)
      const s = ms.scratch
      for (let k = 0; k < m; k++) {
        const a = s[A * m + k]!
        s[C * m + k] = a + (s[B * m + k]! - a) * blend
      }
      return true
    }
    if (to === null) return false
    time[0] = time[1]!
    sampleOver(ms, m, C, ctx.clips[clipId]!.clip, to)
    return true
  }

  /** Scratch C ← a blend space's weighted sum of its points' morph weights; false when none drives any. */
  function blendSpaceWeights(ms: MorphState, m: number, asset: number, layer: Layer): boolean {
    const bs = layer.blendSpace!
    const s = ms.scratch
    let any = false
    s.fill(0, C * m, C * m + m)
    const points = bs.points
    for (let p = 0; p < points.clip.length; p++) {
      const wp = bs.weights[p]!
      if (!(wp > 0)) continue
      const rc = ctx.clips[points.clip[p]!]!
      const binding = morphBinding(rc, asset)
      time[0] = bs.sync === 1 ? AnimLayer.phase[layer.slot]! * bs.durations[p]! : points.time[p]!
      if (binding !== null) {
        any = true
        sampleOver(ms, m, S, rc.clip, binding)
      } else copyWeights(ms, m, S)
      for (let k = 0; k < m; k++) s[C * m + k] = s[C * m + k]! + wp * s[S * m + k]!
    }
    return any
  }

  /** weights ← weights blended toward scratch C by the layer's weight and mask (additive: + C − reference). */
  function apply(
    ms: MorphState,
    m: number,
    eid: number,
    layer: Layer | undefined,
    additiveRef: boolean,
  ): void {
    const ra = ctx.assets[Pose.asset[eid]!]!
    const w = ms.weights
    const s = ms.scratch
    const weight = layer ? AnimLayer.weight[layer.slot]! : 1
    const mask = layer?.mask ?? null
    for (let node = 0; node < ra.morphJoints.length; node++) {
      const wn = mask === null ? weight : weight * mask[ra.morphJoints[node]!]!
      if (!(wn > 0)) continue
      for (let k = ra.morphOffsets[node]!; k < ra.morphOffsets[node + 1]!; k++) {
        const x = w[k]!
        const v = s[C * m + k]!
        w[k] = additiveRef ? x + wn * (v - s[A * m + k]!) : wn >= 1 ? v : x + (v - x) * wn
      }
    }
  }

  return function sampleMorphWeights(_world: World): void {
    const dense = characters.dense
    for (let c = 0; c < dense.length; c++) {
      const eid = dense[c]!
      const ms = ctx.morphs[eid]
      if (ms === undefined) continue
      const m = ms.game.length
      const asset = Pose.asset[eid]!
      ms.weights.set(ctx.assets[asset]!.morphRest)
      const stack = ctx.layers[eid]
      const base0 = stack?.layers[0]
      const clip0 = Sampler.clip[eid]!
      if (clip0 >= 0) {
        const fading = CrossFade.active[eid] === 1
        const fromId = fading ? CrossFade.from.clip[eid]! : -1
        time[1] = Sampler.lastTime[eid]!
        time[2] = fromId >= 0 ? CrossFade.from.local[eid]! : 0
        time[3] = fading ? CrossFade.blend[eid]! : 1
        if (sourceWeights(ms, m, asset, clip0, fromId)) {
          apply(ms, m, eid, base0, false)
        }
      } else if (
        base0 !== undefined &&
        AnimLayer.source[eid] === SOURCE_BLEND_SPACE &&
        blendSpaceWeights(ms, m, asset, base0)
      ) {
        apply(ms, m, eid, base0, false)
      }
      if (stack !== undefined) applyLayers(ms, m, eid, asset, stack.layers)
      // The game's own weights (expression sliders) over everything the clips did.
      const game = ms.game
      const w = ms.weights
      for (let k = 0; k < m; k++) {
        const g = game[k]!
        if (g === g) w[k] = g
      }
    }
  }

  function applyLayers(
    ms: MorphState,
    m: number,
    eid: number,
    asset: number,
    layers: readonly (Layer | undefined)[],
  ): void {
    for (let k = 1; k < layers.length; k++) {
      const layer = layers[k]
      if (layer === undefined) continue
      const l = layer.slot
      if (!(AnimLayer.weight[l]! > 0)) continue
      const source = AnimLayer.source[l]
      let shown = false
      if (source === SOURCE_CLIP) {
        const fading = CrossFade.active[l] === 1
        time[1] = Sampler.local[l]!
        time[2] = CrossFade.from.local[l]!
        time[3] = fading ? CrossFade.blend[l]! : 1
        shown = sourceWeights(ms, m, asset, Sampler.clip[l]!, fading ? CrossFade.from.clip[l]! : -1)
      } else if (source === SOURCE_BLEND_SPACE) shown = blendSpaceWeights(ms, m, asset, layer)
      if (!shown) continue
      const additive = AnimLayer.mode[l] === MODE_ADDITIVE
      if (additive) {
        // The reference: the reference clip (or the layer's own) at the reference time, over the weights.
        const refId =
          AnimLayer.refClip[l]! >= 0
            ? AnimLayer.refClip[l]!
            : source === SOURCE_CLIP
              ? Sampler.clip[l]!
              : layer.blendSpace!.points.clip[0]!
        const rc = ctx.clips[refId]!
        const binding = morphBinding(rc, asset)
        if (binding !== null) {
          const t = AnimLayer.refTime[l]!
          time[0] = t < 0 ? 0 : t > rc.clip.duration ? rc.clip.duration : t
          sampleOver(ms, m, A, rc.clip, binding)
        } else copyWeights(ms, m, A)
      }
      apply(ms, m, eid, layer, additive)
    }
  }
}

/** Scratch copy `into` ← the weights so far. */
function copyWeights(ms: MorphState, m: number, into: number): void {
  const w = ms.weights
  const s = ms.scratch
  const o = into * m
  for (let k = 0; k < m; k++) s[o + k] = w[k]!
}

/** The clip's morph binding on the asset: made when the clip was bound for a character (plugin/assets.ts). */
function morphBinding(rc: RegisteredClip, asset: number): Int32Array | null {
  return rc.morphBindings[asset] ?? null
}
