import { World, type Body, type Constraint } from 'cannon-es'
import type { Hasher } from '../sim/hasher.ts'
import type { Writer } from '../sim/byteWriter.ts'
import type { ForeignParts, PhysicsWorld, RagdollBodies, RagdollPhysics } from './api.ts'
import { ghostOnOverlap, GHOST_GROUP, isGhost, settleGhosts } from './ghosts.ts'
import { RagdollJoint } from './joint.ts'
import { collidersFor, pushOutOfBody } from './limbColliders.ts'
import { attachMotors, driveMotors, holdRootBodies, setRootsHeld } from './motors.ts'
import { placeAnchors, steerAnchors } from './partial.ts'
import { despawnRagdoll, ragdollInstance as instance, spawnRagdoll, type RagdollInstance } from './ragdoll.ts'
import { applyRagdollHit, projectRagdollJoints } from './ragdollHits.ts'
import { bodiesFinite, ragdollExploded, readRagdollPose } from './readback.ts'
import { markOverlaps } from './broadphase.ts'
import { sleepTick, wakeOrRest, wakeRagdoll } from './sleep.ts'
import {
  buildInstance,
  noteInstance,
  readInstance,
  readPhysicsWorld,
  rebuildPhysicsWorld,
  writeInstance,
  writePhysicsWorld,
} from './snapshot.ts'
import type { InstanceData } from './snapshotFormat.ts'
import type { OwnPhysics } from './snapshotRead.ts'
import { createPhysicsWorld, groundHeight } from './world.ts'
import { groundRay } from './groundRay.ts'

/**
 * RagdollPhysics on cannon-es (src/physics/api.ts): the plugin's ragdolls as cannon-es bodies and joints
 * (src/physics/ragdoll.ts and the modules beside it) in `world`, the plugin's own (createPhysicsWorld, with the
 * speed-ups of src/physics/cannonPatches/) or the game's.
 */

/** What createRagdollPhysics takes: the plugin's `physics` option (checked here). */
export interface PhysicsOptions {
  /** A game's cannon-es world; default: the plugin's own. */
  readonly world?: unknown
  readonly gravity?: readonly [number, number, number]
  readonly ground?: number | false
}

/** Whether `x` is a cannon-es World (the `physics.world` option's check). */
export function isPhysicsWorld(x: unknown): x is PhysicsWorld {
  return x instanceof World
}

/**
 * The plugin's ragdoll physics: on the game's world (`world`, checked by isPhysicsWorld before) or on one of its
 * own (gravity and ground checked there: AnimationError 'argument').
 */
export function createRagdollPhysics(o: PhysicsOptions): RagdollPhysics {
  const owned = o.world === undefined
  const world = owned ? createPhysicsWorld(o) : (o.world as World)
  /** Bodies of the plugin's own world before any ragdoll (the ground): stepping only those changes nothing. */
  const idleBodies = world.bodies.length
  return {
    world,
    owned,
    gravity: () => {
      const g = world.gravity
      return Math.sqrt(g.x * g.x + g.y * g.y + g.z * g.z)
    },
    groundHeight: () => groundHeight(world),
    groundRay: (out, q) => groundRay(out, world, q),
    step: (dt, ragdollsLive) => {
      if (ragdollsLive || !owned || world.bodies.length > idleBodies) world.step(dt)
    },

    spawn: (input) => spawnRagdoll(world, input),
    remove: (r) => despawnRagdoll(world, instance(r)),
    finite: (r) => bodiesFinite(instance(r)),
    exploded: (r, maxSpeed, maxSpin) => ragdollExploded(instance(r), maxSpeed, maxSpin),
    longest: (r) => instance(r).longest,
    anchored: (r) => instance(r).anchors.length > 0,
    velocities,
    readBack: (r, phys, physOffset, anim, animOffset, parents, n, root, out) =>
      readRagdollPose(instance(r), phys, physOffset, anim, animOffset, parents, n, root, 0, out),

    wakeOrRest: (r) => wakeOrRest(instance(r)),
    steer: (r, target, root, dt, maxSpeed) => steerAnchors(instance(r), target, root, dt, maxSpeed),
    driveMotors: (r, motors, capacity, target, root, dt, maxSpeed) =>
      driveMotors(instance(r), motors, capacity, target, root, dt, maxSpeed),
    place: (r, target, root) => placeAnchors(instance(r), target, root),
    holdRoots: (r, target) => holdRootBodies(instance(r), target),
    project: (r, ground) => projectRagdollJoints(instance(r), ground),
    sleepTick: (r, dt) => sleepTick(instance(r), world.time, dt),
    keepOutOfBody: (r, description, bodies, rig, target) => {
      const i = instance(r)
      // Derived from the description and the rig only (its scratch is rewritten every call): kept per instance.
      i.colliders = collidersFor(i.colliders, description, bodies, rig)
      pushOutOfBody(i, i.colliders, target)
    },

    hit: (r, parents, at, joint, impulse) => applyRagdollHit(instance(r), parents, at, joint, impulse),
    attachMotors: (r, dt) => attachMotors(instance(r), world.gravity.length(), dt),
    setRootsHeld: (r, hold) => setRootsHeld(instance(r), hold),
    wake: (r) => wakeRagdoll(instance(r)),
    ignorePairs: (r, overlaps) => markOverlaps(instance(r).bodies, overlaps),
    depenetrate: (r) => ghostOnOverlap(world.bodies, instance(r)),
    settleGhosts: (ragdolls, count) => settleGhosts(ragdolls as readonly RagdollInstance[], count),

    hashBodies,
    hashMotorCentres,
    writeBodies: (w, r, eid) => {
      writeInstance(w, instance(r), eid)
      noteInstance(eid, instance(r))
    },
    writeMotorCentres,
    writeWorld: (w, ragdolls) =>
      writePhysicsWorld(w, world, ragdolls as readonly ({ instance: RagdollInstance | null } | undefined)[]),
    foreignParts: (live) => foreignParts(world, live),
    readBodies: (r, where, description, anchorJoints, reuse) =>
      readInstance(r, where, description, anchorJoints, instance(reuse)),
    readWorld: (r, foreign, sizes) => readPhysicsWorld(r, world, own(foreign), sizes),
    buildBodies: (bytes, data, description, nodeJoint, jointCount) =>
      buildInstance(world, bytes, data as InstanceData, description, nodeJoint, jointCount),
    restoreMotorCentres,
    rebuildWorld: (plan, instances, data, foreign, bytes) =>
      rebuildPhysicsWorld(
        world,
        plan,
        instances as ReadonlyMap<number, RagdollInstance>,
        data as ReadonlyMap<number, InstanceData>,
        own(foreign),
        bytes,
      ),
  }
}

/** Per joint with a body, its body's linear and angular velocity (6 doubles) into `out`. */
function velocities(r: RagdollBodies, out: Float64Array): void {
  const { bodies, bodyJoint } = instance(r)
  for (let b = 0; b < bodies.length; b++) {
    const o = bodyJoint[b]! * 6
    const v = bodies[b]!.velocity
    const w = bodies[b]!.angularVelocity
    out[o] = v.x
    out[o + 1] = v.y
    out[o + 2] = v.z
    out[o + 3] = w.x
    out[o + 4] = w.y
    out[o + 5] = w.z
  }
}

/** Doubles of one live ragdoll body in the hash: position 3, velocity 3, angular velocity 3, quaternion 4. */
const BODY_DOUBLES = 13
let bodyScratch = new Float64Array(0)

function hashBodies(h: Hasher, r: RagdollBodies): void {
  const { bodies, anchors } = instance(r)
  const count = bodies.length + anchors.length
  const doubles = BODY_DOUBLES * count
  if (bodyScratch.length < doubles) bodyScratch = new Float64Array(doubles)
  const v = bodyScratch
  let k = 0
  for (let i = 0; i < count; i++) {
    const b = i < bodies.length ? bodies[i]! : anchors[i - bodies.length]!
    for (const x of [b.position, b.velocity, b.angularVelocity]) {
      v[k++] = x.x
      v[k++] = x.y
      v[k++] = x.z
    }
    const q = b.quaternion
    v[k++] = q.x
    v[k++] = q.y
    v[k++] = q.z
    v[k++] = q.w
  }
  h.update(v, 0, doubles)
  // A ghost (src/physics/ghosts.ts) collides differently: part of the state, hashed only when it is one.
  if (isGhost(instance(r))) h.updateNumber(GHOST_GROUP)
}

function hashMotorCentres(h: Hasher, r: RagdollBodies | null): void {
  if (r === null) return
  for (const c of instance(r).constraints) {
    if (!(c instanceof RagdollJoint) || c.reference === null) continue
    const q = c.reference
    h.updateNumber(c.centred ? 1 : 0)
      .updateNumber(q.x)
      .updateNumber(q.y)
      .updateNumber(q.z)
      .updateNumber(q.w)
  }
}

/** Doubles on their way to the writer: through a typed array they are not boxed (see Writer.vec3). */
const D = new Float64Array(4)

/** Per constraint: f64×4 the rotation its limits are centred on, u8 centred (0, 1), zeros to 8. */
function writeMotorCentres(w: Writer, r: RagdollBodies): void {
  for (const c of instance(r).constraints) {
    const q = c instanceof RagdollJoint ? c.reference : null
    D[0] = q ? q.x : 0
    D[1] = q ? q.y : 0
    D[2] = q ? q.z : 0
    D[3] = q ? q.w : 1
    w.raw(D, 0, 4)
    w.u8(c instanceof RagdollJoint && c.centred ? 1 : 0)
    w.align(8)
  }
}

function restoreMotorCentres(r: RagdollBodies, centres: ArrayLike<number>): void {
  const constraints = instance(r).constraints
  for (let k = 0; k < constraints.length; k++) {
    const c = constraints[k]!
    if (!(c instanceof RagdollJoint)) continue
    c.centred = centres[5 * k] === 1
    c.reference!.set(centres[5 * k + 1]!, centres[5 * k + 2]!, centres[5 * k + 3]!, centres[5 * k + 4]!)
  }
}

/** The world's bodies and constraints that none of the live ragdolls holds, in world order. */
function foreignParts(world: World, live: readonly RagdollBodies[]): ForeignParts {
  const theirs = new Set<unknown>()
  for (const handle of live) {
    const r = instance(handle)
    for (const b of r.bodies) theirs.add(b)
    for (const b of r.anchors) theirs.add(b)
    for (const c of r.constraints) theirs.add(c)
  }
  return {
    bodies: world.bodies.filter((b) => !theirs.has(b)),
    constraints: world.constraints.filter((c) => !theirs.has(c)),
  }
}

/** The foreign parts as cannon-es objects (foreignParts made them). */
const own = (f: ForeignParts): OwnPhysics =>
  f as { bodies: readonly Body[]; constraints: readonly Constraint[] }
