/**
 * What every character of a benchmark crowd does, decided once and given to both sides (the project and
 * three.js), so they animate the same characters the same way.
 *
 * Roles:
 *   play      clip A, looping, speed 1
 *   fade      clip A, then a cross-fade to clip B (looping) that lasts `fadeSeconds`
 *   paused    clip A at speed 0 (holds still)
 *   finished  clip A played once and already at its end (holds still)
 *
 *   playing crowd: every character plays (sampling and world matrices only, no cross-fade)
 *   moving crowd:  even characters play, odd ones fade (half of them cross-fading at any time)
 *   idle crowd:    every 10th character moves (alternately play / fade); of the other 90%, odd ones are
 *                  paused and even ones finished
 *
 * Start phases are spread over the clip (golden-ratio steps), so characters sit in different key segments.
 * The timed fades are long (`fadeSeconds` default 3600 s) so none ends during a run: a fade costs the same at
 * any blend weight strictly between 0 and 1, and the fade semantics themselves are checked separately, with
 * short fades, by the correctness check (see run.ts).
 */
import type { RotationMode } from '../../src/clip/clip.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'

export type Role = 'play' | 'fade' | 'paused' | 'finished'
export type CrowdKind = 'playing' | 'moving' | 'idle'

export interface CrowdPlan {
  readonly asset: AnimationAsset
  /** Asset clip indices of clip A and clip B. */
  readonly clipA: number
  readonly clipB: number
  readonly roles: readonly Role[]
  /** Start time in clip A / clip B, seconds, per character. */
  readonly phaseA: Float64Array
  readonly phaseB: Float64Array
  readonly fadeSeconds: number
  readonly rotation: RotationMode
  /** Fixed step, seconds. */
  readonly dt: number
}

export function crowdRoles(count: number, kind: CrowdKind): Role[] {
  const roles: Role[] = []
  for (let i = 0; i < count; i++) {
    if (kind === 'playing') roles.push('play')
    else if (kind === 'moving') roles.push(i % 2 === 0 ? 'play' : 'fade')
    else if (i % 10 === 0) roles.push((i / 10) % 2 === 0 ? 'play' : 'fade')
    else roles.push(i % 2 === 1 ? 'paused' : 'finished')
  }
  return roles
}

export interface PlanOptions {
  clipA: number
  clipB: number
  fadeSeconds?: number
  rotation?: RotationMode
  dt?: number
}

export function makeCrowdPlan(
  asset: AnimationAsset,
  count: number,
  kind: CrowdKind,
  options: PlanOptions,
): CrowdPlan {
  const a = asset.clips[options.clipA]
  const b = asset.clips[options.clipB]
  if (!a || !b) throw new Error(`${asset.source}: no clip ${options.clipA} or ${options.clipB}`)
  const phaseA = new Float64Array(count)
  const phaseB = new Float64Array(count)
  const golden = 0.6180339887498949
  for (let i = 0; i < count; i++) {
    phaseA[i] = ((i * golden) % 1) * a.duration
    phaseB[i] = (((i + 0.5) * golden * golden) % 1) * b.duration
  }
  return {
    asset,
    clipA: options.clipA,
    clipB: options.clipB,
    roles: crowdRoles(count, kind),
    phaseA,
    phaseB,
    fadeSeconds: options.fadeSeconds ?? 3600,
    rotation: options.rotation ?? 'slerp',
    dt: options.dt ?? 1 / 60,
  }
}
