/**
 * Forging snapshots, as an attacker would: edit bytes of a real snapshot, then recompute its checksum (FNV-1a 64
 * of bytes [20, total), written at offset 12 as high u32 then low u32), so that only restore's value checks
 * stand between the edit and the simulation.
 *
 * `mapSnapshot` finds where things are from the layout documented in snapshot/format.ts and
 * src/physics/snapshot.ts. It walks the bytes itself, without snapshot/read.ts, so that a mistake in the reader
 * cannot hide the same mistake here; only the store records' field offsets come from format.ts's storeLayout.
 */
import { createHasher } from '../../src/sim/hasher.ts'
import type { Layouts, StoreLayout } from '../../snapshot/format.ts'

export type EditKind = 'u8' | 'u16' | 'u32' | 'i32' | 'f32' | 'f64'

export interface Edit {
  readonly offset: number
  readonly kind: EditKind
  readonly value: number
}

/** A copy of `bytes` with its checksum recomputed. */
export function reseal(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice()
  const view = new DataView(out.buffer)
  const hex = createHasher().update(out, 20, out.length).digest()
  view.setUint32(12, parseInt(hex.slice(0, 8), 16), true)
  view.setUint32(16, parseInt(hex.slice(8), 16), true)
  return out
}

/** A copy of `bytes` with `edits` made (little-endian, in order), checksum recomputed. */
export function forge(bytes: Uint8Array, edits: readonly Edit[]): Uint8Array {
  const out = bytes.slice()
  const view = new DataView(out.buffer)
  for (const { offset, kind, value } of edits) {
    if (kind === 'u8') view.setUint8(offset, value)
    else if (kind === 'u16') view.setUint16(offset, value, true)
    else if (kind === 'u32') view.setUint32(offset, value, true)
    else if (kind === 'i32') view.setInt32(offset, value, true)
    else if (kind === 'f32') view.setFloat32(offset, value, true)
    else view.setFloat64(offset, value, true)
  }
  return reseal(out)
}

/** Every offset at which the bytes of `value` as a little-endian float (`f32` or `f64`) occur. */
export function findFloat(bytes: Uint8Array, value: number, kind: 'f32' | 'f64'): number[] {
  const size = kind === 'f32' ? 4 : 8
  const pattern = new Uint8Array(size)
  const view = new DataView(pattern.buffer)
  if (kind === 'f32') view.setFloat32(0, value, true)
  else view.setFloat64(0, value, true)
  const found: number[] = []
  outer: for (let i = 0; i + size <= bytes.length; i++) {
    for (let k = 0; k < size; k++) if (bytes[i + k] !== pattern[k]) continue outer
    found.push(i)
  }
  return found
}

/** Byte offset of element `element` of field `name` inside a record of `layout`. */
export function fieldOffset(layout: StoreLayout, name: string, element = 0): number {
  const f = layout.fields.find((x) => x.name === name)
  if (!f) throw new Error(`forge: ${layout.name} has no field ${name}`)
  return f.offset + element * f.data.BYTES_PER_ELEMENT
}

export interface CharacterMap {
  /** Record offset of each store (Pose, Sampler, CrossFade, Ragdoll). */
  readonly stores: ReadonlyMap<string, number>
  readonly binding: number
  readonly fromBinding: number
  readonly cursorCount: number
  readonly cursors: number
  readonly joints: number
  /** The pose block: layer L, joint j, float k at pose + 4·((L·count + j)·10 + k). */
  readonly pose: number
  readonly count: number
}

export interface ShapeMap {
  readonly tag: number
  /** f64 radius, or f64×3 half extents. */
  readonly size: number
  readonly offset: number
  readonly orientation: number
}

export interface BodyMap {
  readonly type: number
  readonly flags: number
  readonly sleepState: number
  readonly shapeCount: number
  readonly mass: number
  readonly damping: number
  readonly position: number
  readonly quaternion: number
  readonly velocity: number
  readonly angularVelocity: number
  readonly inertia: number
  /** u16, -1 when the body hangs from none. */
  readonly parent: number
  readonly shapes: readonly ShapeMap[]
  /** f64×7 joint offset. */
  readonly jointOffset: number
}

export interface ConstraintMap {
  readonly kind: number
  readonly a: number
  readonly b: number
  readonly collide: number
  /** f64×15: pivot A, pivot B, axis A, axis B, cone angle, twist angle, max force. */
  readonly values: number
}

export interface RagdollMap {
  readonly flags: number
  /** Offset of the description's body count, -1 for the default description. */
  readonly description: number
  readonly hits: number
  /** The read-back joint world transforms, -1 when no bodies exist. */
  readonly world: number
  readonly bodies: readonly BodyMap[]
  readonly constraints: readonly ConstraintMap[]
}

export interface LayerMap {
  readonly f: number
  readonly i: number
  readonly block: number
  readonly slots: number
}

export interface SnapshotMap {
  readonly pool: number
  /** Scene node eid → offset of its record (after the eid). */
  readonly nodes: ReadonlyMap<number, number>
  readonly characters: ReadonlyMap<number, CharacterMap>
  /** Character eid → its layers' offsets (f64 numbers, i32 numbers, pose block and its size in slots). */
  readonly layers: ReadonlyMap<number, readonly LayerMap[]>
  readonly ragdolls: ReadonlyMap<number, RagdollMap>
  /** Character eid → offset of its root motion record (after the eid: u8 mode, u32 joint, u8 apply, f64×22). */
  readonly rootMotion: ReadonlyMap<number, number>
  readonly physics: number
  readonly events: number
}

/** Where every section, record and ragdoll body of a snapshot starts (see the header). */
export function mapSnapshot(bytes: Uint8Array, layouts: Layouts): SnapshotMap {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = 48
  const take = (n: number): number => {
    const o = at
    at += n
    return o
  }
  const u8 = () => view.getUint8(take(1))
  const u16 = () => view.getUint16(take(2), true)
  const u32 = () => view.getUint32(take(4), true)

  take(20 * u16()) // assets
  const maxId = u32()
  take(4 + 4 * maxId) // alive count, dense
  const pool = at
  take(8)
  take(8 * u32())
  const nodes = new Map<number, number>()
  for (let i = u32(); i > 0; i--) {
    const eid = u32()
    nodes.set(eid, take(layouts.node.bytes))
  }
  const characters = new Map<number, CharacterMap>()
  for (let i = u32(); i > 0; i--) {
    const eid = u32()
    const stores = new Map<string, number>()
    for (const l of layouts.character) stores.set(l.name, take(l.bytes))
    const count = view.getUint16(stores.get('Pose')! + fieldOffset(layouts.character[0]!, 'count'), true)
    const binding = take(4)
    const fromBinding = take(4)
    const cursorCount = u32()
    const cursors = take(4 * cursorCount)
    const joints = take(4 * count)
    const pose = take(4 * 5 * count * 10)
    characters.set(eid, { stores, binding, fromBinding, cursorCount, cursors, joints, pose, count })
  }
  // Layers (snapshot/layers.ts): offsets of each layer's numbers and pose block.
  const layers = new Map<number, LayerMap[]>()
  for (let i = u32(); i > 0; i--) {
    const eid = u32()
    const n = characters.get(eid)!.count
    const list: LayerMap[] = []
    for (let l = u8(); l > 0; l--) {
      take(1)
      const f = take(8 * 14)
      const ints = take(4 * 15)
      take(2) // 'finished' flags
      take(4)
      const slots = u32()
      if (u8() === 1) take(4 * n)
      take(4 * u32())
      const block = take(4 * slots * 10)
      if (u8() === 1) {
        take(1)
        const m = u8()
        take(1 + 4 * m + 8 * m * 3 + 16)
        for (let p = 0; p < m; p++) take(4 * u32())
      }
      list.push({ f, i: ints, block, slots })
    }
    layers.set(eid, list)
  }
  // Morph weights: per character eid, m, and 2·m floats.
  for (let i = u32(); i > 0; i--) {
    take(4)
    take(8 * u32())
  }
  // Root motion: per character eid, u8 mode, u32 joint, u8 apply, f64×22.
  const rootMotion = new Map<number, number>()
  for (let i = u32(); i > 0; i--) rootMotion.set(u32(), take(1 + 4 + 1 + 8 * 22))
  const ragdolls = new Map<number, RagdollMap>()
  for (let i = u32(); i > 0; i--) {
    const eid = u32()
    const flagsAt = take(1)
    const flags = bytes[flagsAt]!
    // A description: u16 bodies × (i32 node, u8 shape, i32 parent body, f64×8).
    const description = (flags & 2) === 0 ? take(2) : -1
    if (description >= 0) take(73 * view.getUint16(description, true))
    const hits = at
    take(26 * u16())
    let world = -1
    const bodies: BodyMap[] = []
    const constraints: ConstraintMap[] = []
    if ((flags & 4) !== 0) {
      world = take(8 * 8 * characters.get(eid)!.count)
      for (let b = u16(); b > 0; b--) bodies.push(mapBody())
      for (let k = u16(); k > 0; k--) {
        constraints.push({ kind: take(1), a: take(2), b: take(2), collide: take(1), values: take(8 * 15) })
      }
    }
    ragdolls.set(eid, { flags: flagsAt, description, hits, world, bodies, constraints })
  }
  const physics = at

  function mapBody(): BodyMap {
    const type = take(1)
    const flags = take(1)
    const sleepState = take(1)
    const shapeCount = take(1)
    const mass = take(8)
    const damping = take(16)
    take(8) // filter group and mask
    const position = take(24)
    const quaternion = take(32)
    const velocity = take(24)
    const angularVelocity = take(24)
    if ((bytes[flags]! & 1) !== 0) take(48) // force, torque
    const inertia = take(8 * 15)
    take(8) // time last sleepy
    const parent = (bytes[flags]! & 2) !== 0 ? take(2) : -1
    const shapes: ShapeMap[] = []
    for (let s = bytes[shapeCount]!; s > 0; s--) {
      const tag = take(1)
      const size = take((bytes[tag]! & 0x7f) === 1 ? 8 : 24)
      const offset = take(24)
      const orientation = (bytes[tag]! & 0x80) !== 0 ? take(32) : -1
      shapes.push({ tag, size, offset, orientation })
    }
    const jointOffset = take(8 * 7)
    return {
      type,
      flags,
      sleepState,
      shapeCount,
      mass,
      damping,
      position,
      quaternion,
      velocity,
      angularVelocity,
      inertia,
      parent,
      shapes,
      jointOffset,
    }
  }

  // physics: f64 time, f64 stepnumber, f64×3 gravity, bodies, constraints, broadphase
  at += 40
  for (let i = u32(); i > 0; i--) {
    const eid = view.getInt32(take(4), true)
    take(2)
    if (eid === 0 && u8() === 2) take(56)
  }
  take(6 * u32())
  if ((u8() & 2) !== 0) take(4 * u32())
  return { pool, nodes, characters, layers, ragdolls, rootMotion, physics, events: at }
}
