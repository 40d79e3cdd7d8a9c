import type { World } from 'cannon-es'
import type { Hasher } from '../sim/hasher.ts'
import type { Reader } from '../sim/byteStream.ts'
import type { Writer } from '../sim/byteWriter.ts'
import type { ResolvedBody } from './description.ts'
import type { PhysicsPlan } from './snapshotFormat.ts'
import type { RagdollMotors } from './motors.ts'
import type { ColliderRig } from './limbColliders.ts'
import type { RagdollSpawnInput as RagdollSpawn } from './ragdoll.ts'

/**
 * The ragdoll physics boundary. systems/, plugin/ and snapshot/ reach ragdoll physics only through a
 * RagdollPhysics (made by createRagdollPhysics, src/physics/cannonBackend.ts) and the plain data below; they
 * never see a cannon-es object, and everything that knows cannon-es is in src/physics/
 * (test/architecture/physics.test.ts holds both). The one exception is public: `world`, the cannon-es world a
 * game reads as `plugin.physics` or passes in as the `physics.world` option.
 *
 * Units are the world's (lengths, seconds, kilograms); transforms are 8 doubles per joint (position 3, rotation
 * quaternion x y z w, uniform scale: src/physics/kinematics.ts) and poses 10 floats per joint. Per-step calls
 * allocate nothing; spawn, remove and the snapshot calls may. Nothing here throws for data the plugin checked.
 */

/** The cannon-es world ragdolls live in (public: `plugin.physics`, the `physics.world` option). */
export type PhysicsWorld = World

declare const ragdollBodies: unique symbol
/** One character's live ragdoll in the physics world: a handle, opaque outside src/physics/. */
export interface RagdollBodies {
  readonly [ragdollBodies]: true
}

/** The world's own (non-ragdoll) bodies and constraints at a restore's read: opaque outside src/physics/. */
export interface ForeignParts {
  readonly bodies: readonly object[]
  readonly constraints: readonly object[]
}

/**
 * A ragdoll instance as a snapshot read it (checked; no cannon-es object made yet): what snapshot/ reads of it.
 * `reuse` is the live instance whose bodies a restore keeps (only their motion set), or null.
 */
export interface ReadBodies {
  readonly bodyCount: number
  readonly anchorCount: number
  readonly constraintCount: number
  readonly reuse: RagdollBodies | null
}

/** What spawn builds: a ragdoll at an animated pose, moving as it moved (src/physics/ragdoll.ts). */
export type { ColliderRig, PhysicsPlan, RagdollMotors, RagdollSpawn }

/**
 * The ragdoll physics a plugin steps. Per step, stepRagdolls calls, for each live ragdoll, wakeOrRest and
 * steer/driveMotors, then `step` once, then place/holdRoots, spawns new ragdolls, and for each live ragdoll
 * exploded, project, sleepTick, keepOutOfBody and readBack; the public calls spawn nothing themselves.
 */
export interface RagdollPhysics {
  /** The cannon-es world (public). */
  readonly world: PhysicsWorld
  /** True when the plugin made `world` itself (it may then skip stepping a world with nothing to move). */
  readonly owned: boolean

  // The world.

  /** |gravity|, world units per s². */
  gravity(): number
  /** The highest static +y plane's height (the plugin's ground), null for none. O(bodies): not per step. */
  groundHeight(): number | null
  /**
   * The ground under a point: a ray straight down, `q` = [x, top y, bottom y, z], the nearest surface met from
   * above into `out` = [height, normal x, y, z]; false for none (src/physics/groundRay.ts: the feet's ground).
   * Allocates nothing for planes, boxes and spheres.
   */
  groundRay(out: Float64Array, q: Float64Array): boolean
  /**
   * Advances the world by dt with `world.step(dt)` (never the forms that read the clock). With no live ragdoll,
   * a world the plugin owns that holds nothing but what it started with is not stepped (nothing could move).
   */
  step(dt: number, ragdollsLive: boolean): void

  // A ragdoll's bodies.

  /** Builds the bodies and joints at the pose and adds them to the world. */
  spawn(input: RagdollSpawn): RagdollBodies
  /** Takes the ragdoll's bodies and joints out of the world. */
  remove(r: RagdollBodies): void
  /** Whether every body's state (and queued force) is finite (checked before the step). */
  finite(r: RagdollBodies): boolean
  /** Whether a body is not finite, or faster than maxSpeed (units/s) or maxSpin (rad/s). */
  exploded(r: RagdollBodies, maxSpeed: number, maxSpin: number): boolean
  /** The ragdoll's longest body: its largest bounding diameter, world units. */
  longest(r: RagdollBodies): number
  /** Whether it hangs from anchors (a partial ragdoll). */
  anchored(r: RagdollBodies): boolean
  /** Per joint, 6 doubles (linear, angular velocity) into `out` at the joints with a body; others untouched. */
  velocities(r: RagdollBodies, out: Float64Array): void
  /**
   * Reads the bodies back into a pose layer (`phys` at physOffset, joint-local; a joint without a body keeps
   * `anim`'s), leaving the joint world transforms in `world`; `root` is the character root's world transform.
   */
  readBack(
    r: RagdollBodies,
    phys: Float32Array,
    physOffset: number,
    anim: Float32Array,
    animOffset: number,
    parents: Int32Array,
    n: number,
    root: Float64Array,
    world: Float64Array,
  ): void

  // Each step.

  /** Before the step: a ragdoll with any body awake wakes whole; a sleeping one's joints leave the solver. */
  wakeOrRest(r: RagdollBodies): void
  /** Before the step: anchors head for the animated pose `target` (root: `root`); a jump over maxSpeed moves all. */
  steer(r: RagdollBodies, target: Float64Array, root: Float64Array, dt: number, maxSpeed: number): void
  /** Before the step: motors' targets and budgets from `target` (see src/physics/motors.ts). */
  driveMotors(
    r: RagdollBodies,
    motors: RagdollMotors,
    capacity: Float64Array,
    target: Float64Array,
    root: Float64Array,
    dt: number,
    maxSpeed: number,
  ): void
  /** After the step: anchors exactly at their targets. */
  place(r: RagdollBodies, target: Float64Array, root: Float64Array): void
  /** After the step: held root bodies exactly at their animated place. */
  holdRoots(r: RagdollBodies, target: Float64Array): void
  /** After the step: joints closed within their tolerance, bodies out of the ground (−∞: none). */
  project(r: RagdollBodies, ground: number): void
  /** After the step and the projection: the sleep test of a ragdoll that may sleep, after a step of dt. */
  sleepTick(r: RagdollBodies, dt: number): void
  /**
   * After the projection: a partial ragdoll's limb out of the animated body at `target` (its `bodies` of the
   * whole `description`; src/physics/limbColliders.ts).
   */
  keepOutOfBody(
    r: RagdollBodies,
    description: readonly ResolvedBody[],
    bodies: readonly ResolvedBody[],
    rig: ColliderRig,
    target: Float64Array,
  ): void

  // Hits, motors, collisions.

  /** A hit: world impulse (N·s) at joint `joint`, placed by `world` (see src/physics/ragdollHits.ts). */
  hit(
    r: RagdollBodies,
    parents: Int32Array,
    world: Float64Array,
    joint: number,
    impulse: readonly [number, number, number],
  ): void
  /** Gives every joint its motor; returns each joint's capacity at strength 1 for steps of dt. */
  attachMotors(r: RagdollBodies, dt: number): Float64Array
  /** Makes the root bodies kinematic (hold) or dynamic again. */
  setRootsHeld(r: RagdollBodies, hold: boolean): void
  /** Wakes every body (a ragdoll that may no longer sleep). */
  wake(r: RagdollBodies): void
  /** Marks the pairs of the ragdoll's bodies that never collide (src/physics/selfCollision.ts restOverlaps). */
  ignorePairs(r: RagdollBodies, overlaps: readonly Uint32Array[]): void
  /**
   * After a spawn: when the ragdoll's shapes overlap other ragdolls', it and they pass through each other until
   * apart (src/physics/ghosts.ts); returns how many it overlapped.
   */
  depenetrate(r: RagdollBodies): number
  /** After the step: ragdolls that passed through others and are now apart from them collide again. */
  settleGhosts(ragdolls: readonly RagdollBodies[], count: number): void

  // hash() and snapshots.

  /** Adds the bodies' state (a partial ragdoll's anchors after them) to a hash. */
  hashBodies(h: Hasher, r: RagdollBodies): void
  /** Adds a powered ragdoll's limit centres (per joint with a motor: centred, rotation) to a hash. */
  hashMotorCentres(h: Hasher, r: RagdollBodies | null): void
  /** Writes a live instance (src/physics/snapshotFormat.ts) and notes its parts as the character's. */
  writeBodies(w: Writer, r: RagdollBodies, eid: number): void
  /** Writes a powered ragdoll's limit centres, one record per joint. */
  writeMotorCentres(w: Writer, r: RagdollBodies): void
  /** Writes where every body and constraint sits in the world, its clock and broadphase. */
  writeWorld(w: Writer, ragdolls: readonly ({ readonly instance: RagdollBodies | null } | undefined)[]): void
  /** The world's parts no ragdoll of `live` holds, in world order. */
  foreignParts(live: readonly RagdollBodies[]): ForeignParts
  /** Reads and checks an instance (changes nothing); `reuse`: a live instance whose static bytes may be kept. */
  readBodies(
    r: Reader,
    where: string,
    description: readonly ResolvedBody[],
    anchorJoints: readonly number[] | null,
    reuse: RagdollBodies | null,
  ): ReadBodies
  /** Reads and checks the world section against this world and its foreign parts (changes nothing). */
  readWorld(
    r: Reader,
    foreign: ForeignParts,
    sizes: ReadonlyMap<number, { bodies: number; constraints: number }>,
  ): PhysicsPlan
  /** Builds an instance as read (not yet in the world: rebuildWorld adds it). */
  buildBodies(
    bytes: Uint8Array,
    data: ReadBodies,
    description: readonly ResolvedBody[],
    nodeJoint: Int32Array,
    jointCount: number,
  ): RagdollBodies
  /** Sets a powered ragdoll's limit centres as read (5 numbers per joint: centred, rotation). */
  restoreMotorCentres(r: RagdollBodies, centres: ArrayLike<number>): void
  /** Puts the world's bodies and constraints in the snapshot's order with its states, clock and broadphase. */
  rebuildWorld(
    plan: PhysicsPlan,
    instances: ReadonlyMap<number, RagdollBodies>,
    data: ReadonlyMap<number, ReadBodies>,
    foreign: ForeignParts,
    bytes: Uint8Array,
  ): void
}

export { createRagdollPhysics, isPhysicsWorld } from './cannonBackend.ts'
