import { createHasher, type TypedArray } from '../src/sim/hasher.ts'
import type { AnimationContext } from './context.ts'
import { POSE_BUFFERS, JOINT_STRIDE } from '../components/Pose.ts'
import type { Hasher } from '../src/sim/hasher.ts'

/** Words of one scene node in the hash: local translation 3, rotation 4, scale 3, parent 1, world matrix 16. */
const NODE_WORDS = 27

/** Where the node and body values are gathered before they are hashed in one update (grown as needed). */
let nodeScratch = new Uint32Array(0)

/** The bits of a float32 or int32 store as words, to copy them without a conversion. */
const wordsOf = (data: Float32Array | Int32Array): Uint32Array =>
  new Uint32Array(data.buffer, data.byteOffset, data.length)
import { GET_UP_FACINGS, isClipEvent, isGraphEvent } from '../systems/state.ts'

/**
 * The state hash of a plugin: the step counter, then, for each character in ascending id order, every field of
 * its Sampler, CrossFade, AnimLayer, Ragdoll and Pose entries, its key cursors, its whole pose block (all layers), and the
 * SceneNode local transform, parent and world matrix of the character node and each joint, and the position,
 * velocities and orientation of its live ragdoll bodies (a partial ragdoll's subtree roots, and its anchors after
 * its bodies; per-joint weights; a hit reaction's recovery; motors and limit centres; a replacement under
 * way); with layers, every layer's numbers, mask, cursors, blend space and pose block; with morph targets, the
 * game's and this step's morph weights; with root motion, its mode, joint, flag, last delta and sums; then the
 * event queue (every field of every record but the message, which follows from them), the entities whose
 * once-only problem reports were made, and the count of dropped clip events; then, once any LOD call was made,
 * the levels of detail: on or off, the LOD camera and the near and far distances. Hashes bits, so any
 * difference in any float shows.
 * Allocates (a test and tool call, not a per-frame one).
 *
 * The nodes' and bodies' values are copied, in hashing order, into one scratch array each and hashed in one
 * update: the same bytes in the same order as hashing them value by value (test/plugin/hash.test.ts does), so
 * the same hash. Five small updates a node were most of the time: a character of 2,001 joints took 3.4–16 ms
 * (best of 30, as V8 happened to optimize them), now 2.1 ms, close to FNV-1a's own cost for its 616 KB.
 */
export function hashAnimationState(ctx: AnimationContext, characters: readonly number[]): string {
  const h = createHasher()
  h.updateNumber(ctx.step).updateNumber(ctx.timeScale)
  const { Pose, Sampler, CrossFade, AnimLayer, Ragdoll } = ctx.stores
  const nodes = ctx.sceneGraph.store
  const T = wordsOf(nodes.translation)
  const R = wordsOf(nodes.rotation)
  const S = wordsOf(nodes.scale)
  const P = wordsOf(nodes.parent)
  const W = wordsOf(nodes.world)
  const sorted = [...characters].sort((a, b) => a - b)
  for (const eid of sorted) {
    h.updateNumber(eid)
    for (const store of [Sampler, CrossFade, AnimLayer, Ragdoll, Pose] as const) hashRow(h, store, eid)
    const cursors = ctx.cursors[eid]
    if (cursors) h.update(cursors)
    const base = Pose.base[eid]!
    const n = Pose.count[eid]!
    h.update(ctx.pool.data, base * JOINT_STRIDE, (base + POSE_BUFFERS * n) * JOINT_STRIDE)
    // The character node, then each joint's.
    const used = NODE_WORDS * (n + 1)
    if (nodeScratch.length < used) nodeScratch = new Uint32Array(used)
    const out = nodeScratch
    const joints = ctx.pool.joints
    for (let j = -1, k = 0; j < n; j++, k += NODE_WORDS) {
      const e = j < 0 ? eid : joints[base + j]!
      out[k] = T[e * 3]!
      out[k + 1] = T[e * 3 + 1]!
      out[k + 2] = T[e * 3 + 2]!
      out[k + 3] = R[e * 4]!
      out[k + 4] = R[e * 4 + 1]!
      out[k + 5] = R[e * 4 + 2]!
      out[k + 6] = R[e * 4 + 3]!
      out[k + 7] = S[e * 3]!
      out[k + 8] = S[e * 3 + 1]!
      out[k + 9] = S[e * 3 + 2]!
      out[k + 10] = P[e]!
      for (let c = 0; c < 16; c++) out[k + 11 + c] = W[e * 16 + c]!
    }
    h.update(out, 0, used)
    // Layers, morph weights, root motion, …: each kind of per-character state hashes its own.
    for (const datum of ctx.characterData) datum.hash?.(h, ctx, eid)
    // A live ragdoll's bodies (a partial one's anchors after them): the physics state the next step starts from.
    const rt = ctx.ragdolls[eid]
    if (rt && rt.subtrees.length > 0) for (const j of rt.subtrees) h.updateNumber(j)
    if (rt?.jointWeights) h.update(rt.jointWeights.weights).update(rt.jointWeights.targets)
    if (rt && rt.recoverRate > 0) h.updateNumber(rt.recoverRate)
    if (rt?.motors) {
      h.updateNumber(rt.motors.holdRoot ? 1 : 0).update(rt.motors.strength)
      ctx.physics.hashMotorCentres(h, rt.instance)
    }
    // A replacement under way: its roots (−1 for the whole body) and queued hits.
    if (rt?.next) {
      h.updateNumber(-1 - rt.next.subtrees.length)
      for (const j of rt.next.subtrees) h.updateNumber(j)
      for (const hit of rt.next.impulses) h.updateNumber(hit.joint).update(Float64Array.from(hit.impulse))
      h.updateNumber(rt.next.recoverRate)
    }
    if (rt?.instance) ctx.physics.hashBodies(h, rt.instance)
  }
  // The queue: what the game has not read yet is state a restore must bring back (snapshot/format.ts).
  const text = (s: string): void => {
    h.updateNumber(s.length)
    for (let i = 0; i < s.length; i++) h.updateNumber(s.charCodeAt(i))
  }
  // The once-per-lifetime problem reports already made: a ragdoll explosion's (per runtime), the others'.
  for (const eid of sorted) h.updateNumber(ctx.ragdolls[eid]?.reported ? 1 : 0)
  for (let e = 1; e < ctx.capacity; e++) {
    if (ctx.poseReported[e]! | ctx.worldReported[e]!) {
      h.updateNumber(e).updateNumber(ctx.poseReported[e]!).updateNumber(ctx.worldReported[e]!)
    }
  }
  h.updateNumber(ctx.droppedEvents).updateNumber(ctx.events.length)
  for (const e of ctx.events) {
    h.updateNumber(e.step).updateNumber(e.entity).updateNumber(e.character)
    text(e.kind)
    if (e.kind === 'ragdoll-get-up')
      h.updateNumber(GET_UP_FACINGS.indexOf(e.facing) + 1).updateNumber(e.clipId)
    if (isGraphEvent(e)) {
      h.updateNumber(e.layer)
      text(e.layerName)
      text(e.from)
      text(e.to)
    }
    if (!isClipEvent(e)) continue
    h.updateNumber(e.layer).updateNumber(e.clipId).updateNumber(e.time).updateNumber(e.weight)
    h.updateNumber(e.fading ? 1 : 0)
    text(e.clip)
    text(e.name)
  }
  // Levels of detail, once a game used them (a plugin that never did hashes as before they existed).
  const lod = ctx.lod
  if (lod.touched) h.updateNumber(lod.enabled ? 1 : 0).update(lod.settings)
  return h.digest()
}

/**
 * Row `row` of a store: every typed-array field in name order, a nested store's (CrossFade.from) in its place
 * by its fields' names.
 */
export function hashRow(h: Hasher, store: object, row: number): void {
  const fields = store as Record<string, unknown>
  for (const key of Object.keys(fields).sort()) {
    const value = fields[key]
    if (ArrayBuffer.isView(value)) h.update(value as TypedArray, row, row + 1)
    else if (typeof value === 'object' && value !== null) hashRow(h, value, row)
  }
}
