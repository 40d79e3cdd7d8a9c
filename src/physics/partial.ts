import type { Body } from 'cannon-es'
import type { RagdollInstance } from './ragdoll.ts'
import { angularVelocity, WORLD_STRIDE } from './kinematics.ts'
import { conjugateQuat, multiplyQuat } from '../math/quat.ts'

/**
 * Partial ragdolls: a subtree of the skeleton goes physical while the rest keeps animating. Its bodies are the
 * description's bodies at or under the subtree roots (src/physics/subtrees.ts); each top body (one whose parent
 * body is not among them) hangs from a kinematic anchor, a shapeless body that follows the animated world
 * transform of the top body's parent joint every step, so the limb stays pinned where the animation holds it
 * (src/physics/ragdoll.ts makes the anchors, stepRagdolls steers them).
 */

const scratch = new Float64Array(3)
const rotation = new Float64Array(4)

/**
 * Anchor k's target now: its joint's world transform in `world` (8 doubles per joint), or `root` for an anchor
 * of a root joint, turned by the anchor's rotation offset (q_anchor = q_joint · o⁻¹). Writes the position to
 * `position[0..3]` (unless null) and the rotation to `orientation`.
 */
export function anchorTarget(
  position: Float64Array | null,
  orientation: Float64Array,
  r: RagdollInstance,
  k: number,
  world: Float64Array,
  root: Float64Array,
): Float64Array {
  const j = r.anchorJoint[k]!
  const src = j < 0 ? root : world
  const o = j < 0 ? 0 : j * WORLD_STRIDE
  if (position !== null) {
    position[0] = src[o]!
    position[1] = src[o + 1]!
    position[2] = src[o + 2]!
  }
  conjugateQuat(offset, 0, r.anchorOffset, k * 4)
  multiplyQuat(orientation, 0, src, o + 3, offset, 0)
  return orientation
}

const offset = new Float64Array(4)
const target = new Float64Array(3)
const current = new Float64Array(4)
const spin = new Float64Array(3)

/**
 * Before the physics step: gives each anchor the velocity that carries it from where it is to its target (the
 * animated pose of this step, `world` and `root` as anchorTarget reads them) over `dt`, so the solver drags the
 * limb along with the animation. An anchor whose target is farther than `maxSpeed`·dt (a character placed
 * elsewhere) takes its whole ragdoll along instead: every body moves by the same offset, and the anchor
 * starts at its target. A non-finite target leaves the anchor where it is, at rest. Allocation-free.
 */
export function steerAnchors(
  r: RagdollInstance,
  world: Float64Array,
  root: Float64Array,
  dt: number,
  maxSpeed: number,
): void {
  for (let k = 0; k < r.anchors.length; k++) {
    anchorTarget(target, rotation, r, k, world, root)
    steerBody(r, r.anchors[k]!, target, rotation, dt, maxSpeed)
  }
}

/**
 * Gives a kinematic body of ragdoll r the velocity that carries it to `position` and `orientation` over dt (see
 * steerAnchors: a jump faster than maxSpeed moves the whole ragdoll instead; a non-finite target stops it).
 */
export function steerBody(
  r: RagdollInstance,
  body: Body,
  position: Float64Array,
  orientation: Float64Array,
  dt: number,
  maxSpeed: number,
): void {
  const p = body.position
  const dx = position[0]! - p.x
  const dy = position[1]! - p.y
  const dz = position[2]! - p.z
  const sum = dx + dy + dz + orientation[0]! + orientation[1]! + orientation[2]! + orientation[3]!
  const limit = maxSpeed * dt
  if (sum - sum !== 0 || dx * dx + dy * dy + dz * dz > limit * limit) {
    if (sum - sum === 0) {
      for (let b = 0; b < r.bodies.length; b++) shift(r.bodies[b]!, dx, dy, dz)
      for (let a = 0; a < r.anchors.length; a++) if (r.anchors[a] !== body) shift(r.anchors[a]!, dx, dy, dz)
      if (r.bodies.indexOf(body) < 0) shift(body, dx, dy, dz)
    }
    body.velocity.set(0, 0, 0)
    body.angularVelocity.set(0, 0, 0)
    return
  }
  const inv = 1 / dt
  body.velocity.set(dx * inv, dy * inv, dz * inv)
  const q = body.quaternion
  current[0] = q.x
  current[1] = q.y
  current[2] = q.z
  current[3] = q.w
  angularVelocity(spin, current, 0, orientation, 0, dt, false)
  body.angularVelocity.set(spin[0]!, spin[1]!, spin[2]!)
}

/** After the physics step: puts each anchor exactly at its target (the step integrated it only nearly there). */
export function placeAnchors(r: RagdollInstance, world: Float64Array, root: Float64Array): void {
  for (let k = 0; k < r.anchors.length; k++) {
    anchorTarget(scratch, rotation, r, k, world, root)
    placeBody(r.anchors[k]!, scratch, rotation)
  }
}

/** Puts a body exactly at a (finite) target position and orientation. */
export function placeBody(body: Body, position: Float64Array, orientation: Float64Array): void {
  const sum =
    position[0]! +
    position[1]! +
    position[2]! +
    orientation[0]! +
    orientation[1]! +
    orientation[2]! +
    orientation[3]!
  if (sum - sum !== 0) return
  body.position.set(position[0]!, position[1]!, position[2]!)
  body.quaternion.set(orientation[0]!, orientation[1]!, orientation[2]!, orientation[3]!)
}

function shift(body: Body, dx: number, dy: number, dz: number): void {
  body.position.x += dx
  body.position.y += dy
  body.position.z += dz
  body.previousPosition.copy(body.position)
  body.aabbNeedsUpdate = true
}
