import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import { sampleClipChannels } from '../src/clip/sample.ts'
import { primeSampler } from '../src/engine/v8.ts'
import { blendJointLayers } from '../src/clip/blendLayers.ts'
import { awaitingBodies, type StepState, type AnimationStores } from './state.ts'
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
import { addRootMotionSource } from './rootMotion.ts'
import { PHASE_SAMPLE } from './workers/pool.ts'
import { JOINT_STRIDE, POSE_ANIM, POSE_FROM, POSE_PREV, POSE_TO, poseOffset } from '../components/Pose.ts'
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
  | 'posesUsed'
  | 'layers'
  | 'ragdolls'
  | 'rootMotion'
  | 'uses'
  | 'lod'
  | 'parallel'
> &
  ClipEventsInput & {
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
 * skipped: its pose and `Pose.changed` stay as they were, so idle crowds cost almost nothing here. So is a
 * character that levels of detail hold this step (`ctx.lod.skip`, systems/scheduleLod.ts), after its time, its
 * fade's outgoing clip and its events advanced as on any step.
 * A clip time (or outgoing clip time) that is not finite — only a direct store write can make one — is clamped
 * to 0. Right after advancing a clip's phase it reports the clip's loops, 'finished' and markers of the step
 * into `ctx.events` (systems/clipEvents.ts): the character's clip, then the clip it fades out of; and for a
 * character with root motion, adds each clip's motion of the step by its weight (systems/rootMotion.ts).
 * With workers (`ctx.parallel`), a character without layers has its samples (and a fade's blend) taken in a
 * parallel phase after the loop: the same kernels on the same values, so the same bits.
 * Never throws; allocates nothing but those event records.
 */
export function createSampleClipsSystem(ctx: SampleClipsInput) {
  const { Pose, Sampler, CrossFade } = ctx.stores
  const parallel = ctx.parallel
  const characters = registerQuery(ctx.world, [Sampler, Pose])
  primeSampler()
  /** The outgoing clip's clip-local time, handed to sampleClipChannels through memory like the Sampler's. */
  const fromLocal = new Float64Array(1)
  const emitClipEvents = createClipEventEmitter(ctx)
  /** The clip events' inputs (systems/clipEvents.ts EMIT_*), through memory like the clip times. */
  const motion = new Float64Array(EMIT_INPUT_LENGTH)

  /**
   * Advances the outgoing clip of a character's fade, reports its events, and leaves its clip-local time in
   * `fromLocal`. Its own function so that only integers cross a call here: inlined into sampleClips, its
   * advancePhase was past V8's inlining budget, and the floats it was passed were boxed (48 bytes a step).
   */
  function advanceOutgoing(eid: number, fromId: number): void {
    const fromClip = ctx.clips[fromId]!.clip
    const fromLoop = CrossFade.fromLoop[eid]!
    // pause holds the clip a fade leaves as well as the one it enters.
    const rate = Sampler.paused[eid] === 1 ? 0 : ctx.dt * CrossFade.fromSpeed[eid]!
    motion[EMIT_BEFORE] = CrossFade.fromTime[eid]!
    motion[EMIT_DELTA] = rate
    let fromPhase = advancePhase(CrossFade.fromTime[eid]!, rate, fromClip.duration, fromLoop)
    if (fromPhase - fromPhase !== 0) fromPhase = 0
    CrossFade.fromTime[eid] = fromPhase
    motion[EMIT_AFTER] = fromPhase
    motion[EMIT_WEIGHT] = 1 - CrossFade.blend[eid]!
    emitClipEvents(eid, 0, fromId, fromLoop, motion, EMIT_FADING_OUT, CrossFade.fromFinished, eid)
    const rm = ctx.uses.rootMotion ? ctx.rootMotion[eid] : undefined
    if (rm !== undefined) {
      const rest = ctx.assets[Pose.asset[eid]!]!.rest
      const squad = CrossFade.fromRotation[eid] === ROTATION_SQUAD
      addRootMotionSource(rm, rest, fromClip, ctx.fromBinding[eid]!, fromLoop, motion, squad)
    }
    fromLocal[0] = localTime(fromPhase, fromClip.duration, fromLoop)
  }

  return function sampleClips(_world: World): void {
    commitRemovals(ctx.world)
    const dense = characters.dense
    const data = ctx.pool.data
    const layersUsed = ctx.posesUsed
    const dt = ctx.dt
    const lodSkip = ctx.lod.skip
    const anyRootMotion = ctx.uses.rootMotion
    const anyLayers = ctx.uses.layers
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      Pose.changed[eid] = 0
      const clipId = Sampler.clip[eid]!
      if (clipId < 0) continue
      const clip = ctx.clips[clipId]!.clip
      const loop = Sampler.loop[eid]!
      const flags = Sampler.reset[eid]!
      const hold = (flags & SAMPLER_HOLD) !== 0
      const rate = Sampler.paused[eid] === 1 ? 0 : dt * Sampler.speed[eid]!
      motion[EMIT_BEFORE] = Sampler.time[eid]!
      motion[EMIT_DELTA] = hold ? 0 : rate
      let phase = hold ? Sampler.time[eid]! : advancePhase(Sampler.time[eid]!, rate, clip.duration, loop)
      // play() and crossFade() accept only finite times and speeds, but a game may write the store directly; a
      // NaN time would stay NaN forever (and resample every step), so a non-finite phase restarts the clip.
      if (phase - phase !== 0) phase = 0
      Sampler.time[eid] = phase
      motion[EMIT_AFTER] = phase
      motion[EMIT_WEIGHT] = CrossFade.active[eid] === 1 ? CrossFade.blend[eid]! : 1
      emitClipEvents(eid, 0, clipId, loop, motion, hold ? EMIT_START : 0, Sampler.finished, eid)
      const rm = anyRootMotion ? ctx.rootMotion[eid] : undefined
      if (rm !== undefined) {
        const rest = ctx.assets[Pose.asset[eid]!]!.rest
        const squad = Sampler.rotation[eid] === ROTATION_SQUAD
        addRootMotionSource(rm, rest, clip, ctx.binding[eid]!, loop, motion, squad)
      }
      const t = localTime(phase, clip.duration, loop)
      const fading = CrossFade.active[eid] === 1
      if (lodSkip[eid] === 1) {
        // Held by levels of detail: everything but the sample advances, so its next sampled step is exact. A
        // reset to rest waits for that sample; the hold of a new clip's start time is spent.
        if (fading && CrossFade.fromClip[eid]! >= 0) advanceOutgoing(eid, CrossFade.fromClip[eid]!)
        Sampler.reset[eid] = flags & ~SAMPLER_HOLD
        continue
      }
      // A character with layers is composed into ANIM every step (sampleLayers), so its layer 0 is sampled
      // afresh every step, from the rest pose and with every path of a fade blended.
      const layered = anyLayers && ctx.layers[eid] !== undefined
      if (!fading && flags === 0 && t === Sampler.lastTime[eid] && !layered) continue

      const n = Pose.count[eid]!
      const base = Pose.base[eid]!
      const anim = poseOffset(base, n, POSE_ANIM)
      // PREV serves one reader, the ragdoll hand-off (stepRagdolls, later in this step), for the animation's
      // velocity: it is kept only for a character whose ragdoll is waiting for its bodies, not copied for the
      // whole crowd every step.
      if (awaitingBodies(ctx, eid)) {
        data.copyWithin(poseOffset(base, n, POSE_PREV), anim, anim + n * JOINT_STRIDE)
        layersUsed[eid] = layersUsed[eid]! | (1 << POSE_PREV)
      }
      const squad = Sampler.rotation[eid] === ROTATION_SQUAD
      // The time goes to the kernels through the store (sampleClipChannels reads it there).
      Sampler.lastTime[eid] = t
      const cursors = ctx.cursors[eid]!
      if (fading) layersUsed[eid] = layersUsed[eid]! | (1 << POSE_FROM) | (1 << POSE_TO)

      if (fading && parallel !== null && !layered) {
        // With workers: the outgoing clip advances (and reports) here; the samples and blend wait for the phase.
        const fromId = CrossFade.fromClip[eid]!
        if (fromId >= 0) {
          advanceOutgoing(eid, fromId)
          parallel.fromLocal[eid] = fromLocal[0]!
        }
        parallel.queueFade(eid)
      } else if (fading) {
        const fromId = CrossFade.fromClip[eid]!
        const from = poseOffset(base, n, POSE_FROM)
        if (fromId >= 0) {
          const fromClip = ctx.clips[fromId]!.clip
          advanceOutgoing(eid, fromId)
          const fromSquad = CrossFade.fromRotation[eid] === ROTATION_SQUAD
          const fromCursors = cursors.length >>> 1
          const fromBinding = ctx.fromBinding[eid]!
          sampleClipChannels(data, from, fromClip, fromBinding, fromLocal, 0, cursors, fromCursors, fromSquad)
        }
        const to = poseOffset(base, n, POSE_TO)
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
        // With workers, the sample itself waits for the parallel phase at the end (the same kernel).
        if (parallel !== null && !layered) parallel.queueSample(eid)
        else sampleClipChannels(data, anim, clip, ctx.binding[eid]!, Sampler.lastTime, eid, cursors, 0, squad)
      }
      Sampler.reset[eid] = 0
      Pose.changed[eid] = 1
      Pose.changedStep[eid] = ctx.step
    }
    if (parallel !== null) parallel.run(PHASE_SAMPLE)
  }
}
