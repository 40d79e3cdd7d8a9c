import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationStores, StepState } from './state.ts'

/**
 * Update-rate levels of detail: characters far from a camera position the game sets (setLod, setLodCamera) are
 * sampled every 2nd or 4th step and hold their pose in between. Their clip time, cross-fade and events advance
 * every step as usual, so on its sampled steps a far character shows exactly what it would at full rate.
 *
 *   settings   camera x, y, z (world units), near, far: distance < near → every step (rate 1),
 *              near ≤ distance < far → every 2nd step, distance ≥ far → every 4th
 *   rate[e]    the rate this step gave character e (1 while levels of detail are off)
 *   skip[e]    1 when this step holds character e's pose (not one of its sampled steps)
 *
 * The distance is from the character entity's world position (its last step's world matrix) to the camera.
 * Which steps a character at rate R samples: those where (step + phase(e)) is a multiple of R, phase(e) a hash
 * of its entity id (lodPhase), so a crowd's sampling is spread evenly over the R steps whatever the spacing of
 * its entity ids (characters of a 28-node asset are 29 ids apart: by id modulo 4 alone, every one would share
 * one phase). Characters with layers and characters whose ragdoll is active run at full rate.
 */
export interface LodState {
  /** Whether levels of detail are on (setLod with options); off, every character is sampled every step. */
  enabled: boolean
  /** Whether any LOD call was ever made: hash() and snapshots carry the settings only then. */
  touched: boolean
  /** Camera x, y, z and the near and far distances (see above). */
  readonly settings: Float64Array
  /** Per entity: this step's rate (1, 2 or 4). */
  readonly rate: Uint8Array
  /** Per entity: 1 when this step holds the character's pose. */
  readonly skip: Uint8Array
}

export const LOD_CAMERA_X = 0
export const LOD_NEAR = 3
export const LOD_FAR = 4
export const LOD_SETTINGS = 5

/** Levels of detail off, the camera at the origin. */
export function createLodState(capacity: number): LodState {
  return {
    enabled: false,
    touched: false,
    settings: new Float64Array(LOD_SETTINGS),
    rate: new Uint8Array(capacity).fill(1),
    skip: new Uint8Array(capacity),
  }
}

/**
 * A character's phase in its sampling schedule, in [0, 4): the top two bits of Fibonacci hashing (the id times
 * 2^16/φ, modulo 2^16), which spreads ids of any regular spacing over the four phases. Integer arithmetic only
 * (the product stays below 2^53 for ids below 2^24), so every engine gives the same phase.
 */
export function lodPhase(eid: number): number {
  return ((eid * 40503) & 0xffff) >>> 14
}

/** Whether a character at `rate` (1, 2 or 4) with entity id `eid` is sampled in the step counted `step`. */
export function lodSampled(step: number, eid: number, rate: number): boolean {
  return ((step + lodPhase(eid)) & (rate - 1)) === 0
}

/** What scheduleLod reads and writes: a slice of the plugin's context (tests may pass just this). */
export type ScheduleLodInput = Pick<StepState, 'world' | 'step' | 'sceneGraph' | 'layers' | 'lod'> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'Ragdoll'>
}

/**
 * scheduleLod: with levels of detail on, gives every character its rate and whether this step holds its pose
 * (`lod.rate`, `lod.skip`, read by sampleClips). Runs first in the step. Off, it does nothing (setLod(null)
 * clears both arrays). Never throws; allocates nothing.
 */
export function createScheduleLodSystem(ctx: ScheduleLodInput) {
  const { Pose, Sampler, Ragdoll } = ctx.stores
  const characters = registerQuery(ctx.world, [Sampler, Pose])
  const { settings, rate, skip } = ctx.lod
  const world = ctx.sceneGraph.store.world

  return function scheduleLod(_world: World): void {
    if (!ctx.lod.enabled) return
    commitRemovals(ctx.world)
    const dense = characters.dense
    const step = ctx.step
    const cx = settings[LOD_CAMERA_X]!
    const cy = settings[LOD_CAMERA_X + 1]!
    const cz = settings[LOD_CAMERA_X + 2]!
    const near = settings[LOD_NEAR]!
    const far = settings[LOD_FAR]!
    const near2 = near * near
    const far2 = far * far
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const w = eid * 16
      const dx = world[w + 12]! - cx
      const dy = world[w + 13]! - cy
      const dz = world[w + 14]! - cz
      const d2 = dx * dx + dy * dy + dz * dz
      let r = d2 < near2 ? 1 : d2 < far2 ? 2 : 4
      if (ctx.layers[eid] !== undefined || Ragdoll.active[eid] !== RAGDOLL_OFF) r = 1
      rate[eid] = r
      skip[eid] = ((step + lodPhase(eid)) & (r - 1)) === 0 ? 0 : 1
    }
  }
}
