import { WORLD_STRIDE, rotateVector } from './kinematics.ts'

/**
 * Where and how a fallen character gets up: the placement of its entity under the ragdoll's pelvis, and whether
 * it lies face-down or face-up. Only + - * / and sqrt, so the same bits everywhere (getUp is a public call, but
 * what it writes is part of the simulation's state).
 *
 * Both read a body joint's world transform `P` (the ragdoll's last read-back) against the same joint's rest
 * transform `C` in the character's frame (forward kinematics of the rest pose under an identity root). The
 * rotation `D = P.q · C.q⁻¹` is where the character's own frame would be if that joint were at rest in it:
 * standing, D is the entity's rotation; lying, D is that rotation tipped over.
 *
 * Heading: D's twist about world +y (its swing-twist decomposition, twist applied first), i.e. the yaw the
 * character had before it tipped over. Face-down, that is the way its head points; face-up, the way its feet
 * point; on its side, the way it faces. A get-up clip authored from lying in place starts from that heading.
 * D turned exactly upside down (no twist part) keeps the entity's current yaw.
 *
 * Facing: the chest's belly side, the character-frame direction half-way between its front (+z, glTF's
 * forward) and its down (−y), carried by the chest's D. It points at the ground for a biped lying on its face
 * and for a quadruped lying on its belly: prone; away from it: supine.
 */
export interface GetUpPlacement {
  /** The entity's new world position: under the pelvis, at the ground height. */
  readonly position: Float64Array
  /** The entity's new world rotation, a pure yaw `[0, y, 0, w]`. */
  readonly rotation: Float64Array
  /** 'prone' (face-down) or 'supine' (face-up). */
  facing: 'prone' | 'supine'
  /** How far the chest's belly side points down, in [−1, 1]: > 0 prone (1 straight down), ≤ 0 supine. */
  belly: number
}

export function createGetUpPlacement(): GetUpPlacement {
  return { position: new Float64Array(3), rotation: new Float64Array(4), facing: 'supine', belly: 0 }
}

/** The twist part of a rotation smaller than this (in quaternion length) leaves the heading as it was. */
const MIN_TWIST = 1e-6

/**
 * Fills `out` for a ragdoll whose joint world transforms are `world` (8 doubles per joint, kinematics.ts),
 * with `rest` the rest transforms in the character frame, `pelvis` and `chest` joint indices, `root` the
 * entity's current world transform (8 doubles at rootOffset: its yaw is kept for an upside-down pelvis, its
 * scale sizes the rest offsets) and `ground` the ground height (null: keep the entity's height).
 *
 * Position: on the ground under the pelvis, less half the pelvis's rest offset from the entity (scaled, turned
 * by the new heading). Under the pelvis exactly, a clip standing at rest would slide the hips by that offset
 * (the Fox's hips are 27 cm behind its origin); offset by all of it, the entity would end that far from the
 * hips. Half of it splits the difference: the hips slide, and the entity ends, at most half the offset away.
 */
export function placeForGetUp(
  out: GetUpPlacement,
  world: Float64Array,
  rest: Float64Array,
  pelvis: number,
  chest: number,
  root: Float64Array,
  rootOffset: number,
  ground: number | null,
): GetUpPlacement {
  const p = pelvis * WORLD_STRIDE
  // D = P.q · conj(C.q) for the pelvis; only its y and w parts are needed for the twist about +y.
  const d = bodyFrame(world, rest, p)
  let ty = d[1]!
  let tw = d[3]!
  let t = Math.sqrt(ty * ty + tw * tw)
  if (!(t > MIN_TWIST)) {
    ty = root[rootOffset + 4]!
    tw = root[rootOffset + 6]!
    t = Math.sqrt(ty * ty + tw * tw)
    if (!(t > MIN_TWIST)) {
      ty = 0
      tw = 1
      t = 1
    }
  }
  const r = out.rotation
  r[0] = 0
  r[1] = ty / t
  r[2] = 0
  r[3] = tw / t
  const s = root[rootOffset + 7]!
  const h = 0.5 * s
  rotateVector(scratch, 0, r, 0, rest[p]! * h, rest[p + 1]! * h, rest[p + 2]! * h)
  out.position[0] = world[p]! - scratch[0]!
  out.position[1] = ground ?? root[rootOffset + 1]!
  out.position[2] = world[p + 2]! - scratch[2]!

  // The chest's belly side: D_chest · (0, −1, 1)/√2, of which only the world y part matters.
  const c = bodyFrame(world, rest, chest * WORLD_STRIDE)
  rotateVector(scratch, 0, c, 0, 0, -Math.SQRT1_2, Math.SQRT1_2)
  out.belly = -scratch[1]!
  out.facing = out.belly > 0 ? 'prone' : 'supine'
  return out
}

const scratch = new Float64Array(3)
const frame = new Float64Array(4)

/** D = P.q · conj(C.q) for the joint at offset o (a module scratch, valid until the next call). */
function bodyFrame(world: Float64Array, rest: Float64Array, o: number): Float64Array {
  const ax = world[o + 3]!
  const ay = world[o + 4]!
  const az = world[o + 5]!
  const aw = world[o + 6]!
  const bx = -rest[o + 3]!
  const by = -rest[o + 4]!
  const bz = -rest[o + 5]!
  const bw = rest[o + 6]!
  frame[0] = aw * bx + ax * bw + ay * bz - az * by
  frame[1] = aw * by - ax * bz + ay * bw + az * bx
  frame[2] = aw * bz + ax * by - ay * bx + az * bw
  frame[3] = aw * bw - ax * bx - ay * by - az * bz
  return frame
}

/**
 * The joints get-up reads in a ragdoll's bodies (`parentBody` per body, parents first; `bodyJoint` maps a body
 * to its joint): the pelvis is the first root body; the chest the first body after it with two or more child
 * bodies (where arms, neck or front legs branch off), else the pelvis.
 */
export function getUpJoints(
  parentBody: ArrayLike<number>,
  bodyJoint: ArrayLike<number>,
): { pelvis: number; chest: number } {
  const n = parentBody.length
  const children = new Int32Array(n)
  for (let b = 0; b < n; b++) if (parentBody[b]! >= 0) children[parentBody[b]!]!++
  let pelvis = 0
  while (pelvis < n && parentBody[pelvis]! >= 0) pelvis++
  if (pelvis === n) pelvis = 0
  let chest = pelvis
  for (let b = pelvis + 1; b < n; b++) {
    if (children[b]! >= 2) {
      chest = b
      break
    }
  }
  return { pelvis: bodyJoint[pelvis]!, chest: bodyJoint[chest]! }
}
