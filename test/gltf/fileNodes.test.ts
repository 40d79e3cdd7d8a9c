/**
 * readAsset takes a file's nodes from its JSON and hands gltf-transform only the nodes skins and animation
 * channels name (src/gltf/fileNodes.ts): the work gltf-transform does per node (a property with events and
 * edges) no longer grows with the node count, and the asset is the one gltf-transform's own Document of the
 * whole file gives (assetFromDocument).
 */
import { Document, NodeIO } from '@gltf-transform/core'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { assetFromDocument, readAsset } from '../../src/gltf/read.ts'
import { ASSET_FILES, assetPath, type Json } from '../helpers/gltfFiles.ts'

const bytesOf = (json: Json): Uint8Array => new TextEncoder().encode(JSON.stringify(json))

/** How many times gltf-transform creates a Node while `run` runs. */
async function nodesCreated(run: () => Promise<unknown>): Promise<number> {
  const proto = Document.prototype as unknown as Record<string, (...args: unknown[]) => unknown>
  const original = proto.createNode!
  let calls = 0
  proto.createNode = function (this: unknown, ...args: unknown[]) {
    calls++
    return original.apply(this, args)
  }
  try {
    await run()
  } finally {
    proto.createNode = original
  }
  return calls
}

/** A chain of n nodes 1 cm apart, a skin over its first two. */
function skinnedChain(n: number): Json {
  const nodes: Json[] = Array.from({ length: n }, (_, i) => ({
    translation: [0, 0.01, 0],
    ...(i + 1 < n ? { children: [i + 1] } : {}),
  }))
  return {
    asset: { version: '2.0' },
    nodes,
    skins: [{ joints: [0, 1], skeleton: 0 }],
    scenes: [{ nodes: [0] }],
    scene: 0,
  }
}

/** The asset gltf-transform's own reading of the whole file gives. */
async function viaDocument(json: Json, resources: Record<string, Uint8Array> = {}, source = 'x.gltf') {
  const document = await new NodeIO().readJSON({ json, resources } as never)
  return assetFromDocument(document, source)
}

describe('reading a file’s nodes', () => {
  it('creates gltf-transform nodes only for those skins and clips name, however long the chain', async () => {
    for (const n of [100, 16_000]) {
      let nodes = 0
      const made = await nodesCreated(async () => {
        const asset = await readAsset(bytesOf(skinnedChain(n)), 'chain.gltf')
        nodes = asset.nodes.length
        expect(asset.nodes[n - 1]!.parent).toBe(n - 2)
        expect(asset.skeletons[0]!.joints).toEqual(Int32Array.from([0, 1]))
      })
      expect(nodes).toBe(n)
      // Every node once made it: 16,000 here, 0.8 of a 1.2 s load.
      expect(made).toBe(2)
    }
  })

  it('gives the asset of the whole Document: matrices, names, scenes, skins', async () => {
    const json: Json = {
      asset: { version: '2.0' },
      nodes: [
        { name: 'root', children: [1, 2], translation: [1, 2, 3], scale: [2, 2, 2] },
        // A matrix replaces T/R/S (a rotation of 90° about z, scale 2 and -1 on x, moved).
        { matrix: [0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 4, 5, 6, 1], rotation: [0, 0, 1, 0] },
        { name: 'leaf', rotation: [0, 0.6, 0, 0.8] },
        {},
      ],
      skins: [{ joints: [1, 2] }],
      scenes: [{ nodes: [3] }, { nodes: [0, 0] }],
    }
    expect({ ...(await readAsset(bytesOf(json), 'x.gltf')) }).toEqual({ ...(await viaDocument(json)) })
  })

  it('gives the asset of the whole Document for every shipped file', async () => {
    const io = new NodeIO()
    for (const file of ASSET_FILES) {
      const path = assetPath(file)
      const bytes = readFileSync(path)
      const uris: string[] = file.endsWith('.gltf')
        ? ((JSON.parse(bytes.toString('utf8')) as Json).buffers ?? []).map((b: Json) => b.uri as string)
        : []
      const resources = Object.fromEntries(
        uris.filter((u) => !u.startsWith('data:')).map((u) => [u, readFileSync(path.replace(/[^/]+$/, u))]),
      )
      const asset = await readAsset(bytes, file, { resources })
      const whole = assetFromDocument(await io.read(path), file)
      expect(asset.nodes, file).toEqual(whole.nodes)
      expect(asset.roots, file).toEqual(whole.roots)
      expect(asset.skeletons, file).toEqual(whole.skeletons)
      expect(
        asset.clips.map((c) => c.channels.map((ch) => [ch.node, ch.path])),
        file,
      ).toEqual(whole.clips.map((c) => c.channels.map((ch) => [ch.node, ch.path])))
    }
  })
})
