/**
 * Ragdoll: how much of a character's pose comes from physics. One value per entity id (SoA).
 *
 * `weight` (ragdoll_weight) ramps 0 → 1 at `rate` per second after activation (default 5, i.e. 0.2 s) and back
 * to 0 for getting up; blendPoses blends the ANIM and PHYS pose layers by it. The cannon-es bodies and
 * constraints live in the plugin context, found through `handle`.
 */
export const RAGDOLL_OFF = 0
export const RAGDOLL_FALLING = 1
export const RAGDOLL_GETTING_UP = 2
export const DEFAULT_RAGDOLL_RATE = 5

/**
 * Ragdoll store: per character, the physics share of its pose (`weight`), how fast that ramps, and the ragdoll's
 * state. One value per entity id (SoA). The plugin writes it (ragdoll(), getUp(), stepRagdolls); games read it.
 */
export interface RagdollStore {
  /** ragdoll_weight in [0, 1]. */
  weight: Float64Array
  /** Ramp rate, weight units per second (> 0). */
  rate: Float64Array
  /**
   * RAGDOLL_OFF (0, no ragdoll) | RAGDOLL_FALLING (1, ramping to or holding 1) | RAGDOLL_GETTING_UP (2, ramping
   * to 0; the bodies leave at 0).
   */
  active: Uint8Array
  /** Index of the character's physics instance in the plugin context, -1 when none. */
  handle: Int32Array
}

export function createRagdollStore(capacity: number): RagdollStore {
  return {
    weight: new Float64Array(capacity),
    rate: new Float64Array(capacity).fill(DEFAULT_RAGDOLL_RATE),
    active: new Uint8Array(capacity),
    handle: new Int32Array(capacity).fill(-1),
  }
}
