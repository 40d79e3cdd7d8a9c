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
 * Which steps a character at rate R samples: those where (step + phase) is a multiple of R. Its phase: the
 * k-th of the n characters at rate R (in the plugin's character list, the systems' query order) has phase
 * ⌊R·k / n⌋ (lodPhases). So each step samples an equal share of every rate's characters, and a contiguous
 * stretch of them: a crowd whose far quarter was instead picked by a hash of the entity id (every 4th
 * character, scattered) cost 45–51 % of a full-rate step, against 32–39 % for runs of ≥ 4096 ids (10,000
 * Foxes all at rate 4, CPU time; the work, in nodes recomputed, was 25 % either way). A character that is
 * added, removed or changes rate moves the shares' bounds, so some characters' next sample comes a step or
 * two early or late: deterministic like the rest. Characters with layers and characters whose ragdoll is
 * active run at full rate.
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
 * The phases scheduleLod gives characters of these rates (1, 2 or 4, in the plugin's character order): the k-th
 * of the n characters at rate R gets ⌊R·k / n⌋; rate 1, phase 0. For tools and tests; the system computes
 * the same in place. `(R·k) / n` is an exact division of integers below 2^26, truncated by `| 0`: the same in
 * every engine.
 */
export function lodPhases(rates: ArrayLike<number>): Uint8Array {
  const total = [0, 0, 0, 0, 0]
  for (let i = 0; i < rates.length; i++) total[rates[i]!]!++
  const seen = [0, 0, 0, 0, 0]
  const out = new Uint8Array(rates.length)
  for (let i = 0; i < rates.length; i++) {
    const r = rates[i]!
    out[i] = r === 1 ? 0 : ((r * seen[r]!++) / total[r]!) | 0
  }
  return out
}

/** Whether a character at `rate` (1, 2 or 4) and phase `phase` is sampled in the step counted `step`. */
export function lodSampled(step: number, phase: number, rate: number): boolean {
  return ((step + phase) & (rate - 1)) === 0
}

/** What scheduleLod reads and writes: a slice of the plugin's context (tests may pass just this). */
export type ScheduleLodInput = Pick<StepState, 'world' | 'step' | 'sceneGraph' | 'layers' | 'lod'> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'Ragdoll'>
}

/**
 * scheduleLod: with levels of detail on, gives every character its rate and whether this step holds its pose
 * (`lod.rate`, `lod.skip`, read by sampleTracks). Runs first in the step. Off, it does nothing (setLod(null)
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
    // First the rates and how many characters have each, then each one's phase among those of its rate.
    let twos = 0
    let fours = 0
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
      if (r === 2) twos++
      else if (r === 4) fours++
    }
    let two = 0
    let four = 0
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const r = rate[eid]!
      let phase = 0
      if (r === 2) phase = ((2 * two++) / twos) | 0
      else if (r === 4) phase = ((4 * four++) / fours) | 0
      skip[eid] = ((step + phase) & (r - 1)) === 0 ? 0 : 1
    }
  }
}
