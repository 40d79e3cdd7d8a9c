/**
 * Forged snapshots: a real snapshot with some bytes changed and its checksum recomputed, so the edit gets past
 * the checksum to the checks behind it. Restored into a fresh world and plugin (same options, same asset), a
 * forgery must be refused with an AnimationError that changes nothing (hash() and snapshot() of the fresh
 * plugin as before), or restore cleanly: every world matrix finite after the restore and after each of the
 * next 10 steps, which throw nothing.
 *
 * Edits are drawn from a seed (mulberry32) against a map of the snapshot's sections (snapshot/format.ts and
 * its section files): header fields; entity and pool counts; scene node ids, parents, flags, local T/R/S and
 * stored world matrices; the characters' store columns (Pose, Sampler, CrossFade, Ragdoll fields, laid out as the
 * format lays them out, from the plugin's public stores), binding clips, flags, cursors, joint entities and pose
 * floats; and any byte, u32, f32 or f64 in what follows (layers, ragdolls, physics, events); truncation and growth
 * with the length field fixed.
 *
 * Corrupt snapshots (`corrupt`): bits flipped with the checksum left as written, which restore must refuse
 * whatever the bits hold: one bit of two words 32·k words apart (issue 33: a sum of words missed those when the
 * flips were opposite), a burst of up to 64 bits, or a few bits anywhere past the header's first 20 bytes.
 */
import { mulberry32 } from '../random.ts'
import type { AnimationAsset, AnimationPlugin } from '../../entry/index.ts'
import { checksumWords } from '../../src/sim/checksum.ts'
import { Judge, freshPlugin, type RunReport } from './judge.ts'

/** The snapshot checksum of bytes [20, length) written at 12 as high u32 then low u32 (little-endian). */
export function writeChecksum(bytes: Uint8Array): void {
  const words = new Int32Array(bytes.length >>> 2)
  new Uint8Array(words.buffer).set(bytes.subarray(0, 4 * words.length))
  const sum = new Uint32Array(2)
  checksumWords(words, 5, words.length, sum)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  view.setUint32(12, sum[0]!, true)
  view.setUint32(16, sum[1]!, true)
}

interface Field {
  name: string
  size: number
  /** 'f' float, 'i' signed, 'u' unsigned. */
  type: 'f' | 'i' | 'u'
  offset: number
  count: number
}

/** A store record's fields as the format writes them: typed arrays in sorted name order, `length / capacity` each. */
function recordLayout(store: object, capacity: number): { fields: Field[]; bytes: number } {
  const fields: Field[] = []
  let offset = 0
  for (const name of Object.keys(store).sort()) {
    const data = (store as Record<string, unknown>)[name]
    if (!ArrayBuffer.isView(data) || data instanceof DataView) continue
    const typed = data as unknown as {
      length: number
      BYTES_PER_ELEMENT: number
      constructor: { name: string }
    }
    const count = typed.length / capacity
    const type = typed.constructor.name.startsWith('Float')
      ? 'f'
      : typed.constructor.name.startsWith('Int')
        ? 'i'
        : 'u'
    fields.push({ name, size: typed.BYTES_PER_ELEMENT, type, offset, count })
    offset += count * typed.BYTES_PER_ELEMENT
  }
  return { fields, bytes: offset }
}

/**
 * A place in the snapshot an edit can aim at: `groups` runs of `elements` elements of `size` bytes, the runs
 * `stride` bytes apart (a field of every scene node record), from `at`.
 */
export interface Target {
  label: string
  at: number
  size: number
  type: 'f' | 'i' | 'u'
  elements: number
  groups: number
  stride: number
}

const one = (label: string, at: number, size: number, type: Target['type'], elements = 1): Target => ({
  label,
  at,
  size,
  type,
  elements,
  groups: 1,
  stride: 0,
})

/** The snapshot's sections as far as they can be followed (the map stops where something does not fit). */
export function mapSnapshot(bytes: Uint8Array, plugin: AnimationPlugin, capacity: number): Target[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const targets: Target[] = [
    one('header.version', 4, 2, 'u'),
    one('header.length', 8, 4, 'u'),
    one('header.dt', 28, 8, 'f'),
    one('header.capacity', 36, 4, 'u'),
    one('header.maxPoseSlots', 40, 4, 'u'),
    one('header.step', 44, 4, 'u'),
  ]
  const done = (): Target[] =>
    targets.filter((t) => t.elements * t.groups > 0 && t.at + t.size <= bytes.length)
  let at = 48
  const fits = (n: number): boolean => at + n <= bytes.length
  const u32 = (): number => {
    const v = view.getUint32(at, true)
    at += 4
    return v
  }
  const align = (n: number): void => void (at += -at & (n - 1))
  /** Skips a section's tag and length (sections start at multiples of 8). */
  const section = (name: string): boolean => {
    align(8)
    if (!fits(8)) return false
    targets.push(one(`${name}.length`, at + 4, 4, 'u'))
    at += 8
    return true
  }
  if (!section('assets') || !fits(2)) return done()
  at += 2 + 28 * view.getUint16(at, true) // assets: fingerprint, retargets and markers fingerprints, joints, clips
  if (!section('entities') || !fits(12)) return done()
  targets.push(one('entities.maxId', at, 4, 'u'), one('entities.alive', at + 4, 4, 'u'))
  at += 8
  const idRuns = u32()
  targets.push(one('entities.runs', at, 4, 'u', 2 * idRuns))
  at += 8 * idRuns
  if (!section('pool') || !fits(12)) return done()
  targets.push(
    one('pool.slots', at, 4, 'u'),
    one('pool.used', at + 4, 4, 'u'),
    one('pool.ranges', at + 8, 4, 'u'),
  )
  at += 8
  const ranges = u32()
  targets.push(one('pool.free', at, 4, 'u', 2 * ranges))
  at += 8 * ranges
  if (!section('nodes') || !fits(8)) return done()
  const nodes = u32()
  const nodeRuns = u32()
  targets.push(one('node.ids', at, 4, 'u', 2 * nodeRuns))
  at += 8 * nodeRuns
  targets.push(one('node.parent', at, 4, 'i', nodes), one('node.flags', at + 4 * nodes, 1, 'u', nodes))
  at += 5 * nodes
  align(4)
  if (!fits(4)) return done()
  if (u32() === 1 && fits(4)) at += 4 * u32()
  for (const part of ['local', 'world'] as const) {
    if (!fits(4)) return done()
    const runs = u32()
    let listed = 0
    for (let k = 0; k < runs && fits(8); k++) {
      at += 4
      listed += u32()
    }
    if (part === 'local') {
      // Per run: T ×3, R ×4, S ×3 floats each node; mapped as one block of floats per name.
      targets.push(one('node.translation', at, 4, 'f', 10 * listed))
      targets.push(one('node.rotation', at, 4, 'f', 10 * listed))
      targets.push(one('node.scale', at, 4, 'f', 10 * listed))
      at += 40 * listed
    } else {
      targets.push(one('node.world', at, 4, 'f', 16 * listed))
      at += 64 * listed
    }
  }
  if (!section('characters') || !fits(4)) return done()
  const characters = u32()
  targets.push(one('character.eid', at, 4, 'u', characters))
  at += 4 * characters
  if (!fits(4)) return done()
  targets.push(one('character.cursorBytes', at, 4, 'u'))
  const cursorBytes = u32()
  const stores = {
    Pose: plugin.stores.Pose,
    Sampler: plugin.stores.Sampler,
    CrossFade: plugin.stores.CrossFade,
    Ragdoll: plugin.stores.Ragdoll,
  }
  let countColumn = -1
  for (const [name, store] of Object.entries(stores)) {
    for (const f of recordLayout(store, capacity).fields) {
      align(f.size)
      targets.push({
        label: `${name}.${f.name}`,
        at,
        size: f.size,
        type: f.type,
        elements: f.count,
        groups: characters,
        stride: f.count * f.size,
      })
      if (name === 'Pose' && f.name === 'count') countColumn = at
      at += characters * f.count * f.size
    }
  }
  align(4)
  for (let c = 0; c < characters && fits(16); c++) {
    const joints =
      countColumn >= 0 && countColumn + 2 * c + 2 <= bytes.length
        ? view.getUint16(countColumn + 2 * c, true)
        : 0
    targets.push(one('character.binding', at, 4, 'i'), one('character.fromBinding', at + 4, 4, 'i'))
    targets.push(one('character.flags', at + 8, 1, 'u'), one('character.layers', at + 9, 1, 'u'))
    const flags = bytes[at + 8]!
    const layers = bytes[at + 9]!
    at += 12
    const cursors = u32()
    if (cursorBytes !== 1 && cursorBytes !== 2 && cursorBytes !== 4) break
    targets.push(one('character.cursors', at, cursorBytes, 'u', cursors))
    at += cursorBytes * cursors
    align(4)
    if ((flags & 2) === 0) {
      targets.push(one('character.joints', at, 4, 'i', joints))
      at += 4 * joints
    }
    for (let layer = 0; layer < 5 && fits(joints); layer++) {
      if ((layers & (1 << layer)) === 0) continue
      // A byte of stored paths a joint (1 T, 2 R, 4 S), zeros to 4, then their floats (snapshot/poseLayers.ts).
      targets.push(one('character.posePaths', at, 1, 'u', joints))
      let floats = 0
      for (let j = 0; j < joints; j++) {
        const m = bytes[at + j]!
        floats += (m & 1 ? 3 : 0) + (m & 2 ? 4 : 0) + (m & 4 ? 3 : 0)
      }
      at += joints
      align(4)
      targets.push(one('character.pose', at, 4, 'f', floats))
      at += 4 * floats
    }
    // A fade's paths (CHARACTER_FADE_PATHS): a byte a joint, zeros to 4.
    if ((flags & 4) !== 0) {
      at += joints
      align(4)
    }
  }
  if (fits(8)) {
    // Layers, morphs, ragdolls, physics and events: not followed; any aligned word of them.
    const rest = bytes.length - at
    targets.push(one('tail.f64', at, 8, 'f', Math.floor(rest / 8)))
    targets.push(one('tail.f32', at, 4, 'f', Math.floor(rest / 4)))
    targets.push(one('tail.u32', at, 4, 'u', Math.floor(rest / 4)))
  }
  return done()
}

/** Byte offset of element `k` of a target. */
function elementAt(t: Target, k: number): number {
  return t.at + Math.floor(k / t.elements) * t.stride + (k % t.elements) * t.size
}

const FLOATS = [NaN, Infinity, -Infinity, 3.4e38, -3.4e38, 1e38, 1e-45, -0, 0, 1, -1, 1e300, -1e300]
const INTS = [0, 1, 2, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0x80000000, 3, 16, 64, 1000, 65535, 65536]

/** One forged copy of `bytes` and what was done to it. */
export function forge(
  bytes: Uint8Array,
  targets: Target[],
  seed: number,
): { bytes: Uint8Array; edits: string[] } {
  const random = mulberry32(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  let out = bytes.slice()
  const edits: string[] = []
  const count = 1 + Math.floor(random() * 3)
  for (let e = 0; e < count; e++) {
    const roll = random()
    if (roll < 0.06) {
      const length = 20 + Math.floor(random() * (out.length - 20))
      out = out.slice(0, length)
      edits.push(`truncate to ${length}`)
    } else if (roll < 0.1) {
      const extra = pick([1, 4, 8, 64, 4096])
      const grown = new Uint8Array(out.length + extra)
      grown.set(out)
      for (let i = out.length; i < grown.length; i++) grown[i] = Math.floor(random() * 256)
      out = grown
      edits.push(`append ${extra} bytes`)
    } else if (roll < 0.25) {
      const at = 20 + Math.floor(random() * (out.length - 20))
      const value = Math.floor(random() * 256)
      out[at] = value
      edits.push(`byte ${at} = ${value}`)
    } else {
      const t = pick(targets)
      const k = Math.floor(random() * t.elements * t.groups)
      const at = elementAt(t, k)
      if (at + t.size > out.length) continue
      const view = new DataView(out.buffer)
      let value: number
      if (t.type === 'f') {
        value = pick(FLOATS)
        if (t.size === 8) view.setFloat64(at, value, true)
        else view.setFloat32(at, value, true)
      } else {
        // Integers: a special value, or the old one nudged (an id or count off by one, the next entity).
        const old =
          t.size === 1
            ? view.getUint8(at)
            : t.size === 2
              ? view.getUint16(at, true)
              : view.getUint32(at, true)
        value = random() < 0.5 ? pick(INTS) : old + pick([1, -1, 2, 16])
        if (t.size === 1) view.setUint8(at, value & 0xff)
        else if (t.size === 2) view.setUint16(at, value & 0xffff, true)
        else view.setUint32(at, value >>> 0, true)
      }
      edits.push(`${t.label}[${k}] = ${Object.is(value, -0) ? '-0' : value}`)
    }
  }
  if (out.length >= 12 && !edits.some((d) => d.startsWith('header.length'))) {
    new DataView(out.buffer).setUint32(8, out.length, true)
  }
  if (out.length >= 20) writeChecksum(out)
  return { bytes: out, edits }
}

/**
 * A copy of `bytes` with the given elements of mapped targets set (by label, as mapSnapshot names them), its
 * length and checksum fixed: a forgery made on purpose, for a test or a report.
 */
export function forgeFields(
  bytes: Uint8Array,
  targets: Target[],
  edits: { label: string; element?: number; value: number }[],
): { bytes: Uint8Array; edits: string[] } {
  const out = bytes.slice()
  const view = new DataView(out.buffer)
  for (const e of edits) {
    const t = targets.find((x) => x.label === e.label)
    if (!t) throw new Error(`forgeFields: the snapshot has no ${e.label}`)
    const at = elementAt(t, e.element ?? 0)
    if (t.type === 'f') {
      if (t.size === 8) view.setFloat64(at, e.value, true)
      else view.setFloat32(at, e.value, true)
    } else if (t.size === 1) view.setUint8(at, e.value & 0xff)
    else if (t.size === 2) view.setUint16(at, e.value & 0xffff, true)
    else view.setUint32(at, e.value >>> 0, true)
  }
  writeChecksum(out)
  return { bytes: out, edits: edits.map((e) => `${e.label}[${e.element ?? 0}] = ${e.value}`) }
}

/** One corrupt copy of `bytes` (see the header) and what was flipped; the checksum is not recomputed. */
export function corrupt(
  bytes: Uint8Array,
  seed: number,
): { bytes: Uint8Array; edits: string[]; sealed: false } {
  const random = mulberry32(seed)
  const out = bytes.slice()
  const words = new Int32Array(out.buffer, 0, out.length >>> 2)
  // Words 0..4 are the magic, version, length and checksum, refused by other checks.
  const first = 5
  const bits = (words.length - first) * 32
  const flip = (bit: number): void => void (words[first + (bit >>> 5)]! ^= 1 << (bit & 31))
  const roll = random()
  let edit: string
  if (roll < 0.5 && words.length - first > 32) {
    const span = Math.floor((words.length - first - 1) / 32)
    const k = 1 + Math.floor(random() * span)
    const i = first + Math.floor(random() * (words.length - first - 32 * k))
    const bit = random() < 0.5 ? 30 : Math.floor(random() * 32)
    words[i]! ^= 1 << bit
    words[i + 32 * k]! ^= 1 << bit
    edit = `flip bit ${bit} of words ${i} and ${i + 32 * k}`
  } else if (roll < 0.75) {
    const length = Math.min(bits, 2 + Math.floor(random() * 63))
    const start = Math.floor(random() * (bits - length + 1))
    flip(start)
    flip(start + length - 1)
    for (let b = 1; b < length - 1; b++) if (random() < 0.5) flip(start + b)
    edit = `burst of ${length} bits from bit ${start} of word ${first}`
  } else {
    const n = 2 + Math.floor(random() * 7)
    const flipped = new Set<number>()
    while (flipped.size < Math.min(n, bits)) flipped.add(Math.floor(random() * bits))
    for (const b of flipped) flip(b)
    edit = `flip bits ${[...flipped].join(', ')} from word ${first}`
  }
  return { bytes: out, edits: [edit], sealed: false }
}

export interface ForgeReport extends RunReport {
  edits: string[]
  outcome: 'refused' | 'restored' | 'fault'
}

/**
 * Restores one forgery into a fresh plugin and judges it (see the header); a corrupt one (`sealed: false`)
 * restored is a fault of its own.
 */
export function runForgery(
  asset: AnimationAsset,
  options: { capacity: number },
  forged: { bytes: Uint8Array; edits: string[]; sealed?: boolean },
): ForgeReport {
  const judge = new Judge()
  judge.stage = 'forge'
  const plugin = freshPlugin(judge, asset, options)
  let outcome: ForgeReport['outcome'] = 'fault'
  if (plugin) {
    const [ok] = judge.call(plugin, 'restore(forged)', () => plugin.restore(forged.bytes))
    if (ok && forged.sealed === false) {
      judge.fault('corrupt', `restored a corrupt snapshot (${forged.edits.join('; ')})`)
    } else if (ok) {
      outcome = 'restored'
      if (judge.finite(plugin, 'after the restore')) {
        for (let i = 0; i < 10; i++) if (!judge.step(plugin, `step ${i + 1} after the restore`)) break
      }
    } else if (judge.refusals.length > 0) outcome = 'refused'
  }
  if (judge.faults.length > 0) outcome = 'fault'
  return { ...judge.report(), edits: forged.edits, outcome }
}
