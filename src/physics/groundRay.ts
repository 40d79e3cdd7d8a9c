import { Body, RaycastResult, Shape, Vec3, type RayOptions, type World } from 'cannon-es'
import { rotateVector } from '../ik/ikMath.ts'

/**
 * The ground under a point: a ray straight down through a cannon-es world, the nearest surface it meets from
 * above (the foot placement's 'physics' ground, systems/ikFeet.ts). What cannon-es's
 * `world.raycastClosest(from, to, { skipBackfaces: true }, result)` finds, without its allocations (its plane
 * test makes five vectors a call): planes, boxes and spheres are met here, with cannon-es's rules (a body or
 * shape without collision response, or whose filter group or mask is 0, is passed through; a face met from
 * behind is not a hit); a world with any other shape asks cannon-es itself (correct, and allocating).
 *
 * Input `q`: [x, top y, bottom y, z]; output `out`: [height, normal x, y, z] of the nearest hit. Returns whether
 * the ray hit anything. Only + − × ÷ and square roots.
 */
export function groundRay(out: Float64Array, world: World, q: Float64Array): boolean {
  const bodies = world.bodies
  for (let b = 0; b < bodies.length; b++) {
    const shapes = bodies[b]!.shapes
    for (let i = 0; i < shapes.length; i++) {
      const type = shapes[i]!.type
      if (type !== Shape.types.PLANE && type !== Shape.types.BOX && type !== Shape.types.SPHERE) {
        return cannonRay(out, world, q)
      }
    }
  }
  let best = -Infinity
  for (let b = 0; b < bodies.length; b++) {
    const body = bodies[b]!
    if (!body.collisionResponse || body.collisionFilterGroup === 0 || body.collisionFilterMask === 0) continue
    const shapes = body.shapes
    for (let i = 0; i < shapes.length; i++) {
      const shape = shapes[i]!
      if (!shape.collisionResponse) continue
      shapeTransform(body, i)
      let hit = false
      if (shape.type === Shape.types.PLANE) hit = plane(q)
      else if (shape.type === Shape.types.SPHERE) {
        s[RADIUS] = (shape as unknown as { radius: number }).radius
        hit = sphere(q)
      } else hit = box(q, (shape as unknown as { halfExtents: Vec3 }).halfExtents)
      if (hit && s[HIT]! > best && s[HIT]! <= q[1]!) {
        best = s[HIT]!
        out[0] = best
        out[1] = s[N]!
        out[2] = s[N + 1]!
        out[3] = s[N + 2]!
      }
    }
  }
  return best > -Infinity
}

/**
 * Scratch (floats cross no call: V8 boxes a double passed to a call it does not inline): the shape's world
 * position and rotation, the hit height and normal, a rotated vector, a vector to rotate, the conjugate
 * rotation, a sphere's radius.
 */
const P = 0
const R = 3
const HIT = 7
const N = 8
const V = 11
const IN = 14
const C = 17
const RADIUS = 21
const s = new Float64Array(22)

/** s[V] = rotation s[q..q+4) applied to the vector (x, y, z) (written to s[IN] first). */
function rotate(q: number, x: number, y: number, z: number): void {
  s[IN] = x
  s[IN + 1] = y
  s[IN + 2] = z
  rotateVector(s, V, s, q, s, IN)
}

/** s[P], s[R]: shape i's world position and rotation (the body's times its offset and orientation). */
function shapeTransform(body: Body, i: number): void {
  const bq = body.quaternion
  const o = body.shapeOffsets[i]!
  const r = body.shapeOrientations[i]!
  s[C] = bq.x
  s[C + 1] = bq.y
  s[C + 2] = bq.z
  s[C + 3] = bq.w
  s[IN] = o.x
  s[IN + 1] = o.y
  s[IN + 2] = o.z
  rotateVector(s, V, s, C, s, IN)
  s[P] = body.position.x + s[V]!
  s[P + 1] = body.position.y + s[V + 1]!
  s[P + 2] = body.position.z + s[V + 2]!
  s[R] = bq.w * r.x + bq.x * r.w + bq.y * r.z - bq.z * r.y
  s[R + 1] = bq.w * r.y - bq.x * r.z + bq.y * r.w + bq.z * r.x
  s[R + 2] = bq.w * r.z + bq.x * r.y - bq.y * r.x + bq.z * r.w
  s[R + 3] = bq.w * r.w - bq.x * r.x - bq.y * r.y - bq.z * r.z
}

/** cannon-es's Ray.precision: a plane whose normal is nearer than this to level is never met. */
const RAY_PRECISION = 0.0001

/** A plane (normal its +z): met from its front side, between top and bottom. */
function plane(q: Float64Array): boolean {
  rotate(R, 0, 0, 1)
  const nx = s[V]!
  const ny = s[V + 1]!
  const nz = s[V + 2]!
  // Met from behind (the ray goes down: the normal must point up) or nearly along it: no hit.
  if (!(ny >= RAY_PRECISION)) return false
  // The plane's height under (x, z): n · (p − point) = 0.
  const y = s[P + 1]! - (nx * (q[0]! - s[P]!) + nz * (q[3]! - s[P + 2]!)) / ny
  if (!(y <= q[1]! && y >= q[2]!)) return false
  s[HIT] = y
  s[N] = nx
  s[N + 1] = ny
  s[N + 2] = nz
  return true
}

function sphere(q: Float64Array): boolean {
  const radius = s[RADIUS]!
  const dx = q[0]! - s[P]!
  const dz = q[3]! - s[P + 2]!
  const h2 = radius * radius - dx * dx - dz * dz
  if (!(h2 >= 0) || radius <= 0) return false
  const y = s[P + 1]! + Math.sqrt(h2)
  if (!(y <= q[1]! && y >= q[2]!)) return false
  s[HIT] = y
  s[N] = dx / radius
  s[N + 1] = (y - s[P + 1]!) / radius
  s[N + 2] = dz / radius
  return true
}

/** A box: the slab test in its own frame, the face the ray enters by. */
function box(q: Float64Array, half: Vec3): boolean {
  // The ray's start and direction (0, −1, 0) in the box's frame: by the conjugate rotation.
  s[C] = -s[R]!
  s[C + 1] = -s[R + 1]!
  s[C + 2] = -s[R + 2]!
  s[C + 3] = s[R + 3]!
  s[IN] = q[0]! - s[P]!
  s[IN + 1] = q[1]! - s[P + 1]!
  s[IN + 2] = q[3]! - s[P + 2]!
  rotateVector(s, V, s, C, s, IN)
  const ox = s[V]!
  const oy = s[V + 1]!
  const oz = s[V + 2]!
  rotate(C, 0, -1, 0)
  let near = -Infinity
  let far = Infinity
  let axis = -1
  let sign = 0
  for (let k = 0; k < 3; k++) {
    const o = k === 0 ? ox : k === 1 ? oy : oz
    const d = s[V + k]!
    const h = k === 0 ? half.x : k === 1 ? half.y : half.z
    if (Math.abs(d) < 1e-12) {
      if (o < -h || o > h) return false
      continue
    }
    const t1 = (-h - o) / d
    const t2 = (h - o) / d
    const enter = t1 < t2 ? t1 : t2
    const exit = t1 < t2 ? t2 : t1
    if (enter > near) {
      near = enter
      axis = k
      sign = d > 0 ? -1 : 1
    }
    if (exit < far) far = exit
  }
  // From inside the box (near < 0) every face is met from behind.
  if (axis < 0 || near > far || near < 0 || near > q[1]! - q[2]!) return false
  const lx = axis === 0 ? sign : 0
  const ly = axis === 1 ? sign : 0
  const lz = axis === 2 ? sign : 0
  rotate(R, lx, ly, lz)
  s[HIT] = q[1]! - near
  s[N] = s[V]!
  s[N + 1] = s[V + 1]!
  s[N + 2] = s[V + 2]!
  return true
}

const from = new Vec3()
const to = new Vec3()
const result = new RaycastResult()
const noop = (): void => {}
// One options object for every ray: raycastClosest writes its fields, and a missing callback allocates one.
const options: RayOptions = { skipBackfaces: true, callback: noop }

function cannonRay(out: Float64Array, world: World, q: Float64Array): boolean {
  from.set(q[0]!, q[1]!, q[3]!)
  to.set(q[0]!, q[2]!, q[3]!)
  if (!world.raycastClosest(from, to, options, result)) return false
  out[0] = result.hitPointWorld.y
  out[1] = result.hitNormalWorld.x
  out[2] = result.hitNormalWorld.y
  out[3] = result.hitNormalWorld.z
  return true
}
