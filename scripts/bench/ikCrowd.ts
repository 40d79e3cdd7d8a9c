/**
 * The IK of the benchmark's "ik" crowd (the ik section, and `npm run bench:ab -- --ik`): on every character
 * 'feet' on a height function of the ground (a gentle slope: both legs solve, the pelvis drops, the soles turn)
 * and 'aim' of the head at a point ahead, shared with the neck. Public calls only, so bench:ab's base version
 * (which gets a copy of this file) can run it too.
 */
import type { AnimationPlugin } from '../../entry/plugin.ts'

/** The ground under the crowd: a slope of 3 % along x and 2 % along z (deterministic, cheap). */
const ground = (x: number, z: number): number => 0.03 * x - 0.02 * z

/** Gives every character of `characters` its feet and aim solvers (`on`), or removes them. */
export function setCrowdIK(plugin: AnimationPlugin, characters: ArrayLike<number>, on: boolean): void {
  for (let i = 0; i < characters.length; i++) {
    const c = characters[i]!
    plugin.setIK(c, 'feet', on ? { kind: 'feet', left: 'footL', right: 'footR', ground } : null)
    plugin.setIK(
      c,
      'look',
      on
        ? {
            kind: 'aim',
            joint: 'head',
            axis: [0, 0, 1],
            up: [0, 1, 0],
            target: [1, 1.6, 4],
            limits: { yaw: 1.2, pitch: 0.6 },
            chain: [{ joint: 'neck', weight: 0.5 }],
          }
        : null,
    )
  }
}
