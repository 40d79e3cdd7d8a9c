import { Body, Plane, Vec3, World as PhysicsWorld } from 'cannon-es'
import { AnimationError, showValue } from '../errors.ts'
import { RagdollBroadphase } from './broadphase.ts'
import { installCannonPatches } from './cannonPatches/index.ts'
import { INNER_SPHERE_GROUP } from './shapes.ts'

/**
 * The plugin's own cannon-es world: gravity (world units per s², default [0, -9.82, 0]), the ragdoll
 * broadphase, and a static ground plane at height `ground` (normal +y; default 0, false for none), with the
 * project's speed-ups to cannon-es installed (src/physics/cannonPatches/) unless `patched` is false: the same
 * bits either way. Throws AnimationError('argument') for gravity that is not three finite numbers or a
 * non-finite ground.
 */
export function createPhysicsWorld(
  o: { gravity?: readonly [number, number, number]; ground?: number | false },
  patched = true,
): PhysicsWorld {
  const g = o.gravity ?? [0, -9.82, 0]
  if (!Array.isArray(g) || g.length !== 3 || !g.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new AnimationError(
      'argument',
      `createAnimationPlugin: gravity ${showValue(g)} must be three finite numbers`,
    )
  }
  const world = new PhysicsWorld({ gravity: new Vec3(g[0], g[1], g[2]) })
  // Sweep and prune that also drops the pairs of linked ragdoll bodies (src/physics/broadphase.ts), patched or not.
  if (patched) installCannonPatches(world)
  else world.broadphase = new RagdollBroadphase(world)
  const ground = o.ground ?? 0
  if (ground !== false) {
    if (typeof ground !== 'number' || !Number.isFinite(ground)) {
      throw new AnimationError(
        'argument',
        `createAnimationPlugin: ground height ${showValue(ground)} must be a finite number or false`,
      )
    }
    const plane = new Body({ mass: 0, type: Body.STATIC, position: new Vec3(0, ground, 0) })
    const shape = new Plane()
    // A ragdoll capsule's inner spheres never touch a plane first (src/physics/shapes.ts).
    shape.collisionFilterMask = ~INNER_SPHERE_GROUP
    plane.addShape(shape)
    // Plane normals are +z; turn it to +y (a quarter turn about x, written out to avoid trigonometry).
    plane.quaternion.set(-Math.SQRT1_2, 0, 0, Math.SQRT1_2)
    world.addBody(plane)
  }
  return world
}

/**
 * The height of the world's ground: the highest static plane whose normal is +y (within 1e-6), such as the
 * plugin's own ground; null when there is none. Read at getUp (not in the step): O(bodies).
 */
export function groundHeight(world: PhysicsWorld): number | null {
  let best: number | null = null
  const n = new Vec3()
  const at = new Vec3()
  for (const body of world.bodies) {
    if (body.type !== Body.STATIC) continue
    for (let i = 0; i < body.shapes.length; i++) {
      if (!(body.shapes[i] instanceof Plane)) continue
      // A plane's normal is its shape's +z, turned by the shape's and the body's orientations.
      const q = body.quaternion.mult(body.shapeOrientations[i]!)
      q.vmult(new Vec3(0, 0, 1), n)
      if (!(Math.abs(n.x) < 1e-6 && Math.abs(n.z) < 1e-6 && n.y > 0)) continue
      body.quaternion.vmult(body.shapeOffsets[i]!, at)
      const height = body.position.y + at.y
      if (Number.isFinite(height) && (best === null || height > best)) best = height
    }
  }
  return best
}
