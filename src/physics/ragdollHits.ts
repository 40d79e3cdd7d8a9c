import { Body, Box, Quaternion, Sphere, Vec3, type ConeTwistConstraint } from 'cannon-es'
import type { RagdollInstance } from './ragdoll.ts'
import type { RagdollBody } from './broadphase.ts'
import { WORLD_STRIDE } from './kinematics.ts'

/**
 * What keeps a ragdoll whole under hard hits (issue 17: 50 N·s at any body): a hit capped per body and passed up
 * the ragdoll at the joints (applyRagdollHit), and, after each physics step, joints left open beyond a small
 * tolerance moved back together and bodies kept out of the ground (projectRagdollJoints).
 */

/**
 * The most velocity a hit gives one body before the rest of it passes up the ragdoll: per second, in units of
 * the ragdoll's longest body (its bounding diameter; see applyRagdollHit).
 */
export const RAGDOLL_HIT_SPEED = 20

/**
 * A hit on a live ragdoll: world impulse (N·s) at joint `joint`'s world position in `world` (8 doubles per joint,
 * the last read-back or the spawn pose). A joint without a body passes the hit to the nearest body above it
 * (`parents`), or the root body.
 *
 * A hard hit on a light body is shared up the ragdoll, as a real joint would pass it on in the same instant:
 * the body hit takes as much of the impulse as gives it RAGDOLL_HIT_SPEED longest-body lengths per second, the
 * rest passes to the body it hangs from, at the joint between them, and so on up to the root body, which takes
 * what is left. Linear momentum is the hit's exactly. Without this, cannon-es's solver (10 iterations) is handed
 * a 0.6 kg foot moving at 85 m/s against its 30 kg ragdoll and tears the joints apart for many steps. Allocates
 * two vectors per body reached (a call from game code or a hand-off, not per frame).
 */
export function applyRagdollHit(
  r: RagdollInstance,
  parents: Int32Array,
  world: Float64Array,
  joint: number,
  impulse: readonly [number, number, number],
): void {
  let b = r.jointBody[joint]!
  for (let j = joint; b < 0 && j >= 0; j = parents[j]!) b = r.jointBody[j]!
  let body: Body = r.bodies[b < 0 ? 0 : b]!
  const cap = RAGDOLL_HIT_SPEED * longestBody(r)
  const o = joint * WORLD_STRIDE
  let px = world[o]!
  let py = world[o + 1]!
  let pz = world[o + 2]!
  let jx = impulse[0]
  let jy = impulse[1]
  let jz = impulse[2]
  for (;;) {
    const size = Math.sqrt(jx * jx + jy * jy + jz * jz)
    const parent = (body as RagdollBody).ragdollParent ?? null
    const share = parent === null || !(size > body.mass * cap) ? 1 : (body.mass * cap) / size
    body.applyImpulse(
      new Vec3(jx * share, jy * share, jz * share),
      new Vec3(px - body.position.x, py - body.position.y, pz - body.position.z),
    )
    if (share === 1) return
    jx -= jx * share
    jy -= jy * share
    jz -= jz * share
    // The rest goes on at the joint between this body and its parent.
    const c = r.constraints.find((k) => k.bodyB === body)!
    const at = c.bodyB.quaternion.vmult(c.pivotB).vadd(c.bodyB.position)
    px = at.x
    py = at.y
    pz = at.z
    body = parent!
  }
}

/** The ragdoll's longest body: the largest bounding diameter of its bodies (world units). */
export function longestBody(r: RagdollInstance): number {
  return r.longest
}

/**
 * Joint projection: the largest gap a joint may keep after a step, as a fraction of the ragdoll's longest body
 * (its bounding diameter; 0.4 % is 2 mm on a 1.8 m humanoid). A ragdoll of one long body (SimpleSkin) has that
 * body as long as itself: a limb of it pinned to a moving anchor rests at this gap, which must stay under the
 * 1 cm-per-1.8 m rest limit (0.56 %; at 0.5 % it was 0.58 %).
 */
export const RAGDOLL_JOINT_TOLERANCE = 0.004

const gapA = new Vec3()
const gapB = new Vec3()

/**
 * Closes what cannon-es's solver left open at the joints, after its step: a child body whose pivot is more than
 * `RAGDOLL_JOINT_TOLERANCE` longest-body lengths from its parent's is moved (not accelerated) towards it until
 * it is that far, parents first, so one pass leaves every joint within the tolerance (PhysX calls this joint
 * projection). The solver's 10 iterations leave a falling Fox's joints up to 6 cm apart and a 50 N·s hit far
 * more; raising iterations or sub-stepping closes them at a multiple of the solver's cost (measured in the
 * README's Ragdolls section). Velocities are untouched. Allocation-free; + − × / and √ only.
 *
 * Then the ground (`ground`, the world's ground height, −∞ for none): no shape's centre stays below it, and no
 * pivot a child body hangs from stays deeper than half that child's radius below it. A root body is lifted, any
 * other turned about its own pivot (which keeps its joint closed) until its deepest point is up. The pivots
 * count because a child can only be turned up about a pivot no deeper than its shapes reach: a 4 cm robot
 * landing on its hip left the hip pivot 5 % of its size underground (with shape centres alone, a landing Fox's
 * toes also went 7 cm past their radius). A body that still has a shape centre below the ground (its pivot too
 * deep to turn about: a lying chest whose shoulder is down) lifts the whole ragdoll by what is left, which keeps
 * every joint closed; lifting only that body opened a 1.2 cm figure's shoulder to 6× the rest gap limit. A
 * partial ragdoll, pinned to anchors the animation places, is not lifted whole: what the animation put in the
 * ground stays there.
 */
export function projectRagdollJoints(r: RagdollInstance, ground: number): void {
  const tolerance = RAGDOLL_JOINT_TOLERANCE * r.longest
  const bodies = r.bodies
  for (let i = 0; i < bodies.length; i++) {
    const body = bodies[i]!
    // A held root (kinematic, src/physics/motors.ts) is where the animation puts it.
    if ((body as RagdollBody).ragdollParent !== null || body.type !== Body.DYNAMIC) continue
    deepestPoint(r, i, ground)
    if (found[0]! > 0) body.position.y += found[0]!
  }
  const constraints = r.constraints
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i]!
    const a = c.bodyA
    const b = c.bodyB
    a.quaternion.vmult(c.pivotA, gapA)
    b.quaternion.vmult(c.pivotB, gapB)
    const dx = a.position.x + gapA.x - b.position.x - gapB.x
    const dy = a.position.y + gapA.y - b.position.y - gapB.y
    const dz = a.position.z + gapA.z - b.position.z - gapB.z
    const gap = Math.sqrt(dx * dx + dy * dy + dz * dz)
    if (gap > tolerance) {
      const k = 1 - tolerance / gap
      b.position.x += dx * k
      b.position.y += dy * k
      b.position.z += dz * k
    }
    const child = r.childBody[i]!
    // A turn that brings one point up may take another down: up to GROUND_TURNS turns, each for the deepest.
    for (let t = 0; t < GROUND_TURNS; t++) {
      deepestPoint(r, child, ground)
      if (!(found[0]! > 0)) break
      turnAboveGround(b, c)
    }
  }
  if (r.anchors.length > 0) return
  let sink = 0
  for (let i = 0; i < bodies.length; i++) {
    const body = bodies[i]!
    if (body.type !== Body.DYNAMIC) return
    for (let s = 0; s < body.shapes.length; s++) {
      body.quaternion.vmult(body.shapeOffsets[s]!, gapB)
      const d = ground - (body.position.y + gapB.y)
      if (d > sink) sink = d
    }
  }
  if (sink > 0) for (let i = 0; i < bodies.length; i++) bodies[i]!.position.y += sink
}

/**
 * Most turns projectRagdollJoints gives one body to bring its points up. One left a powered 1.2 cm
 * RiggedFigure's shoulder pivot 5 % of its size deep after its chest was turned for a deeper shape, and the arm
 * was lifted off it (6× the rest gap limit).
 */
const GROUND_TURNS = 3

const pivot = new Vec3()
const arm = new Vec3()
const turn = new Quaternion()
/**
 * The point deepestPoint found: its offset from the body's position (world axes); how far it is below where it
 * must be and the height it needs (`found`: numbers go through an array, not a module variable or a return
 * value, which V8 would box on every write: 3 KB a step for 10 ragdolls).
 */
const deepest = new Vec3()
const found = new Float64Array(2)

/**
 * How far body i's deepest point is below where it must be (> 0: too deep): its shape centres must be at
 * `ground` or above, the pivots its child bodies hang from at most half the child's radius below. Leaves that
 * point in `deepest` and `found` ([sink, target height]).
 */
function deepestPoint(r: RagdollInstance, i: number, ground: number): void {
  const body = r.bodies[i]!
  const y = body.position.y
  let worst = -Infinity
  for (let s = 0; s < body.shapes.length; s++) {
    body.quaternion.vmult(body.shapeOffsets[s]!, gapB)
    const sink = ground - (y + gapB.y)
    if (sink > worst) {
      worst = sink
      deepest.copy(gapB)
      found[1] = ground
    }
  }
  for (let k = r.firstChild[i]!; k >= 0; k = r.nextSibling[k]!) {
    const c = r.constraints[k]!
    body.quaternion.vmult(c.pivotA, gapB)
    const target = ground - 0.5 * bodyRadius(c.bodyB)
    const sink = target - (y + gapB.y)
    if (sink > worst) {
      worst = sink
      deepest.copy(gapB)
      found[1] = target
    }
  }
  found[0] = worst
}

/** A ragdoll body's radius: its first shape's (a capsule's spheres all have it; a box's half thickness). */
function bodyRadius(body: Body): number {
  const shape = body.shapes[0]
  if (shape instanceof Sphere) return shape.radius
  if (shape instanceof Box) return shape.halfExtents.x
  return 0
}

/**
 * Turns a child body about its joint's pivot (its own pivotB, in world) so that the point deepestPoint found
 * comes up to its height; when the pivot itself is too deep for that, leaves it. The turn is the
 * shortest arc between the two arms from the pivot: + − × / and √ only.
 */
function turnAboveGround(body: Body, c: ConeTwistConstraint): void {
  const cy = body.position.y + deepest.y
  body.quaternion.vmult(c.pivotB, pivot)
  pivot.vadd(body.position, pivot)
  // Arm from the pivot to the deepest point, and where it should point: same length, its end at its height.
  const ax = body.position.x + deepest.x - pivot.x
  const ay = cy - pivot.y
  const az = body.position.z + deepest.z - pivot.z
  const length2 = ax * ax + ay * ay + az * az
  const ty = found[1]! - pivot.y
  const flat2 = ax * ax + az * az
  // The pivot is too deep to turn about: the joint stays closed (the whole ragdoll is lifted after).
  if (!(ty * ty < length2) || !(flat2 > 0)) return
  const h = Math.sqrt((length2 - ty * ty) / flat2)
  const bx = ax * h
  const bz = az * h
  // Shortest arc from a to b (equal lengths): q = (a × b, |a||b| + a·b), normalized.
  const qx = ay * bz - az * ty
  const qy = az * bx - ax * bz
  const qz = ax * ty - ay * bx
  const qw = length2 + ax * bx + ay * ty + az * bz
  const n = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
  if (!(n > 0)) return
  turn.set(qx / n, qy / n, qz / n, qw / n)
  // position = pivot + turn·(position − pivot); orientation = turn·orientation.
  body.position.vsub(pivot, arm)
  turn.vmult(arm, arm)
  pivot.vadd(arm, body.position)
  turn.mult(body.quaternion, body.quaternion)
  body.quaternion.normalize()
}
