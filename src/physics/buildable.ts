import type { ResolvedBody } from './description.ts'
import { WORLD_STRIDE } from './kinematics.ts'

/** The limits a ragdoll body is built within (src/physics/ragdoll.ts, shapes.ts), checked before it is. */

/**
 * Most shapes a body is built from: a capsule's spheres and the riding spheres after them. Build time and each
 * contact's cost grow with it; the shipped rigs' bodies have at most 5 (Fox, RobotExpressive) and 13 (a long
 * thin capsule of SimpleSkin, now 8 spheres with gaps between them).
 */
export const MAX_BODY_SHAPES = 8
/** Most spheres a capsule body is built from (the riding spheres fill what it leaves of MAX_BODY_SHAPES). */
export const MAX_CAPSULE_SPHERES = MAX_BODY_SHAPES

/**
 * The sizes and places a ragdoll body may have at the hand-off, in world units: a radius of at least
 * RAGDOLL_MIN_RADIUS (0 after a zero scale gives a body no inertia, and cannon-es divides by it), and a radius,
 * length and position coordinates of at most RAGDOLL_MAX_EXTENT. Beyond that the solver's squares overflow or
 * lose every digit (nested scales of 10^5 gave bodies of radius 10^162, 52,000 contacts a step and a heap out of
 * memory), and float32 world matrices could not show the result anyway (their step is 64 units at 10^9).
 */
export const RAGDOLL_MIN_RADIUS = 1e-9
export const RAGDOLL_MAX_EXTENT = 1e9

/**
 * Why a ragdoll of `bodies` cannot be built at the joint world transforms `w` (8 doubles per joint,
 * kinematics.ts), naming the first body that cannot and its value; null when every body can (see
 * RAGDOLL_MAX_EXTENT). Reads the same values spawnRagdoll builds from. Allocates only the answer.
 */
export function unbuildableBody(
  bodies: readonly ResolvedBody[],
  nodeJoint: Int32Array,
  w: Float64Array,
): string | null {
  for (let b = 0; b < bodies.length; b++) {
    const spec = bodies[b]!
    const o = nodeJoint[spec.node]! * WORLD_STRIDE
    const s = w[o + 7]!
    const radius = Math.abs(spec.radius * s)
    const length = Math.abs(spec.length * s)
    let rotation = 0
    for (let k = 3; k < 7; k++) rotation += w[o + k]! * w[o + k]!
    const what = `body ${b} (node ${spec.node})`
    if (!(radius >= RAGDOLL_MIN_RADIUS && radius <= RAGDOLL_MAX_EXTENT)) {
      return `${what} would have radius ${radius} (world scale ${s}); a body's radius is from ${RAGDOLL_MIN_RADIUS} to ${RAGDOLL_MAX_EXTENT}`
    }
    if (!(length <= RAGDOLL_MAX_EXTENT)) {
      return `${what} would have length ${length} (world scale ${s}); at most ${RAGDOLL_MAX_EXTENT}`
    }
    for (let k = 0; k < 3; k++) {
      const x = w[o + k]!
      if (!(x >= -RAGDOLL_MAX_EXTENT && x <= RAGDOLL_MAX_EXTENT)) {
        return `${what} would be at ${'xyz'[k]} = ${x}; a body's coordinates are at most ${RAGDOLL_MAX_EXTENT} from the origin`
      }
    }
    if (rotation - rotation !== 0) return `${what} would have a rotation that is not finite`
  }
  return null
}

/** Whether the point at `p[o .. o + 3]` is within RAGDOLL_MAX_EXTENT of the origin on every axis (so finite). */
export function withinExtent(p: Float64Array, o: number): boolean {
  for (let k = 0; k < 3; k++) {
    const x = p[o + k]!
    if (!(x >= -RAGDOLL_MAX_EXTENT && x <= RAGDOLL_MAX_EXTENT)) return false
  }
  return true
}
