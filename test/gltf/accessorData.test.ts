/**
 * The loader reads animation accessors itself (src/gltf/accessorData.ts), not through gltf-transform: every
 * element as gltf-transform's Accessor.getArray() gives it, on every animation accessor of the shipped files and
 * on files made here with a byteStride, sparse accessors (over a bufferView and over zeros), no bufferView, and
 * integer types, at aligned and unaligned places in the buffer.
 */
import { Logger, NodeIO, Verbosity } from '@gltf-transform/core'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { GLTF } from '@gltf-transform/core'
import { createAccessorReader } from '../../src/gltf/accessorData.ts'
import { parseContainer, resolveBuffers } from '../../src/gltf/container.ts'
import { ASSET_FILES, assetPath, joinGlb, type Json } from '../helpers/gltfFiles.ts'

const io = new NodeIO().setLogger(new Logger(Verbosity.SILENT))

/** Every animation accessor of `bytes` read both ways; resources for a .gltf's external buffers. */
async function compare(bytes: Uint8Array, source: string, resources: Record<string, Uint8Array> = {}) {
  const container = parseContainer(bytes, source)
  const buffers = resolveBuffers(container, resources, source)
  const read = createAccessorReader(container.json, buffers, source)
  // gltf-transform gets the same buffers under uris of their own (as read.ts hands them over), and the
  // animations and accessors without the rest (bare nodes to target).
  const json: GLTF.IGLTF = {
    asset: container.json.asset,
    buffers: container.json.buffers?.map((b, i) => ({ byteLength: b.byteLength, uri: `__buffer${i}` })),
    bufferViews: container.json.bufferViews,
    accessors: container.json.accessors,
    nodes: container.json.nodes?.map(() => ({})),
    animations: container.json.animations,
  }
  const named = Object.fromEntries(buffers.map((b, i) => [`__buffer${i}`, b]))
  const doc = await io.readJSON({ json, resources: named } as never)
  const theirs = doc.getRoot().listAccessors()
  const used = new Set<number>()
  for (const a of container.json.animations ?? []) for (const s of a.samplers) used.add(s.input).add(s.output)
  for (const i of used) {
    const mine = read(i)
    const expected = theirs[i]!.getArray()!
    expect(mine.array.constructor, `${source} accessor ${i}`).toBe(expected.constructor)
    expect(Array.from(mine.array), `${source} accessor ${i}`).toEqual(Array.from(expected))
    expect(mine.type).toBe(theirs[i]!.getType())
    expect(mine.componentType).toBe(theirs[i]!.getComponentType())
    expect(mine.normalized).toBe(theirs[i]!.getNormalized())
    expect(read(i)).toBe(mine) // read once
  }
  return used.size
}

describe('createAccessorReader', () => {
  it('reads every animation accessor of the shipped files as gltf-transform does', async () => {
    let accessors = 0
    for (const file of ASSET_FILES) {
      const path = assetPath(file)
      const bytes = new Uint8Array(readFileSync(path))
      const json = file.endsWith('.gltf') ? (JSON.parse(new TextDecoder().decode(bytes)) as GLTF.IGLTF) : null
      const resources: Record<string, Uint8Array> = {}
      for (const b of json?.buffers ?? []) {
        if (b.uri && !b.uri.startsWith('data:')) {
          resources[b.uri] = new Uint8Array(readFileSync(path.replace(/[^/]+$/, b.uri)))
        }
      }
      accessors += await compare(bytes, file, resources)
    }
    expect(accessors).toBeGreaterThan(100)
  })

  it('reads strided, sparse, zero-filled and integer accessors, aligned or not, as gltf-transform does', async () => {
    // 4 bytes of padding, then: 6 floats (3 VEC2 at a byteStride of 12: 4 bytes of gap each), 4 shorts, 3
    // sparse indices (u8, with a pad byte), 3 sparse VEC2 values. Every offset is aligned to its components.
    const bin = new Uint8Array(4 + 36 + 8 + 4 + 24)
    const view = new DataView(bin.buffer)
    for (let k = 0; k < 3; k++) {
      view.setFloat32(4 + 12 * k, k + 0.5, true)
      view.setFloat32(8 + 12 * k, -k, true)
    }
    for (let k = 0; k < 4; k++) view.setInt16(40 + 2 * k, (k - 2) * 9000, true)
    bin.set([0, 2, 5], 48)
    for (let k = 0; k < 6; k++) view.setFloat32(52 + 4 * k, 100 + k, true)
    const json: Json = {
      asset: { version: '2.0' },
      buffers: [{ byteLength: bin.length }],
      bufferViews: [
        { buffer: 0, byteOffset: 4, byteLength: 36, byteStride: 12 },
        { buffer: 0, byteOffset: 40, byteLength: 8 },
        { buffer: 0, byteOffset: 48, byteLength: 4 },
        { buffer: 0, byteOffset: 52, byteLength: 24 },
      ],
      accessors: [
        { bufferView: 0, componentType: 5126, type: 'VEC2', count: 3 },
        { bufferView: 1, componentType: 5122, type: 'SCALAR', count: 4, normalized: true },
        { bufferView: 1, byteOffset: 2, componentType: 5123, type: 'SCALAR', count: 3 },
        {
          bufferView: 0,
          componentType: 5126,
          type: 'VEC2',
          count: 3,
          sparse: {
            count: 1,
            indices: { bufferView: 2, byteOffset: 1, componentType: 5121 },
            values: { bufferView: 3, componentType: 5126 },
          },
        },
        {
          componentType: 5126,
          type: 'VEC2',
          count: 6,
          sparse: {
            count: 3,
            indices: { bufferView: 2, componentType: 5121 },
            values: { bufferView: 3, componentType: 5126 },
          },
        },
        { componentType: 5126, type: 'SCALAR', count: 2 },
      ],
      animations: [{ samplers: [0, 1, 2, 3, 4, 5].map((i) => ({ input: i, output: i })), channels: [] }],
    }
    // Once with the BIN chunk where a typed view can see it, once one byte off (a copy then).
    expect(await compare(joinGlb(json, bin), 'made.glb')).toBe(6)
    const container = parseContainer(joinGlb(json, bin), 'made.glb')
    const shifted = new Uint8Array(container.bin!.length + 1).subarray(1)
    shifted.set(container.bin!)
    const read = createAccessorReader(container.json, [shifted], 'made.glb')
    expect(Array.from(read(1).array)).toEqual([-18000, -9000, 0, 9000])
    expect(Array.from(read(4).array)).toEqual([100, 101, 0, 0, 102, 103, 0, 0, 0, 0, 104, 105])
  })
})
