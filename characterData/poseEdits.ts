import type { AnimationContext } from '../plugin/context.ts'
import { copyInto, type Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkChoice, checkFinite, checkRange, checkUnit, snapshotError } from '../src/sim/valueChecks.ts'
import { JOINT_STRIDE } from '../components/Pose.ts'
import { CHAIN_CCD, CHAIN_FABRIK } from '../src/ik/chain.ts'
import {
  createLog,
  forgetWorld,
  growWorldMemo,
  removeEdited,
  type PoseEditState,
} from '../systems/poseEdits.ts'
import { growChainScratch } from '../systems/ik.ts'
import {
  F_AXIS,
  F_LENGTH,
  F_RAMP_DURATION,
  F_UP,
  F_WEIGHT,
  F_WEIGHT_FROM,
  F_WEIGHT_TO,
  GROUND_FUNCTION,
  GROUND_PHYSICS,
  I_GROUND,
  I_ITERATIONS,
  I_LENGTH,
  I_METHOD,
  I_POLE_ENTITY,
  I_TARGET_ENTITY,
  IK_AIM,
  IK_CHAIN,
  IK_FEET,
  IK_KINDS,
  IK_TWO_BONE,
  type IKSolver,
} from '../systems/ikState.ts'
import { decoder } from '../snapshot/format.ts'
import type { CharacterDatum, SnapshotCharacters } from '../plugin/characterData.ts'
import type { Hasher } from '../src/sim/hasher.ts'

/**
 * Pose edits and IK solvers (systems/poseEdits.ts, systems/ikState.ts): a character starts with neither; hash()
 * covers its edit log (the joints edited this step and their composed values) and its solvers (name, kind,
 * joints, numbers; not a ground function, the game's). Nothing for a character with neither, so a plugin that
 * never uses them hashes as before.
 */
export const poseEditsDatum: CharacterDatum<PoseEditsData[]> = {
  name: 'pose edits and IK',
  attach(ctx, eid, asset) {
    const state = ctx.poseEdits
    for (const a of [state.logs, state.ik] as unknown[][]) while (a.length <= eid) a.push(undefined)
    state.logs[eid] = undefined
    state.ik[eid] = undefined
    growWorldMemo(state, asset.jointNodes.length)
  },
  release(ctx, eid) {
    releasePoseEdits(ctx.poseEdits, eid)
  },
  hash(h, ctx, eid) {
    hashPoseEdits(h, ctx.poseEdits, eid)
  },
  snapshot: {
    tag: 'IKPS',
    name: 'poseEdits',
    write: writePoseEdits,
    read: readPoseEdits,
    apply: applyPoseEdits,
  },
}

/** A leaving character's pose-edit state: its log and solvers dropped, it off the edited and restored lists. */
function releasePoseEdits(state: PoseEditState, eid: number): void {
  const log = state.logs[eid]
  if (log !== undefined && log.count > 0) removeEdited(state, eid)
  for (let i = 0; i < state.restoredCount; i++) if (state.restored[i] === eid) state.restored[i] = 0
  state.logs[eid] = undefined
  if (state.ik[eid] !== undefined) state.ikCount--
  state.ik[eid] = undefined
  if (state.world.character === eid) forgetWorld(state)
}

function hashPoseEdits(h: Hasher, state: PoseEditState, eid: number): void {
  const log = state.logs[eid]
  if (log !== undefined && log.count > 0) {
    h.updateNumber(-1).updateNumber(log.count).update(log.joints, 0, log.count)
    h.update(log.saved, 0, log.count * JOINT_STRIDE)
  }
  const ik = state.ik[eid]
  if (ik === undefined) return
  h.updateNumber(-2).updateNumber(ik.solvers.length)
  for (const s of ik.solvers) {
    h.updateNumber(s.name.length)
    for (let k = 0; k < s.name.length; k++) h.updateNumber(s.name.charCodeAt(k))
    h.updateNumber(s.kind).update(s.joints).update(s.f).update(s.i).update(s.steps)
  }
}

/**
 * The snapshot's IKPS section (pose edits and IK solvers, after RMOT): u32 count; per character with edits in
 * its pose or IK solvers (in the characters section's order):
 *
 *   u32 eid, u32 m edited joints, u32 s solvers,
 *   i32[m] the edited joints (in the order first edited), f32[10·m] their composed values (systems/poseEdits.ts),
 *   s × (text name, u8 kind (IK_KINDS' index), u8 ground (0, GROUND_PHYSICS or GROUND_FUNCTION), u16 k joints,
 *        u16 l numbers, zeros to 4, i32[k] joints, u32[I_LENGTH] integers, zeros to 8, f64[l] numbers, f64 its
 *        ramp's steps)
 *
 * (systems/ikState.ts draws a solver's numbers and integers.) A text is u32 byte length and UTF-8 bytes. The
 * game's pose stages are not here, nor a 'feet' solver's ground function: a restore binds a solver that had one
 * to the function last set for its name in the restoring plugin (setIK), and without one the solver rests until
 * setIK gives it one again. Allocates nothing (snapshotInto).
 */
export function writePoseEdits(ctx: AnimationContext, w: Writer, characters: readonly number[]): void {
  const state = ctx.poseEdits
  const countAt = w.at()
  w.u32(0)
  let count = 0
  for (let c = 0; c < characters.length; c++) {
    const eid = characters[c]!
    const log = state.logs[eid]
    const m = log === undefined ? 0 : log.count
    const ik = state.ik[eid]
    if (m === 0 && ik === undefined) continue
    count++
    w.u32(eid)
    w.u32(m)
    w.u32(ik === undefined ? 0 : ik.solvers.length)
    if (m > 0) {
      w.raw(log!.joints, 0, m)
      w.raw(log!.saved, 0, m * JOINT_STRIDE)
    }
    if (ik === undefined) continue
    for (let k = 0; k < ik.solvers.length; k++) {
      const s = ik.solvers[k]!
      w.utf8(s.name)
      w.u8(s.kind)
      w.u8(s.kind === IK_FEET ? s.i[I_GROUND]! : 0)
      w.u16(s.joints.length)
      w.u16(s.f.length)
      w.align(4)
      w.raw(s.joints, 0, s.joints.length)
      w.raw(s.i, 0, I_LENGTH)
      w.align(8)
      w.raw(s.f, 0, s.f.length)
      w.raw(s.steps, 0, 1)
    }
  }
  w.setU32(countAt, count)
}

export interface PoseEditsData {
  eid: number
  joints: Int32Array
  saved: Float32Array
  solvers: IKSolver[]
}

/**
 * Reads and checks the IKPS section: characters once each; edited joints distinct and below the character's
 * count, their values finite with unit rotations; solvers of known kinds with distinct names, joints of the
 * character, the numbers of their kind (weights in [0, 1], a ramp's duration ≥ 0, unit axes, every other number
 * finite or NaN), entities below the capacity, a chain's passes in [1, 1000]. Changes nothing.
 */
export function readPoseEdits(
  ctx: AnimationContext,
  r: Reader,
  characters: SnapshotCharacters,
): PoseEditsData[] {
  const joints = new Map<number, number>()
  for (let i = 0; i < characters.count; i++) joints.set(characters.eids[i]!, characters.n[i]!)
  const out: PoseEditsData[] = []
  for (let count = r.u32(); count > 0; count--) {
    const eid = r.u32()
    const where = `section "poseEdits", character ${eid}`
    const n = joints.get(eid)
    if (n === undefined) throw snapshotError(`${where}: not a character, or listed twice`)
    joints.delete(eid)
    const m = r.u32()
    const s = r.u32()
    checkRange(where, 'edited joints', m, 0, n)
    const edited = new Int32Array(m)
    copyInto(edited, 0, r.bytes, r.span(4 * m), m)
    if (new Set(edited).size !== m || edited.some((j) => !(j >= 0 && j < n))) {
      throw snapshotError(
        `${where}: edited joints ${Array.from(edited).join(', ')} are not distinct joints below ${n}`,
      )
    }
    const saved = new Float32Array(m * JOINT_STRIDE)
    copyInto(saved, 0, r.bytes, r.span(4 * m * JOINT_STRIDE), m * JOINT_STRIDE)
    checkFinite(where, 'composed values', saved)
    for (let i = 0; i < m; i++) checkUnit(where, `joint ${edited[i]} rotation`, saved, i * JOINT_STRIDE + 3)
    const solvers: IKSolver[] = []
    for (let k = 0; k < s; k++) solvers.push(readSolver(ctx, r, `${where}, solver ${k}`, n, solvers))
    out.push({ eid, joints: edited, saved, solvers })
  }
  return out
}

function readSolver(
  ctx: AnimationContext,
  r: Reader,
  where: string,
  n: number,
  before: IKSolver[],
): IKSolver {
  const length = r.u32()
  const from = r.span(length)
  const name = decoder.decode(r.bytes.subarray(from, from + length))
  if (name.length === 0 || before.some((s) => s.name === name)) {
    throw snapshotError(`${where}: name ${JSON.stringify(name)} is empty or taken`)
  }
  const kind = r.u8()
  checkRange(where, 'kind', kind, 0, IK_KINDS.length - 1)
  const ground = r.u8()
  checkChoice(where, 'ground', ground, kind === IK_FEET ? [GROUND_PHYSICS, GROUND_FUNCTION] : [0])
  const k = r.u16()
  const l = r.u16()
  const fixed = kind === IK_FEET ? 7 : kind === IK_TWO_BONE ? 3 : -1
  if ((fixed >= 0 && k !== fixed) || k < (kind === IK_CHAIN ? 2 : 1)) {
    throw snapshotError(`${where}: ${k} joints for a ${IK_KINDS[kind]} solver`)
  }
  const expected = F_LENGTH[kind]! + (kind === IK_AIM ? k - 1 : 0)
  if (l !== expected)
    throw snapshotError(`${where}: ${l} numbers, a ${IK_KINDS[kind]} solver has ${expected}`)
  r.align(4)
  const joints = new Int32Array(k)
  copyInto(joints, 0, r.bytes, r.span(4 * k), k)
  if (joints.some((j) => !(j >= 0 && j < n)))
    throw snapshotError(`${where}: joints ${Array.from(joints).join(', ')} not all below ${n}`)
  const i = new Uint32Array(I_LENGTH)
  copyInto(i, 0, r.bytes, r.span(4 * I_LENGTH), I_LENGTH)
  r.align(8)
  const f = new Float64Array(l)
  copyInto(f, 0, r.bytes, r.span(8 * l), l)
  const steps = new Float64Array(1)
  copyInto(steps, 0, r.bytes, r.span(8), 1)
  checkRange(where, 'ramp steps', steps[0]!, 0, Number.MAX_VALUE)
  checkFinite(
    where,
    'numbers',
    f.filter((x) => !Number.isNaN(x)),
  )
  for (const at of [F_WEIGHT, F_WEIGHT_FROM, F_WEIGHT_TO]) checkRange(where, 'weight', f[at]!, 0, 1)
  checkRange(where, 'ramp seconds', f[F_RAMP_DURATION]!, 0, Number.MAX_VALUE)
  for (const at of [I_TARGET_ENTITY, I_POLE_ENTITY]) checkRange(where, 'entity', i[at]!, 0, ctx.capacity - 1)
  if (kind === IK_FEET && i[I_GROUND] !== ground)
    throw snapshotError(`${where}: ground ${i[I_GROUND]} is not ${ground}`)
  if (kind === IK_CHAIN) {
    checkRange(where, 'iterations', i[I_ITERATIONS]!, 1, 1000)
    checkChoice(where, 'method', i[I_METHOD]!, [CHAIN_FABRIK, CHAIN_CCD])
  }
  if (kind === IK_AIM) {
    checkUnit(where, 'axis', f, F_AXIS, 3)
    if (!Number.isNaN(f[F_UP]!)) checkUnit(where, 'up', f, F_UP, 3)
  }
  const fn = ground === GROUND_FUNCTION ? (ctx.poseEdits.grounds.get(name) ?? null) : null
  return { name, kind, joints, f, i, steps, ground: fn }
}

/**
 * Sets every character's pose edits and solvers as the snapshot has them (none for those it does not list),
 * rebuilding the edited list in the characters' order; the restored list and the world memo start empty.
 */
export function applyPoseEdits(
  ctx: AnimationContext,
  _bytes: Uint8Array,
  characters: SnapshotCharacters,
  plan: readonly PoseEditsData[],
): void {
  const state = ctx.poseEdits
  state.editedCount = 0
  state.restoredCount = 0
  for (let c = 0; c < characters.count; c++) {
    const eid = characters.eids[c]!
    state.logs[eid] = undefined
    state.ik[eid] = undefined
  }
  for (const d of plan) {
    const m = d.joints.length
    if (m > 0) {
      const log = createLog(ctx.stores.Pose.count[d.eid]!)
      for (let i = 0; i < m; i++) {
        const j = d.joints[i]!
        log.joints[i] = j
      }
      log.saved.set(d.saved)
      log.count = m
      state.logs[d.eid] = log
      state.edited[state.editedCount++] = d.eid
    }
    if (d.solvers.length > 0) state.ik[d.eid] = { solvers: d.solvers }
    for (const s of d.solvers) if (s.kind === IK_CHAIN) growChainScratch(s.joints.length)
  }
  state.ikCount = 0
  for (let c = 0; c < characters.count; c++) if (state.ik[characters.eids[c]!] !== undefined) state.ikCount++
  forgetWorld(state)
}
