/**
 * Sizes are checked before anything is allocated: a small file naming huge counts, or many references to the
 * same bytes, is rejected (or read without decoding what the asset does not hold) instead of making the loader
 * allocate gigabytes. Memory is judged two ways: process.memoryUsage().arrayBuffers, which counts
 * ArrayBuffers from their allocation (zero-filled pages included) until they are collected, and the growth
 * of the process's peak RSS, which sees copies even when they are collected before readAsset returns (the
 * peak is reset before each measurement, so the tests do not depend on what ran before them in the worker).
 */
import { writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { MAX_ACCESSOR_ELEMENTS, MAX_DECODED_BYTES, MAX_KEYS } from '../../src/gltf/limits.ts'
import { readAsset } from '../../src/gltf/read.ts'
import type { Json } from '../helpers/gltfFiles.ts'
import { cpuMsAsync } from '../helpers/cpuTime.ts'
import { joinGlb } from '../helpers/gltfFiles.ts'

const MiB = 2 ** 20
const LIMIT = 'more than the limit of 268435456'

const gltfBytes = (json: Json): Uint8Array => new TextEncoder().encode(JSON.stringify(json))

/**
 * Resets the process's peak RSS to its RSS now (Linux: /proc/self/clear_refs), so a measurement sees its own
 * peak, not one an earlier test file left in this worker; elsewhere the peak stays, and only grows.
 */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
  } catch {
    // not Linux: the peak is the process's
  }
}

/** readAsset's outcome, and how far arrayBuffers or the peak RSS grew across it, in bytes. */
async function measured(bytes: Uint8Array, source: string): Promise<{ outcome: unknown; grew: number }> {
  resetPeakRss()
  const arrayBuffers = process.memoryUsage().arrayBuffers
  const peak = process.resourceUsage().maxRSS
  const outcome = await readAsset(bytes, source).then(
    (asset) => asset,
    (e: unknown) => e,
  )
  const grew = Math.max(
    process.memoryUsage().arrayBuffers - arrayBuffers,
    (process.resourceUsage().maxRSS - peak) * 1024,
  )
  return { outcome, grew }
}

async function rejection(bytes: Uint8Array, source: string): Promise<AnimationError> {
  const { outcome, grew } = await measured(bytes, source)
  expect(grew).toBeLessThan(64 * MiB)
  if (!(outcome instanceof AnimationError))
    throw new Error(`expected an AnimationError, got ${String(outcome)}`)
  expect(outcome.kind).toBe('gltf')
  return outcome
}

/** One node, one skin over it, and what `extra` adds. */
function skinned(extra: Json): Json {
  return { asset: { version: '2.0' }, nodes: [{}], scenes: [{ nodes: [0] }], ...extra }
}

describe('data the asset does not hold is not decoded', () => {
  /** 2000 references to one 1 MiB buffer view, as mesh accessors or as images. */
  const aliased = (extra: Json): Uint8Array =>
    joinGlb(
      skinned({ buffers: [{ byteLength: MiB }], bufferViews: [{ buffer: 0, byteLength: MiB }], ...extra }),
      new Uint8Array(MiB),
    )

  it('loads 2000 images over the same 1 MiB without copying them', async () => {
    const images = Array.from({ length: 2000 }, () => ({ bufferView: 0, mimeType: 'image/png' }))
    const { outcome, grew } = await measured(aliased({ images }), 'images.glb')
    expect(outcome).not.toBeInstanceOf(Error)
    expect(grew).toBeLessThan(64 * MiB)
  })

  it('loads 2000 mesh accessors over the same 1 MiB without reading them', async () => {
    const accessors = Array.from({ length: 2000 }, () => ({
      bufferView: 0,
      componentType: 5126,
      type: 'VEC3',
      count: Math.floor(MiB / 12),
    }))
    const meshes = [{ primitives: accessors.map((_, i) => ({ attributes: { POSITION: i } })) }]
    const { outcome, grew } = await measured(aliased({ accessors, meshes }), 'meshes.glb')
    expect(outcome).not.toBeInstanceOf(Error)
    expect(grew).toBeLessThan(64 * MiB)
  })

  it('reads the sparse indices of only the accessors in use', async () => {
    // 5000 mesh accessors share one block of 2^18 sparse indices: reading each one's would be 1.3e9 reads.
    const k = 2 ** 18
    const bin = new Uint8Array(8 * k)
    const view = new DataView(bin.buffer)
    for (let i = 0; i < k; i++) view.setUint32(4 * i, i, true)
    const sparse = { count: k, indices: { bufferView: 0, componentType: 5125 }, values: { bufferView: 1 } }
    const json = skinned({
      buffers: [{ byteLength: 8 * k }],
      bufferViews: [
        { buffer: 0, byteLength: 4 * k },
        { buffer: 0, byteOffset: 4 * k, byteLength: 4 * k },
      ],
      accessors: Array.from({ length: 5000 }, () => ({
        componentType: 5126,
        type: 'SCALAR',
        count: k,
        sparse,
      })),
    })
    const { ms, value } = await cpuMsAsync(() => measured(joinGlb(json, bin), 'sparse.glb'))
    expect(value.outcome).not.toBeInstanceOf(Error)
    expect(ms).toBeLessThan(2000) // CPU time: 1.3e9 reads take far longer
  })

  it('does not judge the sparse indices of an accessor nothing reads', async () => {
    const json = skinned({
      buffers: [{ byteLength: 8 }],
      bufferViews: [
        { buffer: 0, byteLength: 4 },
        { buffer: 0, byteOffset: 4, byteLength: 4 },
      ],
      accessors: [
        {
          componentType: 5126,
          type: 'SCALAR',
          count: 2,
          sparse: { count: 1, indices: { bufferView: 0, componentType: 5125 }, values: { bufferView: 1 } },
        },
      ],
    })
    const bin = new Uint8Array(8)
    bin[0] = 7 // sparse index 7 of a 2-element accessor
    const { outcome } = await measured(joinGlb(json, bin), 'mesh.glb')
    expect(outcome).not.toBeInstanceOf(Error)
  })

  it('still checks the accessors it does not read', async () => {
    const json = skinned({
      buffers: [{ byteLength: 64 }],
      bufferViews: [{ buffer: 0, byteLength: 64 }],
      accessors: [{ bufferView: 0, componentType: 5126, type: 'VEC3', count: 6 }],
      meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    })
    expect((await rejection(joinGlb(json, new Uint8Array(64)), 'mesh.glb')).message).toBe(
      'mesh.glb: accessor 0: 6 elements of 12 bytes from offset 0 need 72 bytes, bufferView 0 has 64',
    )
  })
})

describe('limits', () => {
  it('are 2^24 elements per accessor and 256 MiB decoded per file', () => {
    expect(MAX_ACCESSOR_ELEMENTS).toBe(16777216)
    expect(MAX_DECODED_BYTES).toBe(268435456)
  })
})

describe('sizes checked before allocating', () => {
  it('rejects an accessor without a bufferView naming 2^31 elements, allocating nothing', async () => {
    // Zero-filled by the spec: the loader used to allocate 8 GiB of zeros for these few bytes.
    const json = skinned({ accessors: [{ componentType: 5126, type: 'SCALAR', count: 2 ** 31 }] })
    const bytes = gltfBytes(json)
    expect(bytes.length).toBeLessThan(200)
    expect((await rejection(bytes, 'zeros.gltf')).message).toBe(
      'zeros.gltf: accessor 0: 2147483648 elements of 4 bytes (8589934592 bytes) are more than the limit of ' +
        '16777216 elements',
    )
  })

  it('rejects a used zero-filled accessor whose bytes exceed MAX_DECODED_BYTES', async () => {
    // 2^24 MAT4 floats: within the element limit, but 1 GiB of inverse bind matrices.
    const json = skinned({
      accessors: [{ componentType: 5126, type: 'MAT4', count: 2 ** 24 }],
      skins: [{ joints: [0], inverseBindMatrices: 0 }],
    })
    expect((await rejection(gltfBytes(json), 'ibm.gltf')).message).toBe(
      'ibm.gltf: accessor 0: reading its 16777216 elements (1073741824 bytes) would bring the data decoded ' +
        `from the file to 1073741824 bytes, ${LIMIT}`,
    )
  })

  it('counts a sparse accessor as gltf-transform reads it: the elements, then the sparse indices and values', async () => {
    // 2^22 MAT4 zeros are exactly the limit; one sparse index (4 bytes) and value (64 bytes) cross it.
    const json = skinned({
      buffers: [{ byteLength: 68 }],
      bufferViews: [
        { buffer: 0, byteLength: 4 },
        { buffer: 0, byteOffset: 4, byteLength: 64 },
      ],
      accessors: [
        {
          componentType: 5126,
          type: 'MAT4',
          count: 2 ** 22,
          sparse: { count: 1, indices: { bufferView: 0, componentType: 5125 }, values: { bufferView: 1 } },
        },
      ],
      skins: [{ joints: [0], inverseBindMatrices: 0 }],
    })
    expect((await rejection(joinGlb(json, new Uint8Array(68)), 'sparse.glb')).message).toBe(
      'sparse.glb: accessor 0: reading its 4194304 elements (268435524 bytes) would bring the data decoded ' +
        `from the file to 268435524 bytes, ${LIMIT}`,
    )
  })

  it('rejects 300 skins whose inverse bind matrices all read the same 1 MiB', async () => {
    const json = skinned({
      buffers: [{ byteLength: MiB }],
      bufferViews: [{ buffer: 0, byteLength: MiB }],
      accessors: Array.from({ length: 300 }, () => ({
        bufferView: 0,
        componentType: 5126,
        type: 'MAT4',
        count: MiB / 64,
      })),
      skins: Array.from({ length: 300 }, (_, i) => ({ joints: [0], inverseBindMatrices: i })),
    })
    const error = await rejection(joinGlb(json, new Uint8Array(MiB)), 'alias.glb')
    expect(error.message).toBe(
      'alias.glb: accessor 256: reading its 16384 elements (1048576 bytes) would bring the data decoded from ' +
        `the file to 269484032 bytes, ${LIMIT}`,
    )
  })

  describe('300 animations over the same 65,536-key track', () => {
    const keys = 2 ** 16
    const data = new Float32Array(5 * keys)
    for (let k = 0; k < keys; k++) {
      data[k] = k
      data[keys + 4 * k + 3] = 1 // identity rotations
    }
    /** `animations` animations of one rotation channel; each its own pair of accessors over the data if `alias`. */
    const file = (animations: number, alias: boolean): Uint8Array => {
      const pair = [
        { bufferView: 0, componentType: 5126, type: 'SCALAR', count: keys, min: [0], max: [keys - 1] },
        { bufferView: 1, componentType: 5126, type: 'VEC4', count: keys },
      ]
      const json = skinned({
        buffers: [{ byteLength: data.byteLength }],
        bufferViews: [
          { buffer: 0, byteLength: 4 * keys },
          { buffer: 0, byteOffset: 4 * keys, byteLength: 16 * keys },
        ],
        accessors: alias ? Array.from({ length: animations }, () => pair).flat() : pair,
        animations: Array.from({ length: animations }, (_, a) => ({
          samplers: [{ input: alias ? 2 * a : 0, output: alias ? 2 * a + 1 : 1 }],
          channels: [{ sampler: 0, target: { node: 0, path: 'rotation' } }],
        })),
      })
      return joinGlb(json, new Uint8Array(data.buffer))
    }

    it('builds one clip when they are copies of one another, and shares it', async () => {
      const bytes = file(300, false)
      expect(bytes.length).toBeLessThan(2 * MiB)
      const { outcome, grew } = await measured(bytes, 'copies.glb')
      const clips = (outcome as { clips: { name: string; channels: unknown }[] }).clips
      expect(clips.map((c) => c.name)).toEqual(Array.from({ length: 300 }, (_, a) => `animation${a}`))
      for (const clip of clips) expect(clip.channels).toBe(clips[0]!.channels)
      // The accessors (1.25 MiB) and one channel's copies of them (and its slerp segments, 5 MiB).
      expect(grew).toBeLessThan(32 * MiB)
    })

    it('counts each as its own when each reads accessors of its own, refusing it past MAX_KEYS', async () => {
      const bytes = file(40, true)
      // Reading the 80 accessors (50 MiB) and the first 32 channels' keys and slerp segments (210 MB) passes;
      // the keys of the 33rd are over 2^21.
      expect(MAX_KEYS).toBe(2 ** 21)
      expect((await rejection(bytes, 'aliases.glb')).message).toBe(
        `aliases.glb: animation 32 channel 0: its ${keys} keys bring the keys to build to ${33 * keys}, ` +
          `more than the limit of ${MAX_KEYS}`,
      )
    })
  })

  it('rejects 2000 nodes sharing a mesh of 20,000 morph targets (their default weights)', async () => {
    const json = skinned({
      meshes: [{ primitives: [{ attributes: {}, targets: Array.from({ length: 20000 }, () => ({})) }] }],
      nodes: Array.from({ length: 2000 }, () => ({ mesh: 0 })),
    })
    const bytes = gltfBytes(json)
    expect(bytes.length).toBeLessThan(MiB)
    expect((await rejection(bytes, 'weights.gltf')).message).toBe(
      'weights.gltf: node 1677: its 20000 default morph weights (160000 bytes) would bring the data decoded ' +
        `from the file to 268480000 bytes, ${LIMIT}`,
    )
  })
})
