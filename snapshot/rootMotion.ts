import type { AnimationContext } from '../plugin/context.ts'
import {
  checkChoice,
  checkFinite,
  checkUnit,
  copyInto,
  snapshotError,
  type Reader,
  type Writer,
} from '../src/sim/byteStream.ts'
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
import type { CharacterData } from './readCharacters.ts'

/**
 * The snapshot's "rootMotion" section (after "morphs"): u32 count; per character with root motion on
 * (ascending eid): u32 eid, u8 mode (1 horizontal, 2 full), u32 joint index, u8 apply (0 or 1), f64[22] its
 * numbers (systems/rootMotion.ts RM_*: the last delta, the sums and the result).
 */

export function writeRootMotion(ctx: AnimationContext, w: Writer, characters: readonly number[]): void {
  const list = characters.filter((e) => ctx.rootMotion[e] !== undefined).sort((a, b) => a - b)
  w.u32(list.length)
  for (const eid of list) {
    const rm = ctx.rootMotion[eid]!
    w.u32(eid)
    w.u8(rm.i[RM_MODE]!)
    w.u32(rm.i[RM_JOINT]!)
    w.u8(rm.i[RM_APPLY]!)
    w.raw(rm.f, 0, RM_FLOATS)
  }
}

export interface RootMotionData {
  eid: number
  mode: number
  joint: number
  apply: boolean
  f: Float64Array
}

/** Reads and checks the "rootMotion" section: characters once each, ascending; modes, joints, finite numbers. */
export function readRootMotion(r: Reader, characters: readonly CharacterData[]): RootMotionData[] {
  r.section = 'rootMotion'
  const out: RootMotionData[] = []
  for (let count = r.u32(); count > 0; count--) {
    const eid = r.u32()
    const where = `section "rootMotion", character ${eid}`
    const c = characters.find((x) => x.eid === eid)
    if (c === undefined) throw snapshotError(`${where}: not a character`)
    if (out.length > 0 && eid <= out[out.length - 1]!.eid) {
      throw snapshotError(`${where}: not after the one before it (ascending ids, each once)`)
    }
    const mode = r.u8()
    checkChoice(where, 'mode', mode, [ROOT_MOTION_HORIZONTAL, ROOT_MOTION_FULL])
    const joint = r.u32()
    if (joint >= c.count) throw snapshotError(`${where}: joint ${joint} is not one of its ${c.count} joints`)
    const apply = r.u8()
    checkChoice(where, 'apply', apply, [0, 1])
    const f = new Float64Array(RM_FLOATS)
    copyInto(f, 0, r.bytes, r.span(8 * RM_FLOATS), RM_FLOATS)
    checkFinite(where, 'numbers', f)
    checkUnit(where, 'delta rotation', f, RM_DELTA + 3)
    checkUnit(where, 'result rotation', f, RM_TOTAL + 3)
    out.push({ eid, mode, joint, apply: apply === 1, f })
  }
  return out
}

/** Turns the restored characters' root motion on as it was (after attachCharacter cleared it). */
export function applyRootMotion(ctx: AnimationContext, plan: readonly RootMotionData[]): void {
  for (const d of plan) {
    const eid = d.eid
    const rig = ctx.assets[ctx.stores.Pose.asset[eid]!]!
    const rm = createRootMotionState(rig, d.mode, d.joint, d.apply)
    rm.f.set(d.f)
    ctx.rootMotion[eid] = rm
  }
}
