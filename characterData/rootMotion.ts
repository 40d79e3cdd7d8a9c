import type { AnimationContext } from '../plugin/context.ts'
import { copyInto, type Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkChoice, checkFinite, checkUnit, snapshotError } from '../src/sim/valueChecks.ts'
import {
  createRootMotionState,
  RM_APPLY,
  RM_DELTA,
  RM_FLOATS,
  RM_JOINT,
  RM_MODE,
  RM_TOTAL,
  ROOT_MOTION_FULL,
  ROOT_MOTION_HORIZONTAL,
} from '../systems/rootMotion.ts'
import type { CharacterDatum, SnapshotCharacters } from '../plugin/characterData.ts'

/**
 * Root motion (RootMotionState, systems/rootMotion.ts): off until setRootMotion turns it on; hash() covers its
 * mode, joint, flag, last delta and sums.
 */
export const rootMotionDatum: CharacterDatum<RootMotionData[]> = {
  name: 'root motion',
  attach(ctx, eid) {
    ctx.rootMotion[eid] = undefined
  },
  release(ctx, eid) {
    ctx.rootMotion[eid] = undefined
  },
  hash(h, ctx, eid) {
    const rootMotion = ctx.rootMotion[eid]
    if (rootMotion) h.update(rootMotion.i).update(rootMotion.f)
  },
  snapshot: {
    tag: 'RMOT',
    name: 'rootMotion',
    write: writeRootMotion,
    read: (_ctx, r, characters) => readRootMotion(r, characters),
    apply: applyRootMotion,
  },
}

/**
 * The snapshot's RMOT section (root motion, after MRPH): u32 count; per character with root motion on (in the
 * characters section's order): u32 eid, u32 joint index, u8 mode (1 horizontal, 2 full), u8 apply (0 or 1),
 * zeros to a multiple of 8, f64[RM_FLOATS] its numbers (systems/rootMotion.ts RM_*: the last delta, the sums
 * and the result). Allocates nothing (snapshotInto).
 */

export function writeRootMotion(ctx: AnimationContext, w: Writer, characters: readonly number[]): void {
  const countAt = w.at()
  w.u32(0)
  let count = 0
  for (let i = 0; i < characters.length; i++) {
    const eid = characters[i]!
    const rm = ctx.rootMotion[eid]
    if (rm === undefined) continue
    count++
    w.u32(eid)
    w.u32(rm.i[RM_JOINT]!)
    w.u8(rm.i[RM_MODE]!)
    w.u8(rm.i[RM_APPLY]!)
    w.align(8)
    w.raw(rm.f, 0, RM_FLOATS)
  }
  w.setU32(countAt, count)
}

export interface RootMotionData {
  eid: number
  mode: number
  joint: number
  apply: boolean
  f: Float64Array
}

/** Reads and checks the RMOT section: characters once each; modes, joints, finite numbers. Changes nothing. */
export function readRootMotion(r: Reader, characters: SnapshotCharacters): RootMotionData[] {
  const joints = new Map<number, number>()
  for (let i = 0; i < characters.count; i++) joints.set(characters.eids[i]!, characters.n[i]!)
  const out: RootMotionData[] = []
  for (let count = r.u32(); count > 0; count--) {
    const eid = r.u32()
    const where = `section "rootMotion", character ${eid}`
    const n = joints.get(eid)
    if (n === undefined) throw snapshotError(`${where}: not a character, or listed twice`)
    joints.delete(eid)
    const joint = r.u32()
    if (joint >= n) throw snapshotError(`${where}: joint ${joint} is not one of its ${n} joints`)
    const mode = r.u8()
    checkChoice(where, 'mode', mode, [ROOT_MOTION_HORIZONTAL, ROOT_MOTION_FULL])
    const apply = r.u8()
    checkChoice(where, 'apply', apply, [0, 1])
    r.align(8)
    const f = new Float64Array(RM_FLOATS)
    copyInto(f, 0, r.bytes, r.span(8 * RM_FLOATS), RM_FLOATS)
    checkFinite(where, 'numbers', f)
    checkUnit(where, 'delta rotation', f, RM_DELTA + 3)
    checkUnit(where, 'result rotation', f, RM_TOTAL + 3)
    out.push({ eid, mode, joint, apply: apply === 1, f })
  }
  return out
}

/**
 * Sets every character's root motion as the snapshot has it: off for those it does not list (a character kept
 * in place may have turned it on since), on with the snapshot's numbers for the others.
 */
export function applyRootMotion(
  ctx: AnimationContext,
  _bytes: Uint8Array,
  characters: SnapshotCharacters,
  plan: readonly RootMotionData[],
): void {
  for (let i = 0; i < characters.count; i++) ctx.rootMotion[characters.eids[i]!] = undefined
  for (const d of plan) {
    const eid = d.eid
    const rig = ctx.assets[ctx.stores.Pose.asset[eid]!]!
    const rm = createRootMotionState(rig, d.mode, d.joint, d.apply)
    rm.f.set(d.f)
    ctx.rootMotion[eid] = rm
    ctx.uses.rootMotion = true
  }
}
