import { createHasher, type TypedArray } from '../src/sim/hasher.ts'
import type { AnimationContext } from './context.ts'
import { POSE_LAYERS, JOINT_STRIDE } from '../components/Pose.ts'
import type { LayerStack } from '../systems/layerState.ts'
import type { Hasher } from '../src/sim/hasher.ts'

/**
 * The state hash of a plugin: the step counter, then, for each character in ascending id order, every field of
 * its Sampler, CrossFade, Ragdoll and Pose entries, its key cursors, its whole pose block (all layers), and the
 * SceneNode local transform, parent and world matrix of the character node and each joint, and the position,
 * orientation and velocities of its live ragdoll bodies; with layers, every layer's numbers, mask, cursors, blend
 * space and pose block; with morph targets, the game's and this step's morph weights. Hashes bits, so any difference in any float shows. Allocates (a test and tool call, not a per-frame one).
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
    const stack = ctx.layers[eid]
    if (stack) hashLayers(h, ctx, stack)
    const morphs = ctx.morphs[eid]
    if (morphs) h.update(morphs.game).update(morphs.weights)
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
  return h.digest()
}

/** A character's layers: index, numbers, block, mask, cursors and blend space of each layer in use. */
function hashLayers(h: Hasher, ctx: AnimationContext, stack: LayerStack): void {
  for (const layer of stack.layers) {
    if (layer === undefined) continue
    h.updateNumber(layer.index)
      .update(layer.f)
      .update(layer.i)
      .updateNumber(layer.base)
      .updateNumber(layer.slots)
    if (layer.mask) h.update(layer.mask)
    h.update(layer.cursors)
    if (layer.base >= 0) {
      h.update(ctx.pool.data, layer.base * JOINT_STRIDE, (layer.base + layer.slots) * JOINT_STRIDE)
    }
    const bs = layer.blendSpace
    if (bs) {
      h.update(bs.clips).update(bs.xs).update(bs.ys).update(bs.param).update(bs.weights)
      h.updateNumber(bs.sync).update(bs.times)
      for (const c of bs.cursors) h.update(c)
    }
  }
}
