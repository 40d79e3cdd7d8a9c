import {
  Body,
  Box,
  ConeTwistConstraint,
  Quaternion,
  Sphere,
  Vec3,
  type Constraint,
  type World as PhysicsWorld,
} from 'cannon-es'
import { AnimationError } from '../errors.ts'
import type { ResolvedBody } from './description.ts'
import type { RagdollInstance } from './ragdoll.ts'
import type { RagdollBody } from './broadphase.ts'
import { DampedRagdollBody } from './damping.ts'
import { RagdollJoint } from './joint.ts'
import {
  checkChoice,
  checkFinite,
  checkFlags,
  checkNonNegative,
  checkPositive,
  checkRange,
  checkUnit,
  invalidValue,
  readU32Array,
  SNAPSHOT_LIMIT,
  snapshotError,
  writeVec3,
  type Reader,
  type Writer,
} from '../sim/byteStream.ts'

/**
 * The cannon-es half of a snapshot (snapshot/format.ts): ragdoll bodies and constraints, and where they sit in
 * the physics world.
 *
 * What cannon-es 0.20's next `world.step(dt)` reads and a fresh world lacks — found by reading World.internalStep,
 * Narrowphase, GSSolver, Body, SAPBroadphase and ConeTwistConstraint, and confirmed by test/systems/
 * snapshot.test.ts (ragdolls lying on the ground, in contact, at the snapshot; leaving out any item below made
 * the stepping or the byte round trip fail):
 * - body order in `world.bodies` and constraint order in `world.constraints` (equations are solved in the
 *   order they are added, so within a group of touching bodies the order changes the result's bits);
 * - a sweep-and-prune broadphase's axis list: it is re-sorted by insertion sort every step, so bodies with
 *   equal bounds keep the order they had, and the list order decides which body of a pair is `bi`;
 * - per body: position, quaternion, velocities, force/torque (cleared every step, but a game may add some),
 *   inertia, inverse inertia and inverse world inertia — their bits depend on where the body was spawned (mass
 *   properties come from a world-space AABB), and a body with isotropic inertia never updates its world
 *   inertia after spawning, so recomputing it from the quaternion differs in the last bits —, the body it hangs
 *   from (RagdollBody.ragdollParent: the broadphase skips linked pairs), sleep state and time;
 * - per constraint: its class (the project's RagdollJoint updates differently), pivots, axes, angles and max
 *   force, which were set from the animated pose at activation;
 * - `world.stepnumber` (quaternion normalization every n steps) and `world.time` (sleep timing).
 * Not kept, because the next step does not read it: contact and friction equations (rebuilt every step from
 * pooled objects whose fields are all rewritten; GSSolver starts every solve from λ = 0, no warm starting),
 * the collision matrices and overlap keepers (they only drive 'collide'/'beginContact' events, so a listener may
 * see a contact begin again after a restore), previous/interpolated positions (used only by the wall-clock
 * `step(dt, elapsed)` form the plugin never calls), `accumulator`, body and shape ids (cannon-es's global
 * counters; the naive and sweep-and-prune broadphases never read them, cannon-es's grid broadphase does).
 *
 * Layouts (little-endian, see src/sim/byteStream.ts):
 *
 *   instance    u16 bodies × (body, f64×7 joint offset), u16 constraints × constraint
 *   body        u8 type, u8 flags (1 force/torque follow, 2 a parent body follows), u8 sleep state, u8 shapes,
 *               f64 mass, linear damping, angular damping (a DampedRagdollBody's own, src/physics/damping.ts),
 *               i32 filter group, i32 filter mask,
 *               f64×3 position, ×4 quaternion, ×3 velocity, ×3 angular velocity, [×3 force, ×3 torque],
 *               ×3 inertia, ×3 inverse inertia, ×9 inverse world inertia, f64 time last sleepy,
 *               [u16 index of the body it hangs from];
 *               per shape: u8 kind (1 sphere, 4 box; +0x80 when an orientation follows), f64 radius or
 *               f64×3 half extents, f64×3 offset, [f64×4 orientation]
 *   constraint  u8 kind (0 ConeTwistConstraint, 1 RagdollJoint), u16 body A, u16 body B (indices in the
 *               ragdoll), u8 collide connected, f64×3 pivot A,
 *               ×3 pivot B, ×3 axis A, ×3 axis B, f64 cone angle, twist angle, max force
 *   world       f64 time, f64 stepnumber, f64×3 gravity;
 *               u32 bodies in world order × (i32 eid, u16 index), eid 0 = a body not of a ragdoll, followed by
 *                 u8 type and, for a static one, f64×7 position and quaternion (checked, not restored)
 *               u32 constraints in world order × (i32 eid, u16 index), eid 0 = not of a ragdoll
 *               u8 broadphase flags (1 dirty, 2 an axis list follows), [u32 count, u32[count] body indices]
 *
 * A game-supplied physics world: its own bodies and constraints are the game's to restore; the snapshot keeps
 * only where the ragdolls' sit among them (the restoring world must hold as many non-ragdoll bodies and
 * constraints, of the same types, its static ones where the snapshot's were).
 */

const SHAPE_SPHERE = 1
const SHAPE_BOX = 4
const HAS_ORIENTATION = 0x80
const BODY_FORCES = 1
const BODY_PARENT = 2
/** cannon-es's ConeTwistConstraint, or the project's RagdollJoint (src/physics/joint.ts) that spawnRagdoll makes. */
const JOINT_CONE_TWIST = 0
const JOINT_REPAIRED = 1
const BROADPHASE_DIRTY = 1
const BROADPHASE_AXIS_LIST = 2

interface ShapeData {
  kind: number
  size: number[]
  offset: number[]
  orientation: number[] | null
}

interface BodyData {
  type: number
  flags: number
  sleepState: number
  mass: number
  damping: number[]
  group: number
  mask: number
  /** position 3, quaternion 4, velocity 3, angular velocity 3, force 3, torque 3. */
  motion: number[]
  /** inertia 3, inverse inertia 3, inverse world inertia 9. */
  inertia: number[]
  timeLastSleepy: number
  /** Index of the ragdoll body this one hangs from (RagdollBody.ragdollParent), -1 for none. */
  parent: number
  shapes: ShapeData[]
}

interface ConstraintData {
  /** JOINT_CONE_TWIST or JOINT_REPAIRED. */
  kind: number
  a: number
  b: number
  collideConnected: boolean
  /** pivot A, pivot B, axis A, axis B (3 each), cone angle, twist angle, max force. */
  values: number[]
}

/** A ragdoll instance as read: checked, no cannon-es object made yet. */
export interface InstanceData {
  readonly bodies: BodyData[]
  readonly offsets: number[]
  readonly constraints: ConstraintData[]
}

interface Entry {
  eid: number
  index: number
}

export interface PhysicsPlan {
  readonly time: number
  readonly stepnumber: number
  readonly bodies: Entry[]
  readonly constraints: Entry[]
  readonly dirty: boolean
  /** Sweep and prune's axis list as indices into the world's bodies, or null for another broadphase. */
  readonly axisList: Uint32Array | null
}

// ------------------------------------------------------------------------------------------------- write

export function writeInstance(w: Writer, r: RagdollInstance, what: string): void {
  w.u16(r.bodies.length)
  r.bodies.forEach((body, b) => {
    writeBody(w, body, r.bodies, `${what} body ${b}`)
    w.raw(r.jointOffset, b * 7, 7)
  })
  w.u16(r.constraints.length)
  for (const c of r.constraints) {
    const a = r.bodies.indexOf(c.bodyA)
    const b = r.bodies.indexOf(c.bodyB)
    if (!(c instanceof ConeTwistConstraint) || a < 0 || b < 0) {
      throw new Error(`snapshot: ${what} has a constraint that is not its own cone-twist`)
    }
    w.u8(c instanceof RagdollJoint ? JOINT_REPAIRED : JOINT_CONE_TWIST)
    w.u16(a)
    w.u16(b)
    w.u8(c.collideConnected ? 1 : 0)
    for (const v of [c.pivotA, c.pivotB, c.axisA, c.axisB]) writeVec3(w, v)
    w.f64(c.angle)
    w.f64(c.twistAngle)
    w.f64(c.equationX.maxForce)
  }
}

function writeBody(w: Writer, body: Body, siblings: readonly Body[], what: string): void {
  const one = (v: Vec3): boolean => v.x === 1 && v.y === 1 && v.z === 1
  if (
    body.material !== null ||
    body.fixedRotation ||
    body.isTrigger ||
    !body.collisionResponse ||
    !one(body.linearFactor) ||
    !one(body.angularFactor)
  ) {
    throw new AnimationError(
      'snapshot',
      `snapshot: ${what} has a material, fixed rotation, trigger flag, disabled response or axis factors, ` +
        'which the snapshot format does not carry',
    )
  }
  const forces = !isZero(body.force) || !isZero(body.torque)
  const parent = (body as Partial<RagdollBody>).ragdollParent ?? null
  const parentIndex = parent ? siblings.indexOf(parent) : -1
  w.u8(body.type)
  w.u8((forces ? BODY_FORCES : 0) | (parentIndex >= 0 ? BODY_PARENT : 0))
  w.u8(body.sleepState)
  w.u8(body.shapes.length)
  // A DampedRagdollBody (every body spawnRagdoll makes) applies its damping itself; cannon-es's is 0 there.
  const damped = body instanceof DampedRagdollBody
  const linear = damped ? body.detLinearDamping : body.linearDamping
  const angular = damped ? body.detAngularDamping : body.angularDamping
  for (const x of [body.mass, linear, angular]) w.f64(x)
  w.i32(body.collisionFilterGroup)
  w.i32(body.collisionFilterMask)
  writeVec3(w, body.position)
  writeQuaternion(w, body.quaternion)
  writeVec3(w, body.velocity)
  writeVec3(w, body.angularVelocity)
  if (forces) {
    writeVec3(w, body.force)
    writeVec3(w, body.torque)
  }
  writeVec3(w, body.inertia)
  writeVec3(w, body.invInertia)
  for (const x of body.invInertiaWorld.elements) w.f64(x)
  w.f64(body.timeLastSleepy)
  if (parentIndex >= 0) w.u16(parentIndex)
  body.shapes.forEach((shape, i) => {
    const o = body.shapeOrientations[i]!
    const oriented = o.x !== 0 || o.y !== 0 || o.z !== 0 || o.w !== 1
    if (shape instanceof Sphere) {
      w.u8(SHAPE_SPHERE | (oriented ? HAS_ORIENTATION : 0))
      w.f64(shape.radius)
    } else if (shape instanceof Box) {
      w.u8(SHAPE_BOX | (oriented ? HAS_ORIENTATION : 0))
      writeVec3(w, shape.halfExtents)
    } else {
      throw new AnimationError(
        'snapshot',
        `snapshot: ${what} shape ${i} is a ${shape.constructor.name}; ragdolls use spheres and boxes only`,
      )
    }
    writeVec3(w, body.shapeOffsets[i]!)
    if (oriented) writeQuaternion(w, o)
  })
}

/**
 * Where the ragdolls' bodies and constraints sit in the physics world (`owners` maps each to its character and
 * index), the world's clock, and the broadphase's order.
 */
export function writePhysicsWorld(
  w: Writer,
  physics: PhysicsWorld,
  instances: ReadonlyMap<number, RagdollInstance>,
): void {
  const bodyOwner = new Map<Body, [number, number]>()
  const constraintOwner = new Map<Constraint, [number, number]>()
  for (const [eid, r] of instances) {
    r.bodies.forEach((b, i) => bodyOwner.set(b, [eid, i]))
    r.constraints.forEach((c, i) => constraintOwner.set(c, [eid, i]))
  }
  w.f64(physics.time)
  w.f64(physics.stepnumber)
  writeVec3(w, physics.gravity)
  w.u32(physics.bodies.length)
  for (const body of physics.bodies) {
    const owner = bodyOwner.get(body)
    w.i32(owner ? owner[0] : 0)
    w.u16(owner ? owner[1] : 0)
    if (owner) continue
    w.u8(body.type)
    if (body.type === Body.STATIC) {
      writeVec3(w, body.position)
      writeQuaternion(w, body.quaternion)
    }
  }
  w.u32(physics.constraints.length)
  for (const c of physics.constraints) {
    const owner = constraintOwner.get(c)
    w.i32(owner ? owner[0] : 0)
    w.u16(owner ? owner[1] : 0)
  }
  const broadphase = physics.broadphase as { dirty: boolean; axisList?: Body[] }
  const axis = Array.isArray(broadphase.axisList) ? broadphase.axisList : null
  w.u8((broadphase.dirty ? BROADPHASE_DIRTY : 0) | (axis ? BROADPHASE_AXIS_LIST : 0))
  if (axis) {
    const index = new Map(physics.bodies.map((b, i) => [b, i]))
    w.u32(axis.length)
    for (const b of axis) w.u32(index.get(b) ?? 0xffffffff)
  }
}

function writeQuaternion(w: Writer, q: Quaternion): void {
  for (const x of [q.x, q.y, q.z, q.w]) w.f64(x)
}

/** Zero, and not -0 (whose bits a restore must keep too). */
function isZero(v: Vec3): boolean {
  return Object.is(v.x, 0) && Object.is(v.y, 0) && Object.is(v.z, 0)
}

// -------------------------------------------------------------------------------------------------- read

/**
 * Reads a ragdoll instance and checks it against its description (`where` names the section and the ragdoll):
 * one body per description body, hanging from the body its description names; one constraint per body with a
 * parent body, in body order, linking the two; every value within what cannon-es and the ragdoll code can take
 * (see readBody), so that buildInstance cannot throw and no zero quaternion or axis turns into NaN.
 */
export function readInstance(r: Reader, where: string, description: readonly ResolvedBody[]): InstanceData {
  const bodies: BodyData[] = []
  const offsets: number[] = []
  const count = r.u16()
  if (count !== description.length) {
    throw invalidValue(where, 'body count', count, `must be ${description.length}, as in its description`)
  }
  for (let b = 0; b < count; b++) {
    const at = `${where}, body ${b}`
    bodies.push(readBody(r, at, description[b]!.parentBody))
    const offset = r.f64s(7)
    checkFinite(at, 'joint offset', offset, 0, 3)
    checkUnit(at, 'joint offset rotation', offset, 3)
    offsets.push(...offset)
  }
  const children: number[] = []
  description.forEach((spec, b) => spec.parentBody >= 0 && children.push(b))
  const constraintCount = r.u16()
  if (constraintCount !== children.length) {
    throw invalidValue(
      where,
      'constraint count',
      constraintCount,
      `must be ${children.length}, one per body with a parent body`,
    )
  }
  const constraints: ConstraintData[] = []
  for (let k = 0; k < constraintCount; k++) {
    const at = `${where}, constraint ${k}`
    const kind = r.u8()
    const a = r.u16()
    const b = r.u16()
    const collide = r.u8()
    const values = r.f64s(15)
    checkChoice(at, 'kind', kind, [JOINT_CONE_TWIST, JOINT_REPAIRED])
    const child = children[k]!
    const parent = description[child]!.parentBody
    if (b !== child) throw invalidValue(at, 'body B', b, `must be ${child} (constraints follow their bodies)`)
    if (a !== parent)
      throw invalidValue(at, 'body A', a, `must be ${parent}, the parent body of body ${child}`)
    checkChoice(at, 'collide connected', collide, [0, 1])
    checkFinite(at, 'pivot A', values, 0, 3)
    checkFinite(at, 'pivot B', values, 3, 3)
    checkUnit(at, 'axis A', values, 6, 3)
    checkUnit(at, 'axis B', values, 9, 3)
    checkRange(at, 'cone angle', values[12]!, 0, Math.PI, true)
    checkRange(at, 'twist angle', values[13]!, 0, Math.PI)
    checkPositive(at, 'max force', values[14]!)
    constraints.push({ kind, a, b, collideConnected: collide === 1, values })
  }
  return { bodies, offsets, constraints }
}

const BODY_TYPES = [Body.DYNAMIC, Body.STATIC, Body.KINEMATIC]
const SLEEP_STATES = [Body.AWAKE, Body.SLEEPY, Body.SLEEPING]

/**
 * One body, checked: type, flags and sleep state known; mass finite (> 0 for a dynamic body), damping a
 * fraction; position, velocities, force and torque finite and within SNAPSHOT_LIMIT; quaternions near unit
 * length; inertia finite and ≥ 0; 1 to 255 shapes, each a sphere of radius > 0 or a box of half extents > 0
 * (cannon-es throws for a negative radius, and a zero one gives NaN normals); hanging from `parentBody`.
 */
function readBody(r: Reader, where: string, parentBody: number): BodyData {
  const type = r.u8()
  const flags = r.u8()
  const sleepState = r.u8()
  const shapeCount = r.u8()
  checkChoice(where, 'type', type, BODY_TYPES)
  checkFlags(where, 'flags', flags, BODY_FORCES | BODY_PARENT)
  checkChoice(where, 'sleep state', sleepState, SLEEP_STATES)
  checkRange(where, 'shape count', shapeCount, 1, 255)
  const mass = r.f64()
  if (type === Body.DYNAMIC) checkPositive(where, 'mass', mass)
  else checkNonNegative(where, 'mass', mass)
  const damping = r.f64s(2)
  checkRange(where, 'linear damping', damping[0]!, 0, 1)
  checkRange(where, 'angular damping', damping[1]!, 0, 1)
  const group = r.i32()
  const mask = r.i32()
  const motion = r.f64s(13)
  motion.push(...((flags & BODY_FORCES) !== 0 ? r.f64s(6) : [0, 0, 0, 0, 0, 0]))
  checkFinite(where, 'position', motion, 0, 3)
  checkUnit(where, 'quaternion', motion, 3)
  checkFinite(where, 'velocity', motion, 7, 3)
  checkFinite(where, 'angular velocity', motion, 10, 3)
  checkFinite(where, 'force', motion, 13, 3)
  checkFinite(where, 'torque', motion, 16, 3)
  const inertia = r.f64s(15)
  for (let k = 0; k < 3; k++) {
    checkNonNegative(where, `inertia[${k}]`, inertia[k]!)
    checkNonNegative(where, `inverse inertia[${k}]`, inertia[3 + k]!)
  }
  checkFinite(where, 'inverse world inertia', inertia, 6, 9, Number.MAX_VALUE)
  const timeLastSleepy = r.f64()
  checkFinite(where, 'time last sleepy', [timeLastSleepy], 0, 1, Number.MAX_VALUE)
  const parent = (flags & BODY_PARENT) !== 0 ? r.u16() : -1
  if (parent !== parentBody) {
    throw invalidValue(where, 'parent body', parent, `must be ${parentBody}, as in its description`)
  }
  const shapes: ShapeData[] = []
  for (let i = 0; i < shapeCount; i++) {
    const tag = r.u8()
    const kind = tag & ~HAS_ORIENTATION
    checkChoice(where, `shape ${i} kind`, kind, [SHAPE_SPHERE, SHAPE_BOX])
    const size = r.f64s(kind === SHAPE_SPHERE ? 1 : 3)
    const name = kind === SHAPE_SPHERE ? 'radius' : 'half extents'
    size.forEach((x, k) =>
      checkPositive(where, `shape ${i} ${name}${size.length > 1 ? `[${k}]` : ''}`, x, SNAPSHOT_LIMIT),
    )
    const offset = r.f64s(3)
    checkFinite(where, `shape ${i} offset`, offset)
    const orientation = (tag & HAS_ORIENTATION) !== 0 ? r.f64s(4) : null
    if (orientation) checkUnit(where, `shape ${i} orientation`, orientation)
    shapes.push({ kind, size, offset, orientation })
  }
  return {
    type,
    flags,
    sleepState,
    mass,
    damping,
    group,
    mask,
    motion,
    inertia,
    timeLastSleepy,
    parent,
    shapes,
  }
}

/**
 * Reads the world section and checks it against `physics` (gravity, the non-ragdoll bodies and constraints,
 * the broadphase kind) and against the ragdolls read before it (`sizes`: bodies and constraints per character).
 */
export function readPhysicsWorld(
  r: Reader,
  physics: PhysicsWorld,
  sizes: ReadonlyMap<number, { bodies: number; constraints: number }>,
): PhysicsPlan {
  const time = r.f64()
  const stepnumber = r.f64()
  const gravity = r.f64s(3)
  checkNonNegative('section "physics"', 'time', time)
  // cannon-es takes it modulo the quaternion normalization period.
  if (!(Number.isInteger(stepnumber) && stepnumber >= 0 && stepnumber <= Number.MAX_SAFE_INTEGER)) {
    throw invalidValue('section "physics"', 'step number', stepnumber, 'must be a whole number ≥ 0')
  }
  const g = physics.gravity
  if (!Object.is(gravity[0], g.x) || !Object.is(gravity[1], g.y) || !Object.is(gravity[2], g.z)) {
    throw snapshotError(
      `has gravity (${gravity.join(', ')}), this plugin's physics world (${g.x}, ${g.y}, ${g.z})`,
    )
  }
  const entries = (kind: 'bodies' | 'constraints', count: number, other: (e: Entry, i: number) => void) => {
    const list: Entry[] = []
    const seen = new Set<string>()
    for (let i = 0; i < count; i++) {
      const e = { eid: r.i32(), index: r.u16() }
      if (e.eid !== 0) {
        const key = `${e.eid}/${e.index}`
        if (e.index >= (sizes.get(e.eid)?.[kind] ?? 0) || seen.has(key)) {
          throw snapshotError(
            `section "physics": ${kind} entry ${i} names ragdoll ${e.eid}'s ${kind} ${e.index}, which does not exist or is listed twice`,
          )
        }
        seen.add(key)
      } else other(e, i)
      list.push(e)
    }
    const total = [...sizes.values()].reduce((s, x) => s + x[kind], 0)
    if (seen.size !== total)
      throw snapshotError(`section "physics": the world lists ${seen.size} of the ragdolls' ${total} ${kind}`)
    return list
  }
  let own = 0
  const bodies = entries('bodies', r.u32(), (_, i) => {
    const type = r.u8()
    const statics = type === Body.STATIC ? r.f64s(7) : null
    const mine = physics.bodies[own]
    if (!mine || mine.type !== type) {
      throw snapshotError(
        `has a non-ragdoll ${bodyType(type)} body at physics index ${i}; this plugin's physics world has ` +
          `${mine ? `a ${bodyType(mine.type)} one` : `only ${physics.bodies.length} bodies`} there ` +
          '(create the plugin with the same physics options)',
      )
    }
    const p = mine.position
    const q = mine.quaternion
    const here = [p.x, p.y, p.z, q.x, q.y, q.z, q.w]
    if (statics && !here.every((x, k) => Object.is(x, statics[k]))) {
      throw snapshotError(
        `static body ${own} is at (${statics.slice(0, 3).join(', ')}), this plugin's at ` +
          `(${here.slice(0, 3).join(', ')}) (create the plugin with the same ground)`,
      )
    }
    own++
  })
  if (own !== physics.bodies.length) {
    throw snapshotError(
      `has ${own} non-ragdoll physics bodies, this plugin's physics world ${physics.bodies.length}`,
    )
  }
  let ownConstraints = 0
  const constraints = entries('constraints', r.u32(), () => ownConstraints++)
  if (ownConstraints !== physics.constraints.length) {
    throw snapshotError(
      `has ${ownConstraints} non-ragdoll constraints, this plugin's physics world ${physics.constraints.length}`,
    )
  }
  const flags = r.u8()
  checkFlags('section "physics"', 'broadphase flags', flags, BROADPHASE_DIRTY | BROADPHASE_AXIS_LIST)
  const sweeps = Array.isArray((physics.broadphase as { axisList?: Body[] }).axisList)
  if (sweeps !== ((flags & BROADPHASE_AXIS_LIST) !== 0)) {
    throw snapshotError(
      `was taken with ${sweeps ? 'a broadphase without' : 'a sweep-and-prune broadphase with'} an axis list, ` +
        `this plugin's physics world uses ${physics.broadphase.constructor.name}`,
    )
  }
  let axisList: Uint32Array | null = null
  if (sweeps) {
    const count = r.u32()
    axisList = readU32Array(r.bytes, r.span(4 * count), count)
    const seen = new Uint8Array(bodies.length)
    if (count !== bodies.length || !axisList.every((i) => i < bodies.length && seen[i]!++ === 0)) {
      throw snapshotError(
        `section "physics": the broadphase axis list (${count} entries) is not an order of the ${bodies.length} bodies`,
      )
    }
  }
  return { time, stepnumber, bodies, constraints, dirty: (flags & BROADPHASE_DIRTY) !== 0, axisList }
}

function bodyType(type: number): string {
  return type === Body.STATIC ? 'static' : type === Body.KINEMATIC ? 'kinematic' : 'dynamic'
}

// ------------------------------------------------------------------------------------------------- build

/**
 * Makes the instance's cannon-es bodies and constraints (not yet in a world). Joint ↔ body maps follow from
 * the description through `nodeJoint`, as spawnRagdoll builds them.
 */
export function buildInstance(
  data: InstanceData,
  description: readonly ResolvedBody[],
  nodeJoint: Int32Array,
  jointCount: number,
): RagdollInstance {
  const bodies = data.bodies.map(buildBody)
  data.bodies.forEach((d, b) => (bodies[b]!.ragdollParent = d.parent < 0 ? null : bodies[d.parent]!))
  const constraints = data.constraints.map(({ kind, a, b, collideConnected, values: v }) => {
    const vec = (k: number) => new Vec3(v[k], v[k + 1], v[k + 2])
    const Joint = kind === JOINT_REPAIRED ? RagdollJoint : ConeTwistConstraint
    return new Joint(bodies[a]!, bodies[b]!, {
      pivotA: vec(0),
      pivotB: vec(3),
      axisA: vec(6),
      axisB: vec(9),
      angle: v[12],
      twistAngle: v[13],
      maxForce: v[14],
      collideConnected,
    })
  })
  const bodyJoint = new Int32Array(bodies.length)
  const jointBody = new Int32Array(jointCount).fill(-1)
  description.forEach((spec, b) => {
    const j = nodeJoint[spec.node]!
    bodyJoint[b] = j
    jointBody[j] = b
  })
  return { bodies, constraints, bodyJoint, jointBody, jointOffset: Float64Array.from(data.offsets) }
}

/** Always a DampedRagdollBody, as spawnRagdoll makes: the damping stored is applied deterministically. */
function buildBody(d: BodyData): DampedRagdollBody {
  const body = new DampedRagdollBody({
    mass: d.mass,
    linearDamping: d.damping[0],
    angularDamping: d.damping[1],
  })
  for (const s of d.shapes) {
    const [x, y, z] = s.size
    const shape = s.kind === SHAPE_SPHERE ? new Sphere(x!) : new Box(new Vec3(x, y, z))
    const o = s.orientation
    body.addShape(
      shape,
      new Vec3(s.offset[0], s.offset[1], s.offset[2]),
      o ? new Quaternion(o[0], o[1], o[2], o[3]) : undefined,
    )
  }
  return body
}

/** The body's dynamic state, written last: addBody and addShape's mass properties overwrite some of it. */
function setBodyState(body: Body, d: BodyData): void {
  const m = d.motion
  const i = d.inertia
  body.type = d.type as typeof body.type
  body.collisionFilterGroup = d.group
  body.collisionFilterMask = d.mask
  body.position.set(m[0]!, m[1]!, m[2]!)
  body.quaternion.set(m[3]!, m[4]!, m[5]!, m[6]!)
  body.velocity.set(m[7]!, m[8]!, m[9]!)
  body.angularVelocity.set(m[10]!, m[11]!, m[12]!)
  body.force.set(m[13]!, m[14]!, m[15]!)
  body.torque.set(m[16]!, m[17]!, m[18]!)
  body.inertia.set(i[0]!, i[1]!, i[2]!)
  body.invInertia.set(i[3]!, i[4]!, i[5]!)
  for (let k = 0; k < 9; k++) body.invInertiaWorld.elements[k] = i[6 + k]!
  body.sleepState = d.sleepState as typeof body.sleepState
  body.timeLastSleepy = d.timeLastSleepy
  body.previousPosition.copy(body.position)
  body.previousQuaternion.copy(body.quaternion)
  body.aabbNeedsUpdate = true
}

/**
 * Puts the built ragdolls into the physics world at their snapshot places among the world's own (non-ragdoll)
 * bodies and constraints — from the first ragdoll entry on, the world's own ones are taken out and everything
 * is added back in snapshot order —, then sets body states, the broadphase order and the world's clock.
 */
export function rebuildPhysicsWorld(
  physics: PhysicsWorld,
  plan: PhysicsPlan,
  instances: ReadonlyMap<number, RagdollInstance>,
  data: ReadonlyMap<number, InstanceData>,
): void {
  const place = <T extends Body | Constraint>(
    entries: readonly Entry[],
    own: readonly T[],
    of: (r: RagdollInstance) => readonly T[],
    remove: (x: T) => void,
    add: (x: T) => void,
  ) => {
    let k = 0
    const items = entries.map((e) => (e.eid === 0 ? own[k++]! : of(instances.get(e.eid)!)[e.index]!))
    const first = entries.findIndex((e) => e.eid !== 0)
    if (first < 0) return
    for (let i = first; i < items.length; i++) if (entries[i]!.eid === 0) remove(items[i]!)
    for (let i = first; i < items.length; i++) add(items[i]!)
  }
  place(
    plan.bodies,
    [...physics.bodies],
    (r) => r.bodies,
    (b) => physics.removeBody(b),
    (b) => physics.addBody(b),
  )
  place<Constraint>(
    plan.constraints,
    [...physics.constraints],
    (r) => r.constraints,
    (c) => physics.removeConstraint(c),
    (c) => physics.addConstraint(c),
  )
  for (const [eid, r] of instances) r.bodies.forEach((b, i) => setBodyState(b, data.get(eid)!.bodies[i]!))
  const broadphase = physics.broadphase as { dirty: boolean; axisList?: Body[] }
  if (plan.axisList && broadphase.axisList) {
    const list = broadphase.axisList
    list.length = 0
    for (const i of plan.axisList) list.push(physics.bodies[i]!)
  }
  broadphase.dirty = plan.dirty
  physics.time = plan.time
  physics.stepnumber = plan.stepnumber
}
