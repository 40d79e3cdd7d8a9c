import type { World } from 'bitecs'

/**
 * advanceClock: the last system of a step; counts the step (the simulation clock that events, `changedStep`
 * and snapshots read). A game that runs `plugin.systems` in its own pipeline runs it too, so its clock matches
 * `plugin.step()`.
 */
export function createAdvanceClockSystem(ctx: { step: number }) {
  return function advanceClock(_world: World): void {
    ctx.step++
  }
}
