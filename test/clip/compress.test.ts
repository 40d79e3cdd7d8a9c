/**
 * Compact clips (src/clip/compress.ts, compactClip.ts, sampleCompact.ts): the memory and error targets on a
 * Mixamo-sized rig (the benchmark's 67 joints, every channel keyed) and the shipped models, the error measured
 * here independently (helpers/worlds.ts: the plugin's sampler, composed down the tree) at 241 times of each
 * clip, not only the key times and midpoints compressClip checks; and the format's edges.
 */
import { describe, expect, it } from 'vitest'
import { buildClip, type Clip } from '../../src/clip/clip.ts'
import { clipBytes, decodeKey, quantize } from '../../src/clip/compactClip.ts'
import { compressClip } from '../../src/clip/compress.ts'
import { KIND_COMPACT_ROTATION, KIND_LINEAR } from '../../src/clip/kinds.ts'
import { sampleChannel } from '../../src/clip/sample.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import { clipPose } from '../helpers/worlds.ts'

const TOLERANCE = 1e-4
const DISTANCE = 1

/** The largest world error of `compact` against `exact`, at each node's origin and `distance` along its axes. */
function worldError(asset: AnimationAsset, exact: Clip, compact: Clip, samples = 241): number {
  let worst = 0
  for (let s = 0; s < samples; s++) {
    const time = (exact.duration * s) / (samples - 1)
    const a = clipPose(asset, exact, time).worlds
    const b = clipPose(asset, compact, time).worlds
    for (let o = 0; o < a.length; o += 16) {
      for (let axis = -1; axis < 3; axis++) {
        const length = axis < 0 ? 0 : Math.hypot(a[o + 4 * axis]!, a[o + 4 * axis + 1]!, a[o + 4 * axis + 2]!)
        const f = length === 0 ? 0 : DISTANCE / length
        let d2 = 0
        for (let r = 0; r < 3; r++) {
          const pa = a[o + 12 + r]! + (axis < 0 ? 0 : f * a[o + 4 * axis + r]!)
          const pb = b[o + 12 + r]! + (axis < 0 ? 0 : f * b[o + 4 * axis + r]!)
          d2 += (pa - pb) ** 2
        }
        worst = Math.max(worst, Math.sqrt(d2))
      }
    }
  }
  return worst
}

const keyCount = (clip: Clip) => clip.channels.reduce((sum, ch) => sum + ch.times.length, 0)

describe('compressClip on a Mixamo-sized rig (67 joints, every channel keyed)', () => {
  const rig = createBenchRig({ joints: 67, everyChannel: true })

  it.each(rig.clips.map((c) => [c.name, c] as const))(
    '%s: at most a third of the bytes per key, within 0.1 mm at 1 m of every joint',
    (_name, clip) => {
      const compact = compressClip(clip, rig.nodes, { tolerance: TOLERANCE, distance: DISTANCE })
      expect(compact.compression).not.toBeNull()
      expect(clipBytes(compact)).toBeLessThanOrEqual(clipBytes(clip) / 3)
      expect(compact.compression!.keys).toBe(keyCount(clip))
      expect(compact.compression!.keptKeys).toBe(keyCount(compact))
      expect(compact.compression!.error).toBeLessThanOrEqual(TOLERANCE)
      expect(worldError(rig, clip, compact)).toBeLessThanOrEqual(TOLERANCE)
      expect(compact.duration).toBe(clip.duration)
    },
  )

  it('a looser tolerance keeps fewer keys, and the error grows with it', async () => {
    const robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
    const clip = robot.clips.find((c) => c.name === 'Walking')!
    const tight = compressClip(clip, robot.nodes)
    const loose = compressClip(clip, robot.nodes, { tolerance: 1 })
    expect(loose.compression!.keptKeys).toBeLessThan(tight.compression!.keptKeys)
    expect(worldError(robot, clip, loose)).toBeLessThanOrEqual(1)
    expect(worldError(robot, clip, loose)).toBeGreaterThan(worldError(robot, clip, tight))
  })
})

describe('compressClip on the shipped models', () => {
  it.each([
    'assets/Fox/glTF-Binary/Fox.glb',
    'assets/RobotExpressive/RobotExpressive.glb',
    'assets/RiggedFigure/glTF-Binary/RiggedFigure.glb',
    'assets/BoxAnimated/glTF-Binary/BoxAnimated.glb',
  ])('%s: loadAsset({ compress }) within the tolerance; STEP and CUBICSPLINE clips exact', async (file) => {
    const exact = await loadAsset(file)
    const compact = await loadAsset(file, { compress: true })
    compact.clips.forEach((clip, c) => {
      const source = exact.clips[c]!
      if (source.channels.some((ch) => ch.interpolation !== 'LINEAR')) {
        expect(clip.compression).toBeNull()
        return
      }
      expect(clip.compression, clip.name).not.toBeNull()
      // A clip of a few keys gains nothing: its ranges and the keys added on wide arcs outweigh them.
      if (clipBytes(source) > 4096) expect(clipBytes(clip)).toBeLessThan(clipBytes(source))
      expect(worldError(exact, source, clip, 121), clip.name).toBeLessThanOrEqual(TOLERANCE)
    })
  })

  it('leaves the default exact, bit for bit', async () => {
    const file = 'assets/Fox/glTF-Binary/Fox.glb'
    const a = await loadAsset(file)
    const b = await loadAsset(file, { compress: false })
    expect(b.clips.map((c) => c.compression)).toEqual([null, null, null])
    expect(b.clips.map((c) => c.channels.map((ch) => ch.values))).toEqual(
      a.clips.map((c) => c.channels.map((ch) => ch.values)),
    )
  })

  it('refuses a bad compress option', async () => {
    await expect(loadAsset('assets/Fox/glTF-Binary/Fox.glb', { compress: { tolerance: 0 } })).rejects.toThrow(
      'readAsset: compress an object is not true, false or { tolerance?, distance? }',
    )
    await expect(loadAsset('assets/Fox/glTF-Binary/Fox.glb', { compress: 'yes' as never })).rejects.toThrow(
      'readAsset: compress "yes"',
    )
  })
})

describe('the compact format', () => {
  const channel = (path: string, values: number[], times = values.map((_, i) => i / 10)) =>
    buildClip({
      name: 'c',
      channels: [
        { node: 0, path, times: times.slice(0, values.length / (path === 'rotation' ? 4 : 3)), values },
      ],
    }).channels[0]!

  it("lays a track's float keys in one array and its ranges in another, channel after channel", () => {
    const rig = createBenchRig({ joints: 12, everyChannel: true })
    // 1e-4: packed channels beside float constants; 1e-7: rotations and translations in float keys too.
    const clips = [1e-4, 1e-7].map((tolerance) =>
      compressClip(rig.clips[0]!, rig.nodes, { tolerance, distance: 1 }),
    )
    for (const field of ['values', 'dequant'] as const) {
      let shared = 0
      for (const compact of clips) {
        const tracks = new Map<Float32Array, ArrayBufferView[]>()
        for (const ch of compact.channels) {
          const a = ch[field]!
          if (a.length > 0) tracks.set(ch.times, [...(tracks.get(ch.times) ?? []), a])
        }
        for (const views of tracks.values()) {
          for (let i = 1; i < views.length; i++) {
            expect(views[i]!.buffer).toBe(views[0]!.buffer)
            expect(views[i]!.byteOffset).toBe(views[i - 1]!.byteOffset + views[i - 1]!.byteLength)
            shared++
          }
        }
      }
      expect(shared, field).toBeGreaterThan(0)
    }
  })

  it('quantizes each component to its range in 16 bits, a rotation key-to-key in one hemisphere', () => {
    const s = Math.SQRT1_2
    const keys = [0, 0, 0, 1, 0, -s, 0, -s, 0.5, 0.5, 0.5, 0.5]
    const q = quantize({
      node: 0,
      nodeName: '',
      path: 'rotation',
      components: 4,
      times: new Float32Array(3),
      values: keys,
    })
    expect(q.kind).toBe(KIND_COMPACT_ROTATION)
    expect(q.packed!.length).toBe(12)
    const out = new Float64Array(4)
    // Key 1 is taken as its negation, in key 0's hemisphere: the same rotation.
    const signs = [1, -1, 1]
    for (let k = 0; k < 3; k++) {
      decodeKey(out, 0, q, 4, k)
      for (let i = 0; i < 4; i++) expect(Math.abs(out[i]! - signs[k]! * keys[4 * k + i]!)).toBeLessThan(2e-5)
    }
  })

  it('keeps float keys for a translation 16 bits cannot cover within its tolerance', () => {
    const clip = buildClip({
      name: 'far',
      channels: [
        { node: 0, path: 'translation', times: [0, 1, 2], values: [0, 0, 0, 5000, 0, 0, 10001, 0, 0] },
      ],
    })
    const compact = compressClip(clip, [
      { parent: -1, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1] },
    ])
    expect(compact.channels[0]!.kind).toBe(KIND_LINEAR)
    expect(compact.channels[0]!.times.length).toBe(3)
    const out = new Float32Array(3)
    sampleChannel(out, 0, compact.channels[0]!, 1.5, new Uint32Array(1), 0)
    expect(out[0]).toBe(7500.5)
  })

  it('samples like the exact clip at keys, before the first and after the last, and a constant channel as one key', () => {
    const rig = createBenchRig({ joints: 8, everyChannel: true })
    const clip = rig.clips[1]!
    const compact = compressClip(clip, rig.nodes)
    const scale = compact.channels.find((ch) => ch.path === 'scale')!
    expect(scale.times.length).toBe(1)
    const cursors = new Uint32Array(compact.channels.length)
    const out = new Float32Array(4)
    const exact = new Float32Array(4)
    // A compact clip orders its channels by time track: the source's is found by node and path.
    compact.channels.forEach((ch, c) => {
      const source = clip.channels.find((s) => s.node === ch.node && s.path === ch.path)!
      for (const time of [-1, 0, ch.times[ch.times.length - 1]!, clip.duration, clip.duration + 1]) {
        sampleChannel(out, 0, ch, time, cursors, c)
        sampleChannel(exact, 0, source, time, new Uint32Array(1), 0)
        const sign = ch.path === 'rotation' && out[3]! * exact[3]! < 0 ? -1 : 1
        for (let i = 0; i < ch.components; i++)
          expect(Math.abs(out[i]! - sign * exact[i]!)).toBeLessThan(1e-4)
      }
    })
  })

  it('finds the same value whatever its key cursor held (forward, backward, garbage)', () => {
    const rig = createBenchRig({ joints: 4, everyChannel: true })
    const compact = compressClip(rig.clips[0]!, rig.nodes, { tolerance: 1e-3 })
    const ch = compact.channels.find((c) => c.times.length > 4)!
    const fresh = new Float32Array(4)
    const reused = new Float32Array(4)
    const cursor = new Uint32Array(compact.channels.length)
    for (const time of [0.01, 0.5, 0.51, 1.9, 0.2, 0.19, 1.99]) {
      sampleChannel(reused, 0, ch, time, cursor, 0)
      sampleChannel(fresh, 0, ch, time, new Uint32Array([0xffffffff]), 0)
      expect(Array.from(reused)).toEqual(Array.from(fresh))
    }
  })
})
