import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import type { AnimationContext } from './context.ts'
import { SAMPLER_RESET_REST } from '../components/Sampler.ts'

/**
 * advanceCrossFades: `blend += dt / duration` for every active fade. When it reaches 1 the fade ends: the
 * outgoing clip is dropped, and the Sampler's clip (already the incoming one) plays alone from the next sample,
 * starting from the rest pose (`Sampler.reset`) so nothing of the outgoing clip lingers on joints the incoming
 * one does not animate. Runs before sampleClips. Never throws; allocates nothing.
 */
export function createAdvanceCrossFadesSystem(ctx: AnimationContext) {
  const { CrossFade, Sampler } = ctx.stores
  const fading = registerQuery(ctx.world, [CrossFade, Sampler])

  return function advanceCrossFades(_world: World): void {
    commitRemovals(ctx.world)
    const dense = fading.dense
    const dt = ctx.dt
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      if (CrossFade.active[eid] !== 1) continue
      const blend = CrossFade.blend[eid]! + dt / CrossFade.duration[eid]!
      if (blend >= 1) {
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
