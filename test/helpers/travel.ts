/**
 * The travelling Fox of the root motion tests: the shipped Fox with travelling copies of its clips, made by
 * demo/travel.ts (the public buildClip on edited channels), as a game would.
 */
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { withTravel } from '../../demo/travel.ts'

export const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
export const ROBOT = 'assets/RobotExpressive/RobotExpressive.glb'
/** The Fox's hips, the node its clips walk (glTF index 4, under b_Root_00, a −90° turn about x). */
export const FOX_HIPS = 'b_Hip_01'

/**
 * The Fox with travelling walks: b_Root_00 turns −90° about x, so the hips' −y is the Fox's forward (+z) and
 * their +z its up. 'WalkForward' goes 70 cm a loop, 'WalkFast' 140, 'RunForward' 150; 'WalkTurning' turns 90°
 * a loop about the Fox's up.
 */
export async function travellingFox(): Promise<AnimationAsset> {
  const fox = await loadAsset(FOX)
  return withTravel(
    fox,
    { name: 'WalkForward', from: 'Walk', node: FOX_HIPS, move: [0, -70, 0] },
    { name: 'WalkFast', from: 'Walk', node: FOX_HIPS, move: [0, -140, 0] },
    { name: 'RunForward', from: 'Run', node: FOX_HIPS, move: [0, -150, 0] },
    { name: 'WalkTurning', from: 'Walk', node: FOX_HIPS, turn: Math.PI / 2, axis: [0, 0, 1] },
  )
}
