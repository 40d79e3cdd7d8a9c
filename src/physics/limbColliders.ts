import { Quaternion, Sphere, Vec3, type Body } from 'cannon-es'
import type { ResolvedBody } from './description.ts'
import type { RagdollInstance } from './ragdoll.ts'
import { REST_CONTACT_MARGIN, restOverlaps, segmentDistance2 } from './selfCollision.ts'
import { rotateVector, WORLD_STRIDE } from './kinematics.ts'

/**
 * A partial ragdoll's limb against the animated rest of its body. The description's bodies that stay animated
 * (not in the partial ragdoll) are capsules at this step's animated pose, and after the physics step each limb
 * body is pushed out of the deepest one it went into, its velocity into that capsule removed — a kinematic
 * collider resolved by projection, as the ground is (src/physics/ragdollHits.ts), rather than cannon-es bodies:
 * nothing is added to the world, so the solver's cost, the snapshot and the hashes of other ragdolls stay as
 * they were, and the animated capsules are this step's pose exactly (derived, not state). What it lacks against
 * a cannon-es contact: friction (a limb lying on the body slides along it) and restitution (none).
 *
 * Pairs never pushed: a limb body and the body it hangs from in the description (the joint holds them), and
 * pairs whose capsules overlap in the rest pose (restOverlaps, the same rule as a ragdoll's own bodies: an upper
 * arm and the chest it starts in), so a limb that overlaps the body at rest is not thrown off it.
 */
export interface LimbColliders {
  /** The bodies it was made for (RagdollRuntime.bodies): made again when those change. */
  readonly bodies: readonly ResolvedBody[]
  /** Per animated body: its joint. */
  readonly joint: Int32Array
  /** Per animated body: bone axis (3), length and radius in the joint's frame, as ResolvedBody has them. */
  readonly shape: Float64Array
  /** Per ragdoll body, `words` words: bit k set, never pushed out of animated body k. */
  readonly ignore: Uint32Array
  readonly words: number
  /** Per ragdoll body: its joint, and its bone axis (3), length and radius as for the animated ones. */
  readonly limbJoint: Int32Array
  readonly limbShape: Float64Array
  /** Scratch: per animated body, this step's segment (start 3, end 3) and radius. */
  readonly capsules: Float64Array
  /**
   * Scratch: per ragdoll body and animated body, how deep the animation itself puts that body's capsule into
   * the animated one this step (capsules are fatter than the mesh: a hanging arm may overlap the hips), which the
   * push allows.
   */
  readonly allowance: Float64Array
}

/**
 * The colliders of a partial ragdoll whose bodies are `bodies` (a subset of `description`, by node); none when
 * nothing stays animated. Allocates: once per ragdoll.
 */
export function limbColliders(
  description: readonly ResolvedBody[],
  bodies: readonly ResolvedBody[],
  rig: ColliderRig,
): LimbColliders {
  const { nodeJoint, rest, jointParents: parents } = rig
  const kept = new Map(bodies.map((b, i) => [b.node, i]))
  const animated: number[] = []
  description.forEach((b, d) => !kept.has(b.node) && animated.push(d))
  const overlaps = restOverlaps(description, nodeJoint, rest, parents, REST_CONTACT_MARGIN)
  const words = (animated.length + 31) >> 5
  const ignore = new Uint32Array(bodies.length * words)
  const joint = new Int32Array(animated.length)
  const shape = new Float64Array(animated.length * 5)
  animated.forEach((d, k) => {
    const spec = description[d]!
    joint[k] = nodeJoint[spec.node]!
    shape.set([spec.axis[0], spec.axis[1], spec.axis[2], spec.length, spec.radius], k * 5)
    bodies.forEach((b, i) => {
      const di = description.findIndex((x) => x.node === b.node)
      const linked = description[di]!.parentBody === d || spec.parentBody === di
      const overlapping = ((overlaps[di]![d >> 5]! >>> (d & 31)) & 1) !== 0
      if (linked || overlapping) ignore[i * words + (k >> 5)]! |= 1 << (k & 31)
    })
  })
  const limbJoint = Int32Array.from(bodies, (b) => nodeJoint[b.node]!)
  const limbShape = Float64Array.from(
    bodies.flatMap((b) => [b.axis[0], b.axis[1], b.axis[2], b.length, b.radius]),
  )
  return {
    bodies,
    joint,
    shape,
    ignore,
    words,
    limbJoint,
    limbShape,
    capsules: new Float64Array(animated.length * 7),
    allowance: new Float64Array(bodies.length * animated.length),
  }
}

/** What limbColliders reads of a rig: node → joint, the rest pose, joint parents (a registered asset has them). */
export interface ColliderRig {
  readonly nodeJoint: Int32Array
  readonly rest: Float32Array
  readonly jointParents: Int32Array
}

/** `current` when it was made for `bodies`, else limbColliders made again (a new or grown ragdoll, a restore). */
export function collidersFor(
  current: LimbColliders | null,
  description: readonly ResolvedBody[],
  bodies: readonly ResolvedBody[],
  rig: ColliderRig,
): LimbColliders {
  if (current !== null && current.bodies === bodies) return current
  return limbColliders(description, bodies, rig)
}

const dir = new Float64Array(3)
/** Scratch: a ragdoll body's animated capsule (start 3, end 3, radius), and segment ends for segmentDistance2. */
const limb = new Float64Array(7)
const d2 = new Float64Array(1)
const offset = new Vec3()
/** The deepest push found for one body: normal (3), depth, the sphere's centre from the body's position (3). */
const push = new Float64Array(7)

/**
 * After the physics step: pushes each of ragdoll r's bodies out of the deepest animated capsule its spheres went
 * into (`world`: this step's animated joint transforms, 8 doubles per joint), and takes the velocity into it
 * away. Allocation-free; + − × / and √.
 */
export function pushOutOfBody(r: RagdollInstance, c: LimbColliders, world: Float64Array): void {
  const n = c.joint.length
  const caps = c.capsules
  for (let k = 0; k < n; k++) capsuleAt(caps, k * 7, world, c.joint[k]!, c.shape, k * 5)
  // What the animation itself overlaps: each ragdoll body's capsule where the animation has it, against each.
  for (let i = 0; i < r.bodies.length; i++) {
    capsuleAt(limb, 0, world, c.limbJoint[i]!, c.limbShape, i * 5)
    for (let k = 0; k < n; k++) {
      const o = k * 7
      const reach = limb[6]! + caps[o + 6]!
      segmentDistance2(d2, limb, 0, caps, o)
      c.allowance[i * n + k] = d2[0]! < reach * reach ? reach - Math.sqrt(d2[0]!) : 0
    }
  }
  for (let i = 0; i < r.bodies.length; i++) {
    const body = r.bodies[i]!
    // A push out of one capsule may leave the body in another (a forearm between chest and thigh): a few rounds.
    for (let round = 0; round < PUSH_ROUNDS; round++) {
      deepestPush(body, c, i)
      const depth = push[3]!
      if (!(depth > 0)) break
      const nx = push[0]!
      const ny = push[1]!
      const nz = push[2]!
      // A sphere at its pivot cannot be turned out: the joint itself is in the body, and moving the body would
      // only open it; it stays (the animation put the joint there).
      if (!turnOut(r, i, body)) break
      const v = body.velocity
      const into = v.x * nx + v.y * ny + v.z * nz
      if (into < 0) {
        // Fields, not Vec3.set: doubles passed to a call V8 does not inline are boxed.
        v.x -= nx * into
        v.y -= ny * into
        v.z -= nz * into
      }
    }
  }
}

const pivot = new Vec3()
const arm = new Vec3()
const turn = new Quaternion()

/**
 * Turns body i about the pivot it hangs from so that the sphere deepestPush found (its centre at push[4..7)
 * from the body's position) comes out by the push's depth along it: the joint stays closed, as a limb pushed by
 * the body it leans on swings about its shoulder rather than leaving it. False when the sphere is too near the
 * pivot to turn it out (then the caller moves the body). The shortest arc: + − × / and √.
 */
function turnOut(r: RagdollInstance, i: number, body: Body): boolean {
  // The depth comes through `push` (a double passed to a call V8 does not inline is boxed).
  const depth = push[3]!
  let k = 0
  while (k < r.childBody.length && r.childBody[k] !== i) k++
  if (k === r.childBody.length) return false
  body.quaternion.vmult(r.constraints[k]!.pivotB, pivot)
  pivot.vadd(body.position, pivot)
  // From the pivot: a to the sphere's centre now, b to where it should be (as long as a).
  const ax = body.position.x + push[4]! - pivot.x
  const ay = body.position.y + push[5]! - pivot.y
  const az = body.position.z + push[6]! - pivot.z
  const la = Math.sqrt(ax * ax + ay * ay + az * az)
  if (!(la > 2 * depth)) return false
  let bx = ax + push[0]! * depth
  let by = ay + push[1]! * depth
  let bz = az + push[2]! * depth
  const lb = Math.sqrt(bx * bx + by * by + bz * bz)
  bx *= la / lb
  by *= la / lb
  bz *= la / lb
  const qx = ay * bz - az * by
  const qy = az * bx - ax * bz
  const qz = ax * by - ay * bx
  const qw = la * la + ax * bx + ay * by + az * bz
  const n = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
  if (!(n > 0)) return false
  turn.x = qx / n
  turn.y = qy / n
  turn.z = qz / n
  turn.w = qw / n
  // The body and every body hanging below it turn together (their joints stay as they were).
  for (let j = i; j < r.bodies.length; j++) {
    if (j !== i && !hangsFrom(r, j, i)) continue
    const b = r.bodies[j]!
    b.position.vsub(pivot, arm)
    turn.vmult(arm, arm)
    pivot.vadd(arm, b.position)
    turn.mult(b.quaternion, b.quaternion)
    b.quaternion.normalize()
  }
  return true
}

/** Whether body j hangs (through its parent bodies) from body i. */
function hangsFrom(r: RagdollInstance, j: number, i: number): boolean {
  for (let b = j; b >= 0;) {
    let k = 0
    while (k < r.childBody.length && r.childBody[k] !== b) k++
    if (k === r.childBody.length) return false
    b = r.parentIndex[k]!
    if (b === i) return true
  }
  return false
}

/** Most pushes one body gets per step. */
const PUSH_ROUNDS = 3

/**
 * The capsule spawnRagdoll builds for a body on joint j (`shape` at so: bone axis 3, length, radius), at the
 * joint's transform in `world`: out[o..o+3) its segment's start, [o+3..o+6) its end, [o+6] its radius. Centred
 * half-way along the (signed) bone, its spheres within ± end of the centre.
 */
function capsuleAt(
  out: Float64Array,
  o: number,
  world: Float64Array,
  j: number,
  shape: Float64Array,
  so: number,
) {
  const w = j * WORLD_STRIDE
  const s = world[w + 7]!
  rotateVector(dir, 0, world, w + 3, shape[so]!, shape[so + 1]!, shape[so + 2]!)
  const length = shape[so + 3]! * s
  const radius = Math.abs(shape[so + 4]! * s)
  const half = (length < 0 ? -length : length) * 0.5
  const end = half > radius ? half - radius : 0
  for (let a = 0; a < 3; a++) {
    const mid = world[w + a]! + dir[a]! * length * 0.5
    out[o + a] = mid - dir[a]! * end
    out[o + 3 + a] = mid + dir[a]! * end
  }
  out[o + 6] = radius
}

/** The deepest penetration of body i's spheres into the capsules it may touch: push = normal (3), depth. */
function deepestPush(body: Body, c: LimbColliders, i: number): void {
  push[3] = 0
  const caps = c.capsules
  const q = body.quaternion
  for (let s = 0; s < body.shapes.length; s++) {
    const sphere = body.shapes[s]
    if (!(sphere instanceof Sphere)) continue
    q.vmult(body.shapeOffsets[s]!, offset)
    const cx = body.position.x + offset.x
    const cy = body.position.y + offset.y
    const cz = body.position.z + offset.z
    for (let k = 0; k < c.joint.length; k++) {
      if (((c.ignore[i * c.words + (k >> 5)]! >>> (k & 31)) & 1) !== 0) continue
      const o = k * 7
      // Closest point of segment [a, b] to the sphere's centre.
      const ex = caps[o + 3]! - caps[o]!
      const ey = caps[o + 4]! - caps[o + 1]!
      const ez = caps[o + 5]! - caps[o + 2]!
      const px = cx - caps[o]!
      const py = cy - caps[o + 1]!
      const pz = cz - caps[o + 2]!
      const e2 = ex * ex + ey * ey + ez * ez
      let t = e2 > 0 ? (px * ex + py * ey + pz * ez) / e2 : 0
      t = t < 0 ? 0 : t > 1 ? 1 : t
      const dx = px - ex * t
      const dy = py - ey * t
      const dz = pz - ez * t
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz)
      const depth = sphere.radius + caps[o + 6]! - d - c.allowance[i * c.joint.length + k]!
      if (!(depth > push[3]!) || !(d > 0)) continue
      push[0] = dx / d
      push[1] = dy / d
      push[2] = dz / d
      push[3] = depth
      push[4] = offset.x
      push[5] = offset.y
      push[6] = offset.z
    }
  }
}
