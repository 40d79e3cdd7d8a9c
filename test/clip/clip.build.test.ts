/**
 * buildClip (src/clip/clip.ts): valid input, built as given, and the per-segment caches of rotation
 * channels (slerp segments of one time track, CUBICSPLINE segments), packed, that sample as each channel
 * alone.
 */
import { describe, expect, it } from 'vitest'
import { buildClip, prepareSquad, type Channel, type RawChannel, type RawClip } from '../../src/clip/clip.ts'
import { sampleChannel, sampleClip } from '../../src/clip/sample.ts'
import { buildRotationCaches, SLERP_SEGMENT_STRIDE } from '../../src/clip/rotationCache.ts'
import { expectQuatClose } from '../helpers/quat.ts'
import { translation } from '../helpers/clipBuild.ts'

describe('buildClip: valid input', () => {
  it('copies times and values into Float32Arrays and derives components and duration', () => {
    const clip = buildClip({
      name: 'Walk',
      channels: [
        translation(),
        { node: 2, path: 'rotation', interpolation: 'STEP', times: [0.25], values: [0, 0, 0, 1] },
        { node: 3, path: 'scale', times: [0, 2.5], values: [1, 1, 1, 2, 2, 2] }, // interpolation defaults
        { node: 4, path: 'weights', times: [0, 1], values: [0, 1, 0.5, 0.5] },
        { node: 5, path: 'weights', times: [0, 1], values: [0, 0, 0, 0, 0, 1, 1, 1, 1, 1] },
      ],
    })
    expect(clip.name).toBe('Walk')
    expect(clip.duration).toBe(2.5)
    expect(clip.channels.map((c) => c.components)).toEqual([3, 4, 3, 2, 5])
    expect(clip.channels.map((c) => c.interpolation)).toEqual([
      'LINEAR',
      'STEP',
      'LINEAR',
      'LINEAR',
      'LINEAR',
    ])
    const ch = clip.channels[0]!
    expect(ch.times).toBeInstanceOf(Float32Array)
    expect(ch.values).toBeInstanceOf(Float32Array)
    expect(Array.from(ch.times)).toEqual([0, 0.5, 1])
    expect(Array.from(ch.values)).toEqual([0, 0, 0, 1, 2, 3, 4, 5, 6])
    expect(ch.nodeName).toBe('hips')
    expect(clip.channels[1]!.nodeName).toBe('')
  })

  it('keeps the duration 0 for a clip with no channels or with every key at 0', () => {
    expect(buildClip({ name: 'Empty', channels: [] }).duration).toBe(0)
    expect(
      buildClip({ name: 'Pose', channels: [translation({ times: [0], values: [1, 2, 3] })] }).duration,
    ).toBe(0)
  })

  it('stores times rounded to float32 (0.1 becomes 0.100000001…)', () => {
    const clip = buildClip({ name: 'W', channels: [translation({ times: [0, 0.1, 0.2] })] })
    expect(clip.channels[0]!.times[1]).toBe(Math.fround(0.1))
  })

  it('normalizes rotation keys that are not unit length, with no error', () => {
    const clip = buildClip({
      name: 'Turn',
      channels: [
        { node: 0, path: 'rotation', times: [0, 1], values: [0, 0, 0, 2, 1, 1, 1, 1] },
        {
          node: 0,
          path: 'rotation',
          interpolation: 'CUBICSPLINE',
          times: [0, 1],
          // | a0 | v0 | b0 | a1 | v1 | b1 |: values scaled by 3 and 0.5; tangents kept as given.
          values: [9, 9, 9, 9, 0, 3, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0.5, 0, 0, 0, 0, 0],
        },
      ],
    })
    const linear = clip.channels[0]!.values
    expect(Array.from(linear.subarray(0, 4))).toEqual([0, 0, 0, 1])
    expect(Array.from(linear.subarray(4, 8))).toEqual([0.5, 0.5, 0.5, 0.5])
    const cubic = clip.channels[1]!.values
    expectQuatClose(cubic.subarray(4, 8), [0, 1, 0, 0], 0)
    expectQuatClose(cubic.subarray(16, 20), [0, 0, 1, 0], 0)
    expect(Array.from(cubic.subarray(0, 4))).toEqual([9, 9, 9, 9])
    expect(Array.from(cubic.subarray(8, 12))).toEqual([1, 2, 3, 4])
    expect(Array.from(cubic.subarray(12, 16))).toEqual([5, 6, 7, 8])
  })

  it('keepUnitRotations keeps keys that are unit to float32 precision bit for bit, and normalizes others', () => {
    // Keys once normalized in float32 that normalizing again moves by an ulp (about 1 in 70 are).
    const moved: number[] = []
    for (let i = 1; moved.length < 8; i++) {
      const q = new Float32Array([Math.sin(i), Math.cos(3 * i), Math.sin(7 * i), 0.5])
      const once = buildClip({ name: 'a', channels: [{ node: 0, path: 'rotation', times: [0], values: q }] })
      const key = once.channels[0]!.values
      const twice = buildClip({
        name: 'b',
        channels: [{ node: 0, path: 'rotation', times: [0], values: key }],
      })
      if (twice.channels[0]!.values.some((v, k) => v !== key[k])) moved.push(...key)
    }
    const raw = [...moved, 0, 0, 0, 2]
    const times = Array.from({ length: raw.length / 4 }, (_, k) => k)
    const kept = buildClip(
      { name: 'k', channels: [{ node: 0, path: 'rotation', times, values: raw }] },
      { keepUnitRotations: true },
    ).channels[0]!.values
    expect(Array.from(kept.subarray(0, moved.length))).toEqual(Array.from(new Float32Array(moved)))
    expect(Array.from(kept.subarray(moved.length))).toEqual([0, 0, 0, 1])
  })

  it('does not modify the input arrays and does not share them', () => {
    const times = new Float32Array([0, 1])
    const values = [0, 0, 0, 2, 0, 0, 3, 0]
    const raw: RawClip = { name: 'R', channels: [{ node: 0, path: 'rotation', times, values }] }
    const clip = buildClip(raw)
    expect(Array.from(times)).toEqual([0, 1])
    expect(values).toEqual([0, 0, 0, 2, 0, 0, 3, 0])
    expect(clip.channels[0]!.times).not.toBe(times)
    times[1] = 5
    expect(clip.channels[0]!.times[1]).toBe(1)
  })

  it('freezes the clip, its channel list and every channel', () => {
    const clip = buildClip({ name: 'W', channels: [translation()] })
    expect(Object.isFrozen(clip)).toBe(true)
    expect(Object.isFrozen(clip.channels)).toBe(true)
    expect(Object.isFrozen(clip.channels[0])).toBe(true)
    expect(() => {
      ;(clip as { duration: number }).duration = 5
    }).toThrow(TypeError)
    expect(() => {
      ;(clip.channels as unknown as RawChannel[]).push(translation())
    }).toThrow(TypeError)
  })

  it('builds the rotation caches only for LINEAR rotation channels, sized per segment and per key', () => {
    const r = { node: 0, path: 'rotation', times: [0, 1, 2], values: [0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0] }
    const clip = buildClip({
      name: 'C',
      channels: [r, { ...r, interpolation: 'STEP' }, translation()],
    })
    const caches = buildRotationCaches(clip.channels[0]!.values, 3, clip.channels[0]!.times)
    expect(caches.slerpCache).toHaveLength(2 * 2)
    expect(caches.aligned).toHaveLength(3 * 4)
    expect(caches.squad).toHaveLength(3 * 8)
    // slerpSegments (the channel's, built without the squad caches): per segment the cache pair and the two
    // aligned keys, side by side (exactly unit keys here; keys that are unit only to float32 precision are
    // normalized in double, below).
    const { slerpCache, aligned } = caches
    const { slerpSegments } = clip.channels[0]!
    expect(Array.from(caches.slerpSegments)).toEqual(Array.from(slerpSegments!))
    expect(SLERP_SEGMENT_STRIDE).toBe(10)
    expect(slerpSegments).toHaveLength(2 * SLERP_SEGMENT_STRIDE)
    for (let k = 0; k < 2; k++) {
      expect(Array.from(slerpSegments!.subarray(k * 10, k * 10 + 10))).toEqual([
        ...slerpCache!.subarray(k * 2, k * 2 + 2),
        ...aligned!.subarray(k * 4, k * 4 + 8),
      ])
    }
    const f = Float32Array.of(0.6, 0, 0, 0.8, 0, 0.28, 0, 0.96)
    const [x, , , w, , y1, , w1] = Array.from(f) as number[]
    expect(x! * x! + w! * w!).not.toBe(1)
    const seg = buildClip({
      name: 'U',
      channels: [{ node: 0, path: 'rotation', times: [0, 1], values: Array.from(f) }],
    }).channels[0]!.slerpSegments!
    const n0 = 1 / Math.sqrt(x! * x! + w! * w!)
    const n1 = 1 / Math.sqrt(y1! * y1! + w1! * w1!)
    expect(Array.from(seg.subarray(2))).toEqual([x! * n0, 0, 0, w! * n0, 0, y1! * n1, 0, w1! * n1])
    for (const o of [2, 6]) {
      expect(Math.abs(Math.hypot(...seg.subarray(o, o + 4)) - 1)).toBeLessThan(3e-16)
    }
    // Squad's data waits for the first squad use.
    expect(clip.channels[0]!.squad).toEqual({ segments: null, stride: 0, offset: 0 })
    for (const ch of clip.channels.slice(1)) {
      expect(ch.slerpSegments).toBeNull()
      expect(ch.squad).toBeNull()
    }
  })
})

/**
 * Channel `ch` of a bigger clip samples (times 0–1.5 s, slerp or squad) to the bits of `raw` built as a clip of
 * its own.
 */
function expectSamplesAsAlone(ch: Channel, raw: RawChannel, mode: 'slerp' | 'squad' = 'slerp'): void {
  const alone = buildClip({ name: 'A', channels: [raw] }).channels[0]!
  for (const t of [0, 0.1, 0.4, 0.5, 0.77, 1.2, 1.5]) {
    const got = new Float32Array(4)
    const want = new Float32Array(4)
    sampleChannel(got, 0, ch, t, new Uint32Array(1), 0, mode)
    sampleChannel(want, 0, alone, t, new Uint32Array(1), 0, mode)
    expect(Array.from(got), `node ${ch.node} at ${t}`).toEqual(Array.from(want))
  }
}

describe('buildClip: slerp segments of one time track, packed', () => {
  const q = (a: number, axis: number) => {
    const v = [0, 0, 0, Math.cos(a / 2)]
    v[axis] = Math.sin(a / 2)
    return v
  }
  const times = [0, 0.5, 1, 1.5]
  const rotation = (node: number, axis: number, t = times): RawChannel => ({
    node,
    path: 'rotation',
    times: t,
    values: t.flatMap((_, k) => q(0.3 * k * (node + 1), axis)),
  })

  it('puts the LINEAR rotation channels of a track in one segment-major array, same values as alone', () => {
    const clip = buildClip({
      name: 'P',
      channels: [
        rotation(0, 0),
        { node: 1, path: 'translation', times, values: times.flatMap((t) => [t, 0, 0]) },
        rotation(1, 1),
        rotation(2, 2),
        rotation(3, 0, [0, 2]),
      ],
    })
    const [a, tr, b, c, lone] = clip.channels as [Channel, Channel, Channel, Channel, Channel]
    expect(b.slerpSegments).toBe(a.slerpSegments)
    expect(c.slerpSegments).toBe(a.slerpSegments)
    expect(a.slerpSegments).toHaveLength(3 * 3 * SLERP_SEGMENT_STRIDE)
    for (const [ch, slot] of [
      [a, 0],
      [b, 1],
      [c, 2],
    ] as const) {
      expect([ch.slerpStride, ch.slerpOffset]).toEqual([
        3 * SLERP_SEGMENT_STRIDE,
        slot * SLERP_SEGMENT_STRIDE,
      ])
      const alone = buildClip({ name: 'A', channels: [rotation(ch.node, [0, 1, 2][slot]!)] }).channels[0]!
      expect([alone.slerpStride, alone.slerpOffset]).toEqual([SLERP_SEGMENT_STRIDE, 0])
      for (let k = 0; k < 3; k++) {
        const at = k * ch.slerpStride + ch.slerpOffset
        expect(Array.from(ch.slerpSegments!.subarray(at, at + SLERP_SEGMENT_STRIDE))).toEqual(
          Array.from(alone.slerpSegments!.subarray(k * SLERP_SEGMENT_STRIDE, (k + 1) * SLERP_SEGMENT_STRIDE)),
        )
      }
    }
    // Another track, or another kind: not packed.
    expect(lone.slerpSegments).not.toBe(a.slerpSegments)
    expect([lone.slerpStride, lone.slerpOffset]).toEqual([SLERP_SEGMENT_STRIDE, 0])
    expect([tr.slerpSegments, tr.slerpStride, tr.slerpOffset]).toEqual([null, 0, 0])
  })

  it('samples a packed channel to the same bits as the channel alone', () => {
    const clip = buildClip({ name: 'P', channels: [rotation(0, 0), rotation(1, 1), rotation(2, 2)] })
    for (const [slot, ch] of clip.channels.entries()) {
      expectSamplesAsAlone(ch, rotation(ch.node, slot))
      expectSamplesAsAlone(ch, rotation(ch.node, slot), 'squad')
    }
  })

  it('packs squad’s key and control data per segment, segment-major per track, on first use only', () => {
    const clip = buildClip({ name: 'P', channels: [rotation(0, 0), rotation(1, 1), rotation(2, 2, [0, 2])] })
    const [a, b, lone] = clip.channels as [Channel, Channel, Channel]
    for (const ch of [a, b, lone]) expect(ch.squad!.segments).toBeNull()
    prepareSquad(clip)
    const built = a.squad!.segments
    expect(b.squad!.segments).toBe(built)
    expect([a.squad!.stride, a.squad!.offset, b.squad!.stride, b.squad!.offset]).toEqual([40, 0, 40, 20])
    expect([lone.squad!.stride, lone.squad!.offset, lone.squad!.segments!.length]).toEqual([20, 0, 20])
    prepareSquad(clip)
    expect(a.squad!.segments).toBe(built) // built once
    for (const ch of [a, b, lone]) {
      const n = ch.times.length
      const { slerpCache, controlCache, squad } = buildRotationCaches(ch.values, n, ch.times)
      for (let k = 0; k + 1 < n; k++) {
        const at = k * ch.squad!.stride + ch.squad!.offset
        expect(Array.from(ch.squad!.segments!.subarray(at, at + 20))).toEqual([
          slerpCache[2 * k]!,
          slerpCache[2 * k + 1]!,
          controlCache[2 * k]!,
          controlCache[2 * k + 1]!,
          ...squad.subarray(4 * k, 4 * k + 8),
          ...squad.subarray(4 * n + 4 * k, 4 * n + 4 * k + 8),
        ])
      }
    }
  })

  it('builds squad’s data when squad first samples the clip, not before', () => {
    const clip = buildClip({ name: 'P', channels: [rotation(0, 0), rotation(1, 1)] })
    const cursors = new Uint32Array(2)
    const at = (squad: boolean) =>
      sampleClip(
        new Float32Array(8),
        0,
        clip,
        Int32Array.of(0, 4),
        0.3,
        cursors,
        0,
        squad ? 'squad' : 'slerp',
      )
    at(false)
    expect(clip.channels[0]!.squad!.segments).toBeNull()
    at(true)
    expect(clip.channels[0]!.squad!.segments).not.toBeNull()
    expect(clip.channels[1]!.squad!.segments).toBe(clip.channels[0]!.squad!.segments)
  })
})

describe('buildClip: CUBICSPLINE rotation segments, packed', () => {
  // Keys k = 0..3: in-tangent, value, out-tangent (distinct numbers, values roughly unit).
  const cubic = (node: number, times: number[]): RawChannel => ({
    node,
    path: 'rotation',
    interpolation: 'CUBICSPLINE',
    times,
    values: times.flatMap((_, k) => [
      ...[0.01, 0.02, 0.03, 0.04].map((x) => x * (k + node + 1)),
      ...[0.1 * k, 0.2 * node, 0, 1],
      ...[-0.03, 0.05, 0.01, -0.02].map((x) => x * (k + 2 * node + 1)),
    ]),
  })

  it('copies each segment’s value, out-tangent, next in-tangent and next value, segment-major per track', () => {
    const times = [0, 0.4, 1, 1.5]
    const clip = buildClip({ name: 'H', channels: [cubic(0, times), cubic(1, times), cubic(2, [0, 1])] })
    const [a, b, lone] = clip.channels as [Channel, Channel, Channel]
    expect(b.hermiteSegments).toBe(a.hermiteSegments)
    expect(lone.hermiteSegments).not.toBe(a.hermiteSegments)
    expect([a.hermiteStride, a.hermiteOffset, b.hermiteStride, b.hermiteOffset]).toEqual([32, 0, 32, 16])
    expect([lone.hermiteStride, lone.hermiteOffset, lone.hermiteSegments!.length]).toEqual([16, 0, 16])
    for (const ch of [a, b]) {
      for (let k = 0; k < 3; k++) {
        const at = k * ch.hermiteStride + ch.hermiteOffset
        expect(Array.from(ch.hermiteSegments!.subarray(at, at + 16))).toEqual(
          Array.from(ch.values.subarray(12 * k + 4, 12 * k + 20)),
        )
      }
    }
    expect(buildClip({ name: 'L', channels: [translation()] }).channels[0]!.hermiteSegments).toBeNull()
  })

  it('samples a packed channel to the same bits as the channel alone', () => {
    const times = [0, 0.4, 1, 1.5]
    const clip = buildClip({ name: 'H', channels: [cubic(0, times), cubic(1, times), cubic(2, times)] })
    for (const ch of clip.channels) expectSamplesAsAlone(ch, cubic(ch.node, times))
  })
})
