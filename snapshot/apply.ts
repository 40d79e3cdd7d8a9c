import { addEntity, removeEntity } from 'bitecs'
import { AnimationError, showValue } from '../src/errors.ts'
import type { RagdollInstance } from '../src/physics/ragdoll.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { buildInstance, rebuildPhysicsWorld, type InstanceData } from '../src/physics/snapshot.ts'
import { attachMotors } from '../src/physics/motors.ts'
import { RagdollJoint } from '../src/physics/joint.ts'
import { markSelfCollisions } from '../systems/stepRagdolls.ts'

type Quad = [number, number, number, number]
import { copyInto } from '../src/sim/byteStream.ts'
import { JOINT_STRIDE, POSE_LAYERS } from '../components/Pose.ts'
import { addSceneNode, setSceneNodeParent } from '../components/SceneNode.ts'
import { planFadePaths, type AnimationContext } from '../plugin/context.ts'
import { bindClip } from '../plugin/assets.ts'
import { attachCharacter } from '../plugin/characters.ts'
import { prepareCharacterSquad } from '../plugin/playback.ts'
import { createRagdollRuntime, defaultDescription } from '../plugin/ragdolls.ts'
import { copyRecord, FLAG_REPORTED, REPORTED_POSE, REPORTED_WORLD } from './format.ts'
import { readPlan, type Plan } from './read.ts'
import { applyLayers } from './layers.ts'
import { applyMorphs } from './morphs.ts'

/**
 * Restores a snapshot (layout: snapshot/format.ts) into a fresh plugin on a fresh world. Reads and checks the
 * whole buffer first (snapshot/read.ts), then rebuilds every entity, character and ragdoll with the plugin's own
 * constructors, so a restored character is made as addCharacter makes one. Throws AnimationError('snapshot')
 * before changing anything: applying a plan never throws, so a restore is all or nothing.
 */
export function restoreAnimation(ctx: AnimationContext, bytes: Uint8Array): void {
  if (!(bytes instanceof Uint8Array)) {
    throw new AnimationError(
      'snapshot',
      `restore: expected the Uint8Array of a snapshot, got ${showValue(bytes)}`,
    )
  }
  applyPlan(ctx, readPlan(ctx, bytes))
}

// --------------------------------------------------------------------------------------------------- apply

/**
 * Rebuilds the state from a checked plan. Nothing here throws for any plan readPlan accepted: every id, count,
 * index and value that a call below (bitecs, the scene graph, the plugin's constructors, cannon-es) could throw
 * on, or that the next step could throw on, is refused by readPlan first. A check a change here needs goes there.
 */
function applyPlan(ctx: AnimationContext, plan: Plan): void {
  const { world, sceneGraph: graph } = ctx
  const { bytes, layouts } = plan

  // Entity index: ids 1..maxId, all removed in reverse snapshot order, the alive ones re-added (see header).
  const { maxId, alive, dense } = plan.entities
  for (let i = 0; i < maxId; i++) addEntity(world)
  for (let i = maxId - 1; i >= 0; i--) removeEntity(world, dense[i]!)
  for (let i = 0; i < alive; i++) addEntity(world)

  // Scene nodes: all as roots, then linked in record order (head insertion rebuilds each child list).
  for (const n of plan.nodes) addSceneNode(graph, n.eid, 0)
  for (const n of plan.nodes) if (n.parent !== 0) setSceneNodeParent(graph, n.eid, n.parent)
  for (const n of plan.nodes) copyRecord(layouts.node, n.eid, bytes, n.record)

  const pool = ctx.pool
  if (pool.slots !== plan.pool.slots) {
    pool.data = new Float32Array(plan.pool.slots * JOINT_STRIDE)
    pool.joints = new Int32Array(plan.pool.slots)
    pool.slots = plan.pool.slots
  }
  pool.used = plan.pool.used
  pool.free.length = 0
  // Element by element: a spread of a long array overflows the call stack.
  for (const x of plan.pool.free) pool.free.push(x)

  for (const c of plan.characters) {
    let from = c.record
    for (const layout of layouts.character) {
      copyRecord(layout, c.eid, bytes, from)
      from += layout.bytes
    }
    copyInto(pool.joints, c.base, bytes, c.joints, c.count)
    copyInto(pool.data, c.base * JOINT_STRIDE, bytes, c.pose, POSE_LAYERS * c.count * JOINT_STRIDE)
    const asset = ctx.assets[c.asset]!
    // Characters are attached in the snapshot's order, so every query of the plugin lists them as it did.
    attachCharacter(ctx, c.eid, asset, c.cursors)
    ctx.binding[c.eid] = c.binding < 0 ? undefined : bindClip(ctx, ctx.clips[c.binding]!, c.asset)
    ctx.fromBinding[c.eid] = c.fromBinding < 0 ? undefined : bindClip(ctx, ctx.clips[c.fromBinding]!, c.asset)
    planFadePaths(ctx, c.eid)
    prepareCharacterSquad(ctx, c.eid)
  }

  applyLayers(ctx, bytes, plan.layers)
  applyMorphs(ctx, plan.morphs)

  const instances = new Map<number, RagdollInstance>()
  const instanceData = new Map<number, InstanceData>()
  for (const rd of plan.ragdolls) {
    const c = plan.characters.find((x) => x.eid === rd.eid)!
    const asset = ctx.assets[c.asset]!
    const description = rd.bodies ?? defaultDescription(ctx, c.asset)
    const reported = (rd.flags & FLAG_REPORTED) !== 0
    const rt = createRagdollRuntime(ctx, rd.eid, description, rd.subtrees, rd.impulses, reported)
    if (rd.world >= 0) copyInto(rt.world, 0, bytes, rd.world, c.count * WORLD_STRIDE)
    if (rd.motors) {
      const strength = Float64Array.from(rd.motors.strength)
      rt.motors = { holdRoot: rd.motors.holdRoot, strength, active: strength.some((x) => x > 0) }
    }
    if (rd.instance) {
      const r = buildInstance(rd.instance, rt.bodies, asset.nodeJoint, c.count)
      rt.instance = r
      markSelfCollisions(rt, asset)
      // Motors as the snapshot had them; body types (a held root) come with the bodies' states below.
      const references = rd.motors?.references
      if (references) {
        rt.motorCapacity = attachMotors(r, ctx.physics.gravity.length(), ctx.dt)
        r.constraints.forEach((k, i) => {
          if (!(k instanceof RagdollJoint)) return
          k.centred = references[5 * i] === 1
          k.reference!.set(...(references.slice(5 * i + 1, 5 * i + 5) as Quad))
        })
      }
      instances.set(rd.eid, rt.instance)
      instanceData.set(rd.eid, rd.instance)
    }
    if (rd.jointWeights) {
      rt.jointWeights = {
        weights: Float64Array.from(rd.jointWeights.weights),
        targets: Float64Array.from(rd.jointWeights.targets),
      }
    }
    rt.recoverRate = rd.recoverRate
    if (rd.next) {
      rt.next = createRagdollRuntime(ctx, rd.eid, description, rd.next.subtrees, rd.next.impulses, reported)
      rt.next.recoverRate = rd.next.recoverRate
    }
    ctx.ragdolls[rd.eid] = rt
  }
  rebuildPhysicsWorld(ctx.physics, plan.physics, instances, instanceData)

  ctx.events.length = 0
  for (const ev of plan.events) ctx.events.push(ev)
  ctx.droppedEvents = plan.droppedEvents
  // After attachCharacter, which clears a character's flags: the reports already made stay made.
  for (const { eid, bits } of plan.reported) {
    ctx.poseReported[eid] = bits & REPORTED_POSE ? 1 : 0
    ctx.worldReported[eid] = bits & REPORTED_WORLD ? 1 : 0
  }
  ctx.step = plan.step
}
