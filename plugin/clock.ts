import { AnimationError, showValue } from '../src/errors.ts'
import { finiteNumber } from './checks.ts'
import type { AnimationContext } from './context.ts'
import { checkLive } from './options.ts'

/**
 * Sets the animation clock's rate, as three.js's `mixer.timeScale`: from the next step, every clip, cross-fade,
 * layer fade and weight ramp of every character moves by `scale` × dt seconds a step (root motion and events
 * follow the clips); 0 freezes them, 1 is the normal rate. Ragdoll physics, levels of detail and the step counter
 * keep the fixed step. Deterministic like any call (in hash() and snapshots). Throws AnimationError 'argument',
 * changing nothing, for a scale that is not a finite number ≥ 0 (to play backwards, give a clip a negative speed).
 */
export function setTimeScale(ctx: AnimationContext, scale: number): void {
  checkLive(ctx, 'setTimeScale')
  const what = `setTimeScale(${showValue(scale)})`
  const s = finiteNumber(scale, what, 'scale')
  if (!(s >= 0)) {
    throw new AnimationError(
      'argument',
      `${what}: scale ${s} must be ≥ 0 (a clip plays backwards with a negative speed: setSpeed)`,
    )
  }
  ctx.timeScale = s
}
