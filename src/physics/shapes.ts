import { Box, Quaternion, Sphere, Vec3, type Body, type Shape } from 'cannon-es'
import type { ResolvedBody } from './description.ts'
import { WORLD_STRIDE } from './kinematics.ts'
import { MAX_BODY_SHAPES, MAX_CAPSULE_SPHERES, withinExtent } from './buildable.ts'

export { MAX_BODY_SHAPES, MAX_CAPSULE_SPHERES } from './buildable.ts'

/** The shapes of ragdoll bodies: capsules as rows of spheres, boxes, and the spheres joints ride on. */

/**
 * Capsule or box along the world direction d, centred on the body origin. A capsule is a row of overlapping
 * spheres (at most one radius apart) rather than cannon's Cylinder, whose vertices come from Math.sin/cos and so
 * may differ in the last bit between engines; sphere contacts are also the cheapest cannon has.
 */
export function addShape(
  body: Body,
  spec: ResolvedBody,
  radius: number,
  length: number,
  dx: number,
  dy: number,
  dz: number,
) {
  if (spec.shape === 'box') {
    // The box's y axis along d. cannon-es's setFromVectors is + − × / and √, except for a d opposite to y,
    // which it turns with Math.sin/cos(π/2): there, the same half turn (about −z) is written out.
    const up = new Vec3(0, 1, 0)
    const d = new Vec3(dx, dy, dz)
    const orientation = up.isAntiparallelTo(d)
      ? new Quaternion(0, 0, -1, 0)
      : new Quaternion().setFromVectors(up, d)
    body.addShape(new Box(new Vec3(radius, length * 0.5, radius)), new Vec3(0, 0, 0), orientation)
    return
  }
  const end = Math.max(0, length * 0.5 - radius)
  // At most MAX_CAPSULE_SPHERES (spaced evenly, so an extreme length/radius leaves gaps): bounded build time.
  const count = end > 0 ? Math.min(Math.ceil((2 * end) / radius) + 1, MAX_CAPSULE_SPHERES) : 1
  for (let i = 0; i < count; i++) {
    const t = count === 1 ? 0 : -end + (2 * end * i) / (count - 1)
    pushShape(body, new Sphere(radius), new Vec3(dx * t, dy * t, dz * t), null)
  }
  shapesAdded(body)
}

/**
 * Body.addShape without its mass-property update, which is O(shapes) (the AABB of all of them) and so made a
 * capsule of n spheres O(n²): 16 bodies of 128 spheres took 23–34 ms of CPU to build. Call shapesAdded once
 * after the last: the same state addShape leaves (each of its updates recomputes everything from scratch).
 */
export function pushShape(body: Body, shape: Shape, offset: Vec3, orientation: Quaternion | null): void {
  body.shapes.push(shape)
  body.shapeOffsets.push(offset)
  body.shapeOrientations.push(orientation ?? new Quaternion())
  shape.body = body
}

/**
 * The collision group of a ragdoll sphere that a plane can never touch first: one whose centre is the midpoint of
 * two other spheres of the body at least as large (a capsule's inner spheres), since a plane reaches one of
 * those no later. The plugin's ground plane does not collide with it (its shape's mask leaves this bit out,
 * src/physics/world.ts): a lying capsule touches the ground at its two ends instead of at every sphere, a third
 * fewer ground contacts for a lying Fox and as many fewer solver equations. Everything else, other ragdolls and a
 * game's shapes with cannon-es's default mask, still collides with it.
 */
export const INNER_SPHERE_GROUP = 1 << 30

/**
 * Marks the body's inner spheres (INNER_SPHERE_GROUP), from the shapes alone, so a body rebuilt from a snapshot
 * is marked the same. At most MAX_BODY_SHAPES shapes: 8³ checks at a spawn, none per step.
 */
function markInnerSpheres(body: Body): void {
  const shapes = body.shapes
  const at = body.shapeOffsets
  for (let s = 0; s < shapes.length; s++) {
    const shape = shapes[s]!
    if (!(shape instanceof Sphere)) continue
    const r = shape.radius
    const tolerance = 1e-6 * r
    let inner = false
    for (let a = 0; a < shapes.length && !inner; a++) {
      const sa = shapes[a]!
      if (a === s || !(sa instanceof Sphere) || !(sa.radius >= r)) continue
      for (let b = a + 1; b < shapes.length && !inner; b++) {
        const sb = shapes[b]!
        if (b === s || !(sb instanceof Sphere) || !(sb.radius >= r)) continue
        const dx = 0.5 * (at[a]!.x + at[b]!.x) - at[s]!.x
        const dy = 0.5 * (at[a]!.y + at[b]!.y) - at[s]!.y
        const dz = 0.5 * (at[a]!.z + at[b]!.z) - at[s]!.z
        inner = dx * dx + dy * dy + dz * dz <= tolerance * tolerance
      }
    }
    shape.collisionFilterGroup = inner ? INNER_SPHERE_GROUP : 1
  }
}

/** The end of a run of pushShape calls: what addShape does after each shape, and the inner spheres marked. */
export function shapesAdded(body: Body): void {
  markInnerSpheres(body)
  body.updateMassProperties()
  body.updateBoundingRadius()
  body.aabbNeedsUpdate = true
}

/**
 * For each joint without a body that rides on one (its nearest ancestor with a body) and lies outside that
 * body's shapes at the hand-off pose, a sphere of the body's largest radius there (bodies start unrotated, so
 * the offset is the world offset). At most MAX_BODY_SHAPES shapes per body, the first joints in joint order
 * first; none for a joint not finite or beyond RAGDOLL_MAX_EXTENT (the body's AABB, and so its inertia, would
 * not be finite: a chain scaled 1.5 a node overflows 1,750 nodes down). Linear in the joints (each joint's body from its parent's, joints parents first), so a chain of
 * thousands of joints riding on one body builds in bounded time.
 */
export function addRidingSpheres(
  bodies: Body[],
  parents: Int32Array,
  w: Float64Array,
  jointCount: number,
  jointBody: Int32Array,
  centers: Float64Array,
): void {
  const grown = new Set<Body>()
  // The body each joint rides on: its own, or its parent's (joints come parents first).
  const rides = new Int32Array(jointCount)
  for (let j = 0; j < jointCount; j++) {
    const p = parents[j]!
    rides[j] = jointBody[j]! >= 0 ? jointBody[j]! : p >= 0 && p < j ? rides[p]! : -1
    if (jointBody[j]! >= 0) continue
    const b = rides[j]!
    if (b < 0) continue
    const body = bodies[b]!
    if (body.shapes.length >= MAX_BODY_SHAPES) continue
    if (!withinExtent(w, j * WORLD_STRIDE)) continue
    const ox = w[j * WORLD_STRIDE]! - centers[b * 3]!
    const oy = w[j * WORLD_STRIDE + 1]! - centers[b * 3 + 1]!
    const oz = w[j * WORLD_STRIDE + 2]! - centers[b * 3 + 2]!
    let radius = 0
    let inside = false
    for (let i = 0; i < body.shapes.length; i++) {
      const shape = body.shapes[i]!
      const r = shape instanceof Sphere ? shape.radius : shape.boundingSphereRadius
      const at = body.shapeOffsets[i]!
      const dx = ox - at.x
      const dy = oy - at.y
      const dz = oz - at.z
      if (dx * dx + dy * dy + dz * dz <= r * r) inside = true
      if (r > radius) radius = r
    }
    if (inside || !(radius > 0)) continue
    pushShape(body, new Sphere(radius), new Vec3(ox, oy, oz), null)
    grown.add(body)
  }
  for (const body of grown) shapesAdded(body)
}
