import { createHasher } from '../src/sim/hasher.ts'
import type { ResolvedBody } from '../src/physics/description.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { JOINT_STRIDE, POSE_LAYERS } from '../components/Pose.ts'
import type { AnimationContext, AnimationEvent } from '../plugin/context.ts'
import {
  createReader,
  digestWords,
  hexWords,
  readU32Array,
  snapshotError,
  type Reader,
} from '../src/sim/byteStream.ts'
import {
  readInstance,
  readPhysicsWorld,
  type InstanceData,
  type PhysicsPlan,
} from '../src/physics/snapshot.ts'
import {
  CHECKSUM_FROM,
  FLAG_BODIES,
  FLAG_DEFAULT_DESCRIPTION,
  HEADER_BYTES,
  type Layouts,
  MAGIC,
  RAGDOLL_SHAPES,
  SNAPSHOT_VERSION,
  assetFingerprint,
  decoder,
  entityIndexOf,
  layoutsOf,
  recordValue,
} from './format.ts'
import { defaultDescription } from '../plugin/ragdolls.ts'

export interface CharacterData {
  eid: number
  /** Byte offsets into the snapshot: store records, joint entities, pose block. */
  record: number
  joints: number
  pose: number
  asset: number
  base: number
  count: number
  binding: number
  fromBinding: number
  cursors: Uint32Array
}

export interface RagdollData {
  eid: number
  flags: number
  /** The description, or null for the asset's default. */
  bodies: ResolvedBody[] | null
  impulses: { joint: number; impulse: readonly [number, number, number] }[]
  /** Byte offset of the read-back joint world transforms, -1 when the bodies do not exist. */
  world: number
  instance: InstanceData | null
}

export interface Plan {
  bytes: Uint8Array
  layouts: Layouts
  step: number
  entities: { maxId: number; alive: number; dense: Uint32Array }
  pool: { slots: number; used: number; free: number[] }
  nodes: { eid: number; parent: number; record: number }[]
  characters: CharacterData[]
  ragdolls: RagdollData[]
  physics: PhysicsPlan
  events: AnimationEvent[]
}

/**
 * Restores a snapshot into `ctx`'s fresh world and plugin (see the header for what "fresh" means). Throws
 * AnimationError('snapshot') naming what does not match, before changing anything.
 */
/** Reads and checks the whole snapshot; changes nothing. Throws AnimationError('snapshot'). */
export function readPlan(ctx: AnimationContext, bytes: Uint8Array): Plan {
  checkHeader(bytes)
  const layouts = layoutsOf(ctx)
  const r = createReader(bytes, 12)
  const checksum: [number, number] = [r.u32(), r.u32()]
  const actual = digestWords(createHasher().update(bytes, CHECKSUM_FROM, bytes.length))
  if (checksum[0] !== actual[0] || checksum[1] !== actual[1]) {
    throw snapshotError(
      `is corrupt: checksum ${hexWords(actual)} of its contents differs from the recorded ${hexWords(checksum)}`,
    )
  }
  const schema: [number, number] = [r.u32(), r.u32()]
  if (schema[0] !== layouts.schema[0] || schema[1] !== layouts.schema[1]) {
    throw snapshotError(
      `was written with another component layout (schema ${hexWords(schema)}, this build has ` +
        `${hexWords(layouts.schema)})`,
    )
  }
  const dt = r.f64()
  const capacity = r.u32()
  const maxSlots = r.u32()
  const step = r.u32()
  if (!Object.is(dt, ctx.dt)) {
    throw snapshotError(`has dt ${dt} s, this plugin ${ctx.dt} s (create it with the same dt)`)
  }
  if (capacity !== ctx.capacity) {
    throw snapshotError(
      `has capacity ${capacity}, this plugin ${ctx.capacity} (create it with the same capacity)`,
    )
  }
  if (maxSlots !== ctx.pool.maxSlots) {
    throw snapshotError(
      `has maxPoseSlots ${maxSlots}, this plugin ${ctx.pool.maxSlots} (create it with the same option)`,
    )
  }
  readAssets(ctx, r)
  checkFresh(ctx)

  r.section = 'entities'
  const maxId = r.u32()
  const alive = r.u32()
  const dense = readU32Array(bytes, r.span(4 * maxId), maxId)
  checkEntities(maxId, alive, dense)
  const isAlive = new Uint8Array(maxId + 1)
  for (let i = 0; i < alive; i++) isAlive[dense[i]!] = 1
  const checkEntity = (e: number, what: string): void => {
    if (!(e >= 1 && e <= maxId && isAlive[e] === 1 && e < ctx.capacity)) {
      throw snapshotError(`${what}: entity ${e} is not an alive id below capacity ${ctx.capacity}`)
    }
  }

  r.section = 'pool'
  const slots = r.u32()
  const used = r.u32()
  const ranges = r.u32()
  if (slots > maxSlots || ranges > slots) {
    throw snapshotError(`pose pool has ${slots} slots and ${ranges} free ranges (at most ${maxSlots} slots)`)
  }
  const free = Array.from(readU32Array(bytes, r.span(8 * ranges), 2 * ranges))

  const nodes = readNodes(r, layouts, checkEntity)
  const characters = readCharacters(ctx, r, layouts, checkEntity, nodes)
  checkPool(slots, used, free, characters)
  const ragdolls = readRagdolls(ctx, r, characters)
  r.section = 'physics'
  const sizes = new Map<number, { bodies: number; constraints: number }>()
  for (const rd of ragdolls) {
    if (rd.instance)
      sizes.set(rd.eid, { bodies: rd.instance.bodies.length, constraints: rd.instance.constraints.length })
  }
  const physics = readPhysicsWorld(r, ctx.physics, sizes)

  r.section = 'events'
  const events: AnimationEvent[] = []
  const text = (length: number): string => {
    const from = r.span(length)
    return decoder.decode(bytes.subarray(from, from + length))
  }
  for (let i = r.u32(); i > 0; i--) {
    const evStep = r.u32()
    const entity = r.i32()
    const kind = text(r.u8()) as AnimationEvent['kind']
    events.push({ step: evStep, entity, kind, message: text(r.u16()) })
  }
  if (r.at() !== bytes.length) {
    throw snapshotError(`has ${bytes.length - r.at()} unread bytes after its last section`)
  }
  return {
    bytes,
    layouts,
    step,
    entities: { maxId, alive, dense },
    pool: { slots, used, free },
    nodes,
    characters,
    ragdolls,
    physics,
    events,
  }
}

function checkHeader(bytes: Uint8Array): void {
  if (bytes.length < HEADER_BYTES) {
    throw snapshotError(`is truncated: ${bytes.length} bytes, shorter than the ${HEADER_BYTES}-byte header`)
  }
  if (!MAGIC.every((b, i) => bytes[i] === b)) {
    const got = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ')
    throw snapshotError(`does not start with "EASN" (45 41 53 4e) but with ${got}: not an ecs-anim snapshot`)
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = view.getUint16(4, true)
  if (version !== SNAPSHOT_VERSION) {
    throw snapshotError(`has format version ${version}; this build reads version ${SNAPSHOT_VERSION} only`)
  }
  const total = view.getUint32(8, true)
  if (bytes.length < total) throw snapshotError(`is truncated: ${bytes.length} of its ${total} bytes`)
  if (bytes.length > total) throw snapshotError(`is ${total} bytes, but ${bytes.length} were given`)
}

function readAssets(ctx: AnimationContext, r: Reader): void {
  r.section = 'assets'
  const count = r.u16()
  for (let i = 0; i < count; i++) {
    const words: [number, number] = [r.u32(), r.u32()]
    const joints = r.u16()
    const clips = r.u16()
    const ra = ctx.assets[i]
    if (!ra) continue
    const mine = assetFingerprint(ctx, ra)
    if (mine[0] !== words[0] || mine[1] !== words[1]) {
      throw snapshotError(
        `asset ${i} (${joints} joints, ${clips} clips, fingerprint ${hexWords(words)}) differs from this ` +
          `plugin's asset ${i}, ${ra.asset.source} (${ra.jointNodes.length} joints, ${ra.clipIds.length} clips, ` +
          `fingerprint ${hexWords(mine)}): add the same assets in the same order before restoring`,
      )
    }
  }
  if (count !== ctx.assets.length) {
    throw snapshotError(
      `has ${count} assets, this plugin ${ctx.assets.length}: add the same assets in the same order before ` +
        'restoring',
    )
  }
}

function checkFresh(ctx: AnimationContext): void {
  const index = entityIndexOf(ctx.world)
  if (index.maxId !== 0 || index.dense.length !== 0) {
    throw snapshotError(
      `can only be restored into a fresh world: this one has already issued entity ids up to ${index.maxId} ` +
        `(${index.aliveCount} alive); restore into createWorld() with a new plugin`,
    )
  }
  if (index.versioning) throw snapshotError('cannot be restored into a world with versioned entity ids')
}

/** The dense array must be a permutation of 1..maxId (what the entity index of a plain-id world holds). */
function checkEntities(maxId: number, alive: number, dense: Uint32Array): void {
  if (alive > maxId) throw snapshotError(`entity index has ${alive} alive ids of ${maxId}`)
  const seen = new Uint8Array(maxId + 1)
  for (let i = 0; i < maxId; i++) {
    const e = dense[i]!
    if (e < 1 || e > maxId || seen[e] === 1) {
      throw snapshotError(`entity index is not a permutation of 1..${maxId} (id ${e} at ${i})`)
    }
    seen[e] = 1
  }
}

function readNodes(
  r: Reader,
  layouts: Layouts,
  checkEntity: (e: number, what: string) => void,
): Plan['nodes'] {
  r.section = 'nodes'
  const nodes: Plan['nodes'] = []
  const parentOf = new Map<number, number>()
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const record = r.span(layouts.node.bytes)
    checkEntity(eid, `scene node ${nodes.length}`)
    if (parentOf.has(eid)) throw snapshotError(`lists scene node ${eid} twice`)
    const parent = recordValue(layouts.node, 'parent', r.bytes, record)
    parentOf.set(eid, parent)
    nodes.push({ eid, parent, record })
  }
  for (const { eid, parent } of nodes) {
    if (parent !== 0 && !parentOf.has(parent)) {
      throw snapshotError(`scene node ${eid} has parent ${parent}, not a scene node`)
    }
    for (let a = parent, k = 0; a !== 0; a = parentOf.get(a)!, k++) {
      if (a === eid || k > nodes.length) throw snapshotError(`scene node ${eid} is its own ancestor`)
    }
  }
  return nodes
}

function readCharacters(
  ctx: AnimationContext,
  r: Reader,
  layouts: Layouts,
  checkEntity: (e: number, what: string) => void,
  nodes: Plan['nodes'],
): CharacterData[] {
  r.section = 'characters'
  const isNode = new Set(nodes.map((n) => n.eid))
  const out: CharacterData[] = []
  const seen = new Set<number>()
  const clipOk = (c: number): boolean => c === -1 || (Number.isInteger(c) && c >= 0 && c < ctx.clips.length)
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const record = r.span(layouts.characterBytes)
    const what = `character ${eid}`
    checkEntity(eid, what)
    if (seen.has(eid) || !isNode.has(eid))
      throw snapshotError(`${what} is listed twice or is not a scene node`)
    seen.add(eid)
    const field = (store: string, name: string): number => {
      let from = record
      for (const l of layouts.character) {
        if (l.name === store) return recordValue(l, name, r.bytes, from)
        from += l.bytes
      }
      throw new Error(`snapshot: no store ${store}`)
    }
    const asset = field('Pose', 'asset')
    const count = field('Pose', 'count')
    const base = field('Pose', 'base')
    const ra = ctx.assets[asset]
    if (!ra || ra.jointNodes.length !== count) {
      throw snapshotError(
        `${what} has asset ${asset} with ${count} joints, which this plugin's assets do not match`,
      )
    }
    const binding = r.i32()
    const fromBinding = r.i32()
    for (const c of [binding, fromBinding, field('Sampler', 'clip'), field('CrossFade', 'fromClip')]) {
      if (!clipOk(c))
        throw snapshotError(`${what} refers to clip ${c}; this plugin has ${ctx.clips.length} clips`)
    }
    const cursorCount = r.u32()
    if (cursorCount < 2 || cursorCount % 2 !== 0 || cursorCount > 0x1000000) {
      throw snapshotError(`${what} has ${cursorCount} key cursors`)
    }
    const cursors = readU32Array(r.bytes, r.span(4 * cursorCount), cursorCount)
    const joints = r.span(4 * count)
    const pose = r.span(4 * POSE_LAYERS * count * JOINT_STRIDE)
    for (const j of readU32Array(r.bytes, joints, count)) {
      checkEntity(j, `${what}'s joint`)
      if (!isNode.has(j)) throw snapshotError(`${what}'s joint ${j} is not a scene node`)
    }
    out.push({ eid, record, joints, pose, asset, base, count, binding, fromBinding, cursors })
  }
  return out
}

/** Character blocks and free ranges must tile [0, slots) exactly, and `used` be the blocks' total. */
function checkPool(slots: number, used: number, free: number[], characters: CharacterData[]): void {
  const pieces: [number, number][] = characters.map((c) => [c.base, POSE_LAYERS * c.count])
  for (let i = 0; i < free.length; i += 2) pieces.push([free[i]!, free[i + 1]!])
  pieces.sort((a, b) => a[0] - b[0])
  let end = 0
  for (const [start, length] of pieces) {
    if (start !== end) {
      throw snapshotError(`pose pool ranges do not tile its ${slots} slots (gap or overlap at slot ${start})`)
    }
    end = start + length
  }
  const total = characters.reduce((s, c) => s + POSE_LAYERS * c.count, 0)
  if (end !== slots || used !== total) {
    throw snapshotError(
      `pose pool covers ${end} of ${slots} slots with ${used} used (characters hold ${total})`,
    )
  }
  for (let i = 2; i < free.length; i += 2) {
    if (free[i]! <= free[i - 2]!) throw snapshotError('pose pool free ranges are not sorted by start')
  }
}

function readRagdolls(ctx: AnimationContext, r: Reader, characters: CharacterData[]): RagdollData[] {
  r.section = 'ragdolls'
  const byEid = new Map(characters.map((c) => [c.eid, c]))
  const out: RagdollData[] = []
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const flags = r.u8()
    const what = `ragdoll of ${eid}`
    const c = byEid.get(eid)
    if (!c || out.some((x) => x.eid === eid)) throw snapshotError(`${what}: not a character, or listed twice`)
    const n = c.count
    let bodies: ResolvedBody[] | null = null
    if ((flags & FLAG_DEFAULT_DESCRIPTION) === 0) {
      bodies = []
      for (let b = r.u16(); b > 0; b--) {
        const node = r.i32()
        const shape = RAGDOLL_SHAPES[r.u8()]
        const parentBody = r.i32()
        const v = r.f64s(8)
        const joint = node >= 0 ? (ctx.assets[c.asset]!.nodeJoint[node] ?? -1) : -1
        if (!shape || joint < 0 || parentBody >= bodies.length) {
          throw snapshotError(`${what}: description body ${bodies.length} is malformed`)
        }
        const [radius, length, ax, ay, az, mass, coneAngle, twistAngle] = v
        bodies.push({
          node,
          shape,
          parentBody,
          radius: radius!,
          length: length!,
          axis: [ax!, ay!, az!],
          mass: mass!,
          coneAngle: coneAngle!,
          twistAngle: twistAngle!,
        })
      }
    }
    const impulses: RagdollData['impulses'] = []
    for (let k = r.u16(); k > 0; k--) {
      const joint = r.u16()
      const [x, y, z] = r.f64s(3)
      if (joint >= n) throw snapshotError(`${what}: queued hit at joint ${joint} of ${n}`)
      impulses.push({ joint, impulse: [x!, y!, z!] })
    }
    let world = -1
    let instance: InstanceData | null = null
    if ((flags & FLAG_BODIES) !== 0) {
      world = r.span(8 * n * WORLD_STRIDE)
      instance = readInstance(r, what)
      const description = bodies ?? defaultDescription(ctx, c.asset)
      if (instance.bodies.length !== description.length) {
        throw snapshotError(
          `${what}: ${instance.bodies.length} bodies for a description of ${description.length}`,
        )
      }
    }
    out.push({ eid, flags, bodies, impulses, world, instance })
  }
  return out
}
