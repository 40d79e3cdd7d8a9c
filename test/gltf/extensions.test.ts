/**
 * Required extensions (src/gltf/extensions.ts): the mesh-only ones are accepted and change nothing the asset
 * holds, meshopt-compressed views are checked before anything is decoded, and everything else is refused by
 * name. The compressed file is the Fox as `gltfpack -cc` makes it (test/helpers/optimized.ts), its JSON edited.
 */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { readAsset } from '../../src/gltf/read.ts'
import { MAX_DECODED_BYTES } from '../../src/gltf/limits.ts'
import { joinGlb, splitGlb, type Json } from '../helpers/gltfFiles.ts'
import { optimizedFile, RECIPES } from '../helpers/optimized.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
let packed: Uint8Array

beforeAll(async () => {
  packed = new Uint8Array(
    readFileSync(
      await optimizedFile(
        FOX,
        RECIPES.find((r) => r.label === 'gltfpack -cc')!,
      ),
    ),
  )
})

/** The packed Fox with its JSON edited by `edit`, read. */
function readEdited(edit: (json: Json) => void, bytes = (): Uint8Array => packed) {
  const { json, bin } = splitGlb(bytes())
  edit(json)
  return readAsset(joinGlb(json, bin), 'fox.glb')
}

/** The first view an animation's output reads, compressed (gltfpack stores keys in compressed views). */
function animationView(json: Json): Json {
  const accessor = json.accessors[json.animations[0].samplers[0].output]
  return json.bufferViews[accessor.bufferView]
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(AnimationError)
  expect((error as AnimationError).kind).toBe('gltf')
  return (error as AnimationError).message
}

describe('required extensions', () => {
  it('accepts those that concern only meshes and textures, and reads the same asset', async () => {
    const plain = await readAsset(new Uint8Array(readFileSync(FOX)), 'fox.glb')
    const { json, bin } = splitGlb(new Uint8Array(readFileSync(FOX)))
    const names = ['KHR_draco_mesh_compression', 'KHR_texture_basisu', 'EXT_texture_webp', 'EXT_texture_avif']
    json.extensionsRequired = json.extensionsUsed = [...names, 'KHR_materials_emissive_strength']
    const asset = await readAsset(joinGlb(json, bin), 'fox.glb')
    expect(asset.clips.map((c) => c.channels.map((ch) => [ch.node, ch.path, ch.values]))).toEqual(
      plain.clips.map((c) => c.channels.map((ch) => [ch.node, ch.path, ch.values])),
    )
  })

  it('refuses any other, naming it', async () => {
    const message = await refusal(readEdited((json) => json.extensionsRequired.push('VENDOR_bones')))
    expect(message).toContain('requires the glTF extension "VENDOR_bones", which this loader cannot honour')
    expect(await refusal(readEdited((json) => (json.extensionsRequired = 'KHR_mesh_quantization')))).toBe(
      'fox.glb: extensionsRequired "KHR_mesh_quantization" is not an array',
    )
  })
})

describe('meshopt-compressed views', () => {
  it('decodes a file whose compressed views are all it has (the fallback buffer holds no bytes)', async () => {
    const { json } = splitGlb(packed)
    const fallback = json.buffers.findIndex((b: Json) => b.extensions?.EXT_meshopt_compression?.fallback)
    expect(fallback).toBeGreaterThan(0)
    expect(json.buffers[fallback].uri).toBeUndefined()
    const asset = await readEdited(() => {})
    expect(asset.clips.map((c) => c.name)).toEqual(['Survey', 'Walk', 'Run'])
  })

  it.each([
    [
      'an unknown mode',
      (v: Json) => (v.mode = 'POINTS'),
      'mode "POINTS" is not ATTRIBUTES, TRIANGLES or INDICES',
    ],
    [
      'an unknown filter',
      (v: Json) => (v.filter = 'SPHERICAL'),
      'filter "SPHERICAL" is not NONE, OCTAHEDRAL',
    ],
    [
      'a stride the filter does not allow',
      (v: Json) => {
        v.filter = 'QUATERNION'
        v.byteStride = 4
        v.count *= 2
      },
      'byteStride 4 (count',
    ],
    ['a count that is not the view', (v: Json) => (v.count += 1), "is not the view's byteLength"],
    [
      'compressed bytes past the end of their buffer',
      (v: Json) => (v.byteOffset = 1e6),
      'run past the end of buffer 0',
    ],
    [
      'compressed bytes in the fallback',
      (v: Json) => (v.buffer = 1),
      'its compressed bytes are in fallback buffer 1',
    ],
  ])('refuses %s before decoding', async (_what, edit, expected) => {
    const message = await refusal(
      readEdited((json) => edit(animationView(json).extensions.EXT_meshopt_compression)),
    )
    expect(message).toContain('(meshopt)')
    expect(message).toContain(expected)
  })

  it('refuses a plain view in a fallback buffer', async () => {
    const message = await refusal(
      readEdited((json) => {
        delete animationView(json).extensions
      }),
    )
    expect(message).toMatch(
      /bufferView \d+ lies in buffer 1, a meshopt fallback buffer, but is not compressed/,
    )
  })

  it('counts the decoded views against the decoded-size limit', async () => {
    const message = await refusal(
      readEdited((json) => {
        const view = animationView(json)
        const ext = view.extensions.EXT_meshopt_compression
        ext.count = MAX_DECODED_BYTES / ext.byteStride
        view.byteLength = ext.count * ext.byteStride
        json.buffers[1].byteLength = view.byteOffset + view.byteLength
      }),
    )
    expect(message).toMatch(/bufferView \d+: decoding its compressed data \(268435456 bytes\)/)
  })

  it('reports corrupt compressed bytes as a load error', async () => {
    const message = await refusal(
      readEdited(
        () => {},
        () => {
          const { json, bin } = splitGlb(packed.slice())
          const ext = animationView(json).extensions.EXT_meshopt_compression
          bin!.fill(0xff, ext.byteOffset, ext.byteOffset + ext.byteLength)
          return joinGlb(json, bin)
        },
      ),
    )
    // Read by the clips' accessor reader (src/gltf/accessorData.ts), which decodes animation views itself.
    expect(message).toMatch(
      /^fox\.glb: bufferView \d+: its meshopt data cannot be decoded: .*Malformed buffer data/,
    )
  })

  it('reads KHR_meshopt_compression as the same extension', async () => {
    const khr = await optimizedFile(
      FOX,
      RECIPES.find((r) => r.label === 'gltfpack -cc -ce khr')!,
    )
    const { json } = splitGlb(new Uint8Array(readFileSync(khr)))
    expect(json.extensionsRequired).toContain('KHR_meshopt_compression')
    const asset = await readAsset(new Uint8Array(readFileSync(khr)), 'fox.glb')
    const ext = await readEdited(() => {})
    expect(asset.clips.map((c) => c.channels.map((ch) => ch.values))).toEqual(
      ext.clips.map((c) => c.channels.map((ch) => ch.values)),
    )
  })
})
