import type { World } from 'bitecs'
import type { AnimationContext } from './context.ts'

/**
 * stepRagdolls: the physics hand-off. Placeholder in the pipeline until ragdolls land: it keeps its place in the
 * fixed order (after sampleClips, before blendPoses) and does nothing.
 */
export function createStepRagdollsSystem(_ctx: AnimationContext) {
  return function stepRagdolls(_world: World): void {}
}
