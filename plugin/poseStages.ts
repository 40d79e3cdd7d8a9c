import { AnimationError, showValue } from '../src/errors.ts'
import type { PoseStage } from '../systems/poseEdits.ts'
import type { AnimationContext } from './context.ts'
import { checkLive } from './options.ts'

/**
 * Adds a pose stage: `stage(pose)` runs once every step from the next on, after the stages added before it,
 * where the animated pose is made and nothing has read it yet (systems/poseStages.ts). Returns the function that
 * removes it (once; later calls do nothing). The stage is the game's, not the simulation's: snapshots do not
 * hold it, so a restore into another plugin needs the same stages added. Throws AnimationError for a stage that
 * is not a function.
 */
export function addPoseStage(ctx: AnimationContext, stage: PoseStage): () => void {
  checkLive(ctx, 'addPoseStage')
  if (typeof stage !== 'function') {
    throw new AnimationError('argument', `addPoseStage: stage ${showValue(stage)} is not a function`)
  }
  const state = ctx.poseEdits
  // A new array each time: a step under way keeps iterating the one it started with.
  const entry: PoseStage = (pose) => stage(pose)
  state.stages = [...state.stages, entry]
  return () => {
    if (!state.stages.includes(entry)) return
    state.stages = state.stages.filter((s) => s !== entry)
  }
}

/** Throws AnimationError when called from inside a pose stage (`what` may not run there). */
export function checkNotInStage(ctx: AnimationContext, what: string): void {
  if (ctx.poseEdits.running) {
    throw new AnimationError('argument', `${what}: not allowed inside a pose stage (it runs within step())`)
  }
}
