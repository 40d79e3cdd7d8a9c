import type { AnimationPlugin } from '../../entry/plugin.ts'

/** A plugin and what happens to it after k steps (before step k + 1). */
export interface LockstepScene {
  p: AnimationPlugin
  act: (k: number) => void
}

/**
 * Steps two scenes side by side, `steps` times: each acts, then steps, then `check(k)` compares them (the
 * tests that show a replacement of a cannon-es part keeps its bits).
 */
export function lockstep(
  a: LockstepScene,
  b: LockstepScene,
  steps: number,
  check: (k: number) => void,
): void {
  for (let k = 0; k < steps; k++) {
    a.act(k)
    b.act(k)
    a.p.step()
    b.p.step()
    check(k)
  }
}
