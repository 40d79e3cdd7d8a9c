import type { AnimationContext } from '../plugin/context.ts'
import {
  checkChoice,
  checkFinite,
  checkNonNegative,
  checkRange,
  type Reader,
  type Writer,
} from '../src/sim/byteStream.ts'
import { LOD_FAR, LOD_NEAR, LOD_SETTINGS } from '../systems/scheduleLod.ts'

/**
 * The snapshot's "lod" section, last and optional: present only once a game made a LOD call (setLod,
 * setLodCamera), so a snapshot of a plugin that never did is what it was before levels of detail existed.
 *   u8 enabled (0, 1), f64×3 camera, f64 near, f64 far
 * The per-character schedule is not carried: each step derives it from these, the world matrices and the step
 * counter.
 */

export function writeLod(ctx: AnimationContext, w: Writer): void {
  const lod = ctx.lod
  if (!lod.touched) return
  w.u8(lod.enabled ? 1 : 0)
  for (let k = 0; k < LOD_SETTINGS; k++) w.f64(lod.settings[k]!)
}

export interface LodData {
  enabled: boolean
  settings: number[]
}

/** Reads and checks the "lod" section when bytes remain after the events; null when there is none. */
export function readLod(r: Reader, length: number): LodData | null {
  if (r.at() === length) return null
  r.section = 'lod'
  const where = 'section "lod"'
  const enabled = r.u8()
  checkChoice(where, 'enabled', enabled, [0, 1])
  const settings = r.f64s(LOD_SETTINGS)
  checkFinite(where, 'camera', settings, 0, 3)
  checkNonNegative(where, 'near', settings[LOD_NEAR]!)
  checkRange(where, 'far', settings[LOD_FAR]!, settings[LOD_NEAR]!, Number.MAX_VALUE)
  return { enabled: enabled === 1, settings }
}

/** Sets the restored plugin's levels of detail (a fresh plugin's are off and untouched). */
export function applyLod(ctx: AnimationContext, data: LodData | null): void {
  if (data === null) return
  const lod = ctx.lod
  lod.touched = true
  lod.enabled = data.enabled
  lod.settings.set(data.settings)
}
