/**
 * The cannon-es half of a snapshot (snapshot/format.ts): ragdoll bodies and constraints, and where they sit in
 * the physics world.
 *
 * What cannon-es 0.20's next `world.step(dt)` reads and a fresh world lacks — found by reading World.internalStep,
 * Narrowphase, GSSolver, Body, SAPBroadphase and ConeTwistConstraint, and confirmed by
 * test/snapshot/snapshot.restore.test.ts (ragdolls lying on the ground, in contact, at the snapshot; leaving
 * out any item below made the stepping or the byte round trip fail):
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
 *   instance    u32 L, u32 0, the static block (L bytes, a multiple of 8), the dynamic block
 *   static      u16 bodies, u16 constraints, u16 anchors, bodies × (body, f64×7 joint offset), constraints ×
 *               constraint, anchors × (body, i32 joint followed, f64×4 rotation offset), zero bytes to a
 *               multiple of 8: what an instance keeps for its life, so the plugin keeps its bytes
 *               (written once, then copied; staticBlocks) and a restore into the same instance compares them
 *               and sets only the dynamic block's values
 *   body        u8 type, u8 flags (2 a parent body follows), u8 shapes, u8 0,
 *               f64 mass, linear damping, angular damping (a DampedRagdollBody's own, src/physics/damping.ts),
 *               i32 filter group, i32 filter mask, f64×3 inertia, ×3 inverse inertia,
 *               [u16 index of the body it hangs from];
 *               per shape: u8 kind (1 sphere, 4 box; +0x80 when an orientation follows), f64 radius or
 *               f64×3 half extents, f64×3 offset, [f64×4 orientation]
 *               (body indices count the bodies, then a partial ragdoll's anchors: src/physics/partial.ts)
 *   dynamic     per body, then per anchor, f64×29: position 3, quaternion 4, velocity 3, angular velocity 3, force 3, torque 3,
 *               inverse world inertia 9, time last sleepy; then u8 sleep state per body, u8 type per body (a
 *               held root turns kinematic and back), zero bytes to 8
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

import type { RagdollInstance } from './ragdoll.ts'

export const SHAPE_SPHERE = 1
export const SHAPE_BOX = 4
export const HAS_ORIENTATION = 0x80
export const BODY_PARENT = 2
/** cannon-es's ConeTwistConstraint, or the project's RagdollJoint (src/physics/joint.ts) that spawnRagdoll makes. */
export const JOINT_CONE_TWIST = 0
export const JOINT_REPAIRED = 1
export const BROADPHASE_DIRTY = 1
export const BROADPHASE_AXIS_LIST = 2

export interface ShapeData {
  kind: number
  size: number[]
  offset: number[]
  orientation: number[] | null
}

/** A body's static part (see the layout). */
export interface BodyData {
  type: number
  flags: number
  mass: number
  damping: number[]
  group: number
  mask: number
  /** inertia 3, inverse inertia 3. */
  inertia: number[]
  /** Index of the ragdoll body this one hangs from (RagdollBody.ragdollParent), -1 for none. */
  parent: number
  shapes: ShapeData[]
}

export interface ConstraintData {
  /** JOINT_CONE_TWIST or JOINT_REPAIRED. */
  kind: number
  a: number
  b: number
  collideConnected: boolean
  /** pivot A, pivot B, axis A, axis B (3 each), cone angle, twist angle, max force. */
  values: number[]
}

/** A partial ragdoll's anchor as read (src/physics/partial.ts). */
export interface AnchorData {
  body: BodyData
  /** The joint it follows, -1 for the character root. */
  joint: number
  /** Its rotation offset, 4 doubles. */
  offset: number[]
}

/** An instance's static block, parsed and checked. */
export interface StaticData {
  readonly bodies: BodyData[]
  readonly offsets: number[]
  readonly constraints: ConstraintData[]
  readonly anchors: AnchorData[]
}

/** Doubles a body's dynamic part holds (see the layout). */
export const DYNAMIC_DOUBLES = 29

/** A ragdoll instance as read: checked, no cannon-es object made yet. */
export interface InstanceData {
  readonly bodyCount: number
  /** A partial ragdoll's anchors (bodies of the world after its own; their motion follows theirs). */
  readonly anchorCount: number
  readonly constraintCount: number
  /**
   * The static block parsed, or null when its bytes are those of `reuse`, a live instance, which then keeps its
   * bodies (only their dynamic values are set).
   */
  readonly statics: StaticData | null
  readonly reuse: RagdollInstance | null
  /** Byte offsets of the static block (and its length), of the dynamic doubles, and of the sleep states. */
  readonly staticAt: number
  readonly staticLength: number
  readonly dynamicAt: number
  readonly sleepAt: number
  readonly typeAt: number
}

export interface Entry {
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
