import type { World } from 'bitecs'
import { AnimationError, showValue } from '../src/errors.ts'
import { JOINT_STRIDE, poolArrays, POSE_BUFFERS_OTHER } from '../components/Pose.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { readPlan, type Plan } from './read.ts'
import { applyStructure, finishStructure } from './structure.ts'
import { applyNodeValues, recomputeWorlds } from './worlds.ts'
import { applyCharacters } from './characters.ts'
import { applyLod } from './lod.ts'
import { applyClock } from './clock.ts'
import { applyRagdolls } from './ragdolls.ts'
import { applyEvents } from './events.ts'

/**
 * Restores a snapshot (layout: snapshot/format.ts) into this plugin: rewinding it in place, or into a fresh world
 * and plugin. Reads and checks the whole buffer first (snapshot/read.ts), then sets every entity, character and
 * ragdoll with the plugin's own constructors, so a restored character is made as addCharacter makes one, and
 * recomputes world matrices with `propagate` (the plugin's own propagateTransforms system). Throws
 * AnimationError('snapshot') before changing anything: applying a plan never throws, so a restore is all or
 * nothing.
 */
export function restoreAnimation(
  ctx: AnimationContext,
  bytes: Uint8Array,
  propagate: (world: World) => void,
): void {
  if (!(bytes instanceof Uint8Array)) {
    throw new AnimationError(
      'snapshot',
      `restore: expected the Uint8Array of a snapshot, got ${showValue(bytes)}`,
    )
  }
  applyPlan(ctx, readPlan(ctx, bytes), propagate)
}

/**
 * Sets the state of a checked plan, section by section. Nothing here throws for any plan readPlan accepted: every
 * id, count, index and value that a call below (bitecs, the scene graph, the plugin's constructors, cannon-es)
 * could throw on, or that the next step could throw on, is refused by readPlan first. A check a change here needs
 * goes there.
 */
function applyPlan(ctx: AnimationContext, plan: Plan, propagate: (world: World) => void): void {
  const { bytes, structure } = plan
  applyStructure(ctx, structure, plan.entities, plan.nodes)
  applyPool(ctx, plan.pool)
  applyNodeValues(ctx, bytes, plan.nodes, structure.restored)
  applyCharacters(ctx, bytes, plan.layouts, plan.characters, structure.attach)
  finishStructure(ctx, structure, plan.entities, plan.characters)
  let k = 0
  for (const datum of ctx.characterData) {
    if (datum.snapshot) datum.snapshot.apply(ctx, bytes, plan.characters, plan.characterData[k++])
  }
  const { instances, data } = applyRagdolls(ctx, bytes, plan.characters, plan.ragdolls)
  ctx.physics.rebuildWorld(plan.physics, instances, data, plan.own, bytes)
  applyEvents(ctx, plan.events)
  applyLod(ctx, plan.lod)
  applyClock(ctx, plan.timeScale)
  ctx.step = plan.step
  recomputeWorlds(ctx, bytes, plan.nodes, structure.restored, propagate)
}

/**
 * The pose pool's size and free list as the snapshot has them. Every block is then written whole (characters,
 * layers); a free range holds zeros (freePoseSlots clears what it frees), so the snapshot's free ranges that are
 * in use now are cleared here.
 */
function applyPool(ctx: AnimationContext, p: Plan['pool']): void {
  const pool = ctx.pool
  if (pool.slots !== p.slots) {
    const arrays = poolArrays(pool, p.slots)
    pool.data = arrays.data
    pool.joints = arrays.joints
    pool.slots = p.slots
    // The new arrays hold zeros: no character's layers are known to hold the rest pose.
    ctx.posesUsed.fill(POSE_BUFFERS_OTHER)
  } else {
    // In use now: the gaps between the current free ranges.
    const now = pool.free
    for (let k = 0; k < p.free.length; k += 2) {
      const a = p.free[k]!
      const b = a + p.free[k + 1]!
      let start = 0
      for (let i = 0; i <= now.length; i += 2) {
        const end = i < now.length ? now[i]! : pool.slots
        const from = Math.max(a, start)
        const to = Math.min(b, end)
        if (from < to) {
          pool.data.fill(0, from * JOINT_STRIDE, to * JOINT_STRIDE)
          pool.joints.fill(0, from, to)
        }
        if (i < now.length) start = now[i]! + now[i + 1]!
      }
    }
  }
  pool.used = p.used
  pool.free.length = 0
  // Element by element: a spread of a long array overflows the call stack.
  for (const x of p.free) pool.free.push(x)
}
