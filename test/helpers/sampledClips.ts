/**
 * Clips for the sampler's tests: one mixing every kind of channel (mixedClip), and random clips (clipArb) whose
 * rotation keys repeat and turn to their opposites, for comparing the fast sampler with the clean one.
 */
import fc from 'fast-check'
import { buildClip, type Clip, type RawChannel } from '../../src/clip/clip.ts'
import { quatFromAxisAngle } from './quat.ts'

/**
 * A clip mixing every kind, three time tracks interleaved (A B A C B A ...), a single-key channel, and a LINEAR
 * rotation whose keys include a negated one and one exactly 90° from a negated predecessor.
 */
export function mixedClip(): Clip {
  const A = [0.25, 0.5, 1.25, 3]
  const B = [0, 0.4, 0.8, 1.6, 2, 2.9]
  const C = [1]
  const q = (k: number, axis: number[]) => quatFromAxisAngle(axis, 0.4 + 0.7 * k)
  const keysA = A.map((_, k) => (k === 2 ? q(k, [1, k - 1, 2]).map((x) => -x) : q(k, [1, k - 1, 2])))
  const tangents = (n: number, c: number) => Array.from({ length: n * c }, (_, i) => Math.cos(2.3 * i) * 2)
  const cubic = (keys: number[][], c: number) =>
    keys.flatMap((v, k) => [...tangents(1, c).map((x) => x + k), ...v, ...tangents(1, c).map((x) => x - k)])
  const vec = (n: number, c: number) =>
    Array.from({ length: n }, (_, k) =>
      Array.from({ length: c }, (_, j) => Math.sin(1.7 * k + 0.9 * j) * 3 + j),
    )
  const orthogonal = [
    [0, 0, 0, 1],
    [0, 0, 0.6, -0.8], // dot with the first < 0: negated when aligned
    [0, 0, 0.8, 0.6], // exactly 90° from the second (dot 0)
    [0.6, 0, 0, 0.8],
  ]
  return buildClip({
    name: 'Mixed',
    channels: [
      { node: 0, path: 'translation', times: A, values: vec(4, 3).flat() },
      { node: 0, path: 'rotation', times: B, values: B.flatMap((_, k) => q(k, [0, 1, k])) },
      { node: 1, path: 'rotation', times: A, values: keysA.flat() },
      { node: 1, path: 'scale', interpolation: 'STEP', times: A, values: vec(4, 3).flat() },
      { node: 2, path: 'translation', times: C, values: [1, 2, 3] },
      {
        node: 2,
        path: 'rotation',
        interpolation: 'CUBICSPLINE',
        times: B,
        values: cubic(
          B.map((_, k) => q(k, [2, 1, 0])),
          4,
        ),
      },
      { node: 3, path: 'weights', times: A, values: vec(4, 5).flat() },
      { node: 3, path: 'translation', interpolation: 'CUBICSPLINE', times: B, values: cubic(vec(6, 3), 3) },
      { node: 4, path: 'rotation', times: [0, 1, 2, 3], values: orthogonal.flat() },
      {
        node: 4,
        path: 'rotation',
        interpolation: 'STEP',
        times: B,
        values: B.flatMap((_, k) => q(k, [1, 1, 1])),
      },
    ],
  })
}

/** A unit quaternion from a small pool (so keys repeat), maybe negated (so neighbours may be opposite). */
const poolQuat = fc
  .tuple(fc.integer({ min: 0, max: 5 }), fc.boolean(), fc.double({ min: 0, max: 3.1, noNaN: true }))
  .map(([i, negate, angle]) => {
    const q = i === 5 ? quatFromAxisAngle([1, 2, 3], angle) : quatFromAxisAngle([i, 1, 2 - i], 0.3 * i)
    return negate ? q.map((x) => -x) : q
  })

/** Strictly increasing float32 key times from 0 to a few seconds, 1–6 keys. */
const timesArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 6 })
  .map((ticks) => ticks.sort((a, b) => a - b).map((t) => Math.fround(t / 97)))

const value = fc.double({ min: -4, max: 4, noNaN: true })

/** One raw channel of any path and interpolation on `node`. */
function channelArb(node: number): fc.Arbitrary<RawChannel> {
  return fc
    .tuple(
      fc.constantFrom('translation', 'rotation', 'scale', 'weights'),
      fc.constantFrom('STEP', 'LINEAR', 'CUBICSPLINE'),
      timesArb,
      fc.array(poolQuat, { minLength: 6, maxLength: 6 }),
      fc.array(value, { minLength: 3 * 6 * 4, maxLength: 3 * 6 * 4 }),
    )
    .map(([path, interpolation, times, quats, numbers]) => {
      const c = path === 'rotation' ? 4 : path === 'weights' ? 2 : 3
      const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1
      const values: number[] = []
      for (let k = 0; k < times.length; k++) {
        for (let e = 0; e < perKey; e++) {
          const middle = perKey === 1 || e === 1
          if (path === 'rotation' && middle) values.push(...quats[k]!)
          else for (let j = 0; j < c; j++) values.push(numbers[(k * perKey + e) * c + j]!)
        }
      }
      return { node, path, interpolation, times, values, ...(path === 'weights' ? { components: 2 } : {}) }
    })
}

/** A built clip of 1–6 random channels on nodes 0–2, some sharing their key times. */
export const clipArb: fc.Arbitrary<Clip> = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.boolean()), { minLength: 1, maxLength: 6 })
  .chain((nodes) => fc.tuple(...nodes.map(([node]) => channelArb(node)), fc.constant(nodes)))
  .map((parts) => {
    const nodes = parts.pop() as [number, boolean][]
    const channels = parts as RawChannel[]
    // Channels told to share the previous one's times (and so its time track) take them, keys resized.
    for (let c = 1; c < channels.length; c++) {
      if (!nodes[c]![1]) continue
      const times = channels[c - 1]!.times as number[]
      const ch = channels[c]!
      const per = ch.values.length / ch.times.length
      const values = Array.from({ length: times.length * per }, (_, i) => ch.values[i % ch.values.length]!)
      channels[c] = { ...ch, times, values }
    }
    return buildClip({ name: 'random', channels })
  })
