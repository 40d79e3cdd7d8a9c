/**
 * The fast sampler (src/engine/sample.ts, squad.ts, sampleCompact.ts, arcKernels.ts) against the clean one
 * (src/clip/sample.ts), bit for bit: values and key cursors, every kind of channel, exact and compact clips,
 * slerp and squad, stale and garbage cursors, times before, on, between and after keys, and NaN.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildClip, type Clip } from '../../src/clip/clip.ts'
import { sampleChannel, sampleClip } from '../../src/clip/sample.ts'
import { compressClip } from '../../src/clip/compress.ts'
import {
  KIND_COMPACT_FLOAT_ROTATION,
  KIND_COMPACT_ROTATION,
  KIND_COMPACT_VECTOR,
} from '../../src/clip/kinds.ts'
import { sampleChannelFrom, sampleClipChannels } from '../../src/engine/sample.ts'
import { acosArcByKernel } from '../../src/engine/arcKernels.ts'
import { primeSampler } from '../../src/engine/v8.ts'
import { detAcosArc } from '../../src/math/detmath.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import { mulberry32 } from '../../scripts/random.ts'
import { clipArb, mixedClip } from '../helpers/sampledClips.ts'
import { bits } from '../helpers/poseArbs.ts'

const STRIDE = 8

/** Both samplers on one clip at one time, from the same cursors: the same output bits and cursors. */
function expectSameSample(
  clip: Clip,
  binding: Int32Array,
  t: number,
  squad: boolean,
  cursors: Uint32Array,
): void {
  const n = binding.length
  const fast = new Float32Array(n * STRIDE).fill(-7)
  const clean = fast.slice()
  const fastCursors = cursors.slice()
  const cleanCursors = cursors.slice()
  sampleClipChannels(fast, 0, clip, binding, Float64Array.of(t), 0, fastCursors, 1, squad)
  sampleClip(clean, 0, clip, binding, t, cleanCursors, 1, squad ? 'squad' : 'slerp')
  expect(bits(fast), `t = ${t}, ${squad ? 'squad' : 'slerp'}`).toEqual(bits(clean))
  expect(Array.from(fastCursors)).toEqual(Array.from(cleanCursors))
}

/** Times before, on, just past, between and after the clip's keys, and NaN. */
function timesOf(clip: Clip): number[] {
  const times = [-1, 0, Number.NaN, clip.duration, clip.duration + 1]
  for (const ch of clip.channels)
    for (const t of ch.times) times.push(t, t + 1e-4, Math.fround(t + 2 ** -20), t * 0.9)
  return times
}

describe('fast and clean samplers agree bit for bit', () => {
  it('on a clip of every kind: three interleaved time tracks, a single key, negated and orthogonal keys', () => {
    const clip = mixedClip()
    const n = clip.channels.length
    for (const unbound of [-1, 0, 2]) {
      const binding = Int32Array.from({ length: n }, (_, c) => (c === unbound ? -1 : c * STRIDE))
      for (const squad of [false, true]) {
        const cursors = new Uint32Array(n + 1)
        const times = timesOf(clip)
        // Forward and back with the cursors carried along (stale hints), then with garbage ones.
        for (const t of [...times, ...times.slice().reverse()]) {
          expectSameSample(clip, binding, t, squad, cursors)
          sampleClip(new Float32Array(n * STRIDE), 0, clip, binding, t, cursors, 1)
        }
        for (const junk of [0xffffffff, 0x80000000, 0x7fffffff, 1000])
          for (const t of times) expectSameSample(clip, binding, t, squad, new Uint32Array(n + 1).fill(junk))
      }
    }
  })

  it('property: on random clips (equal and opposite rotation keys, shared time tracks) at random times', () => {
    fc.assert(
      fc.property(
        clipArb,
        fc.array(fc.double({ min: -0.5, max: 5, noNaN: true }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat({ max: 8 }), { minLength: 7, maxLength: 7 }),
        fc.boolean(),
        (clip, times, hints, squad) => {
          const binding = Int32Array.from(clip.channels, (_, c) => c * STRIDE)
          const cursors = Uint32Array.from(hints)
          for (const t of [...times, ...timesOf(clip)]) expectSameSample(clip, binding, t, squad, cursors)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('on compact clips: 16-bit rotations and vectors, float rotations, float vectors', () => {
    const rig = createBenchRig({ joints: 12, everyChannel: true })
    const kinds = new Set<number>()
    for (const tolerance of [1e-3, 1e-7]) {
      for (const exact of rig.clips) {
        const clip = compressClip(exact, rig.nodes, { tolerance, distance: 1 })
        for (const ch of clip.channels) kinds.add(ch.kind)
        const binding = Int32Array.from(clip.channels, (_, c) => c * STRIDE)
        const cursors = new Uint32Array(clip.channels.length + 1)
        const rnd = mulberry32(7)
        const times = timesOf(clip)
        for (let i = 0; i < 200; i++) times.push(rnd() * clip.duration)
        for (const t of times) expectSameSample(clip, binding, t, false, cursors)
      }
    }
    expect([...kinds]).toEqual(
      expect.arrayContaining([KIND_COMPACT_ROTATION, KIND_COMPACT_FLOAT_ROTATION, KIND_COMPACT_VECTOR]),
    )
  })

  it('sampleChannelFrom is sampleChannel with the time read from an array', () => {
    const clip = mixedClip()
    for (const ch of clip.channels) {
      for (const t of timesOf(clip)) {
        for (const squad of [false, true]) {
          const fast = new Float32Array(8)
          const clean = new Float32Array(8)
          const fastCursor = Uint32Array.of(0, 2)
          const cleanCursor = fastCursor.slice()
          sampleChannelFrom(fast, 1, ch, Float64Array.of(0, t), 1, fastCursor, 1, squad)
          sampleChannel(clean, 1, ch, t, cleanCursor, 1, squad ? 'squad' : 'slerp')
          expect(bits(fast)).toEqual(bits(clean))
          expect(fastCursor).toEqual(cleanCursor)
        }
      }
    }
  })
})

describe('the fast squad’s arc cosine', () => {
  it('equals detAcosArc bit for bit on [-1.5, 1.5], ends and reduction boundaries included', () => {
    const rnd = mulberry32(3)
    const cs = [-1.5, -1, -1 + 1e-16, -0.9995, -0.5, -0, 0, 1e-300, 0.5, 0.9238795325112867, 0.9995, 1, 1.5]
    for (let i = 0; i < 200; i++) cs.push(1 - 2 ** -(i / 4), -1 + 2 ** -(i / 4))
    for (let i = 0; i < 20_000; i++) cs.push(rnd() * 2 - 1)
    for (const c of cs) expect(Object.is(acosArcByKernel(c), detAcosArc(c)), `c = ${c}`).toBe(true)
  })
})

describe('primeSampler', () => {
  it('leaves no trace: a clip samples to the same bits before and after it', () => {
    const clip = buildClip({
      name: 'c',
      channels: [
        { node: 0, path: 'rotation', times: [0, 1], values: [0, 0, 0, 1, 0, 0.6, 0, 0.8] },
        {
          node: 0,
          path: 'translation',
          interpolation: 'CUBICSPLINE',
          times: [0, 1],
          values: new Array(18).fill(0).map((_, i) => i),
        },
      ],
    })
    const sample = () => {
      const out = new Float32Array(10)
      sampleClipChannels(
        out,
        0,
        clip,
        Int32Array.of(3, 0),
        Float64Array.of(0.37),
        0,
        new Uint32Array(2),
        0,
        false,
      )
      return out
    }
    const before = sample()
    primeSampler()
    expect(sample()).toEqual(before)
    primeSampler()
    expect(sample()).toEqual(before)
  })
})
