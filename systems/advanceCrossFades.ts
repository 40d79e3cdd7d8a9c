import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import type { StepState, AnimationStores } from './state.ts'
import { SAMPLER_RESET_REST } from '../components/Sampler.ts'

/**
 * A fade whose blend is within this of 1 ends: `k·dt/duration` for a duration of exactly k steps can round to
 * 1 − 1 ulp (1.85 s at 60 Hz does), which would show one extra step at blend 0.9999999999999999.
 */
export const FADE_END_TOLERANCE = 1e-9

/** What advanceCrossFades reads and writes: a slice of the plugin's context (tests may pass just this). */
export type AdvanceCrossFadesInput = Pick<StepState, 'world' | 'dt' | 'fromBinding'> & {
  readonly stores: Pick<AnimationStores, 'CrossFade' | 'Sampler'>
}

/**
 * advanceCrossFades: for every active fade, `steps += 1` and `blend = steps·dt / duration` (a product, so the
 * blend after k steps is exactly k·dt/duration and does not drift as a running sum would). When it reaches 1
 * (within FADE_END_TOLERANCE) the fade ends: blend is 1, the outgoing clip is dropped, and the Sampler's clip
 * (already the incoming one) plays alone from this step's sample on, starting from the rest pose
 * (`Sampler.reset`) so nothing of the outgoing clip lingers on joints the incoming one does not animate.
 * A duration that is not finite and > 0 (only a direct store write can make one) ends the fade at once, a cut.
 * Runs before sampleClips. Never throws; allocates nothing.
 */
export function createAdvanceCrossFadesSystem(ctx: AdvanceCrossFadesInput) {
  const { CrossFade, Sampler } = ctx.stores
  const fading = registerQuery(ctx.world, [CrossFade, Sampler])

  return function advanceCrossFades(_world: World): void {
    commitRemovals(ctx.world)
    const dense = fading.dense
    const dt = ctx.dt
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      if (CrossFade.active[eid] !== 1) continue
      const steps = CrossFade.steps[eid]! + 1
      CrossFade.steps[eid] = steps
      const blend = (steps * dt) / CrossFade.duration[eid]!
      // Written so that a blend outside (0, 1) of any kind ends the fade too: public calls accept only finite
      // durations ≥ 0 (and 0 is a cut), but a duration a game wrote into the store as 0, negative, NaN or
      // Infinity would otherwise give a fade that never ends (blend NaN, ≤ 0) or a blend of ∞.
      if (!(blend > 0 && blend < 1 - FADE_END_TOLERANCE)) {
        CrossFade.blend[eid] = 1
        CrossFade.active[eid] = 0
        CrossFade.fromClip[eid] = -1
        ctx.fromBinding[eid] = undefined
        Sampler.reset[eid] = Sampler.reset[eid]! | SAMPLER_RESET_REST
      } else {
        CrossFade.blend[eid] = blend
      }
    }
  }
}
