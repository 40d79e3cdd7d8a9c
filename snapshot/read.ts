import { createHasher } from '../src/sim/hasher.ts'
import { AnimationError } from '../src/errors.ts'
import type { ResolvedBody } from '../src/physics/description.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { JOINT_STRIDE, LAYER_ANIM, LAYER_PHYS, POSE_LAYERS } from '../components/Pose.ts'
import { SAMPLER_HOLD, SAMPLER_RESET_REST } from '../components/Sampler.ts'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext, AnimationEvent } from '../plugin/context.ts'
import {
  checkChoice,
  checkFinite,
  checkFlags,
  checkPositive,
  checkRange,
  checkUnit,
  createReader,
  digestWords,
  hexWords,
  invalidValue,
  readU32Array,
  SNAPSHOT_LIMIT,
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
  FLAG_REPORTED,
  HEADER_BYTES,
  type Layouts,
  MAGIC,
  RAGDOLL_SHAPES,
  SNAPSHOT_VERSION,
  assetFingerprint,
  decodeRecord,
  decoder,
  entityIndexOf,
  layoutsOf,
} from './format.ts'
import { maxChannels } from '../plugin/assets.ts'
import { defaultDescription } from '../plugin/ragdolls.ts'
import { ANIMATION_EVENT_KINDS } from '../systems/state.ts'

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
  /** Its Ragdoll entry, checked against the ragdolls section. */
  ragdoll: { weight: number; active: number; handle: number }
  /**
   * The smallest x scale of its root node and its ANIM layer: a ragdoll spawning on the next step multiplies
   * its body sizes by a product of them.
   */
  spawnScale: number
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
  nodes: { eid: number; parent: number; record: number; scaleX: number }[]
  characters: CharacterData[]
  ragdolls: RagdollData[]
  physics: PhysicsPlan
  events: AnimationEvent[]
}

/**
 * Reads and checks the whole snapshot; changes nothing. Throws AnimationError('snapshot') naming what does not
 * match, or the section, entity, field and value that is out of range.
 *
 * A snapshot whose checksum was recomputed after an edit passes the integrity check, so every value is checked
 * here against what apply.ts, the fixed step and cannon-es can take: a plan this accepts must restore without
 * a throw (apply.ts), step without a throw, and keep every world matrix finite. So floats are finite (and
 * within SNAPSHOT_LIMIT where they are positions, scales, velocities), rotations near unit length, enums and
 * flags in range, sizes and limits where cannon-es and the ragdoll code need them, and ids consistent with each
 * other (alive, scene nodes, no parent cycle, joints unique, ragdoll state, handle and runtime agreeing,
 * bodies and constraints matching the description).
 */
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
  // dt must be the plugin's own (so finite and > 0: the options check it).
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
  const checkEntity = (e: number, where: string): void => {
    if (!(e >= 1 && e <= maxId && isAlive[e] === 1 && e < ctx.capacity)) {
      throw snapshotError(`${where}: entity ${e} is not an alive id below capacity ${ctx.capacity}`)
    }
  }

  r.section = 'pool'
  const slots = r.u32()
  const used = r.u32()
  const ranges = r.u32()
  if (slots > maxSlots || ranges > slots) {
    throw snapshotError(
      `section "pool": ${slots} slots and ${ranges} free ranges (at most ${maxSlots} slots, and fewer ` +
        'ranges than slots)',
    )
  }
  const free = Array.from(readU32Array(bytes, r.span(8 * ranges), 2 * ranges))

  const nodes = readNodes(r, layouts, checkEntity)
  const characters = readCharacters(ctx, r, layouts, checkEntity, nodes, step)
  checkPool(slots, used, free, characters)
  const ragdolls = readRagdolls(ctx, r, characters)
  checkRagdollStates(characters, ragdolls)
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
    const where = `section "events", event ${events.length}`
    const evStep = r.u32()
    const entity = r.i32()
    const kind = text(r.u8()) as AnimationEvent['kind']
    const message = text(r.u16())
    checkRange(where, 'step', evStep, 0, step)
    checkRange(where, 'entity', entity, 1, ctx.capacity - 1)
    if (!EVENT_KINDS.includes(kind)) {
      throw snapshotError(`${where}: kind ${JSON.stringify(kind)} is not one of ${EVENT_KINDS.join(', ')}`)
    }
    events.push({ step: evStep, entity, kind, message })
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

const EVENT_KINDS: readonly string[] = ANIMATION_EVENT_KINDS

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
  if (alive > maxId) throw snapshotError(`section "entities": ${alive} alive ids of ${maxId}`)
  const seen = new Uint8Array(maxId + 1)
  for (let i = 0; i < maxId; i++) {
    const e = dense[i]!
    if (e < 1 || e > maxId || seen[e] === 1) {
      throw snapshotError(
        `section "entities": the index is not a permutation of 1..${maxId} (id ${e} at ${i})`,
      )
    }
    seen[e] = 1
  }
}

/** The fields of each store record that restore checks (decodeRecord refuses a record with any other). */
const CHECKED: Readonly<Record<string, readonly string[]>> = {
  SceneNode: ['changed', 'dirty', 'parent', 'rotation', 'scale', 'translation', 'world'],
  Pose: ['asset', 'base', 'changed', 'changedStep', 'count'],
  Sampler: ['clip', 'lastTime', 'loop', 'reset', 'rotation', 'speed', 'time'],
  CrossFade: [
    'active',
    'blend',
    'duration',
    'fromClip',
    'fromLoop',
    'fromRotation',
    'fromSpeed',
    'fromTime',
    'steps',
  ],
  Ragdoll: ['active', 'handle', 'rate', 'weight'],
}

const LOOPS = [0, 1, 2] // LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG
const ROTATIONS = [0, 1] // ROTATION_SLERP, ROTATION_SQUAD
const RAGDOLL_STATES = [0, 1, 2] // RAGDOLL_OFF, RAGDOLL_FALLING, RAGDOLL_GETTING_UP
const LAYER_NAMES = ['ANIM', 'PREV', 'PHYS', 'FROM', 'TO']

function readNodes(
  r: Reader,
  layouts: Layouts,
  checkEntity: (e: number, where: string) => void,
): Plan['nodes'] {
  r.section = 'nodes'
  const nodes: Plan['nodes'] = []
  const parentOf = new Map<number, number>()
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const record = r.span(layouts.node.bytes)
    const where = `section "nodes", scene node ${eid}`
    checkEntity(eid, where)
    if (parentOf.has(eid)) throw snapshotError(`${where}: listed twice`)
    const f = decodeRecord(layouts.node, r.bytes, record, CHECKED.SceneNode!)
    checkFinite(where, 'translation', f.translation!)
    checkUnit(where, 'rotation', f.rotation!)
    checkFinite(where, 'scale', f.scale!)
    checkChoice(where, 'dirty', f.dirty![0]!, [0, 1])
    checkChoice(where, 'changed', f.changed![0]!, [0, 1])
    checkWorldMatrix(where, f.world!)
    const parent = f.parent![0]!
    parentOf.set(eid, parent)
    nodes.push({ eid, parent, record, scaleX: f.scale![0]! })
  }
  for (const { eid, parent } of nodes) {
    if (parent !== 0 && !parentOf.has(parent)) {
      throw invalidValue(`section "nodes", scene node ${eid}`, 'parent', parent, 'is not a scene node')
    }
  }
  // Each node's ancestors, walked once: `rooted` nodes are known to reach a root.
  const rooted = new Set<number>()
  for (const { eid } of nodes) {
    const path: number[] = []
    const onPath = new Set<number>()
    for (let a = eid; a !== 0 && !rooted.has(a); a = parentOf.get(a)!) {
      if (onPath.has(a)) {
        const cycle = [...path.slice(path.indexOf(a)), a].join(' → ')
        throw invalidValue(
          `section "nodes", scene node ${eid}`,
          'parent',
          parentOf.get(eid)!,
          `the parent links make a cycle (${cycle})`,
        )
      }
      onPath.add(a)
      path.push(a)
    }
    for (const a of path) rooted.add(a)
  }
  return nodes
}

/**
 * A world matrix (column-major): the affine part finite and within the limit, the last row 0 0 0 1 (written when
 * the node is added; propagation writes only the affine part).
 */
function checkWorldMatrix(where: string, m: ArrayLike<number>): void {
  checkFinite(where, 'world', m)
  const row = Float32Array.of(m[3]!, m[7]!, m[11]!, m[15]!)
  if (row[0] !== 0 || row[1] !== 0 || row[2] !== 0 || row[3] !== 1) {
    throw invalidValue(where, 'world matrix row 4', row, 'must be (0, 0, 0, 1)')
  }
}

function readCharacters(
  ctx: AnimationContext,
  r: Reader,
  layouts: Layouts,
  checkEntity: (e: number, where: string) => void,
  nodes: Plan['nodes'],
  step: number,
): CharacterData[] {
  r.section = 'characters'
  const nodeScale = new Map(nodes.map((n) => [n.eid, n.scaleX]))
  const out: CharacterData[] = []
  const seen = new Set<number>()
  const jointOf = new Map<number, number>()
  const clipOk = (c: number): boolean => c === -1 || (Number.isInteger(c) && c >= 0 && c < ctx.clips.length)
  // Cursor slots: at least the asset's own clips' channels (addCharacter), grown for a clip with more.
  let maxClipChannels = 1
  let maxKeys = 1
  for (const rc of ctx.clips) {
    maxClipChannels = Math.max(maxClipChannels, rc.clip.channels.length)
    for (const ch of rc.clip.channels) maxKeys = Math.max(maxKeys, ch.times.length)
  }
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const record = r.span(layouts.characterBytes)
    const where = `section "characters", character ${eid}`
    checkEntity(eid, where)
    if (seen.has(eid)) throw snapshotError(`${where}: listed twice`)
    if (!nodeScale.has(eid)) throw snapshotError(`${where}: entity ${eid} is not a scene node`)
    seen.add(eid)
    const stores: Record<string, Record<string, ArrayLike<number>>> = {}
    let from = record
    for (const l of layouts.character) {
      stores[l.name] = decodeRecord(l, r.bytes, from, CHECKED[l.name]!)
      from += l.bytes
    }
    const value = (store: string, name: string): number => stores[store]![name]![0]!
    const asset = value('Pose', 'asset')
    const count = value('Pose', 'count')
    const base = value('Pose', 'base')
    const ra = ctx.assets[asset]
    if (!ra)
      throw invalidValue(where, 'Pose.asset', asset, `this plugin has assets 0..${ctx.assets.length - 1}`)
    if (ra.jointNodes.length !== count) {
      throw invalidValue(
        where,
        'Pose.count',
        count,
        `must be ${ra.jointNodes.length}, the joints of asset ${asset}`,
      )
    }
    checkChoice(where, 'Pose.changed', value('Pose', 'changed'), [0, 1])
    checkRange(where, 'Pose.changedStep', value('Pose', 'changedStep'), 0, step)

    const binding = r.i32()
    const fromBinding = r.i32()
    const clip = value('Sampler', 'clip')
    const fromClip = value('CrossFade', 'fromClip')
    const clips: [string, number][] = [
      ['clip binding', binding],
      ['fade-from binding', fromBinding],
      ['Sampler.clip', clip],
      ['CrossFade.fromClip', fromClip],
    ]
    for (const [field, c] of clips) {
      if (!clipOk(c)) throw invalidValue(where, field, c, `this plugin has clips 0..${ctx.clips.length - 1}`)
    }
    // sampleClips samples the clips through these bindings: each must be its clip's (or none with no clip).
    if (binding !== clip) throw invalidValue(where, 'clip binding', binding, `must be Sampler.clip ${clip}`)
    if (fromBinding !== fromClip) {
      throw invalidValue(where, 'fade-from binding', fromBinding, `must be CrossFade.fromClip ${fromClip}`)
    }
    checkSampler(where, (name) => value('Sampler', name))
    checkCrossFade(where, (name) => value('CrossFade', name), clip)
    const weight = value('Ragdoll', 'weight')
    checkRange(where, 'Ragdoll.weight', weight, 0, 1)
    checkPositive(where, 'Ragdoll.rate', value('Ragdoll', 'rate'), SNAPSHOT_LIMIT)
    checkChoice(where, 'Ragdoll.active', value('Ragdoll', 'active'), RAGDOLL_STATES)

    const cursorCount = r.u32()
    const least = maxChannels(ctx, ra)
    const most = Math.max(least, maxClipChannels)
    const needed = Math.max(
      least,
      clip >= 0 ? ctx.clips[clip]!.clip.channels.length : 0,
      fromClip >= 0 ? ctx.clips[fromClip]!.clip.channels.length : 0,
    )
    if (cursorCount % 2 !== 0 || cursorCount < 2 * needed || cursorCount > 2 * most) {
      throw invalidValue(
        where,
        'key cursor count',
        cursorCount,
        `must be even, from ${2 * needed} (two per channel of its clips) to ${2 * most}`,
      )
    }
    const cursors = readU32Array(r.bytes, r.span(4 * cursorCount), cursorCount)
    // A cursor is a key index the sampler searches from (it copes with any), and always one of a real track.
    cursors.forEach((k, slot) => {
      if (k >= maxKeys)
        throw invalidValue(where, `key cursor ${slot}`, k, `no clip has more than ${maxKeys} keys`)
    })

    const joints = r.span(4 * count)
    readU32Array(r.bytes, joints, count).forEach((e, j) => {
      // 0: the game removed this joint's entity (forgetJoint); the write-out skips it.
      if (e === 0) return
      checkEntity(e, `${where}, joint ${j}`)
      if (!nodeScale.has(e)) throw snapshotError(`${where}, joint ${j}: entity ${e} is not a scene node`)
      const other = jointOf.get(e)
      if (other !== undefined) {
        throw snapshotError(`${where}, joint ${j}: entity ${e} is already a joint of character ${other}`)
      }
      jointOf.set(e, eid)
    })

    const pose = r.span(4 * POSE_LAYERS * count * JOINT_STRIDE)
    const block = new Float32Array(POSE_LAYERS * count * JOINT_STRIDE)
    new Uint8Array(block.buffer).set(r.bytes.subarray(pose, pose + block.byteLength))
    let spawnScale = nodeScale.get(eid)!
    for (let layer = 0; layer < POSE_LAYERS; layer++) {
      // PHYS is rewritten from the bodies before anything reads it, and a ragdoll that blew up leaves
      // non-finite values there: it is checked only while blended in.
      if (layer === LAYER_PHYS && !(weight > 0)) continue
      for (let j = 0; j < count; j++) {
        const o = (layer * count + j) * JOINT_STRIDE
        const at = `${where}, pose layer ${LAYER_NAMES[layer]} joint ${j}`
        checkFinite(at, 'translation', block, o, 3)
        checkUnit(at, 'rotation', block, o + 3)
        checkFinite(at, 'scale', block, o + 7, 3)
        if (layer === LAYER_ANIM) spawnScale = Math.min(spawnScale, block[o + 7]!)
      }
    }
    out.push({
      eid,
      record,
      joints,
      pose,
      asset,
      base,
      count,
      binding,
      fromBinding,
      cursors,
      ragdoll: { weight, active: value('Ragdoll', 'active'), handle: value('Ragdoll', 'handle') },
      spawnScale,
    })
  }
  for (const [e, owner] of jointOf) {
    if (seen.has(e))
      throw snapshotError(`section "characters", character ${owner}: joint entity ${e} is a character`)
  }
  return out
}

function checkSampler(where: string, value: (name: string) => number): void {
  checkFinite(where, 'Sampler.time', [value('time')])
  checkFinite(where, 'Sampler.speed', [value('speed')])
  checkChoice(where, 'Sampler.loop', value('loop'), LOOPS)
  checkChoice(where, 'Sampler.rotation', value('rotation'), ROTATIONS)
  checkFlags(where, 'Sampler.reset', value('reset'), SAMPLER_RESET_REST | SAMPLER_HOLD)
  // NaN means "not sampled yet" (it forces a sample).
  const last = value('lastTime')
  if (!Number.isNaN(last)) checkFinite(where, 'Sampler.lastTime', [last])
}

function checkCrossFade(where: string, value: (name: string) => number, clip: number): void {
  checkFinite(where, 'CrossFade.fromTime', [value('fromTime')])
  checkFinite(where, 'CrossFade.fromSpeed', [value('fromSpeed')])
  checkChoice(where, 'CrossFade.fromLoop', value('fromLoop'), LOOPS)
  checkChoice(where, 'CrossFade.fromRotation', value('fromRotation'), ROTATIONS)
  checkRange(where, 'CrossFade.blend', value('blend'), 0, 1)
  checkRange(where, 'CrossFade.duration', value('duration'), 0, SNAPSHOT_LIMIT)
  // steps: any count (advanceCrossFades ends a fade once steps·dt reaches its duration).
  const active = value('active')
  checkChoice(where, 'CrossFade.active', active, [0, 1])
  if (active === 1) {
    checkPositive(where, 'CrossFade.duration', value('duration'), SNAPSHOT_LIMIT)
    if (clip < 0)
      throw invalidValue(where, 'CrossFade.active', 1, 'a fade needs a clip to fade to (Sampler.clip is -1)')
  } else if (value('fromClip') !== -1) {
    throw invalidValue(where, 'CrossFade.fromClip', value('fromClip'), 'must be -1 when no fade is active')
  }
}

/**
 * Character blocks and free ranges must tile [0, slots) exactly, free ranges be non-empty, sorted and apart,
 * and `used` be the blocks' total.
 */
function checkPool(slots: number, used: number, free: number[], characters: CharacterData[]): void {
  for (let i = 0; i < free.length; i += 2) {
    if (free[i + 1] === 0)
      throw invalidValue('section "pool"', `free range ${i / 2} length`, 0, 'must be > 0')
  }
  const pieces: [number, number][] = characters.map((c) => [c.base, POSE_LAYERS * c.count])
  for (let i = 0; i < free.length; i += 2) pieces.push([free[i]!, free[i + 1]!])
  pieces.sort((a, b) => a[0] - b[0])
  let end = 0
  for (const [start, length] of pieces) {
    if (start !== end) {
      throw snapshotError(
        `section "pool": ranges do not tile its ${slots} slots (gap or overlap at slot ${start})`,
      )
    }
    end = start + length
  }
  const total = characters.reduce((s, c) => s + POSE_LAYERS * c.count, 0)
  if (end !== slots || used !== total) {
    throw snapshotError(
      `section "pool": ranges cover ${end} of ${slots} slots with ${used} used (characters hold ${total})`,
    )
  }
  for (let i = 2; i < free.length; i += 2) {
    if (free[i]! <= free[i - 2]!) throw snapshotError('section "pool": free ranges are not sorted by start')
    // freePoseSlots merges neighbours, so a free range never ends where the next one starts.
    if (free[i - 2]! + free[i - 1]! === free[i]!) {
      throw invalidValue(
        'section "pool"',
        `free range ${i / 2} start`,
        free[i]!,
        'touches the range before it',
      )
    }
  }
}

function readRagdolls(ctx: AnimationContext, r: Reader, characters: CharacterData[]): RagdollData[] {
  r.section = 'ragdolls'
  const byEid = new Map(characters.map((c) => [c.eid, c]))
  const out: RagdollData[] = []
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const flags = r.u8()
    const where = `section "ragdolls", ragdoll of ${eid}`
    const c = byEid.get(eid)
    if (!c) throw snapshotError(`${where}: entity ${eid} is not a character`)
    const last = out.length > 0 ? out[out.length - 1]!.eid : 0
    if (eid <= last)
      throw snapshotError(`${where}: not after ${last} (runtimes are listed by ascending id, once)`)
    checkFlags(where, 'flags', flags, FLAG_REPORTED | FLAG_DEFAULT_DESCRIPTION | FLAG_BODIES)
    const n = c.count
    let bodies: ResolvedBody[] | null = null
    let description: readonly ResolvedBody[]
    if ((flags & FLAG_DEFAULT_DESCRIPTION) === 0) {
      bodies = readDescription(ctx, r, where, c.asset)
      description = bodies
    } else {
      try {
        description = defaultDescription(ctx, c.asset)
      } catch (error) {
        if (!(error instanceof AnimationError)) throw error
        throw snapshotError(`${where}: its asset has no default ragdoll description (${error.message})`)
      }
    }
    const impulses: RagdollData['impulses'] = []
    for (let k = r.u16(); k > 0; k--) {
      const at = `${where}, queued hit ${impulses.length}`
      const joint = r.u16()
      const v = r.f64s(3)
      if (joint >= n) throw invalidValue(at, 'joint', joint, `the character has joints 0..${n - 1}`)
      checkFinite(at, 'impulse', v)
      impulses.push({ joint, impulse: [v[0]!, v[1]!, v[2]!] })
    }
    let world = -1
    let instance: InstanceData | null = null
    if ((flags & FLAG_BODIES) !== 0) {
      world = r.span(8 * n * WORLD_STRIDE)
      const transforms = new Float64Array(n * WORLD_STRIDE)
      new Uint8Array(transforms.buffer).set(r.bytes.subarray(world, world + transforms.byteLength))
      for (let j = 0; j < n; j++) {
        const at = `${where}, read-back joint ${j}`
        const o = j * WORLD_STRIDE
        checkFinite(at, 'world position', transforms, o, 3)
        checkUnit(at, 'world rotation', transforms, o + 3)
        checkFinite(at, 'world scale', transforms, o + 7, 1)
      }
      instance = readInstance(r, where, description)
      if (impulses.length > 0) {
        throw invalidValue(
          where,
          'queued hits',
          impulses.length,
          'must be 0 once the bodies exist (hits apply at once)',
        )
      }
    }
    out.push({ eid, flags, bodies, impulses, world, instance })
  }
  return out
}

/**
 * A ragdoll description stored in the snapshot: what resolveRagdollDescription accepts (joints of the asset,
 * each once, parents first, each body's parent the body of its nearest ancestor; sizes, mass, axis, limits in
 * range), and capsules of at most 255 spheres (a body's shape count is a byte in the format).
 */
function readDescription(ctx: AnimationContext, r: Reader, where: string, assetId: number): ResolvedBody[] {
  const asset = ctx.assets[assetId]!
  const nodes = asset.asset.nodes
  const bodies: ResolvedBody[] = []
  const bodyOfNode = new Map<number, number>()
  const count = r.u16()
  if (count === 0) throw invalidValue(where, 'description bodies', 0, 'a description has at least one')
  for (let b = 0; b < count; b++) {
    const at = `${where}, description body ${b}`
    const node = r.i32()
    const shapeIndex = r.u8()
    const parentBody = r.i32()
    const v = r.f64s(8)
    const joint = node >= 0 && node < asset.nodeJoint.length ? asset.nodeJoint[node]! : -1
    if (joint < 0) throw invalidValue(at, 'node', node, `is not a joint of ${asset.asset.source}`)
    if (bodyOfNode.has(node)) throw invalidValue(at, 'node', node, `already has body ${bodyOfNode.get(node)}`)
    checkChoice(at, 'shape', shapeIndex, [0, 1])
    const [radius, length, , , , mass, coneAngle, twistAngle] = v as [number, ...number[]]
    checkPositive(at, 'radius', radius, SNAPSHOT_LIMIT)
    checkPositive(at, 'length', length!, SNAPSHOT_LIMIT)
    checkUnit(at, 'axis', v, 2, 3)
    checkPositive(at, 'mass', mass!, SNAPSHOT_LIMIT)
    checkRange(at, 'coneAngle', coneAngle!, 0, Math.PI, true)
    checkRange(at, 'twistAngle', twistAngle!, 0, Math.PI)
    const shape = RAGDOLL_SHAPES[shapeIndex]!
    if (shape === 'capsule') {
      // As src/physics/ragdoll.ts addShape lays out a capsule (at the world scale, which cancels here).
      const end = Math.max(0, length! * 0.5 - radius)
      const spheres = end > 0 ? Math.ceil((2 * end) / radius) + 1 : 1
      if (!(spheres <= 255)) {
        throw invalidValue(
          at,
          'length',
          length!,
          `with radius ${radius} it is a capsule of ${spheres} spheres (at most 255)`,
        )
      }
    }
    let expected = -1
    for (let a = nodes[node]!.parent; a >= 0 && expected < 0; a = nodes[a]!.parent) {
      expected = bodyOfNode.get(a) ?? -1
    }
    if (parentBody !== expected) {
      throw invalidValue(
        at,
        'parentBody',
        parentBody,
        `must be ${expected}, the body of its nearest ancestor joint listed before it`,
      )
    }
    bodyOfNode.set(node, b)
    bodies.push({
      node,
      shape,
      parentBody,
      radius,
      length: length!,
      axis: [v[2]!, v[3]!, v[4]!],
      mass: mass!,
      coneAngle: coneAngle!,
      twistAngle: twistAngle!,
    })
  }
  return bodies
}

/**
 * A character's Ragdoll entry against its runtime: a ragdoll that is on has a runtime (stepRagdolls reads it),
 * the handle is the character's own id exactly when it has one, bodies exist only while it is on, and a
 * ragdoll spawning on the next step gets non-negative sizes.
 */
function checkRagdollStates(characters: CharacterData[], ragdolls: RagdollData[]): void {
  const runtime = new Map(ragdolls.map((rd) => [rd.eid, rd]))
  for (const c of characters) {
    const where = `section "characters", character ${c.eid}`
    const rd = runtime.get(c.eid)
    const { active, handle } = c.ragdoll
    if (active !== RAGDOLL_OFF && !rd) {
      throw invalidValue(
        where,
        'Ragdoll.active',
        active,
        'a ragdoll that is on needs its runtime, and the ragdolls section has none',
      )
    }
    const own = rd ? c.eid : -1
    if (handle !== own) {
      throw invalidValue(
        where,
        'Ragdoll.handle',
        handle,
        `must be ${own} (${rd ? 'the character: it has a ragdoll runtime' : 'it has no ragdoll runtime'})`,
      )
    }
    if (rd?.instance && active === RAGDOLL_OFF) {
      throw invalidValue(
        where,
        'Ragdoll.active',
        active,
        'its ragdoll has bodies, so it must be falling (1) or getting up (2)',
      )
    }
    if (rd && !rd.instance && active !== RAGDOLL_OFF && c.spawnScale < 0) {
      throw invalidValue(
        where,
        'scale x',
        c.spawnScale,
        'must be ≥ 0 on its root node and in its ANIM layer: its ragdoll spawns on the next step, and cannon-es ' +
          'refuses a negative sphere radius',
      )
    }
  }
}
