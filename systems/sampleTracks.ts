import type { World } from 'bitecs'
import { registerQuery } from 'bitecs'
import { sampleClipChannels } from '../src/engine/sample.ts'
import { primeSampler } from '../src/engine/v8.ts'
import { fusedArena, fusedPassOn, planOf, refreshFusedRuns } from './fusedCharacters.ts'
import { placeFusedPlan } from '../src/engine/wasmFused.ts'
import { propagationKernel } from '../components/SceneNode.ts'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import { blendPosesAt } from '../src/engine/blend.ts'
import { blendWeightedPoses } from '../src/engine/layerBlend.ts'
import { toDeltaPose } from '../src/clip/layerBlend.ts'
import { JOINT_STRIDE, POSE_ANIM, POSE_FROM, POSE_PREV, POSE_TO, poseOffset } from '../components/Pose.ts'
import { ROTATION_SQUAD, SAMPLER_RESET_REST } from '../components/Sampler.ts'
import { MODE_ADDITIVE, SOURCE_CLIP, SOURCE_NONE } from '../components/AnimLayer.ts'
import { awaitingBodies, type StepState, type AnimationStores } from './state.ts'
import { PHASE_SAMPLE } from './workers/pool.ts'
import { createComposeLayers } from './composeLayers.ts'
import {
  BLOCK_DELTA,
  BLOCK_FROM,
  BLOCK_OUT,
  BLOCK_REF_FROM,
  BLOCK_REF_TO,
  BLOCK_TO,
  type BlendSpaceState,
  type Layer,
} from './layerState.ts'

/** What sampleTracks reads and writes: a slice of the plugin's context (tests may pass just this). */
export type SampleTracksInput = Pick<
  StepState,
  | 'world'
  | 'step'
  | 'pool'
  | 'assets'
  | 'clips'
  | 'cursors'
  | 'binding'
  | 'fromBinding'
  | 'fadePaths'
  | 'posesUsed'
  | 'layers'
  | 'ragdolls'
  | 'uses'
  | 'lod'
  | 'parallel'
  | 'sceneGraph'
  | 'fused'
  | 'poseEdits'
  | 'rootMotion'
> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'CrossFade' | 'AnimLayer' | 'Ragdoll'>
}

/**
 * sampleTracks: samples what every layer shows at the times advanceTracks left (each track's `local`).
 *
 * Layer 0 of every character into its ANIM pose (the fast path of a crowd): its clip, or during a fade the clip it
 * leaves into FROM (unless it fades from a frozen pose) and the clip it enters into TO, blended into ANIM (only the
 * translations and scales that can change, `ctx.fadePaths`; the others already agree in all three). A character
 * whose layer 0 plays one clip whose time did not move (paused, or a finished once-clip) is skipped: its pose and
 * `Pose.changed` stay as they were, so idle crowds cost almost nothing. So is one that levels of detail hold this
 * step (`ctx.lod.skip`, systems/scheduleLod.ts). Before writing the ANIM of a character whose ragdoll is about to
 * start, it keeps the old ANIM in PREV (the hand-off's velocities). With workers (`ctx.parallel`), the samples of
 * characters without layers are taken in a parallel phase: the same kernels on the same values, the same bits.
 *
 * Then each layer of a character with layers into its own block's OUT: layer 0 keeps ANIM (or samples its blend
 * space, or the rest pose when it shows nothing); the others, when their weight is above 0, sample their clip (and
 * a fade's two sides, blended), the differences of an additive layer from its reference (a delta clip sampled
 * directly when no fade runs), or their blend space's points, mixed by weight; and composes them into ANIM
 * (systems/composeLayers.ts), character by character while its poses are in cache.
 * Never throws; allocates nothing.
 */
export function createSampleTracksSystem(ctx: SampleTracksInput) {
  const { Pose, Sampler, CrossFade, AnimLayer } = ctx.stores
  const parallel = ctx.parallel
  const characters = registerQuery(ctx.world, [Sampler, Pose])
  const composeLayers = createComposeLayers(ctx)
  const fused = ctx.fused
  const Ragdoll = ctx.stores.Ragdoll
  // The fused pass (systems/fusedCharacters.ts) takes the plain playing characters, not with workers.
  const fuseOn = fusedPassOn(ctx)
  const kernel = propagationKernel(ctx.sceneGraph)
  /** This step's: pose stages and IK edit ANIM after sampling, which the fused pass would write out before. */
  let fuse = false
  primeSampler()

  /**
   * Whether the fused pass takes this step's sample of a character playing one clip (no fade, layers or reset):
   * then propagateTransforms samples it, writes it out and makes its world matrices in one walk.
   */
  function fusable(eid: number, clipId: number, squad: boolean): boolean {
    if (squad || fused.contiguous[eid] !== 1 || Ragdoll.active[eid] !== RAGDOLL_OFF) return false
    if (!(Ragdoll.weight[eid]! <= 0) || (ctx.uses.rootMotion && ctx.rootMotion[eid] !== undefined))
      return false
    const clip = ctx.clips[clipId]!.clip
    const plan = planOf(fused, clip, ctx.binding[eid]!, Pose.count[eid]!)
    return plan.fusable && placeFusedPlan(fusedArena(fused, kernel!), clip, plan) >= 0
  }

  /** Whether the fused pass takes this step's cross-fade: a fade from a clip, neither side squad, both fusable. */
  function fusableFade(eid: number, clipId: number, squad: boolean): boolean {
    const from = CrossFade.from
    const fromId = from.clip[eid]!
    const n = Pose.count[eid]!
    if (fromId < 0 || from.rotation[eid] === ROTATION_SQUAD || !fusable(eid, clipId, squad)) return false
    if (n > kernel!.layout.maxFadeJoints) return false
    const fromClip = ctx.clips[fromId]!.clip
    const fromPlan = planOf(fused, fromClip, ctx.fromBinding[eid]!, n)
    return fromPlan.fusable && placeFusedPlan(fusedArena(fused, kernel!), fromClip, fromPlan) >= 0
  }

  /** Layer 0's clip (or fade) into ANIM. */
  function sampleBase(eid: number, data: Float32Array, layered: boolean): void {
    const clipId = Sampler.clip[eid]!
    const fading = CrossFade.active[eid] === 1
    const flags = Sampler.reset[eid]!
    const t = Sampler.local[eid]!
    // A character with layers is composed into ANIM every step, so its layer 0 is sampled afresh every step,
    // from the rest pose and with every path of a fade blended.
    if (!fading && flags === 0 && t === Sampler.lastTime[eid] && !layered) return
    const clip = ctx.clips[clipId]!.clip
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const anim = poseOffset(base, n, POSE_ANIM)
    const used = ctx.posesUsed
    // PREV serves one reader, the ragdoll hand-off (stepRagdolls, later in this step), for the animation's
    // velocity: it is kept only for a character whose ragdoll is waiting for its bodies.
    if (awaitingBodies(ctx, eid)) {
      data.copyWithin(poseOffset(base, n, POSE_PREV), anim, anim + n * JOINT_STRIDE)
      used[eid] = used[eid]! | (1 << POSE_PREV)
    }
    const squad = Sampler.rotation[eid] === ROTATION_SQUAD
    Sampler.lastTime[eid] = t
    if (fuse && !fading && flags === 0 && !layered && fusable(eid, clipId, squad)) {
      fused.flag[eid] = 1
      Pose.changed[eid] = 1
      Pose.changedStep[eid] = ctx.step
      return
    }
    if (fuse && fading && flags === 0 && !layered && fusableFade(eid, clipId, squad)) {
      fused.flag[eid] = 2
      ctx.posesUsed[eid] = ctx.posesUsed[eid]! | (1 << POSE_FROM) | (1 << POSE_TO)
      Pose.changed[eid] = 1
      Pose.changedStep[eid] = ctx.step
      return
    }
    const cursors = ctx.cursors[eid]!
    if (fading) used[eid] = used[eid]! | (1 << POSE_FROM) | (1 << POSE_TO)
    if (fading && parallel !== null && !layered) {
      parallel.queueFade(eid)
    } else if (fading) {
      const from = CrossFade.from
      const fromId = from.clip[eid]!
      const fromAt = poseOffset(base, n, POSE_FROM)
      if (fromId >= 0) {
        const squadFrom = from.rotation[eid] === ROTATION_SQUAD
        const fromClip = ctx.clips[fromId]!.clip
        const half = cursors.length >>> 1
        sampleClipChannels(
          data,
          fromAt,
          fromClip,
          ctx.fromBinding[eid]!,
          from.local,
          eid,
          cursors,
          half,
          squadFrom,
        )
      }
      const to = poseOffset(base, n, POSE_TO)
      sampleClipChannels(data, to, clip, ctx.binding[eid]!, Sampler.local, eid, cursors, 0, squad)
      const paths = layered ? null : (ctx.fadePaths[eid] ?? null)
      blendPosesAt(data, anim, data, fromAt, data, to, n, CrossFade.blend, eid, paths)
    } else {
      if ((flags & SAMPLER_RESET_REST) !== 0 || layered) data.set(ctx.assets[Pose.asset[eid]!]!.rest, anim)
      // With workers, the sample itself waits for the parallel phase at the end (the same kernel).
      if (parallel !== null && !layered) parallel.queueSample(eid)
      else sampleClipChannels(data, anim, clip, ctx.binding[eid]!, Sampler.local, eid, cursors, 0, squad)
    }
    Sampler.reset[eid] = 0
    Pose.changed[eid] = 1
    Pose.changedStep[eid] = ctx.step
  }

  /** Each layer of a character with layers into its block's OUT. */
  function sampleLayers(eid: number, data: Float32Array, layers: readonly (Layer | undefined)[]): void {
    const n = Pose.count[eid]!
    const len = n * JOINT_STRIDE
    const base = Pose.base[eid]!
    const anim = poseOffset(base, n, POSE_ANIM)
    const rest = ctx.assets[Pose.asset[eid]!]!.rest
    const base0 = layers[0]!
    const out0 = (base0.base + BLOCK_OUT * n) * JOINT_STRIDE
    if (Sampler.clip[eid]! >= 0) {
      data.copyWithin(out0, anim, anim + len)
    } else {
      // sampleBase skipped this character: keep the previous pose for a ragdoll hand-off here.
      if (awaitingBodies(ctx, eid)) {
        data.copyWithin(poseOffset(base, n, POSE_PREV), anim, anim + len)
        ctx.posesUsed[eid] = ctx.posesUsed[eid]! | (1 << POSE_PREV)
      }
      if (base0.blendSpace !== null) {
        sampleBlendSpace(data, base0.slot, base0.blendSpace, out0, n)
        blendFadeIn(data, base0, out0, n)
      } else {
        data.set(rest, out0)
      }
    }
    for (let k = 1; k < layers.length; k++) {
      const layer = layers[k]
      if (layer === undefined) continue
      const l = layer.slot
      const source = AnimLayer.source[l]
      if (source === SOURCE_NONE || !(AnimLayer.weight[l]! > 0)) continue
      const out = (layer.base + BLOCK_OUT * n) * JOINT_STRIDE
      if (source === SOURCE_CLIP) {
        sampleLayerClip(data, layer, rest, n)
      } else if (layer.blendSpace !== null) {
        sampleBlendSpace(data, l, layer.blendSpace, out, n)
        if (AnimLayer.mode[l] === MODE_ADDITIVE) {
          toDeltaPose(data, out, data, (layer.base + BLOCK_REF_TO * n) * JOINT_STRIDE, n)
        }
        blendFadeIn(data, layer, out, n)
      }
    }
  }

  /**
   * A blend space into `dest`: each point of nonzero weight into its own buffer (made from the rest pose when the
   * blend space started) at its time — synchronized, the layer's normalized phase × its clip's duration —, then
   * their weighted mix (blendWeightedPoses).
   */
  function sampleBlendSpace(
    data: Float32Array,
    l: number,
    bs: BlendSpaceState,
    dest: number,
    n: number,
  ): void {
    const points = bs.points
    const m = points.clip.length
    const sync = bs.sync === 1
    for (let p = 0; p < m; p++) {
      if (!(bs.weights[p]! > 0)) continue
      const clip = ctx.clips[points.clip[p]!]!.clip
      points.local[p] = sync ? AnimLayer.phase[l]! * bs.durations[p]! : points.time[p]!
      sampleClipChannels(
        data,
        bs.offsets[p]!,
        clip,
        bs.bindings[p]!,
        points.local,
        p,
        bs.cursors[p]!,
        0,
        false,
      )
    }
    blendWeightedPoses(data, dest, data, bs.offsets, bs.weights, m, n, bs.paths)
  }

  /**
   * A layer fading in (a blend space, playBlendSpace's fadeSeconds): OUT blended from the frozen FROM by the
   * fade's blend (blendPosesAt: lerp, shortest-arc slerp). Nothing once the fade has ended.
   */
  function blendFadeIn(data: Float32Array, layer: Layer, out: number, n: number): void {
    const l = layer.slot
    if (CrossFade.active[l] !== 1) return
    const from = (layer.base + BLOCK_FROM * n) * JOINT_STRIDE
    blendPosesAt(data, out, data, from, data, out, n, CrossFade.blend, l)
  }

  /** A clip layer other than 0 (and the fade inside it) into its OUT. */
  function sampleLayerClip(data: Float32Array, layer: Layer, rest: Float32Array, n: number): void {
    const l = layer.slot
    const clip = ctx.clips[Sampler.clip[l]!]!.clip
    const additive = AnimLayer.mode[l] === MODE_ADDITIVE
    const block = layer.base * JOINT_STRIDE
    const stride = n * JOINT_STRIDE
    const out = block + BLOCK_OUT * stride
    const cursors = ctx.cursors[l]!
    const squad = Sampler.rotation[l] === ROTATION_SQUAD
    if (CrossFade.active[l] === 1) {
      const from = CrossFade.from
      const fromId = from.clip[l]!
      if (fromId >= 0) {
        const fromClip = ctx.clips[fromId]!.clip
        const squadFrom = from.rotation[l] === ROTATION_SQUAD
        const binding = layer.fromSampleBinding!
        const half = cursors.length >>> 1
        sampleClipChannels(
          data,
          block + BLOCK_FROM * stride,
          fromClip,
          binding,
          from.local,
          l,
          cursors,
          half,
          squadFrom,
        )
      }
      layer.outBase = null
      const to = block + BLOCK_TO * stride
      sampleClipChannels(data, to, clip, layer.sampleBinding!, Sampler.local, l, cursors, 0, squad)
      if (additive) {
        const delta = block + BLOCK_DELTA * stride
        data.copyWithin(delta, block + BLOCK_FROM * stride, block + BLOCK_FROM * stride + stride)
        toDeltaPose(data, delta, data, block + BLOCK_REF_FROM * stride, n)
        data.copyWithin(out, to, to + stride)
        toDeltaPose(data, out, data, block + BLOCK_REF_TO * stride, n)
        blendPosesAt(data, out, data, delta, data, out, n, CrossFade.blend, l)
      } else {
        blendPosesAt(data, out, data, block + BLOCK_FROM * stride, data, to, n, CrossFade.blend, l)
      }
      return
    }
    const delta = layer.delta
    const binding = layer.sampleBinding!
    if (additive && (delta === null || layer.deltaClip !== Sampler.clip[l])) {
      // No delta clip (a difference not finite as a float32): the difference of the sampled pose.
      layer.outBase = null
      data.set(rest, out)
      sampleClipChannels(data, out, clip, binding, Sampler.local, l, cursors, 0, squad)
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
    sampleClipChannels(data, out, additive ? delta!.clip : clip, binding, Sampler.local, l, cursors, 0, squad)
  }

  return function sampleTracks(_world: World): void {
    const dense = characters.dense
    const data = ctx.pool.data
    const anyLayers = ctx.uses.layers
    const lodSkip = ctx.lod.skip
    const flag = fused.flag
    const edits = ctx.poseEdits
    fuse = fuseOn && kernel!.fused !== null && edits.stages.length === 0 && edits.ikCount === 0
    if (fuse) refreshFusedRuns(ctx, dense)
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      flag[eid] = 0
      // Nothing to sample (no clip on layer 0, or levels of detail hold it): no call.
      if (Sampler.clip[eid]! < 0 || lodSkip[eid] === 1) continue
      sampleBase(eid, data, anyLayers && ctx.layers[eid] !== undefined)
    }
    if (parallel !== null) parallel.run(PHASE_SAMPLE)
    if (!anyLayers) return
    for (let i = 0; i < dense.length; i++) {
      const stack = ctx.layers[dense[i]!]
      if (stack === undefined) continue
      sampleLayers(dense[i]!, data, stack.layers)
      composeLayers(dense[i]!, stack.layers, data)
    }
  }
}
