import { AnimationError, showValue } from '../src/errors.ts'
import { optionsObject, type OptionNames, vector3 } from './checks.ts'
import type { AnimationContext } from './context.ts'
import { checkCharacter } from './characters.ts'
import { checkLive } from './options.ts'
import { LOD_CAMERA_X, LOD_FAR, LOD_NEAR } from '../systems/scheduleLod.ts'

/**
 * Update-rate levels of detail (setLod): how far from the LOD camera (setLodCamera) a character is sampled
 * every step, every 2nd or every 4th (systems/scheduleLod.ts). Distances in world units, from the character
 * entity's world position.
 */
export interface LodOptions {
  /** Nearer than this, every step. A finite number ≥ 0. */
  near: number
  /** From `near` up to this, every 2nd step; at `far` and beyond, every 4th. A finite number ≥ near. */
  far: number
  /** The camera position [x, y, z], as setLodCamera sets it; omitted, the current one stays. */
  camera?: readonly [number, number, number]
}

const LOD_OPTIONS: OptionNames<LodOptions> = { near: true, far: true, camera: true }

/**
 * Turns levels of detail on with `options`, or off with null (every character is sampled every step again).
 * Checked before anything changes.
 */
export function setLod(ctx: AnimationContext, options: LodOptions | null): void {
  checkLive(ctx, 'setLod')
  const lod = ctx.lod
  if (options === null) {
    // Only a change of state touches it: off on a plugin that never used levels of detail is no change.
    lod.enabled = false
    lod.rate.fill(1)
    lod.skip.fill(0)
    return
  }
  const what = 'setLod'
  const o = optionsObject<LodOptions>(options, what, LOD_OPTIONS)
  const near = o.near
  const far = o.far
  const camera = o.camera === undefined ? null : vector3(o.camera, what, 'camera')
  if (!(typeof near === 'number' && Number.isFinite(near) && near >= 0)) {
    throw new AnimationError('argument', `${what}: near ${showValue(near)} must be a finite number ≥ 0`)
  }
  if (!(typeof far === 'number' && Number.isFinite(far) && far >= near)) {
    throw new AnimationError(
      'argument',
      `${what}: far ${showValue(far)} must be a finite number ≥ near (${near})`,
    )
  }
  lod.enabled = true
  lod.touched = true
  lod.settings[LOD_NEAR] = near
  lod.settings[LOD_FAR] = far
  if (camera !== null) lod.settings.set(camera, LOD_CAMERA_X)
}

/**
 * Moves the camera levels of detail measure from (world units), for the next step on. An input of the
 * simulation like any call: in hash() and snapshots. Allocation-free, so a game may call it every frame.
 */
export function setLodCamera(ctx: AnimationContext, position: readonly [number, number, number]): void {
  checkLive(ctx, 'setLodCamera')
  const s = ctx.lod.settings
  // Read each element once, then check: the call stays free of allocation (vector3 copies).
  const ok = Array.isArray(position) && position.length === 3
  const x: unknown = ok ? position[0] : undefined
  const y: unknown = ok ? position[1] : undefined
  const z: unknown = ok ? position[2] : undefined
  if (!(
    typeof x === 'number' &&
    Number.isFinite(x) &&
    typeof y === 'number' &&
    Number.isFinite(y) &&
    typeof z === 'number' &&
    Number.isFinite(z)
  )) {
    throw new AnimationError(
      'argument',
      `setLodCamera: position ${showValue(ok ? [x, y, z] : position)} must be three finite numbers`,
    )
  }
  ctx.lod.touched = true
  s[LOD_CAMERA_X] = x
  s[LOD_CAMERA_X + 1] = y
  s[LOD_CAMERA_X + 2] = z
}

/** The rate the last step gave a character: 1 (every step), 2 or 4; 1 while levels of detail are off. */
export function lodRate(ctx: AnimationContext, eid: number): number {
  checkCharacter(ctx, eid, 'lodRate')
  return ctx.lod.rate[eid]!
}
