import { hasComponent, query } from 'bitecs'
import { AnimationError } from '../src/errors.ts'
import { createHasher } from '../src/sim/hasher.ts'
import { JOINT_STRIDE, POSE_LAYERS } from '../components/Pose.ts'
import type { AnimationContext, AnimationEvent } from '../plugin/context.ts'
import { isClipEvent } from '../systems/state.ts'
import { createWriter, digestWords, type Writer } from '../src/sim/byteStream.ts'
import { writePhysicsWorld } from '../src/physics/snapshot.ts'
import {
  CHECKSUM_FROM,
  type Layouts,
  MAGIC,
  REPORTED_POSE,
  REPORTED_WORLD,
  SNAPSHOT_VERSION,
  assetFingerprint,
  encoder,
  entityIndexOf,
  layoutsOf,
  writeIdRecords,
  markersFingerprint,
  writeRecord,
} from './format.ts'
import { writeLayers } from './layers.ts'
import { writeMorphs } from './morphs.ts'
import { writeRagdolls } from './writeRagdolls.ts'

/**
 * Serializes the plugin's whole simulation state (layout above). Throws AnimationError('snapshot') for a world
 * with versioned entity ids or a ragdoll body changed in a way the format does not carry. Reads only, except
 * that it commits bitecs's pending query removals (as the next step would).
 */
export function snapshotAnimation(ctx: AnimationContext): Uint8Array {
  const world = ctx.world
  const index = entityIndexOf(world)
  if (index.versioning) {
    throw new AnimationError(
      'snapshot',
      'snapshot: the world uses versioned entity ids (withVersioning); snapshots need plain ids',
    )
  }
  const layouts = layoutsOf(ctx)
  const { Pose, Ragdoll } = ctx.stores
  // A copy of the systems' own query's dense array: the order they visit characters in.
  const characters = Array.from(query(world, [Ragdoll, Pose]))
  const w = createWriter()

  for (const b of MAGIC) w.u8(b)
  w.u16(SNAPSHOT_VERSION)
  w.u16(0)
  w.u32(0) // total length, patched below
  w.u32(0) // checksum, patched below
  w.u32(0)
  w.u32(layouts.schema[0])
  w.u32(layouts.schema[1])
  w.f64(ctx.dt)
  w.u32(ctx.capacity)
  w.u32(ctx.pool.maxSlots)
  w.u32(ctx.step)

  w.u16(ctx.assets.length)
  for (const ra of ctx.assets) {
    const [hi, lo] = assetFingerprint(ctx, ra)
    w.u32(hi)
    w.u32(lo)
    const [markersHi, markersLo] = markersFingerprint(ctx, ra)
    w.u32(markersHi)
    w.u32(markersLo)
    w.u16(ra.jointNodes.length)
    w.u16(ra.clipIds.length)
  }

  w.u32(index.maxId)
  w.u32(index.aliveCount)
  for (let i = 0; i < index.maxId; i++) w.u32(index.dense[i]!)

  const pool = ctx.pool
  w.u32(pool.slots)
  w.u32(pool.used)
  w.u32(pool.free.length / 2)
  for (const x of pool.free) w.u32(x)

  const nodes = sceneNodeOrder(ctx, index.dense.slice(0, index.aliveCount))
  w.u32(nodes.length)
  writeIdRecords(w, layouts.node, nodes)

  w.u32(characters.length)
  for (const eid of characters) writeCharacter(ctx, w, layouts, eid)
  writeLayers(ctx, w, characters)
  writeMorphs(ctx, w, characters)

  writePhysicsWorld(w, ctx.physics, writeRagdolls(ctx, w, characters))

  w.u32(ctx.droppedEvents)
  const reported: number[] = []
  for (let e = 1; e < ctx.capacity; e++) if (ctx.poseReported[e]! | ctx.worldReported[e]!) reported.push(e)
  w.u32(reported.length)
  for (const e of reported) {
    w.u32(e)
    w.u8((ctx.poseReported[e] ? REPORTED_POSE : 0) | (ctx.worldReported[e] ? REPORTED_WORLD : 0))
  }
  w.u32(ctx.events.length)
  for (const ev of ctx.events) writeEvent(w, ev)

  const out = w.finish()
  const view = new DataView(out.buffer)
  view.setUint32(8, out.length, true)
  const [hi, lo] = digestWords(createHasher().update(out, CHECKSUM_FROM, out.length))
  view.setUint32(12, hi, true)
  view.setUint32(16, lo, true)
  return out
}

function writeEvent(w: Writer, ev: AnimationEvent): void {
  w.u32(ev.step)
  w.i32(ev.entity)
  w.i32(ev.character)
  const kind = encoder.encode(ev.kind)
  w.u8(kind.length)
  w.raw(kind, 0, kind.length)
  const text = (s: string): void => {
    const bytes = encoder.encode(s)
    w.u32(bytes.length)
    w.raw(bytes, 0, bytes.length)
  }
  if (ev.kind === 'ragdoll-get-up') {
    text(ev.message)
    w.u8(ev.facing === 'prone' ? 1 : 2)
    w.i32(ev.clipId)
    return
  }
  if (!isClipEvent(ev)) {
    text(ev.message)
    return
  }
  w.u8(ev.layer)
  w.i32(ev.clipId)
  text(ev.clip)
  text(ev.name)
  w.f64(ev.time)
  w.f64(ev.weight)
  w.u8(ev.fading ? 1 : 0)
}

/** SceneNode entities among `alive`: roots by ascending id, then each parent's children, last sibling first. */
function sceneNodeOrder(ctx: AnimationContext, alive: readonly number[]): number[] {
  const graph = ctx.sceneGraph
  const parents = graph.store.parent
  const nodes = alive
    .filter((e) => e < ctx.capacity && hasComponent(ctx.world, e, graph.store))
    .sort((a, b) => a - b)
  const out = nodes.filter((e) => parents[e] === 0)
  for (const p of nodes) {
    let c = graph.firstChild[p]!
    if (c === 0) continue
    while (graph.nextSibling[c] !== 0) c = graph.nextSibling[c]!
    for (; c !== 0; c = graph.prevSibling[c]!) out.push(c)
  }
  return out
}

function writeCharacter(ctx: AnimationContext, w: Writer, layouts: Layouts, eid: number): void {
  const { Pose, Sampler, CrossFade } = ctx.stores
  w.u32(eid)
  for (const layout of layouts.character) writeRecord(w, layout, eid)
  w.i32(bindingClip(ctx, ctx.binding[eid], Sampler.clip[eid]!, eid))
  w.i32(bindingClip(ctx, ctx.fromBinding[eid], CrossFade.fromClip[eid]!, eid))
  const cursors = ctx.cursors[eid]!
  w.u32(cursors.length)
  w.raw(cursors, 0, cursors.length)
  const base = Pose.base[eid]!
  const n = Pose.count[eid]!
  w.raw(ctx.pool.joints, base, n)
  w.raw(ctx.pool.data, base * JOINT_STRIDE, POSE_LAYERS * n * JOINT_STRIDE)
}

/** Id of the clip whose binding (on the character's asset) `binding` is; -1 for none. */
function bindingClip(ctx: AnimationContext, binding: Int32Array | undefined, likely: number, eid: number) {
  if (binding === undefined) return -1
  const asset = ctx.stores.Pose.asset[eid]!
  if (likely >= 0 && ctx.clips[likely]?.bindings[asset] === binding) return likely
  const found = ctx.clips.findIndex((c) => c.bindings[asset] === binding)
  if (found < 0) throw new Error(`snapshot: character ${eid} has a channel binding of no registered clip`)
  return found
}
