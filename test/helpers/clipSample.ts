/**
 * Shared setup of the channel sampling tests (test/clip/sample.*.test.ts): raw channels of every interpolation
 * and shape on uneven key times, built as the loader builds them, sampled through sampleChannel; float32
 * neighbours; an independent Bézier reference for CUBICSPLINE.
 */
import { expect } from 'vitest'
import { buildClip, type Channel, type RawChannel } from '../../src/clip/clip.ts'
import { sampleChannel } from '../../src/clip/sample.ts'
import { quatFromAxisAngle } from './quat.ts'

// Key times exact in float32, unevenly spaced (segment durations 0.25, 0.75, 1.75: none is 1, so a Hermite that
// forgets to scale its tangents by the duration fails).
export const TIMES = [0.25, 0.5, 1.25, 3]
export const N = TIMES.length
export const INTERPOLATIONS = ['STEP', 'LINEAR', 'CUBICSPLINE'] as const
export const SHAPES = [
  { path: 'translation', c: 3 },
  { path: 'rotation', c: 4 },
  { path: 'scale', c: 3 },
  { path: 'weights', c: 2 },
  { path: 'weights', c: 5 },
] as const
type Interp = (typeof INTERPOLATIONS)[number]
type Shape = (typeof SHAPES)[number]

/** Key k's value: arbitrary but fixed numbers; rotations are unit, and key 2 is given negated (other hemisphere). */
export function keyValue(shape: Shape, k: number): number[] {
  if (shape.path === 'rotation') {
    const q = quatFromAxisAngle([1, k - 1, 2], 0.4 + 0.7 * k)
    return k === 2 ? q.map((x) => -x) : q
  }
  return Array.from({ length: shape.c }, (_, j) => Math.sin(1.7 * k + 0.9 * j) * 3 + j)
}
/** Tangent of key k (units per second); index 0 for in, 1 for out. Moderate, distinct numbers. */
function tangent(shape: Shape, k: number, which: 0 | 1): number[] {
  return Array.from({ length: shape.c }, (_, j) => Math.cos(2.3 * k + 1.1 * j + which) * 2)
}
const HUGE = 1e30

export function rawChannel(shape: Shape, interpolation: Interp, times = TIMES): RawChannel {
  const values: number[] = []
  for (let k = 0; k < times.length; k++) {
    if (interpolation !== 'CUBICSPLINE') {
      values.push(...keyValue(shape, k))
      continue
    }
    // The first in-tangent and the last out-tangent are never used: make them huge so any use shows.
    const a = k === 0 ? new Array(shape.c).fill(HUGE) : tangent(shape, k, 0)
    const b = k === times.length - 1 ? new Array(shape.c).fill(-HUGE) : tangent(shape, k, 1)
    values.push(...a, ...keyValue(shape, k), ...b)
  }
  return { node: 0, path: shape.path, interpolation, times, values }
}
export function channelOf(raw: RawChannel): Channel {
  return buildClip({ name: 'T', channels: [raw] }).channels[0]!
}
/** The stored value of key k (after build: float32, rotations normalized). */
export function stored(ch: Channel, k: number): number[] {
  const c = ch.components
  const from = ch.interpolation === 'CUBICSPLINE' ? k * 3 * c + c : k * c
  return Array.from(ch.values.subarray(from, from + c))
}
export function sample(
  ch: Channel,
  t: number,
  cursors = new Uint32Array(1),
  mode?: 'slerp' | 'squad',
): number[] {
  const out = new Float32Array(ch.components)
  sampleChannel(out, 0, ch, t, cursors, 0, mode)
  return Array.from(out)
}
/** Reference segment search: the last k ≤ n-2 with times[k] ≤ t (a plain linear scan). */
export function scanSegment(times: ArrayLike<number>, t: number): number {
  let k = 0
  while (k + 2 < times.length && times[k + 1]! <= t) k++
  return k
}
export const next32 = (x: number) => {
  const f = new Float32Array([x])
  const i = new Int32Array(f.buffer)
  i[0]! += x >= 0 ? 1 : -1
  return f[0]!
}
export const prev32 = (x: number) => {
  const f = new Float32Array([x])
  const i = new Int32Array(f.buffer)
  i[0]! -= x > 0 ? 1 : -1
  return f[0]!
}

/**
 * Independent reference for one CUBICSPLINE segment: the Hermite segment as a cubic Bézier with control points
 * P1 = v_k + b_k·Δt/3, P2 = v_{k+1} − a_{k+1}·Δt/3, evaluated by de Casteljau in double.
 */
export function bezierReference(ch: Channel, k: number, u: number): number[] {
  const c = ch.components
  const v = ch.values
  const dt = ch.times[k + 1]! - ch.times[k]!
  const out: number[] = []
  for (let j = 0; j < c; j++) {
    const p0 = v[k * 3 * c + c + j]!
    const p3 = v[(k + 1) * 3 * c + c + j]!
    const p1 = p0 + (v[k * 3 * c + 2 * c + j]! * dt) / 3
    const p2 = p3 - (v[(k + 1) * 3 * c + j]! * dt) / 3
    const lerp = (a: number, b: number) => a + (b - a) * u
    const [q0, q1, q2] = [lerp(p0, p1), lerp(p1, p2), lerp(p2, p3)]
    out.push(lerp(lerp(q0, q1), lerp(q1, q2)))
  }
  return out
}
export function normalized(q: number[]): number[] {
  const len = Math.hypot(...q)
  return q.map((x) => x / len)
}
export function expectClose(actual: number[], expected: number[], tol: number, what: string): void {
  expect(actual).toHaveLength(expected.length)
  for (let j = 0; j < expected.length; j++) {
    const d = Math.abs(actual[j]! - expected[j]!)
    if (!(d <= tol))
      expect.fail(`${what}: component ${j} is ${actual[j]}, expected ${expected[j]} (± ${tol})`)
  }
}
