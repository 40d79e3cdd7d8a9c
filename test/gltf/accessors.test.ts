import { Document, Logger, NodeIO, Verbosity } from '@gltf-transform/core'
import type { Accessor, TypedArray } from '@gltf-transform/core'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { assetFromDocument, readAsset } from '../../src/gltf/read.ts'
import { joinGlb, splitGlb } from '../helpers/gltfFiles.ts'

/**
 * Animation outputs stored as normalized integers (glTF 2.0 §3.11): files written here with gltf-transform,
 * decoded by the loader, compared with the spec's formulas and with the same keys stored as floats.
 */

const io = new NodeIO().setLogger(new Logger(Verbosity.SILENT))

type Build = (
  doc: Document,
  accessor: (type: string, array: TypedArray, normalized?: boolean) => Accessor,
) => void

/** A document with node 0 "morph" (a mesh with 2 morph targets) and node 1 "plain"; `build` adds animations. */
function makeDocument(build: Build): Document {
  const doc = new Document()
  const buffer = doc.createBuffer()
  const accessor = (type: string, array: TypedArray, normalized = false): Accessor =>
    doc
      .createAccessor()
      .setType(type as 'SCALAR')
      .setArray(array)
      .setNormalized(normalized)
      .setBuffer(buffer)
  const triangle = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])
  const primitive = doc.createPrimitive().setAttribute('POSITION', accessor('VEC3', triangle))
  for (let t = 0; t < 2; t++)
    primitive.addTarget(doc.createPrimitiveTarget().setAttribute('POSITION', accessor('VEC3', triangle)))
  const morph = doc.createNode('morph').setMesh(doc.createMesh().addPrimitive(primitive))
  const plain = doc.createNode('plain')
  doc.createScene().addChild(morph).addChild(plain)
  build(doc, accessor)
  return doc
}

function addClip(
  doc: Document,
  name: string,
  node: number,
  path: string,
  input: Accessor,
  output: Accessor,
): void {
  const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR')
  const target = doc.getRoot().listNodes()[node]!
  const channel = doc
    .createAnimationChannel()
    .setSampler(sampler)
    .setTargetNode(target)
    .setTargetPath(path as 'rotation')
  doc.createAnimation(name).addSampler(sampler).addChannel(channel)
}

const TIMES = new Float32Array([0, 0.5, 1])
const SQRT_HALF = Math.SQRT1_2

const quantized = makeDocument((doc, accessor) => {
  const times = accessor('SCALAR', TIMES)
  const short = new Int16Array([0, 0, 0, 32767, 0, 23170, 0, 23170, -32768, 0, 0, 0])
  const byte = new Int8Array([0, 0, 0, 127, 0, 90, 0, 90, -128, 0, 0, 0])
  addClip(doc, 'rotation SHORT', 1, 'rotation', times, accessor('VEC4', short, true))
  addClip(doc, 'rotation BYTE', 1, 'rotation', times, accessor('VEC4', byte, true))
  const floats = new Float32Array([0, 0, 0, 1, 0, SQRT_HALF, 0, SQRT_HALF, -1, 0, 0, 0])
  addClip(doc, 'rotation FLOAT', 1, 'rotation', times, accessor('VEC4', floats))
  addClip(
    doc,
    'weights UBYTE',
    0,
    'weights',
    times,
    accessor('SCALAR', new Uint8Array([0, 255, 128, 64, 255, 1]), true),
  )
  const ushort = new Uint16Array([0, 65535, 32768, 16384, 65535, 1])
  addClip(doc, 'weights USHORT', 0, 'weights', times, accessor('SCALAR', ushort, true))
  addClip(
    doc,
    'translation BYTE',
    1,
    'translation',
    times,
    accessor('VEC3', new Int8Array([1, -2, 3, 0, 0, 0, -128, 127, 5])),
  )
  addClip(
    doc,
    'translation SHORT',
    1,
    'translation',
    times,
    accessor('VEC3', new Int16Array([-32768, -32767, 16384, 0, 1, 2, 3, 4, 5]), true),
  )
})

function values(
  asset: { clips: readonly { name: string; channels: readonly { values: Float32Array }[] }[] },
  name: string,
): number[] {
  return Array.from(asset.clips.find((c) => c.name === name)!.channels[0]!.values)
}

describe('normalized integer animation outputs', async () => {
  const bytes = await io.writeBinary(quantized)
  const asset = await readAsset(bytes, 'quantized.glb')

  it('survive the gltf-transform round trip as integers (getArray gives the stored integers)', () => {
    const { json } = splitGlb(bytes)
    const output = json.accessors[json.animations[0].samplers[0].output]
    expect(output).toMatchObject({ componentType: 5122, normalized: true, type: 'VEC4' })
  })

  it('decode SHORT and BYTE rotations to the float keys (then normalized to unit length)', () => {
    const float = values(asset, 'rotation FLOAT')
    for (const name of ['rotation SHORT', 'rotation BYTE']) {
      values(asset, name).forEach((v, i) => expect(v).toBeCloseTo(float[i]!, 6))
    }
    // -32768 and -128 clamp to exactly -1: max(c / 32767, -1), max(c / 127, -1).
    expect(values(asset, 'rotation SHORT')[8]).toBe(-1)
    expect(values(asset, 'rotation BYTE')[8]).toBe(-1)
  })

  it('decode UNSIGNED_BYTE and UNSIGNED_SHORT weights with c / 255 and c / 65535', () => {
    const expectedUbyte = [0, 255, 128, 64, 255, 1].map((c) => Math.fround(c / 255))
    const expectedUshort = [0, 65535, 32768, 16384, 65535, 1].map((c) => Math.fround(c / 65535))
    expect(values(asset, 'weights UBYTE')).toEqual(expectedUbyte)
    expect(values(asset, 'weights USHORT')).toEqual(expectedUshort)
    expect(asset.clips.find((c) => c.name === 'weights UBYTE')!.channels[0]!.components).toBe(2)
  })

  it('decode normalized SHORT translation with max(c / 32767, -1) and keep non-normalized BYTE as integers', () => {
    const short = [-32768, -32767, 16384, 0, 1, 2, 3, 4, 5].map((c) => Math.fround(Math.max(c / 32767, -1)))
    expect(values(asset, 'translation SHORT')).toEqual(short)
    expect(values(asset, 'translation BYTE')).toEqual([1, -2, 3, 0, 0, 0, -128, 127, 5])
  })

  it('give the same clips read from bytes or straight from the Document', () => {
    expect(assetFromDocument(quantized, 'quantized.glb').clips).toEqual(asset.clips)
  })

  it('load when the file requires KHR_mesh_quantization', async () => {
    const { json, bin } = splitGlb(bytes)
    json.extensionsUsed = ['KHR_mesh_quantization']
    json.extensionsRequired = ['KHR_mesh_quantization']
    const required = await readAsset(joinGlb(json, bin), 'quantized.glb')
    expect(required.clips).toEqual(asset.clips)
  })
})

describe('animation accessor types the loader rejects', () => {
  it.each<[string, Build, string]>([
    [
      'a non-normalized SHORT rotation',
      (doc, a) => addClip(doc, 'r', 1, 'rotation', a('SCALAR', TIMES), a('VEC4', new Int16Array(12))),
      'doc: animation 0 "r": channel 0 (plain.rotation): output for rotation must be FLOAT or normalized, got SHORT VEC4',
    ],
    [
      'UNSIGNED_INT weights',
      (doc, a) => addClip(doc, 'w', 0, 'weights', a('SCALAR', TIMES), a('SCALAR', new Uint32Array(6), true)),
      'doc: animation 0 "w": channel 0 (morph.weights): output must not be normalized UNSIGNED_INT SCALAR',
    ],
    [
      'a VEC3 rotation output',
      (doc, a) => addClip(doc, 'r', 1, 'rotation', a('SCALAR', TIMES), a('VEC3', new Float32Array(9))),
      'doc: animation 0 "r": channel 0 (plain.rotation): output must be VEC4 for rotation, got FLOAT VEC3',
    ],
    [
      'integer key times',
      (doc, a) =>
        addClip(doc, 't', 1, 'scale', a('SCALAR', new Uint8Array([0, 1, 2])), a('VEC3', new Float32Array(9))),
      'doc: animation 0 "t": channel 0 (plain.scale): input (key times) must be FLOAT SCALAR, got UNSIGNED_BYTE SCALAR',
    ],
    [
      'weights on a node without morph targets',
      (doc, a) => addClip(doc, 'w', 1, 'weights', a('SCALAR', TIMES), a('SCALAR', new Float32Array(6))),
      'doc: animation 0 "w": channel 0 (plain.weights): animates weights, but node 1 has no morph targets',
    ],
  ])('%s', async (_, build, message) => {
    const doc = makeDocument(build)
    for (const run of [
      async () => assetFromDocument(doc, 'doc'),
      async () => readAsset(await io.writeBinary(doc), 'doc'),
    ]) {
      const error = await run().then(
        () => null,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(AnimationError)
      expect((error as AnimationError).kind).toBe('gltf')
      expect((error as AnimationError).message).toBe(message)
    }
  })
})
