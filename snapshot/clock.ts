import type { AnimationContext } from '../plugin/context.ts'
import type { Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkRange } from '../src/sim/valueChecks.ts'

/**
 * The snapshot's CLCK section (the animation clock, after LODS): zeros to a multiple of 8, f64 the time scale
 * (setTimeScale). The step counter is the header's.
 */

export function writeClock(ctx: AnimationContext, w: Writer): void {
  w.align(8)
  w.f64(ctx.timeScale)
}

/** Reads and checks the CLCK section: a time scale finite and ≥ 0. Changes nothing. */
export function readClock(r: Reader): number {
  r.align(8)
  const timeScale = r.f64()
  checkRange('section "clock"', 'time scale', timeScale, 0, Number.MAX_VALUE)
  return timeScale
}

export function applyClock(ctx: AnimationContext, timeScale: number): void {
  ctx.timeScale = timeScale
}
