import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { readAsset } from '../../src/gltf/read.ts'
import type { Json } from '../helpers/gltfFiles.ts'
import { assetPath, embeddedGltf, joinGlb, readRaw, splitGlb } from '../helpers/gltfFiles.ts'

/** Every bad input must reject with an AnimationError whose message is checked; never anything else. */
async function rejection(bytes: Uint8Array, source = 'bad.glb'): Promise<AnimationError> {
  const error = await readAsset(bytes, source).then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof AnimationError)) throw new Error(`expected an AnimationError, got ${String(error)}`)
  expect(error.message.startsWith(`${source}: `)).toBe(true)
  expect(error.message).not.toContain('\n')
  return error
}

const FOX = new Uint8Array(readFileSync(assetPath('Fox/glTF-Binary/Fox.glb')))
const FOX_JSON_LENGTH = new DataView(FOX.buffer, FOX.byteOffset).getUint32(12, true)

describe('GLB container', () => {
  it.each([
    [
      0,
      'bad.glb: is neither a glTF binary (it does not start with the magic "glTF", it starts with nothing: the file is empty) nor glTF JSON',
    ],
    [3, 'bad.glb: truncated: 3 bytes is too short for the 12-byte glTF binary header'],
    [11, 'bad.glb: truncated: 11 bytes is too short for the 12-byte glTF binary header'],
    [12, 'bad.glb: truncated: the glTF binary header says 162852 bytes, the file has 12'],
    [19, 'bad.glb: truncated: the glTF binary header says 162852 bytes, the file has 19'],
    [
      20 + FOX_JSON_LENGTH,
      `bad.glb: truncated: the glTF binary header says 162852 bytes, the file has ${20 + FOX_JSON_LENGTH}`,
    ],
    [FOX.length - 1, 'bad.glb: truncated: the glTF binary header says 162852 bytes, the file has 162851'],
  ])('rejects Fox.glb cut to %i bytes', async (length, message) => {
    const error = await rejection(FOX.slice(0, length))
    expect(error.kind).toBe('gltf')
    expect(error.message).toBe(message)
  })

  it('rejects cuts inside the chunks when the header length is made to match', async () => {
    // Cut inside the JSON chunk, the BIN chunk header and the BIN chunk, with the header patched to the new size.
    const cuts = [100, 20 + FOX_JSON_LENGTH + 4, FOX.length - 1000]
    const messages = [
      `bad.glb: truncated: chunk 0 (JSON, ${FOX_JSON_LENGTH} bytes at offset 20) runs past the end of the file (100 bytes)`,
      `bad.glb: truncated: 4 stray bytes at offset ${20 + FOX_JSON_LENGTH}, too few for a chunk header`,
      `bad.glb: truncated: chunk 1 (BIN, ${FOX.length - 28 - FOX_JSON_LENGTH} bytes at offset ${28 + FOX_JSON_LENGTH}) runs past the end of the file (${FOX.length - 1000} bytes)`,
    ]
    for (const [i, cut] of cuts.entries()) {
      const bytes = FOX.slice(0, cut)
      new DataView(bytes.buffer).setUint32(8, cut, true)
      expect((await rejection(bytes)).message).toBe(messages[i])
    }
  })

  it('rejects a wrong magic', async () => {
    const bytes = FOX.slice()
    bytes[3] = 0x58 // "glTX"
    expect((await rejection(bytes)).message).toBe(
      'bad.glb: is neither a glTF binary (it does not start with the magic "glTF", it starts with "glTX" (67 6c 54 58)) nor glTF JSON',
    )
  })

  it('rejects GLB version 1', async () => {
    const bytes = FOX.slice()
    new DataView(bytes.buffer).setUint32(4, 1, true)
    expect((await rejection(bytes)).message).toBe(
      'bad.glb: glTF binary version 1 is not supported (expected 2)',
    )
  })

  it('rejects a corrupt JSON chunk', async () => {
    const bytes = FOX.slice()
    bytes[20] = 0x5d // "]" where "{" was
    const error = await rejection(bytes)
    expect(error.message).toMatch(/^bad\.glb: the JSON chunk is not valid JSON \(.*JSON.*\)$/)
  })

  it('rejects a first chunk that is not JSON', async () => {
    const bytes = FOX.slice()
    new DataView(bytes.buffer).setUint32(16, 0x004e4942, true)
    expect((await rejection(bytes)).message).toBe(
      'bad.glb: the first glTF binary chunk is BIN, expected JSON',
    )
  })

  it('rejects a BIN chunk shorter than the buffer it holds', async () => {
    const { json, bin } = splitGlb(FOX)
    const error = await rejection(joinGlb(json, bin!.subarray(0, 1000)))
    expect(error.message).toBe(
      `bad.glb: buffer 0 declares ${json.buffers[0].byteLength} bytes but the GLB BIN chunk holds only 1000 (truncated?)`,
    )
  })

  it('rejects bytes that are neither GLB nor JSON, and JSON that is not glTF 2.0', async () => {
    const text = (s: string): Uint8Array => new TextEncoder().encode(s)
    expect((await rejection(text('solid cube'), 'a.stl')).message).toBe(
      'a.stl: is neither a glTF binary (it does not start with the magic "glTF", it starts with "soli" (73 6f 6c 69)) nor glTF JSON',
    )
    expect((await rejection(text('{"asset": {"version": "1.0"}}'), 'a.gltf')).message).toBe(
      'a.gltf: glTF version "1.0" is not supported (expected "2.0")',
    )
    expect((await rejection(text('{"asset": '), 'a.gltf')).message).toMatch(
      /^a\.gltf: the file is not valid JSON \(/,
    )
    expect((await rejection(text('{"nodes": []}'), 'a.gltf')).message).toBe(
      'a.gltf: the glTF JSON has no "asset" object',
    )
  })
})

/** Fox as an embedded .gltf whose JSON (and buffer bytes) a test edits in memory. */
function editedFox(edit: (json: Json, buffer: Uint8Array) => void): Uint8Array {
  const raw = readRaw('Fox/glTF/Fox.gltf')
  const json = structuredClone(raw.json)
  const buffer = raw.buffers[0]!.slice()
  edit(json, buffer)
  return embeddedGltf(json, [buffer])
}

/** Walk (animation 1) channel 3 and its sampler. */
function walkChannel3(json: Json): { channel: Json; sampler: Json } {
  const channel = json.animations[1].channels[3]
  return { channel, sampler: json.animations[1].samplers[channel.sampler] }
}

describe('glTF JSON and data', () => {
  it.each<[string, (json: Json, buffer: Uint8Array) => void, 'gltf' | 'clip', string]>([
    [
      'a channel whose node is out of range',
      (json) => (walkChannel3(json).channel.target.node = 99),
      'gltf',
      'fox.gltf: animation 1 "Walk" channel 3: target node 99 does not exist (the file has 26 nodes)',
    ],
    [
      'a channel whose sampler is out of range',
      (json) => (walkChannel3(json).channel.sampler = 40),
      'gltf',
      'fox.gltf: animation 1 "Walk" channel 3: sampler 40 does not exist (the file has 21 samplers in this animation)',
    ],
    [
      'a sampler output one element short',
      (json) => (json.accessors[walkChannel3(json).sampler.output].count -= 1),
      'clip',
      'fox.gltf: animation 1 "Walk": clip "Walk" channel 3 (b_RightForeArm_07.rotation): ' +
        'LINEAR needs 18 keys = 18 output elements, got 17',
    ],
    [
      'an unknown interpolation',
      (json) => (walkChannel3(json).sampler.interpolation = 'SMOOTH'),
      'clip',
      'fox.gltf: animation 1 "Walk": clip "Walk" channel 3 (b_RightForeArm_07.rotation): ' +
        'unknown interpolation "SMOOTH" (expected STEP, LINEAR or CUBICSPLINE)',
    ],
    [
      'an unknown target path',
      (json) => (walkChannel3(json).channel.target.path = 'color'),
      'clip',
      'fox.gltf: animation 1 "Walk": clip "Walk" channel 3 (b_RightForeArm_07.color): ' +
        'unknown path "color" (expected one of translation, rotation, scale, weights)',
    ],
    [
      'key times that do not increase',
      (json, buffer) => {
        const input = json.accessors[walkChannel3(json).sampler.input]
        const view = json.bufferViews[input.bufferView]
        const at = (view.byteOffset ?? 0) + (input.byteOffset ?? 0)
        const data = new DataView(buffer.buffer)
        data.setFloat32(at + 4 * 5, data.getFloat32(at + 4 * 4, true), true)
      },
      'clip',
      // All Walk channels share one input accessor, so channel 0 is the first to fail.
      'fox.gltf: animation 1 "Walk": clip "Walk" channel 0 (b_Head_05.rotation): ' +
        'key 5 time 0.1666666716337204 is not after key 4 time 0.1666666716337204',
    ],
    [
      'an accessor that runs past its buffer view',
      (json) => (json.accessors[walkChannel3(json).sampler.output].count += 1000),
      'gltf',
      'fox.gltf: accessor 31: 1018 elements of 16 bytes from offset 27424 need 43712 bytes, bufferView 5 has 40320',
    ],
    [
      'a buffer view that runs past its buffer',
      (json) => (json.bufferViews[2].byteLength += 1e6),
      'gltf',
      'fox.gltf: bufferView 2: bytes 48384..1076032 run past the end of buffer 0 (119904 bytes)',
    ],
    [
      'a skin joint that is not a node',
      (json) => (json.skins[0].joints[3] = 500),
      'gltf',
      'fox.gltf: skin 0: joint 3: node 500 does not exist (the file has 26 nodes)',
    ],
    [
      'a skin joint listed twice',
      (json) => (json.skins[0].joints[3] = json.skins[0].joints[2]),
      'gltf',
      'fox.gltf: skin 0: joint 3 repeats node 4',
    ],
    [
      'a node that is the child of two nodes',
      (json) => (json.nodes[25].children = [3]),
      'gltf',
      'fox.gltf: node 3 is a child of both node 2 and node 25',
    ],
    [
      'a cycle in the node tree',
      (json) => (json.nodes[25].children = [0]),
      'gltf',
      'fox.gltf: node 0 "root" is its own ancestor (the node tree has a cycle)',
    ],
    [
      'a child index out of range',
      (json) => json.nodes[4].children.push(26),
      'gltf',
      'fox.gltf: node 4 "b_Hip_01": child 26 does not exist (the file has 26 nodes)',
    ],
    [
      'a node translation with a string in it',
      (json) => (json.nodes[4].translation = [0, 'up', 0]),
      'gltf',
      'fox.gltf: node 4 "b_Hip_01": translation [0,"up",0] is not 3 finite numbers',
    ],
    [
      'a required extension the loader lacks',
      (json) => (json.extensionsRequired = ['KHR_draco_mesh_compression', 'KHR_animation_pointer']),
      'gltf',
      'fox.gltf: requires the glTF extension "KHR_animation_pointer", which this loader cannot honour (it ' +
        'decodes KHR_mesh_quantization, EXT_meshopt_compression, KHR_meshopt_compression, and ignores ' +
        'extensions that concern only meshes and textures)',
    ],
    [
      'a scene root out of range',
      (json) => (json.scenes[0].nodes = [0, 99]),
      'gltf',
      'fox.gltf: scene 0: root node 99 is out of range (the file has 26 nodes)',
    ],
    [
      'a negative scene root',
      (json) => (json.scenes[0].nodes = [-1]),
      'gltf',
      'fox.gltf: scene 0: root node -1 is out of range (the file has 26 nodes)',
    ],
    [
      'a scene root that is not an index',
      (json) => (json.scenes[0].nodes = ['0']),
      'gltf',
      'fox.gltf: scene 0: root node "0" is not a node index',
    ],
    [
      'a default scene that does not exist',
      (json) => (json.scene = 3),
      'gltf',
      'fox.gltf: the file: default scene 3 does not exist (the file has 1 scenes)',
    ],
  ])('rejects %s', async (_, edit, kind, message) => {
    const error = await rejection(editedFox(edit), 'fox.gltf')
    expect(error.kind).toBe(kind)
    expect(error.message).toBe(message)
  })

  it('rejects a .gltf whose external buffer was not supplied, naming the file', async () => {
    const bytes = new Uint8Array(readFileSync(assetPath('Fox/glTF/Fox.gltf')))
    expect((await rejection(bytes, 'Fox.gltf')).message).toBe(
      'Fox.gltf: buffer 0 refers to the external file "Fox.bin", which was not supplied ' +
        '(pass it in options.resources, or load the file from disk with loadAsset)',
    )
  })
})

describe('values nested deeper than the stack', () => {
  // 100,000 nested arrays: JSON.parse reads them, a recursive JSON.stringify (for the message) overflowed.
  const nested = '['.repeat(100_000) + ']'.repeat(100_000)
  /** A one-node file with `nested` where `place` puts the string "NESTED". */
  const file = (place: (json: Json) => void): Uint8Array => {
    const json: Json = { asset: { version: '2.0' }, nodes: [{}] }
    place(json)
    return new TextEncoder().encode(JSON.stringify(json).replace('"NESTED"', nested))
  }
  it.each<[string, (json: Json) => void, string]>([
    [
      'a node translation',
      (json) => (json.nodes[0].translation = 'NESTED'),
      'node 0: translation [[[…]]] is not 3 finite numbers',
    ],
    ['a node name', (json) => (json.nodes[0].name = 'NESTED'), 'node 0: name [[[…]]] is not a string'],
    [
      'an accessor count',
      (json) => (json.accessors = [{ componentType: 5126, type: 'SCALAR', count: 'NESTED' }]),
      'accessor 0: count [[[…]]] is not a non-negative integer',
    ],
    [
      'a scene root',
      (json) => (json.scenes = [{ nodes: ['NESTED'] }]),
      'scene 0: root node [[[…]]] is not a node index',
    ],
    [
      "a mesh's default weights",
      (json) => {
        json.meshes = [{ weights: ['NESTED'], primitives: [{ attributes: {}, targets: [{}] }] }]
        json.nodes[0].mesh = 0
      },
      'node 0: default weights (of its mesh) [[[[…]]]] is not finite as float32',
    ],
  ])('rejects %s with an AnimationError that shows the value cut short', async (_, place, message) => {
    const error = await rejection(file(place), 'deep.gltf')
    expect(error.kind).toBe('gltf')
    expect(error.message).toBe(`deep.gltf: ${message}`)
  })
})

describe('corrupted files', () => {
  const samples = [
    'RiggedSimple/glTF-Binary/RiggedSimple.glb',
    'AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb',
  ]
  it.each(samples)(
    '%s with random bytes overwritten loads or throws AnimationError, nothing else',
    async (file) => {
      const original = new Uint8Array(readFileSync(assetPath(file)))
      const jsonEnd = 20 + new DataView(original.buffer).getUint32(12, true)
      // Aim half the hits at the JSON chunk, where a flipped digit changes an index or a count.
      const position = fc.oneof(
        fc.integer({ min: 0, max: jsonEnd - 1 }),
        fc.integer({ min: 0, max: original.length - 1 }),
      )
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(position, fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
          async (edits) => {
            const bytes = original.slice()
            for (const [at, value] of edits) bytes[at] = value
            const outcome = await readAsset(bytes, 'fuzz.glb').then(
              () => null,
              (e: unknown) => e,
            )
            if (outcome !== null && !(outcome instanceof AnimationError)) throw outcome
          },
        ),
        { numRuns: 300 },
      )
    },
  )
})
