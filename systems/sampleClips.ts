import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import { sampleClipChannels } from '../src/clip/sample.ts'
import { primeSampler } from '../src/engine/v8.ts'
import { blendJointLayers } from '../src/clip/blendLayers.ts'
import { awaitingBodies, type StepState, type AnimationStores } from './state.ts'
import {
  JOINT_STRIDE,
  LAYER_ANIM,
  LAYER_FROM,
  LAYER_PREV,
  LAYER_TO,
  layerOffset,
} from '../components/Pose.ts'
import {
  advancePhase,
  localTime,
  ROTATION_SQUAD,
  SAMPLER_HOLD,
  SAMPLER_RESET_REST,
} from '../components/Sampler.ts'

/** What sampleClips reads and writes: a slice of the plugin's context (tests may pass just this). */
export type SampleClipsInput = Pick<
  StepState,
  | 'world'
  | 'dt'
  | 'step'
  | 'pool'
  | 'assets'
  | 'clips'
  | 'cursors'
  | 'binding'
  | 'fromBinding'
  | 'fadePaths'
  | 'layers'
  | 'ragdolls'
> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'CrossFade' | 'Ragdoll'>
}

/**
 * sampleClips: advances every character's clip time and samples its clip into the ANIM pose layer; during a
 * cross-fade, samples the outgoing clip into FROM (unless it fades from a frozen pose) and the incoming one into
 * TO, and writes their blend into ANIM (only the translations and scales that can change, `ctx.fadePaths`; the
 * others already agree in all three layers). Before writing ANIM of a character whose ragdoll is about to start, it
 * keeps the old ANIM in PREV (the hand-off's velocities); for the others PREV is left as it was.
 *
 * A character whose clip-local time did not move (paused, or a finished once-clip) and that is not fading is
 * skipped: its pose and `Pose.changed` stay as they were, so idle crowds cost almost nothing here.
 * A clip time (or outgoing clip time) that is not finite — only a direct store write can make one — is clamped
 * to 0. Never throws; allocates nothing.
 */
export function createSampleClipsSystem(ctx: SampleClipsInput) {
  const { Pose, Sampler, CrossFade } = ctx.stores
  const characters = registerQuery(ctx.world, [Sampler, Pose])
  primeSampler()
  /** The outgoing clip's clip-local time, handed to sampleClipChannels through memory like the Sampler's. */
  const fromLocal = new Float64Array(1)

  return function sampleClips(_world: World): void {
    commitRemovals(ctx.world)
    const dense = characters.dense
    const data = ctx.pool.data
    const dt = ctx.dt
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      Pose.changed[eid] = 0
      const clipId = Sampler.clip[eid]!
      if (clipId < 0) continue
      const clip = ctx.clips[clipId]!.clip
      const loop = Sampler.loop[eid]!
      const flags = Sampler.reset[eid]!
      let phase =
        (flags & SAMPLER_HOLD) !== 0
          ? Sampler.time[eid]!
          : advancePhase(
              Sampler.time[eid]!,
              Sampler.paused[eid] === 1 ? 0 : dt * Sampler.speed[eid]!,
              clip.duration,
              loop,
            )
      // play() and crossFade() accept only finite times and speeds, but a game may write the store directly; a
      // NaN time would stay NaN forever (and resample every step), so a non-finite phase restarts the clip.
      if (phase - phase !== 0) phase = 0
      Sampler.time[eid] = phase
      const t = localTime(phase, clip.duration, loop)
      const fading = CrossFade.active[eid] === 1
      // A character with layers is composed into ANIM every step (sampleLayers), so its layer 0 is sampled
      // afresh every step, from the rest pose and with every path of a fade blended.
      const layered = ctx.layers[eid] !== undefined
      if (!fading && flags === 0 && t === Sampler.lastTime[eid] && !layered) continue

      const n = Pose.count[eid]!
      const base = Pose.base[eid]!
      const anim = layerOffset(base, n, LAYER_ANIM)
      // PREV serves one reader, the ragdoll hand-off (stepRagdolls, later in this step), for the animation's
      // velocity: it is kept only for a character whose ragdoll is waiting for its bodies, not copied for the
      // whole crowd every step.
      if (awaitingBodies(ctx, eid)) {
        data.copyWithin(layerOffset(base, n, LAYER_PREV), anim, anim + n * JOINT_STRIDE)
      }
      const squad = Sampler.rotation[eid] === ROTATION_SQUAD
      // The time goes to the kernels through the store (sampleClipChannels reads it there).
      Sampler.lastTime[eid] = t
      const cursors = ctx.cursors[eid]!

      if (fading) {
        const fromId = CrossFade.fromClip[eid]!
        const from = layerOffset(base, n, LAYER_FROM)
        if (fromId >= 0) {
          const fromClip = ctx.clips[fromId]!.clip
          const fromLoop = CrossFade.fromLoop[eid]!
          let fromPhase = advancePhase(
            CrossFade.fromTime[eid]!,
            Sampler.paused[eid] === 1 ? 0 : dt * CrossFade.fromSpeed[eid]!,
            fromClip.duration,
            fromLoop,
          )
          if (fromPhase - fromPhase !== 0) fromPhase = 0
          CrossFade.fromTime[eid] = fromPhase
          fromLocal[0] = localTime(fromPhase, fromClip.duration, fromLoop)
          const fromSquad = CrossFade.fromRotation[eid] === ROTATION_SQUAD
          const fromCursors = cursors.length >>> 1
          const fromBinding = ctx.fromBinding[eid]!
          sampleClipChannels(data, from, fromClip, fromBinding, fromLocal, 0, cursors, fromCursors, fromSquad)
        }
        const to = layerOffset(base, n, LAYER_TO)
        sampleClipChannels(data, to, clip, ctx.binding[eid]!, Sampler.lastTime, eid, cursors, 0, squad)
        blendJointLayers(
          data,
          anim,
          data,
          from,
          data,
          to,
          n,
          CrossFade.blend,
          eid,
          layered ? null : (ctx.fadePaths[eid] ?? null),
        )
      } else {
        if ((flags & SAMPLER_RESET_REST) !== 0 || layered) data.set(ctx.assets[Pose.asset[eid]!]!.rest, anim)
        sampleClipChannels(data, anim, clip, ctx.binding[eid]!, Sampler.lastTime, eid, cursors, 0, squad)
      }
      Sampler.reset[eid] = 0
      Pose.changed[eid] = 1
      Pose.changedStep[eid] = ctx.step
    }
  }
}
