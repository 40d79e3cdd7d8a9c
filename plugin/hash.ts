import { createHasher, type TypedArray } from '../src/sim/hasher.ts'
import type { AnimationContext } from './context.ts'
import { POSE_LAYERS, JOINT_STRIDE } from '../components/Pose.ts'
import { isClipEvent } from '../systems/state.ts'

/**
 * The state hash of a plugin: the step counter, then, for each character in ascending id order, every field of
 * its Sampler, CrossFade, Ragdoll and Pose entries, its key cursors, its whole pose block (all layers), and the
 * SceneNode local transform, parent and world matrix of the character node and each joint, and the position,
 * orientation and velocities of its live ragdoll bodies; then the event queue (every field of every record but
 * the message, which follows from them), the entities whose once-only problem reports were made, and the count
 * of dropped clip events. Hashes bits, so any difference in
 * any float shows. Allocates (a test and tool call, not a per-frame one).
 */
export function hashAnimationState(ctx: AnimationContext, characters: readonly number[]): string {
  const h = createHasher()
  h.updateNumber(ctx.step)
  const { Pose, Sampler, CrossFade, Ragdoll } = ctx.stores
  const nodes = ctx.sceneGraph.store
  const sorted = [...characters].sort((a, b) => a - b)
  const one = (arr: TypedArray, eid: number, width = 1): void =>
    void h.update(arr, eid * width, eid * width + width)
  const node = (e: number): void => {
    one(nodes.translation, e, 3)
    one(nodes.rotation, e, 4)
    one(nodes.scale, e, 3)
    one(nodes.parent, e)
    one(nodes.world, e, 16)
  }
  for (const eid of sorted) {
    h.updateNumber(eid)
    for (const store of [Sampler, CrossFade, Ragdoll, Pose] as const) {
      for (const key of Object.keys(store).sort())
        one((store as unknown as Record<string, TypedArray>)[key]!, eid)
    }
    const cursors = ctx.cursors[eid]
    if (cursors) h.update(cursors)
    const base = Pose.base[eid]!
    const n = Pose.count[eid]!
    h.update(ctx.pool.data, base * JOINT_STRIDE, (base + POSE_LAYERS * n) * JOINT_STRIDE)
    node(eid)
    for (let j = 0; j < n; j++) node(ctx.pool.joints[base + j]!)
    // A live ragdoll's bodies: the physics state the next step starts from.
    const bodies = ctx.ragdolls[eid]?.instance?.bodies
    if (bodies) {
      for (const b of bodies) {
        for (const v of [b.position, b.velocity, b.angularVelocity])
          h.updateNumber(v.x).updateNumber(v.y).updateNumber(v.z)
        const q = b.quaternion
        h.updateNumber(q.x).updateNumber(q.y).updateNumber(q.z).updateNumber(q.w)
      }
    }
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
    if (!isClipEvent(e)) continue
    h.updateNumber(e.layer).updateNumber(e.clipId).updateNumber(e.time).updateNumber(e.weight)
    h.updateNumber(e.fading ? 1 : 0)
    text(e.clip)
    text(e.name)
  }
  return h.digest()
}
