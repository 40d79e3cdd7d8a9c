import { $internal, addComponent, addEntity, entityExists, hasComponent, removeEntity } from 'bitecs'
import type { InternalWorld, World } from 'bitecs'
import { AnimationError, showValue } from '../src/errors.ts'
import { optionsObject, type OptionNames } from './checks.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { BLEND_S, BLEND_T } from '../src/clip/blendPoses.ts'
import { findJoint } from '../src/skeleton/rig.ts'
import {
  allocatePoseSlots,
  freePoseSlots,
  JOINT_STRIDE,
  POSE_ANIM,
  poseOffset,
  POSE_BUFFERS,
  POSE_BUFFERS_OTHER,
} from '../components/Pose.ts'
import { resetTrack } from '../components/Sampler.ts'
import { resetFade } from '../components/CrossFade.ts'
import { resetAnimLayer } from '../components/AnimLayer.ts'
import { releaseLayerSlot } from '../systems/layerState.ts'
import { DEFAULT_RAGDOLL_RATE } from '../components/Ragdoll.ts'
import { addSceneNode } from '../components/SceneNode.ts'
import { applyPoseToSceneGraph } from '../systems/blendPoses.ts'
import type { AnimationContext, AssetHandle, RegisteredAsset } from './context.ts'
import { checkLive } from './options.ts'
import { maxChannels, resolveAsset } from './assets.ts'
import { dropRagdoll } from './ragdolls.ts'

/**
 * A character's entities: the character entity (a SceneNode root, or a child of `parent`) and one SceneNode
 * entity per rig joint, in joint order. Allocates its pose slots, sets every store to its start state, and
 * shows the rest pose. Throws AnimationError before creating anything when the pose pool or the entity ids run
 * out (entities already issued are removed again).
 */
export function addCharacter(
  ctx: AnimationContext,
  assetOrHandle: AnimationAsset | AssetHandle,
  opts?: { parent?: number },
): number {
  checkLive(ctx, 'addCharacter')
  const { world, capacity, sceneGraph, pool } = ctx
  const nodes = sceneGraph.store
  // Everything is checked before the asset is registered: a failed call changes nothing.
  const o = optionsObject<{ parent: number }>(opts, 'addCharacter', { parent: true })
  const parent = o.parent ?? 0
  if (
    parent !== 0 &&
    (!Number.isInteger(parent) ||
      parent < 0 ||
      parent >= capacity ||
      !entityExists(world, parent) ||
      !hasComponent(world, parent, nodes))
  ) {
    throw new AnimationError(
      'argument',
      `addCharacter: parent ${showValue(parent)} is not a SceneNode entity`,
    )
  }
  const asset = resolveAsset(ctx, assetOrHandle)
  const n = asset.jointNodes.length
  // The ids the next n + 1 addEntity calls will issue must all fit the stores: checked before any is made,
  // since making and removing entities would change bitecs's entity index (and so a snapshot).
  const beyond = firstIdBeyond(world, n + 1, capacity)
  if (beyond !== 0) {
    throw new AnimationError(
      'capacity',
      `addCharacter: entity id ${beyond} is beyond the plugin's capacity ${capacity} ` +
        `(a character of ${asset.asset.source} needs ${n + 1} entities; raise the capacity option)`,
    )
  }
  // Pose slots next: if the pool is full nothing has been created yet.
  const base = allocatePoseSlots(pool, POSE_BUFFERS * n)
  const created: number[] = []
  for (let i = 0; i <= n; i++) created.push(addEntity(world))
  const eid = created[0]!
  addSceneNode(sceneGraph, eid, parent)
  const jointEids = pool.joints
  for (let j = 0; j < n; j++) {
    const e = created[j + 1]!
    const pj = asset.jointParents[j]!
    addSceneNode(sceneGraph, e, pj < 0 ? eid : created[pj + 1]!)
    jointEids[base + j] = e
  }
  const { Pose, Sampler, Ragdoll } = ctx.stores
  Pose.base[eid] = base
  Pose.count[eid] = n
  Pose.asset[eid] = asset.id
  Pose.changed[eid] = 0
  Pose.changedStep[eid] = 0
  const data = pool.data
  for (let layer = 0; layer < POSE_BUFFERS; layer++) data.set(asset.rest, poseOffset(base, n, layer))
  resetTrack(Sampler, eid)
  resetFade(ctx.stores.CrossFade, eid)
  resetAnimLayer(ctx.stores.AnimLayer, eid)
  Ragdoll.weight[eid] = 0
  Ragdoll.rate[eid] = DEFAULT_RAGDOLL_RATE
  Ragdoll.active[eid] = 0
  Ragdoll.handle[eid] = -1
  attachCharacter(ctx, eid, asset, new Uint32Array(2 * maxChannels(ctx, asset)))
  ctx.binding[eid] = undefined
  ctx.fromBinding[eid] = undefined
  // Everything blended until a fade plans its paths (planFadePaths).
  ctx.fadePaths[eid]!.fill(BLEND_T | BLEND_S)
  ctx.posesUsed[eid] = 0
  // The rest pose is the character's pose until a clip plays.
  applyPoseToSceneGraph(nodes, data, jointEids, poseOffset(base, n, POSE_ANIM), base, n)
  return eid
}

/**
 * The first of the next `count` entity ids bitecs's addEntity will issue (recycled ids first, in their order,
 * then new ones) that is ≥ `capacity`, or 0 when all fit.
 */
function firstIdBeyond(world: World, count: number, capacity: number): number {
  const index = (world as InternalWorld)[$internal].entityIndex
  const free = index.dense.length - index.aliveCount
  for (let k = 0; k < count; k++) {
    const id = k < free ? index.dense[index.aliveCount + k]! : index.maxId + 1 + (k - free)
    if (id >= capacity) return id
  }
  return 0
}

/**
 * Makes entity `eid`, whose Pose, Sampler, CrossFade and Ragdoll entries and pose slots are already written
 * (by addCharacter, or copied by a restore), a character: adds the components in the order every query of the
 * plugin lists characters by, records its joints' owner, and sets up its per-character arrays and scratch.
 * Used by addCharacter and by snapshot restore, so both make the same character.
 */
export function attachCharacter(
  ctx: AnimationContext,
  eid: number,
  asset: RegisteredAsset,
  cursors: Uint32Array,
): void {
  const { world } = ctx
  const { Pose, Sampler, CrossFade, AnimLayer, Ragdoll } = ctx.stores
  packEntitySlots(ctx, eid)
  addComponent(world, eid, Pose)
  addComponent(world, eid, Sampler)
  addComponent(world, eid, CrossFade)
  addComponent(world, eid, AnimLayer)
  addComponent(world, eid, Ragdoll)
  const n = asset.jointNodes.length
  const base = Pose.base[eid]!
  for (let j = 0; j < n; j++) {
    const e = ctx.pool.joints[base + j]!
    if (e !== 0) ctx.jointOwner[e] = eid
  }
  ctx.cursors[eid] = cursors
  ctx.fadePaths[eid] = new Uint8Array(n)
  // Unknown to this call (a restore sets what it wrote; addCharacter, which wrote the rest pose, clears it).
  ctx.posesUsed[eid] = POSE_BUFFERS_OTHER
  if (ctx.blendScratch.length < n * JOINT_STRIDE) ctx.blendScratch = new Float32Array(n * JOINT_STRIDE)
  ctx.poseReported[eid] = 0
  ctx.worldReported[eid] = 0
  // Sampled every step until the next step schedules it (systems/scheduleLod.ts).
  ctx.lod.rate[eid] = 1
  ctx.lod.skip[eid] = 0
  for (const datum of ctx.characterData) datum.attach?.(ctx, eid, asset)
}

/**
 * Extends the context's per-entity arrays with `undefined` up to `eid`, so every id below it has an element.
 * Written only at characters' ids, which lie a whole character's nodes apart, these arrays were sparse, and V8
 * turned them into hash tables: every per-character lookup in the step hashed the id.
 */
function packEntitySlots(ctx: AnimationContext, eid: number): void {
  packLayerSlots(ctx, eid)
  const arrays: unknown[][] = [
    ctx.fadePaths,
    ctx.layers,
    ctx.morphs,
    ctx.rootMotion,
    ctx.ragdolls,
    ctx.graphs,
  ]
  for (const a of arrays) while (a.length <= eid) a.push(undefined)
}

/** The per-slot arrays (bindings, cursors) filled with `undefined` up to `slot` (see packEntitySlots). */
export function packLayerSlots(ctx: AnimationContext, slot: number): void {
  for (const a of [ctx.cursors, ctx.binding, ctx.fromBinding] as unknown[][])
    while (a.length <= slot) a.push(undefined)
}

/** `eid` if it is a live character of this plugin; throws AnimationError('argument') naming `what` if not. */
export function checkCharacter(ctx: AnimationContext, eid: number, what: string): number {
  checkLive(ctx, what)
  if (
    !Number.isInteger(eid) ||
    eid <= 0 ||
    eid >= ctx.capacity ||
    !entityExists(ctx.world, eid) ||
    !hasComponent(ctx.world, eid, ctx.stores.Pose)
  ) {
    throw new AnimationError(
      'argument',
      `${what}: entity ${showValue(eid)} is not a character of this plugin`,
    )
  }
  return eid
}

export function removeCharacter(ctx: AnimationContext, eid: number): void {
  checkCharacter(ctx, eid, 'removeCharacter')
  // The entity goes; the Pose observer (releaseCharacter) frees the rest.
  removeEntity(ctx.world, eid)
}

/**
 * Frees what the plugin holds for a character that is leaving (removeCharacter, or bitecs's removeEntity or
 * removeComponent(Pose) by the game: the plugin observes all three): its ragdoll bodies and constraints, its
 * joint entities (children first, so every removal leaves a valid graph; a joint the game removed already is
 * skipped), its pose slots and its per-character arrays. Runs inside bitecs's removal, while the entity still
 * exists. Never throws.
 */
export function releaseCharacter(ctx: AnimationContext, eid: number): void {
  const { Pose, Sampler } = ctx.stores
  const n = Pose.count[eid]!
  if (n === 0) return
  ctx.removals.count++
  ctx.removals.last = eid
  dropRagdoll(ctx, eid)
  const base = Pose.base[eid]!
  const jointEids = ctx.pool.joints
  for (let j = n - 1; j >= 0; j--) {
    const e = jointEids[base + j]!
    if (e === 0) continue
    ctx.jointOwner[e] = 0
    removeEntity(ctx.world, e)
  }
  freePoseSlots(ctx.pool, base, POSE_BUFFERS * n)
  // Layers, morph weights, root motion, …: each kind of per-character state frees its own.
  for (const datum of ctx.characterData) datum.release?.(ctx, eid)
  // Its once-per-lifetime reports end with it (the id may next hold a game's node, reported on its own).
  ctx.poseReported[eid] = 0
  ctx.worldReported[eid] = 0
  Pose.count[eid] = 0
  Pose.asset[eid] = -1
  ctx.cursors[eid] = undefined
  ctx.binding[eid] = undefined
  ctx.fromBinding[eid] = undefined
  ctx.fadePaths[eid] = undefined
  resetTrack(Sampler, eid)
  resetFade(ctx.stores.CrossFade, eid)
  resetAnimLayer(ctx.stores.AnimLayer, eid)
}

/** Returns a layer slot (not a character's layer 0) to the free slots, its rows cleared. */
export function freeLayer(ctx: AnimationContext, slot: number): void {
  resetTrack(ctx.stores.Sampler, slot)
  resetFade(ctx.stores.CrossFade, slot)
  resetAnimLayer(ctx.stores.AnimLayer, slot)
  ctx.cursors[slot] = undefined
  ctx.binding[slot] = undefined
  ctx.fromBinding[slot] = undefined
  releaseLayerSlot(ctx.layerSlots, slot)
}

/**
 * The game removed scene node `e` (the entity or its SceneNode). A joint of a live character: its slot now
 * names entity 0, which the write-out skips, and the character keeps animating its other joints. A node of no
 * character: its once-per-lifetime world-matrix report ends with it (reportWorldFaults reports a node under
 * no character at its own id), so a node on the reused id is reported on its own.
 */
export function forgetJoint(ctx: AnimationContext, e: number): void {
  const owner = ctx.jointOwner[e]!
  if (owner === 0) {
    if (!hasComponent(ctx.world, e, ctx.stores.Pose)) ctx.worldReported[e] = 0
    return
  }
  ctx.jointOwner[e] = 0
  const { Pose } = ctx.stores
  const base = Pose.base[owner]!
  const n = Pose.count[owner]!
  const jointEids = ctx.pool.joints
  for (let j = 0; j < n; j++) if (jointEids[base + j] === e) jointEids[base + j] = 0
}

/** The plugin's characters in ascending id order. */
export function characterIds(ctx: AnimationContext): number[] {
  const out: number[] = []
  for (let eid = 1; eid < ctx.capacity; eid++)
    if (entityExists(ctx.world, eid) && hasComponent(ctx.world, eid, ctx.stores.Pose)) out.push(eid)
  return out
}

/** Joint entity ids of a character, in joint order (a copy). */
export function joints(ctx: AnimationContext, eid: number): Int32Array {
  checkCharacter(ctx, eid, 'joints')
  const { Pose } = ctx.stores
  const base = Pose.base[eid]!
  return ctx.pool.joints.slice(base, base + Pose.count[eid]!)
}

/** A character's joint index of a glTF node, by index or name (src/skeleton/rig.ts findJoint). */
export function jointIndex(ctx: AnimationContext, eid: number, node: string | number, what: string): number {
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  return findJoint(asset, asset.asset, node, what)
}

/** The joint entity of a character's glTF node, by index or name. */
export function jointEntity(ctx: AnimationContext, eid: number, node: number | string): number {
  checkCharacter(ctx, eid, 'jointEntity')
  const what = `jointEntity(${eid})`
  const j = jointIndex(ctx, eid, node, what)
  const e = ctx.pool.joints[ctx.stores.Pose.base[eid]! + j]!
  if (e === 0) {
    throw new AnimationError('argument', `${what}: joint ${JSON.stringify(node)} was removed from the world`)
  }
  return e
}
