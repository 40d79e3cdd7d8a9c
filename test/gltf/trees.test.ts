/**
 * Deep and wide node trees: every walk over the node tree in src/gltf is iterative (a chain as deep as the file
 * has nodes must not overflow the stack) and linear, and a file over MAX_NODES is rejected before any per-node
 * work. The bounds are CPU time (test/helpers/cpuTime.ts), generous: they catch quadratic walks, not a slow or
 * busy machine.
 */
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { checkGltfJson } from '../../src/gltf/checkJson.ts'
import { MAX_NODES } from '../../src/gltf/limits.ts'
import { readAsset } from '../../src/gltf/read.ts'
import { buildSkeleton } from '../../src/gltf/skeleton.ts'
import type { Json } from '../helpers/gltfFiles.ts'
import { cpuMsAsync } from '../helpers/cpuTime.ts'

type Shape = 'chain' | 'wide'

/** glTF JSON of n bare nodes: a chain (node i the parent of node i + 1) or wide (node 0 the parent of all). */
function treeJson(shape: Shape, n: number): Json {
  const nodes: Json[] = Array.from({ length: n }, () => ({}))
  if (shape === 'chain') for (let i = 0; i + 1 < n; i++) nodes[i].children = [i + 1]
  else nodes[0].children = Array.from({ length: n - 1 }, (_, i) => i + 1)
  return { asset: { version: '2.0' }, nodes, scenes: [{ nodes: [0] }], scene: 0 }
}

const bytesOf = (json: Json): Uint8Array => new TextEncoder().encode(JSON.stringify(json))

async function rejection(bytes: Uint8Array, source: string): Promise<AnimationError> {
  const error = await readAsset(bytes, source).then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof AnimationError)) throw new Error(`expected an AnimationError, got ${String(error)}`)
  return error
}

function thrownBy(run: () => unknown): AnimationError {
  try {
    run()
  } catch (error) {
    if (error instanceof AnimationError) return error
    throw error
  }
  throw new Error('expected an AnimationError, nothing was thrown')
}

/** CPU milliseconds `run` takes, and its result. */
const timed = <T>(run: () => T | Promise<T>): Promise<{ ms: number; value: T }> =>
  cpuMsAsync(async () => await run())

const QUADRATIC_MS = 2000

describe('node trees', () => {
  it('allows 65535 nodes', () => {
    expect(MAX_NODES).toBe(65535)
  })

  it.each<Shape>(['chain', 'wide'])(
    'rejects a 100,000-node %s, naming the count and the limit, before any per-node work',
    async (shape) => {
      const bytes = bytesOf(treeJson(shape, 100_000))
      const { ms, value: error } = await timed(() => rejection(bytes, `${shape}.gltf`))
      expect(error.kind).toBe('gltf')
      expect(error.message).toBe(`${shape}.gltf: the file has 100000 nodes, more than the limit of 65535`)
      expect(ms).toBeLessThan(QUADRATIC_MS)
    },
  )

  it('loads a chain of MAX_NODES nodes with skins along it (nothing recurses)', async () => {
    const json = treeJson('chain', MAX_NODES)
    const last = MAX_NODES - 1
    // Every 64th node and the deepest: one skin naming no skeleton, one naming node 0.
    const joints = [last, ...Array.from({ length: Math.floor(last / 64) }, (_, k) => 64 * (k + 1))]
    json.skins = [{ joints }, { joints, skeleton: 0 }]
    const asset = await readAsset(bytesOf(json), 'deep.gltf')
    expect(asset.nodes).toHaveLength(MAX_NODES)
    expect(asset.roots).toEqual([0])
    expect(asset.nodes[last]!.parent).toBe(last - 1)
    expect(asset.nodes[0]!.children).toEqual([1])
    for (const skeleton of asset.skeletons) {
      const sorted = [...joints].sort((a, b) => a - b)
      expect(Array.from(skeleton.joints)).toEqual(sorted)
      expect(Array.from(skeleton.parents)).toEqual(sorted.map((_, j) => j - 1))
    }
    expect(asset.skeletons[0]!.root).toBe(64) // the shallowest joint: the others descend from it
    expect(asset.skeletons[1]!.root).toBe(0)
  })

  it.each<Shape>(['chain', 'wide'])(
    'checks the JSON of a MAX_NODES-node %s in linear time',
    async (shape) => {
      const json = treeJson(shape, MAX_NODES)
      const { ms } = await timed(() => checkGltfJson(json, `${shape}.gltf`))
      expect(ms).toBeLessThan(QUADRATIC_MS)
    },
  )

  it('rejects a cycle closing a MAX_NODES-node chain, naming a node on it', async () => {
    const json = treeJson('chain', MAX_NODES)
    json.nodes[MAX_NODES - 1].children = [0]
    delete json.scenes
    delete json.scene
    const { ms, value: error } = await timed(() => rejection(bytesOf(json), 'loop.gltf'))
    expect(error.message).toBe('loop.gltf: node 0 is its own ancestor (the node tree has a cycle)')
    expect(ms).toBeLessThan(QUADRATIC_MS)
  })

  it('names a node on the cycle, not one hanging below it', async () => {
    // Node 1 hangs below the cycle 2 → 3 → 2; node 0 is a separate root.
    const json = {
      asset: { version: '2.0' },
      nodes: [
        { name: 'root' },
        { name: 'tail' },
        { name: 'a', children: [3] },
        { name: 'b', children: [1, 2] },
      ],
    }
    expect((await rejection(bytesOf(json), 'loop.gltf')).message).toBe(
      'loop.gltf: node 2 "a" is its own ancestor (the node tree has a cycle)',
    )
  })
})

describe('buildSkeleton on deep trees', () => {
  const n = 100_000
  const chain = Array.from({ length: n }, (_, i) => i - 1)
  const every = Array.from({ length: n }, (_, i) => n - 1 - i) // deepest first

  it('orders a skin over every node of a 100,000-node chain in linear time', async () => {
    const { ms, value: skeleton } = await timed(() =>
      buildSkeleton({ name: 'deep', joints: every, inverseBindMatrices: null, skeleton: -1 }, chain, 'skin'),
    )
    expect(skeleton.joints[0]).toBe(0)
    expect(skeleton.joints[n - 1]).toBe(n - 1)
    expect(skeleton.parents[n - 1]).toBe(n - 2)
    expect(skeleton.skinJointOrder[0]).toBe(n - 1)
    expect(skeleton.root).toBe(0)
    expect(ms).toBeLessThan(QUADRATIC_MS)
  })

  it('checks a named skeleton root against every joint of a 100,000-node chain in linear time', async () => {
    const skin = { name: 'deep', joints: every, inverseBindMatrices: null, skeleton: 0 }
    const { ms, value: skeleton } = await timed(() => buildSkeleton(skin, chain, 'skin'))
    expect(skeleton.root).toBe(0)
    const deeper = thrownBy(() => buildSkeleton({ ...skin, skeleton: 1 }, chain, 'skin'))
    expect(deeper.message).toBe('skin: skeleton root node 1 is not an ancestor of joint node 0')
    expect(ms).toBeLessThan(QUADRATIC_MS)
  })

  it('finds the common ancestor of joints deep in two long branches', () => {
    // Node 0 forks into two chains of 50,000 nodes: 1, 3, 5, ... and 2, 4, 6, ...
    const fork = Array.from({ length: n + 1 }, (_, i) => (i === 0 ? -1 : i <= 2 ? 0 : i - 2))
    const deepest = [n - 1, n]
    const skeleton = buildSkeleton(
      { name: 'fork', joints: deepest, inverseBindMatrices: null, skeleton: -1 },
      fork,
      'skin',
    )
    expect(skeleton.root).toBe(0)
    expect(Array.from(skeleton.parents)).toEqual([-1, -1])
    // Cut the odd branch off at node 5: node n (even branch) and node 5 are in different trees.
    const apart = buildSkeleton(
      { name: 'apart', joints: [n, 5], inverseBindMatrices: null, skeleton: -1 },
      [...fork.slice(0, 5), -1, ...fork.slice(6)],
      'skin',
    )
    expect(apart.root).toBe(-1)
  })
})
