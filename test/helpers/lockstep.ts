import type { AnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'

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

/**
 * A mixed ragdoll scene on `p` (the solver's and the patch set's lockstep tests): Foxes at `foxes` (walking,
 * ragdolled with a hit at step 3; the last one hit again at `hitStep`), and two RobotExpressives: a partial
 * ragdoll (step 5) and a powered one with its root held (step 7), weakened and let go at step 90. Returns the
 * scene's `act`.
 */
export function ragdollMix(
  p: AnimationPlugin,
  fox: AnimationAsset,
  robot: AnimationAsset,
  foxes: readonly (readonly [number, number, number])[],
  hitStep: number,
): (k: number) => void {
  const cs = foxes.map((at, i) => {
    const c = p.addCharacter(fox)
    p.setTransform(c, { position: [...at], scale: [0.01, 0.01, 0.01] })
    p.play(c, 'Walk', { time: 0.2 * i })
    return c
  })
  const robots = [0, 1].map((i) => {
    const c = p.addCharacter(robot)
    p.setTransform(c, { position: [3 + 2 * i, 0, 0], scale: [0.4, 0.4, 0.4] })
    p.play(c, 'Walking')
    return c
  })
  return (k: number): void => {
    if (k === 3)
      cs.forEach((c, i) => p.ragdoll(c, { impulse: { joint: 'b_Spine02_03', impulse: [3, 0, i] } }))
    if (k === 5)
      p.ragdoll(robots[0]!, { root: 'UpperArm.L', impulse: { joint: 'Palm1.L', impulse: [4, 2, 0] } })
    if (k === 7) p.ragdoll(robots[1]!, { motors: { strength: 1, holdRoot: true } })
    if (k === 90) p.setRagdollMotors(robots[1]!, { strength: 0.4, holdRoot: false })
    if (k === hitStep) p.applyImpulse(cs[cs.length - 1]!, 'b_Head_05', [0, 3, 3])
  }
}
