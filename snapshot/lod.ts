import type { AnimationContext } from '../plugin/context.ts'
import type { Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkChoice, checkFinite, checkNonNegative, checkRange } from '../src/sim/valueChecks.ts'
import { LOD_FAR, LOD_NEAR, LOD_SETTINGS } from '../systems/scheduleLod.ts'

/**
 * The snapshot's LODS section (levels of detail, before CLCK): u8 touched (a LOD call was made: hash() covers the
 * settings only then), u8 enabled (0, 1), zeros to a multiple of 8, f64×3 camera, f64 near, f64 far. The
 * per-character schedule is not carried: each step derives it from these, the world matrices and the clock.
 */

export function writeLod(ctx: AnimationContext, w: Writer): void {
  const lod = ctx.lod
  w.u8(lod.touched ? 1 : 0)
  w.u8(lod.enabled ? 1 : 0)
  w.align(8)
  w.raw(lod.settings, 0, LOD_SETTINGS)
}

export interface LodData {
  touched: boolean
  enabled: boolean
  settings: number[]
}

/** Reads and checks the LODS section. Changes nothing. */
export function readLod(r: Reader): LodData {
  const where = 'section "lod"'
  const touched = r.u8()
  checkChoice(where, 'touched', touched, [0, 1])
  const enabled = r.u8()
  checkChoice(where, 'enabled', enabled, [0, 1])
  r.align(8)
  const settings = r.f64s(LOD_SETTINGS)
  checkFinite(where, 'camera', settings, 0, 3)
  checkNonNegative(where, 'near', settings[LOD_NEAR]!)
  checkRange(where, 'far', settings[LOD_FAR]!, settings[LOD_NEAR]!, Number.MAX_VALUE)
  return { touched: touched === 1, enabled: enabled === 1, settings }
}

/** Sets the plugin's levels of detail as the snapshot has them. */
export function applyLod(ctx: AnimationContext, data: LodData): void {
  const lod = ctx.lod
  lod.touched = data.touched
  lod.enabled = data.enabled
  lod.settings.set(data.settings)
}
