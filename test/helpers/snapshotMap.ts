/**
 * Where things are in a snapshot's bytes (`mapSnapshot`), from the layout documented in snapshot/format.ts, its
 * section files and src/physics/snapshotFormat.ts. It walks the bytes itself, without snapshot/read.ts, so that
 * a mistake in the reader cannot hide the same mistake here; only the store columns' fields come from
 * format.ts's storeLayout. Re-exported by test/helpers/forge.ts, which edits the bytes it finds.
 */
import { RM_FLOATS } from '../../systems/rootMotion.ts'
import { RUN_FLOATS, RUN_INTS } from '../../systems/graphState.ts'
import type { Layouts } from '../../snapshot/format.ts'

export interface NodeMap {
  /** Offsets of its parent (i32) and flags (u8). */
  readonly parent: number
  readonly flags: number
  /** Offsets of its local transform's parts (f32 ×3, ×4, ×3), -1 when its character's ANIM holds it. */
  readonly translation: number
  readonly rotation: number
  readonly scale: number
  /** Offset of its stored world matrix (f32 ×16), -1 when it is recomputed. */
  readonly world: number
}

export interface CharacterMap {
  /** Offset of its element of each store column, by "Store.field" (element k: + k · element size). */
  readonly fields: ReadonlyMap<string, { offset: number; size: number }>
  readonly binding: number
  readonly fromBinding: number
  readonly flags: number
  readonly layerBits: number
  readonly cursorCount: number
  /** Bytes a key cursor takes (1, 2 or 4: the section's). */
  readonly cursorBytes: number
  readonly cursors: number
  /** Its joint list (i32 × count), -1 for a run of ids after its own. */
  readonly joints: number
  /**
   * Each pose layer's path masks (u8 × count: 1 translation, 2 rotation, 4 scale stored), -1 for the rest pose;
   * its floats (the stored paths' in joint order) from `poseFloats`.
   */
  readonly pose: readonly number[]
  readonly poseFloats: readonly number[]
  /** Its fade paths (u8 × count), -1 when no fade is active. */
  readonly fadePaths: number
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
  /** A byte of the instance's dynamic block (its position, quaternion and velocities are there too). */
  readonly sleepState: number
  readonly shapeCount: number
  readonly mass: number
  readonly damping: number
  readonly position: number
  readonly quaternion: number
  readonly velocity: number
  readonly angularVelocity: number
  /** f64×6: inertia, inverse inertia (static). */
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
  readonly index: number
  /** A layer other than 0: its rows' fields ("Sampler.clip", "AnimLayer.weight", …) → offset; empty for layer 0. */
  readonly fields: ReadonlyMap<string, number>
  /** Per buffer of n joints of the pose block: its path masks (u8 × n), and its floats (the stored paths'). */
  readonly block: readonly number[]
  readonly blockFloats: readonly number[]
  readonly slots: number
}

/** Offsets of a root motion record's fields (snapshot/rootMotion.ts). */
export interface RootMotionMap {
  readonly joint: number
  readonly mode: number
  readonly apply: number
  /** Its f64 numbers (RM_FLOATS of them). */
  readonly numbers: number
}

export interface SnapshotMap {
  /** Each section's body (after its tag and length), by tag. */
  readonly sections: ReadonlyMap<string, number>
  readonly pool: number
  readonly nodes: ReadonlyMap<number, NodeMap>
  readonly characters: ReadonlyMap<number, CharacterMap>
  /** Character eid → its layers' offsets (row fields, pose block and its size in slots). */
  readonly layers: ReadonlyMap<number, readonly LayerMap[]>
  /** Per character with root motion: where its fields are. */
  readonly rootMotion: ReadonlyMap<number, RootMotionMap>
  readonly ragdolls: ReadonlyMap<number, RagdollMap>
  readonly physics: number
  readonly events: number
}

/** Where every section, column element, pose layer and ragdoll body of a snapshot is (see the header). */
export function mapSnapshot(bytes: Uint8Array, layouts: Layouts): SnapshotMap {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = 48
  const take = (n: number): number => {
    const o = at
    at += n
    return o
  }
  const align = (n: number): void => void (at += -at & (n - 1))
  const u8 = () => view.getUint8(take(1))
  const u16 = () => view.getUint16(take(2), true)
  const u32 = () => view.getUint32(take(4), true)
  /** A pose layer as stored (snapshot/poseLayers.ts): its n path masks' and its floats' offsets. */
  const takePaths = (n: number): [number, number] => {
    const masks = take(n)
    let floats = 0
    for (let j = 0; j < n; j++) {
      const m = bytes[masks + j]!
      floats += (m & 1 ? 3 : 0) + (m & 2 ? 4 : 0) + (m & 4 ? 3 : 0)
    }
    align(4)
    return [masks, take(4 * floats)]
  }
  const sections = new Map<string, number>()
  const section = (): void => {
    align(8)
    const tag = String.fromCharCode(...bytes.subarray(at, at + 4))
    take(8)
    sections.set(tag, at)
  }

  section() // ASET
  take(28 * u16())
  section() // ENTS
  take(8)
  take(8 * u32())
  section() // POOL
  const pool = at
  take(8)
  take(8 * u32())

  section() // NODE
  const count = u32()
  const ids: number[] = []
  for (let r = u32(); r > 0; r--) {
    const start = u32()
    const length = u32()
    for (let i = 0; i < length; i++) ids.push(start + i)
  }
  const parents = take(4 * count)
  const flags = take(count)
  align(4)
  if (u32() === 1) take(4 * u32())
  const locals = new Map<number, [number, number, number]>()
  const runs = (): [number, number][] => {
    const out: [number, number][] = []
    for (let r = u32(); r > 0; r--) out.push([u32(), u32()])
    return out
  }
  for (const [start, length] of runs()) {
    const t = take(12 * length)
    const q = take(16 * length)
    const sc = take(12 * length)
    for (let i = 0; i < length; i++) locals.set(start + i, [t + 12 * i, q + 16 * i, sc + 12 * i])
  }
  const worlds = new Map<number, number>()
  for (const [start, length] of runs()) {
    const m = take(64 * length)
    for (let i = 0; i < length; i++) worlds.set(start + i, m + 64 * i)
  }
  const nodes = new Map<number, NodeMap>()
  ids.forEach((e, i) => {
    const local = locals.get(e) ?? [-1, -1, -1]
    nodes.set(e, {
      parent: parents + 4 * i,
      flags: flags + i,
      translation: local[0],
      rotation: local[1],
      scale: local[2],
      world: worlds.get(e) ?? -1,
    })
  })

  section() // CHAR
  const chars: number[] = []
  for (let n = u32(); n > 0; n--) chars.push(u32())
  const cursorBytes = u32()
  const fields = chars.map(() => new Map<string, { offset: number; size: number }>())
  for (const layout of layouts.character) {
    for (const f of layout.fields) {
      const size = f.data.BYTES_PER_ELEMENT
      align(size)
      const column = take(chars.length * f.stride * size)
      chars.forEach((_, i) =>
        fields[i]!.set(`${layout.name}.${f.name}`, { offset: column + i * f.stride * size, size }),
      )
    }
  }
  align(4)
  const characters = new Map<number, CharacterMap>()
  chars.forEach((eid, i) => {
    const countAt = fields[i]!.get('Pose.count')!.offset
    const n = view.getUint16(countAt, true)
    const binding = take(4)
    const fromBinding = take(4)
    const flagsAt = take(1)
    const layerBits = take(1)
    take(2)
    const cursorCount = u32()
    const cursors = take(cursorBytes * cursorCount)
    align(4)
    const joints = (bytes[flagsAt]! & 2) !== 0 ? -1 : take(4 * n)
    const pose: number[] = []
    const poseFloats: number[] = []
    for (let layer = 0; layer < 5; layer++) {
      if ((bytes[layerBits]! & (1 << layer)) === 0) {
        pose.push(-1)
        poseFloats.push(-1)
        continue
      }
      const [masks, floats] = takePaths(n)
      pose.push(masks)
      poseFloats.push(floats)
    }
    // CHARACTER_FADE_PATHS: a byte a joint, zeros to 4.
    const fadePaths = (bytes[flagsAt]! & 4) !== 0 ? take(n) : -1
    align(4)
    characters.set(eid, {
      fields: fields[i]!,
      binding,
      fromBinding,
      flags: flagsAt,
      layerBits,
      cursorCount,
      cursorBytes,
      cursors,
      joints,
      pose,
      poseFloats,
      fadePaths,
      count: n,
    })
  })

  section() // LAYR: offsets of each layer's numbers and pose block.
  const layers = new Map<number, LayerMap[]>()
  for (let i = u32(); i > 0; i--) {
    const eid = u32()
    const n = characters.get(eid)!.count
    const list: LayerMap[] = []
    for (let l = u8(); l > 0; l--) {
      const index = bytes[take(1)]!
      take(4) // slot
      const fields = new Map<string, number>()
      if (index > 0) {
        for (const layout of layouts.layer) {
          for (const f of layout.fields) {
            align(f.data.BYTES_PER_ELEMENT)
            fields.set(`${layout.name}.${f.name}`, take(f.stride * f.data.BYTES_PER_ELEMENT))
          }
        }
        align(4)
        take(4 * u32()) // cursors
      }
      take(4)
      const slots = u32()
      if (u8() === 1) take(4 * n)
      align(4)
      const block: number[] = []
      const blockFloats: number[] = []
      for (let b = 0; b < slots / n; b++) {
        const [masks, floats] = takePaths(n)
        block.push(masks)
        blockFloats.push(floats)
      }
      if (u8() === 1) {
        take(1)
        const m = u8()
        take(1)
        for (const f of layouts.layer[0]!.fields) {
          align(f.data.BYTES_PER_ELEMENT)
          take(m * f.data.BYTES_PER_ELEMENT)
        }
        align(8)
        take(8 * m * 2 + 16)
        for (let p = 0; p < m; p++) take(4 * u32())
      }
      list.push({ index, fields, block, blockFloats, slots })
    }
    layers.set(eid, list)
  }
  section() // MRPH: per character eid, m, and 2·m floats.
  for (let i = u32(); i > 0; i--) {
    take(4)
    take(8 * u32())
  }
  section() // RMOT: per character eid, u32 joint, u8 mode, u8 apply, then (aligned to 8) its numbers.
  const rootMotion = new Map<number, RootMotionMap>()
  for (let i = u32(); i > 0; i--) {
    const eid = u32()
    const joint = take(4)
    const mode = take(1)
    const apply = take(1)
    align(8)
    rootMotion.set(eid, { joint, mode, apply, numbers: take(8 * RM_FLOATS) })
  }
  section() // IKPS: per character eid, m edited joints, s solvers, i32[m], f32[10·m], then the solvers.
  for (let i = u32(); i > 0; i--) {
    take(4)
    const m = u32()
    const s = u32()
    take(44 * m)
    for (let k = 0; k < s; k++) {
      take(u32()) // name
      take(2) // kind, ground
      const joints = u16()
      const numbers = u16()
      align(4)
      take(4 * joints + 4 * 5)
      align(8)
      take(8 * numbers + 8) // its numbers, then its ramp's steps
    }
  }
  section() // GRPH: graphs (asset, length, text), then per character eid, graph, its run (snapshot/graphs.ts).
  const graphShapes: { params: number; layers: number }[] = []
  for (let i = u32(); i > 0; i--) {
    take(4)
    const length = u32()
    const graph = JSON.parse(new TextDecoder().decode(bytes.subarray(at, at + length))) as {
      parameters: object
      layers: unknown[]
    }
    take(length)
    align(4)
    graphShapes.push({ params: Object.keys(graph.parameters).length, layers: graph.layers.length })
  }
  for (let i = u32(); i > 0; i--) {
    take(4)
    const { params, layers: count } = graphShapes[u32()]!
    align(8)
    take(8 * params + 8 * RUN_FLOATS * count + 4 * RUN_INTS * count + params)
    align(4)
  }
  section() // RAGD
  const ragdolls = new Map<number, RagdollMap>()
  for (let i = u32(); i > 0; i--) {
    const eid = u32()
    const flagsAt = take(1)
    const ragdollFlags = bytes[flagsAt]!
    // A description: u16 bodies × (i32 node, u8 shape, i32 parent body, f64×8).
    const description = (ragdollFlags & 2) === 0 ? take(2) : -1
    if (description >= 0) take(73 * view.getUint16(description, true))
    // A partial ragdoll's roots: u16 count × u16 joint.
    if ((ragdollFlags & 8) !== 0) take(2 * u16())
    const hits = at
    take(26 * u16())
    align(8)
    const n = characters.get(eid)!.count
    if ((ragdollFlags & 32) !== 0) take(16 * n) // joint weights and targets
    if ((ragdollFlags & 64) !== 0) take(8) // recovery rate
    if ((ragdollFlags & 128) !== 0) {
      take(8 * n + 1) // motor strengths, hold root
      align(8)
    }
    let world = -1
    const bodies: BodyMap[] = []
    const constraints: ConstraintMap[] = []
    if ((ragdollFlags & 4) !== 0) {
      world = take(8 * 8 * n)
      // The instance: u32 static length, u32 0, the static block, the dynamic block (snapshotFormat.ts).
      const length = u32()
      take(4)
      const end = at + length
      const bodyCount = u16()
      const constraintCount = u16()
      const anchorCount = u16()
      const statics: Omit<
        BodyMap,
        'sleepState' | 'position' | 'quaternion' | 'velocity' | 'angularVelocity'
      >[] = []
      for (let b = 0; b < bodyCount; b++) statics.push(mapBody())
      for (let k = 0; k < constraintCount; k++) {
        constraints.push({ kind: take(1), a: take(2), b: take(2), collide: take(1), values: take(8 * 15) })
      }
      at = end
      const dynamic = take(8 * 29 * (bodyCount + anchorCount))
      const sleep = take(bodyCount + anchorCount)
      take(bodyCount + anchorCount) // types
      align(8)
      statics.forEach((body, b) => {
        const d = dynamic + 8 * 29 * b
        bodies.push({
          ...body,
          sleepState: sleep + b,
          position: d,
          quaternion: d + 24,
          velocity: d + 56,
          angularVelocity: d + 80,
        })
      })
    }
    // Motors: per constraint its limit centre (f64×4) and centred flag, each to 8 bytes.
    if ((ragdollFlags & 128) !== 0 && (ragdollFlags & 4) !== 0) take(40 * constraints.length)
    if ((ragdollFlags & 16) !== 0) {
      take(2 * u16()) // the replacement's roots
      take(26 * u16()) // its hits
      align(8)
      take(8) // its recovery rate
    }
    ragdolls.set(eid, { flags: flagsAt, description, hits, world, bodies, constraints })
  }
  section() // PHYS
  const physics = at

  /** A body's static part (the instance's static block); its dynamic offsets are added by the caller. */
  function mapBody() {
    const type = take(1)
    const flags = take(1)
    const shapeCount = take(1)
    take(1)
    const mass = take(8)
    const damping = take(16)
    take(8) // filter group and mask
    const inertia = take(8 * 6)
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
    return { type, flags, shapeCount, mass, damping, inertia, parent, shapes, jointOffset }
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
  section() // EVNT
  return { sections, pool, nodes, characters, layers, rootMotion, ragdolls, physics, events: at }
}
