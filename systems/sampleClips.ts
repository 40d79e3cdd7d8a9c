import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import type { Clip, RotationMode } from '../src/clip/clip.ts'
import { sampleChannel } from '../src/clip/sample.ts'
import { blendJointLayers } from '../src/clip/blendPose.ts'
import type { AnimationContext } from './context.ts'
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

/**
 * sampleClips: advances every character's clip time and samples its clip into the ANIM pose layer; during a
 * cross-fade, samples the outgoing clip into FROM (unless it fades from a frozen pose) and the incoming one into
 * TO, and writes their blend into ANIM. Before writing ANIM it keeps the old one in PREV (for velocities).
 *
 * A character whose clip-local time did not move (paused, or a finished once-clip) and that is not fading is
 * skipped: its pose and `Pose.changed` stay as they were, so idle crowds cost almost nothing here.
 * Never throws; allocates nothing.
 */
export function createSampleClipsSystem(ctx: AnimationContext) {
  const { Pose, Sampler, CrossFade } = ctx.stores
  const characters = registerQuery(ctx.world, [Sampler, Pose])

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
      const phase =
        (flags & SAMPLER_HOLD) !== 0
          ? Sampler.time[eid]!
          : advancePhase(Sampler.time[eid]!, dt * Sampler.speed[eid]!, clip.duration, loop)
      Sampler.time[eid] = phase
      const t = localTime(phase, clip.duration, loop)
      const fading = CrossFade.active[eid] === 1
      if (!fading && flags === 0 && t === Sampler.lastTime[eid]) continue

      const n = Pose.count[eid]!
      const base = Pose.base[eid]!
      const anim = layerOffset(base, n, LAYER_ANIM)
      data.copyWithin(layerOffset(base, n, LAYER_PREV), anim, anim + n * JOINT_STRIDE)
      const mode: RotationMode = Sampler.rotation[eid] === ROTATION_SQUAD ? 'squad' : 'slerp'
      const cursors = ctx.cursors[eid]!

      if (fading) {
        const fromId = CrossFade.fromClip[eid]!
        const from = layerOffset(base, n, LAYER_FROM)
        if (fromId >= 0) {
          const fromClip = ctx.clips[fromId]!.clip
          const fromLoop = CrossFade.fromLoop[eid]!
          const fromPhase = advancePhase(
            CrossFade.fromTime[eid]!,
            dt * CrossFade.fromSpeed[eid]!,
            fromClip.duration,
            fromLoop,
          )
          CrossFade.fromTime[eid] = fromPhase
          const ft = localTime(fromPhase, fromClip.duration, fromLoop)
          const fromMode: RotationMode = CrossFade.fromRotation[eid] === ROTATION_SQUAD ? 'squad' : 'slerp'
          const fromCursors = cursors.length >>> 1
          sampleClipInto(data, from, fromClip, ctx.fromBinding[eid]!, ft, cursors, fromCursors, fromMode)
        }
        const to = layerOffset(base, n, LAYER_TO)
        sampleClipInto(data, to, clip, ctx.binding[eid]!, t, cursors, 0, mode)
        blendJointLayers(data, anim, data, from, data, to, n, CrossFade.blend[eid]!)
      } else {
        if ((flags & SAMPLER_RESET_REST) !== 0) data.set(ctx.assets[Pose.asset[eid]!]!.rest, anim)
        sampleClipInto(data, anim, clip, ctx.binding[eid]!, t, cursors, 0, mode)
      }
      Sampler.reset[eid] = 0
      Sampler.lastTime[eid] = t
      Pose.changed[eid] = 1
      Pose.changedStep[eid] = ctx.step
    }
  }
}

/**
 * Samples every bound channel of `clip` at clip-local time `t` into the pose layer at float offset `layer`.
 * `binding[c]` is channel c's float offset inside the layer, or -1 to skip it; channel c uses cursor
 * `cursorStart + c`.
 */
export function sampleClipInto(
  data: Float32Array,
  layer: number,
  clip: Clip,
  binding: Int32Array,
  t: number,
  cursors: Uint32Array,
  cursorStart: number,
  mode: RotationMode,
): void {
  const channels = clip.channels
  for (let c = 0; c < channels.length; c++) {
    const offset = binding[c]!
    if (offset < 0) continue
    sampleChannel(data, layer + offset, channels[c]!, t, cursors, cursorStart + c, mode)
  }
}
