import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import { awaitingBodies, type StepState, type AnimationStores, type RagdollRuntime } from './state.ts'
import { POSE_ANIM, POSE_PHYS, POSE_PREV, poseOffset } from '../components/Pose.ts'
import { RAGDOLL_FALLING, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import { forwardKinematics, WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { unbuildableBody } from '../src/physics/buildable.ts'
import type { RagdollBodies } from '../src/physics/api.ts'
import { rampRagdollWeight } from './ragdollWeights.ts'
import { characterRootWorld, endRagdoll, mayRest, spawnRuntime } from './ragdollSpawn.ts'

/**
 * A body faster than this (world units per second, and at least RAGDOLL_MAX_FALL_SECONDS of free fall, so a
 * world in centimetres with gravity 982 gets 19640 cm/s, not 200 cm/s) or spinning faster (radians per second)
 * has exploded. The spin limit is generous: a hard hit on a light end body (a Fox's 0.6 kg head) legitimately
 * spins it at a few hundred radians per second.
 */
export const RAGDOLL_MAX_SPEED = 200
/**
 * …and at least this many of its longest body's lengths per second, so the limit grows with the character:
 * 400 is the 200 m/s of a 1.8 m humanoid (longest body ~0.5 m), and a Fox at scale 1 (100 m long) may fall
 * faster than 200 m/s without being called exploded.
 */
export const RAGDOLL_MAX_SPEED_PER_LENGTH = 400
export const RAGDOLL_MAX_FALL_SECONDS = 20
export const RAGDOLL_MAX_SPIN = 1000
/**
 * The most ragdoll bodies one step spawns (issue 33): a game that ragdolls a crowd at once has it handed over
 * through a few steps, this many bodies a step (always at least one ragdoll), in entity order; the others keep
 * animating until their turn, and a 'ragdoll-limited' event says so. Building a body costs ~0.1–0.15 ms of CPU
 * with what its first steps allocate (100 humanoids at once took 160–330 ms in their hand-off step), so a step
 * spends ~10 ms spawning at most: four Foxes or humanoids a step.
 */
export const RAGDOLL_SPAWN_BODIES = 64

/** What stepRagdolls reads and writes: a slice of the plugin's context (tests may pass just this). */
export type StepRagdollsInput = Pick<
  StepState,
  'world' | 'dt' | 'step' | 'pool' | 'assets' | 'sceneGraph' | 'physics' | 'ragdolls' | 'events' | 'posesUsed'
> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Ragdoll'>
}

/**
 * stepRagdolls: the physics hand-off, once per fixed step, after the pose is composed and before blendPoses.
 *
 * 0. A live ragdoll with a non-finite body (a game wrote NaN into it) leaves the world before the step, reported
 *    like an explosion, so its NaN cannot spread through the ground to other ragdolls.
 * 1. The cannon-es world advances by `world.step(dt)`, exactly once (never `fixedStep()` or the 3-argument form,
 *    which read the wall clock). A world the plugin made itself is not stepped while it holds nothing that moves
 *    (no ragdoll and no body a game added): nothing could change, and cannon-es allocates in its step.
 * 2. A character whose ragdoll was just activated gets its bodies now, after the step, placed at the animated
 *    world pose of this step (forward kinematics of the ANIM layer under the character's world transform) with
 *    the velocity the animation had (from the PREV layer, when the pose changed this step; otherwise at rest),
 *    and any hit impulses queued with the activation; they first move in the next step.
 * 3. Every live ragdoll's joints are projected back within their tolerance (projectRagdollJoints: what the
 *    solver's 10 iterations leave open), then it is read back into the PHYS layer in joint-local space, and
 *    `ragdoll_weight` ramps toward
 *    1 (falling) or 0 (getting up) by rate·dt. At 0 the bodies leave the world.
 * A ragdoll that explodes (non-finite or absurd velocities) is removed at once, the character shows its animated
 * pose again, and the event is reported once in `ctx.events`. Never throws; allocates only at a hand-off.
 */
export function createStepRagdollsSystem(ctx: StepRagdollsInput) {
  const { Pose, Ragdoll } = ctx.stores
  const physics = ctx.physics
  const nodes = ctx.sceneGraph.store
  const characters = registerQuery(ctx.world, [Ragdoll, Pose])
  /** Scratch for the character root's current world transform: its parent's world, its local as a pose joint. */
  const parentWorld = new Float64Array(WORLD_STRIDE)
  const rootLocal = new Float32Array(10)
  const rootWorld = (out: Float64Array, eid: number): void =>
    characterRootWorld(out, nodes, eid, parentWorld, rootLocal)

  /** The world's ground height (−∞ for none), found again whenever bodies spawn (outside the steady state). */
  let ground = physics.groundHeight() ?? -Infinity

  function spawn(eid: number, rt: RagdollRuntime): number {
    ground = physics.groundHeight() ?? -Infinity
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const asset = ctx.assets[Pose.asset[eid]!]!
    const data = ctx.pool.data
    rootWorld(rt.root, eid)
    let sum = 0
    for (let k = 0; k < WORLD_STRIDE; k++) sum += rt.root[k]!
    if (sum - sum !== 0) {
      // The game's root transform is not finite: there is no pose to hand over.
      despawn(eid, rt)
      report(eid, rt, `character ${eid}: its root transform is not finite; the ragdoll was not started`)
      return 0
    }
    forwardKinematics(rt.world, data, poseOffset(base, n, POSE_ANIM), asset.jointParents, n, rt.root, 0)
    const moved = Pose.changedStep[eid] === ctx.step && ctx.step > 0
    if (moved)
      forwardKinematics(rt.previous, data, poseOffset(base, n, POSE_PREV), asset.jointParents, n, rt.root, 0)
    const problem = unbuildableBody(rt.bodies, asset.nodeJoint, rt.world)
    if (problem !== null) {
      // The pose moved since ragdoll() checked it (an animated scale): no bodies, back to the animation.
      despawn(eid, rt)
      report(
        eid,
        rt,
        `character ${eid}: the ragdoll cannot be built at this step's pose: ${problem}; not started`,
      )
      return 0
    }
    return spawnRuntime(physics, rt, asset, n, ctx.dt, moved, null)
  }

  /**
   * A live ragdoll replaced by a larger one (`next`): next's bodies spawn where the live ones hold the pose now —
   * the live bodies' joints where they lie, the rest at this step's animated pose under them (readRagdollPose,
   * into PHYS, which the read-back below rewrites) —, each body on a joint that had one keeping that body's
   * velocity and the others taking the animation's; then the live bodies leave.
   */
  function replace(eid: number, live: RagdollRuntime, next: RagdollRuntime): number {
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const asset = ctx.assets[Pose.asset[eid]!]!
    const data = ctx.pool.data
    const old = live.instance!
    rootWorld(next.root, eid)
    const parents = asset.jointParents
    const phys = poseOffset(base, n, POSE_PHYS)
    ctx.posesUsed[eid] = ctx.posesUsed[eid]! | (1 << POSE_PHYS)
    physics.readBack(old, data, phys, data, poseOffset(base, n, POSE_ANIM), parents, n, next.root, next.world)
    const problem = unbuildableBody(next.bodies, asset.nodeJoint, next.world)
    if (problem !== null) {
      // The grown ragdoll cannot be built here: the live one goes on as it was.
      live.next = null
      report(eid, live, `character ${eid}: the grown ragdoll cannot be built at this step's pose: ${problem}`)
      return 0
    }
    const velocities = new Float64Array(n * 6).fill(NaN)
    physics.velocities(old, velocities)
    const moved = Pose.changedStep[eid] === ctx.step && ctx.step > 0
    if (moved)
      forwardKinematics(next.previous, data, poseOffset(base, n, POSE_PREV), parents, n, next.root, 0)
    physics.remove(old)
    next.reported = live.reported
    next.jointWeights = live.jointWeights
    next.motors = live.motors
    ctx.ragdolls[eid] = next
    return spawnRuntime(physics, next, asset, n, ctx.dt, moved, velocities)
  }

  /** This step's animated world transforms of the character's joints into rt.target (rt.root set too). */
  function animatedWorld(eid: number, rt: RagdollRuntime): void {
    const n = Pose.count[eid]!
    const asset = ctx.assets[Pose.asset[eid]!]!
    rootWorld(rt.root, eid)
    const anim = poseOffset(Pose.base[eid]!, n, POSE_ANIM)
    forwardKinematics(rt.target, ctx.pool.data, anim, asset.jointParents, n, rt.root, 0)
  }

  function despawn(eid: number, rt: RagdollRuntime): void {
    endRagdoll(physics, Ragdoll, Pose, eid, rt)
  }

  function report(eid: number, rt: RagdollRuntime, message: string): void {
    if (rt.reported) return
    rt.reported = true
    ctx.events.push({ step: ctx.step, character: eid, entity: eid, kind: 'ragdoll-exploded', message })
  }

  /** A 'ragdoll-limited' report: a limit bounded this step's cost (see AnimationEvent). */
  function limited(eid: number, message: string): void {
    ctx.events.push({ step: ctx.step, character: eid, entity: eid, kind: 'ragdoll-limited', message })
  }

  /** The live ragdolls of this step, for settling ghosts (grown with the number of ragdolls). */
  const liveBodies: RagdollBodies[] = []

  return function stepRagdolls(_world: World): void {
    commitRemovals(ctx.world)
    const dense = characters.dense
    let live = 0
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      if (Ragdoll.active[eid] === RAGDOLL_OFF) continue
      live++
      const rt = ctx.ragdolls[eid]
      if (!rt?.instance || physics.finite(rt.instance)) continue
      despawn(eid, rt)
      report(
        eid,
        rt,
        `character ${eid}: a ragdoll body had a non-finite state before the physics step; back to animation`,
      )
    }
    if (live === 0) {
      // No ragdoll: the loops below would find nothing to do (each starts from Ragdoll.active).
      physics.step(ctx.dt, false)
      return
    }
    const fall = RAGDOLL_MAX_FALL_SECONDS * physics.gravity()
    const maxSpeed = fall > RAGDOLL_MAX_SPEED ? fall : RAGDOLL_MAX_SPEED
    // Anchors of partial ragdolls and held roots head for this step's animated pose (they are placed there
    // after the step); motors get their targets from it. Ragdolls at rest sleep (src/physics/sleep.ts).
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const rt = Ragdoll.active[eid] === RAGDOLL_OFF ? undefined : ctx.ragdolls[eid]
      const r = rt?.instance ?? null
      if (r === null) continue
      if (mayRest(rt!)) physics.wakeOrRest(r)
      if (!physics.anchored(r) && rt!.motors === null) continue
      animatedWorld(eid, rt!)
      const own = RAGDOLL_MAX_SPEED_PER_LENGTH * physics.longest(r)
      const jump = 0.5 * (own > maxSpeed ? own : maxSpeed)
      physics.steer(r, rt!.target, rt!.root, ctx.dt, jump)
      if (rt!.motors)
        physics.driveMotors(r, rt!.motors, rt!.motorCapacity!, rt!.target, rt!.root, ctx.dt, jump)
    }
    physics.step(ctx.dt, true)
    let lives = 0
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const rt = Ragdoll.active[eid] === RAGDOLL_OFF ? undefined : ctx.ragdolls[eid]
      const r = rt?.instance ?? null
      if (r === null) continue
      if (physics.anchored(r)) physics.place(r, rt!.target, rt!.root)
      if (rt!.motors?.holdRoot) physics.holdRoots(r, rt!.target)
      liveBodies[lives++] = r
    }
    // Ragdolls that spawned inside others and are apart from them now collide again (src/physics/ghosts.ts).
    physics.settleGhosts(liveBodies, lives)
    liveBodies.fill(null!, 0, lives)

    // Spawn after the step: new bodies hold exactly this step's animated pose, so this step reads back
    // PHYS = ANIM and the hand-off starts from zero difference. (Spawned before the step, they were one step of
    // motion ahead of the animation they were blended with: 3.5 mm off at weight 1/12 for a walking Fox.)
    // At most RAGDOLL_SPAWN_BODIES bodies a step; a ragdoll spawned inside others passes through them.
    let spawned = 0
    let waiting: number[] | null = null
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      if (!awaitingBodies(ctx, eid)) continue
      const rt = ctx.ragdolls[eid]!
      const grows = rt.next !== null && rt.instance !== null
      const size = (grows ? rt.next! : rt).bodies.length
      if (spawned > 0 && spawned + size > RAGDOLL_SPAWN_BODIES) {
        ;(waiting ??= []).push(eid)
        continue
      }
      spawned += size
      const inside = grows ? replace(eid, rt, rt.next!) : spawn(eid, rt)
      if (inside > 0)
        limited(
          eid,
          `character ${eid}: its ragdoll spawned inside ${inside} other ragdoll${inside > 1 ? 's' : ''}; ` +
            'they pass through each other until apart',
        )
    }
    if (waiting !== null) {
      const shown = waiting.slice(0, 8).join(', ') + (waiting.length > 8 ? ', …' : '')
      limited(
        waiting[0]!,
        `${waiting.length} ragdoll${waiting.length > 1 ? 's wait' : ' waits'} for a later step (characters ` +
          `${shown}): a step spawns at most ${RAGDOLL_SPAWN_BODIES} ragdoll bodies`,
      )
    }

    const data = ctx.pool.data
    const dt = ctx.dt
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const state = Ragdoll.active[eid]!
      if (state === RAGDOLL_OFF) continue
      const rt = ctx.ragdolls[eid]!
      const r = rt.instance
      if (r === null) continue
      // Weight 0 while falling means spawned this step: the animation's state plus its hits, not yet solved.
      const spawned = state === RAGDOLL_FALLING && Ragdoll.weight[eid] === 0
      const own = RAGDOLL_MAX_SPEED_PER_LENGTH * physics.longest(r)
      if (!spawned && physics.exploded(r, own > maxSpeed ? own : maxSpeed, RAGDOLL_MAX_SPIN)) {
        despawn(eid, rt)
        report(
          eid,
          rt,
          `character ${eid}: ragdoll bodies reached non-finite or absurd velocities; back to animation`,
        )
        continue
      }
      if (!spawned) physics.project(r, ground)
      // Still or not by where the bodies are now, projection included (src/physics/sleep.ts).
      if (!spawned && mayRest(rt)) physics.sleepTick(r, dt)
      const n = Pose.count[eid]!
      if (!spawned && physics.anchored(r)) {
        // A partial ragdoll's limb ends out of the animated body (this step's pose), after the joint projection.
        physics.keepOutOfBody(r, rt.description, rt.bodies, ctx.assets[Pose.asset[eid]!]!, rt.target)
      }
      const base = Pose.base[eid]!
      rootWorld(rt.root, eid)
      ctx.posesUsed[eid] = ctx.posesUsed[eid]! | (1 << POSE_PHYS)
      physics.readBack(
        r,
        data,
        poseOffset(base, n, POSE_PHYS),
        data,
        poseOffset(base, n, POSE_ANIM),
        ctx.assets[Pose.asset[eid]!]!.jointParents,
        n,
        rt.root,
        rt.world,
      )
      if (rampRagdollWeight(Ragdoll, eid, rt, Ragdoll.rate[eid]! * dt)) despawn(eid, rt)
    }
  }
}
