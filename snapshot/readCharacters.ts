import { JOINT_STRIDE, LAYER_PHYS, POSE_LAYERS } from '../components/Pose.ts'
import { SAMPLER_HOLD, SAMPLER_RESET_REST } from '../components/Sampler.ts'
import type { AnimationContext } from '../plugin/context.ts'
import {
  checkChoice,
  checkFinite,
  checkFlags,
  checkPositive,
  checkRange,
  checkUnit,
  invalidValue,
  readU32Array,
  snapshotError,
  type Reader,
} from '../src/sim/byteStream.ts'
import { type Layouts, decodeRecord, recordDecoder } from './format.ts'
import { maxChannels } from '../plugin/assets.ts'

/** Restore's reading of the scene nodes and characters (snapshot/read.ts runs it): every value checked. */

/** A scene node as the snapshot lists it: its id, its parent, and where its store record is. */
export interface NodeData {
  eid: number
  parent: number
  /** Byte offset of its SceneNode store record in the snapshot. */
  record: number
}

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
  /** Its Sampler.clip (layer 0's clip, -1 for none). */
  clip: number
  cursors: Uint32Array
  /** Its Ragdoll entry, checked against the ragdolls section. */
  ragdoll: { weight: number; active: number; handle: number }
}

/** The fields of each store record that restore checks (decodeRecord refuses a record with any other). */
const CHECKED: Readonly<Record<string, readonly string[]>> = {
  SceneNode: ['changed', 'dirty', 'parent', 'rotation', 'scale', 'translation', 'world'],
  Pose: ['asset', 'base', 'changed', 'changedStep', 'count'],
  Sampler: ['clip', 'finished', 'lastTime', 'loop', 'paused', 'reset', 'rotation', 'speed', 'time'],
  CrossFade: [
    'active',
    'blend',
    'duration',
    'fromClip',
    'fromFinished',
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

export function readNodes(
  r: Reader,
  layouts: Layouts,
  checkEntity: (e: number, where: string) => void,
): NodeData[] {
  r.section = 'nodes'
  const nodes: NodeData[] = []
  const parentOf = new Map<number, number>()
  const decode = recordDecoder(layouts.node, r.bytes, CHECKED.SceneNode!)
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const record = r.span(layouts.node.bytes)
    const where = `section "nodes", scene node ${eid}`
    checkEntity(eid, where)
    if (parentOf.has(eid)) throw snapshotError(`${where}: listed twice`)
    const f = decode(record)
    checkFinite(where, 'translation', f.translation!)
    checkUnit(where, 'rotation', f.rotation!)
    checkFinite(where, 'scale', f.scale!)
    checkChoice(where, 'dirty', f.dirty![0]!, [0, 1])
    checkChoice(where, 'changed', f.changed![0]!, [0, 1])
    checkWorldMatrix(where, f.world!)
    const parent = f.parent![0]!
    parentOf.set(eid, parent)
    nodes.push({ eid, parent, record })
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

export function readCharacters(
  ctx: AnimationContext,
  r: Reader,
  layouts: Layouts,
  checkEntity: (e: number, where: string) => void,
  nodes: NodeData[],
  step: number,
): CharacterData[] {
  r.section = 'characters'
  const isNode = new Set(nodes.map((n) => n.eid))
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
    if (!isNode.has(eid)) throw snapshotError(`${where}: entity ${eid} is not a scene node`)
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
    checkPositive(where, 'Ragdoll.rate', value('Ragdoll', 'rate'))
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
      if (!isNode.has(e)) throw snapshotError(`${where}, joint ${j}: entity ${e} is not a scene node`)
      const other = jointOf.get(e)
      if (other !== undefined) {
        throw snapshotError(`${where}, joint ${j}: entity ${e} is already a joint of character ${other}`)
      }
      jointOf.set(e, eid)
    })

    const pose = r.span(4 * POSE_LAYERS * count * JOINT_STRIDE)
    const block = new Float32Array(POSE_LAYERS * count * JOINT_STRIDE)
    new Uint8Array(block.buffer).set(r.bytes.subarray(pose, pose + block.byteLength))
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
      clip,
      cursors,
      ragdoll: { weight, active: value('Ragdoll', 'active'), handle: value('Ragdoll', 'handle') },
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
  checkChoice(where, 'Sampler.paused', value('paused'), [0, 1])
  checkChoice(where, 'Sampler.rotation', value('rotation'), ROTATIONS)
  checkFlags(where, 'Sampler.reset', value('reset'), SAMPLER_RESET_REST | SAMPLER_HOLD)
  checkChoice(where, 'Sampler.finished', value('finished'), [0, 1])
  // NaN means "not sampled yet" (it forces a sample).
  const last = value('lastTime')
  if (!Number.isNaN(last)) checkFinite(where, 'Sampler.lastTime', [last])
}

function checkCrossFade(where: string, value: (name: string) => number, clip: number): void {
  checkFinite(where, 'CrossFade.fromTime', [value('fromTime')])
  checkFinite(where, 'CrossFade.fromSpeed', [value('fromSpeed')])
  checkChoice(where, 'CrossFade.fromLoop', value('fromLoop'), LOOPS)
  checkChoice(where, 'CrossFade.fromRotation', value('fromRotation'), ROTATIONS)
  checkChoice(where, 'CrossFade.fromFinished', value('fromFinished'), [0, 1])
  checkRange(where, 'CrossFade.blend', value('blend'), 0, 1)
  checkRange(where, 'CrossFade.duration', value('duration'), 0, Number.MAX_VALUE)
  // steps: any count (advanceCrossFades ends a fade once steps·dt reaches its duration).
  const active = value('active')
  checkChoice(where, 'CrossFade.active', active, [0, 1])
  if (active === 1) {
    checkPositive(where, 'CrossFade.duration', value('duration'))
    if (clip < 0)
      throw invalidValue(where, 'CrossFade.active', 1, 'a fade needs a clip to fade to (Sampler.clip is -1)')
  } else if (value('fromClip') !== -1) {
    throw invalidValue(where, 'CrossFade.fromClip', value('fromClip'), 'must be -1 when no fade is active')
  }
}
