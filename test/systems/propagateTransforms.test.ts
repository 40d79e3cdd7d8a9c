import type { World } from 'bitecs'
import { addComponent, addEntity, createWorld, query, removeEntity } from 'bitecs'
import fc from 'fast-check'
import { mat4 } from 'gl-matrix'
import { Object3D } from 'three'
import { beforeEach, describe, expect, it } from 'vitest'
import type { SceneGraph, SceneKernels } from '../../components/SceneNode.ts'
import {
  addSceneNode,
  createSceneGraph,
  removeSceneNode,
  setSceneNodeParent,
} from '../../components/SceneNode.ts'
import { createPropagateTransformsSystem } from '../../systems/propagateTransforms.ts'
import { composeMatrix, multiplyMatrices } from '../../src/math/transform.ts'

/** An unrelated game component, so scene nodes share the world (and the id space) with other entities. */
const Health = { hp: new Float32Array(256) }

interface Scene {
  world: World
  graph: SceneGraph
  propagate: (world: World) => void
  /** Entity id of spec node i. */
  eids: number[]
}

/** The kernels the scenes of the running test use (each describe below runs once per kind). */
let kernels: SceneKernels = 'js'

/**
 * Builds a scene from a parent list (`parents[i]` < i, or -1 for a root) the awkward way: entities are created
 * last node first, interleaved with unrelated entities, so children get lower ids than their parents; every node
 * is added as a root (children before parents) and only then wired to its parent.
 */
function buildScene(parents: readonly number[], seed = 1, capacity = 256): Scene {
  const world = createWorld()
  const graph = createSceneGraph(world, capacity, kernels)
  const eids = new Array<number>(parents.length)
  for (let i = parents.length - 1; i >= 0; i--) {
    if (i % 3 === 0) addComponent(world, addEntity(world), Health)
    eids[i] = addEntity(world)
  }
  for (let i = parents.length - 1; i >= 0; i--) addSceneNode(graph, eids[i]!)
  parents.forEach((p, i) => {
    if (p >= 0) setSceneNodeParent(graph, eids[i]!, eids[p]!)
  })
  const random = lcg(seed)
  for (const e of eids) randomLocal(graph, e, random)
  return { world, graph, propagate: createPropagateTransformsSystem({ sceneGraph: graph }), eids }
}

/** Deterministic numbers in [0, 1) for test data. */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/** Writes a random local transform (unit rotation, scale 0.5..1.5) and marks the node dirty. */
function randomLocal(graph: SceneGraph, e: number, random: () => number): void {
  const { translation, rotation, scale, dirty } = graph.store
  const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5 + 0.1]
  const len = Math.hypot(...q)
  translation.set([4 * random() - 2, 4 * random() - 2, 4 * random() - 2], e * 3)
  rotation.set(
    q.map((x) => x / len),
    e * 4,
  )
  scale.set([0.5 + random(), 0.5 + random(), 0.5 + random()], e * 3)
  dirty[e] = 1
}

/**
 * The independent side: a three.js Object3D per node with the store's local T/R/S and parent, updated with
 * updateMatrixWorld (three's own compose and multiply, in float64). Returns world matrices by entity id.
 */
function threeWorlds(graph: SceneGraph): Map<number, number[]> {
  const { translation: t, rotation: r, scale: s, parent } = graph.store
  const members = Array.from(query(graph.world, [graph.store]))
  const objects = new Map<number, Object3D>()
  for (const e of members) {
    const o = new Object3D()
    o.position.set(t[e * 3]!, t[e * 3 + 1]!, t[e * 3 + 2]!)
    o.quaternion.set(r[e * 4]!, r[e * 4 + 1]!, r[e * 4 + 2]!, r[e * 4 + 3]!)
    o.scale.set(s[e * 3]!, s[e * 3 + 1]!, s[e * 3 + 2]!)
    objects.set(e, o)
  }
  for (const e of members) if (parent[e] !== 0) objects.get(parent[e]!)!.add(objects.get(e)!)
  for (const e of members) if (parent[e] === 0) objects.get(e)!.updateMatrixWorld(true)
  return new Map(members.map((e) => [e, objects.get(e)!.matrixWorld.toArray()]))
}

/** The bits of world matrices `e .. e + count` (by default all of them). */
function worldBits(graph: SceneGraph, e = 0, count = graph.capacity): Uint32Array {
  const w = graph.store.world
  return new Uint32Array(w.buffer, w.byteOffset + e * 64, count * 16)
}

function worldOf(graph: SceneGraph, e: number): number[] {
  return Array.from(graph.store.world.subarray(e * 16, e * 16 + 16))
}

function expectMatrixClose(actual: readonly number[], expected: readonly number[], what: string): void {
  for (let i = 0; i < 16; i++) {
    const tol = 2e-5 * (1 + Math.abs(expected[i]!))
    expect(
      Math.abs(actual[i]! - expected[i]!),
      `${what} element ${i}: ${actual[i]} vs ${expected[i]}`,
    ).toBeLessThan(tol)
  }
}

function expectMatchesThree(graph: SceneGraph): void {
  for (const [e, expected] of threeWorlds(graph)) expectMatrixClose(worldOf(graph, e), expected, `node ${e}`)
}

/** Entity `e` and all its descendants, found by walking parent links of every member (not the child lists). */
function subtreeOf(graph: SceneGraph, e: number): Set<number> {
  const members = Array.from(query(graph.world, [graph.store]))
  const { parent } = graph.store
  return new Set(
    members.filter((x) => {
      for (let a = x; a !== 0; a = parent[a]!) if (a === e) return true
      return false
    }),
  )
}

function changedNodes(graph: SceneGraph): number[] {
  return Array.from(query(graph.world, [graph.store]))
    .filter((e) => graph.store.changed[e] === 1)
    .sort((a, b) => a - b)
}

// Hierarchy A: depth 6 with branches; hierarchy B: depth 3. Indices into the spec, not entity ids.
//   A: 0 ─ 1 ─ 2 ─ 3 ─ 4 ─ 5          B: 11 ─ 12 ─ 13
//          │   └ 6 ─ 7                       └ 14
//          └ 8 ─ 9                    15 (a lone root)
//   10 (child of 0)
const TWO_HIERARCHIES = [-1, 0, 1, 2, 3, 4, 2, 6, 1, 8, 0, -1, 11, 12, 11, -1]

describe.each(['js', 'wasm'] as const)('propagateTransforms (%s kernels)', (kind) => {
  beforeEach(() => {
    kernels = kind
  })

  it('is a named function', () => {
    const { propagate } = buildScene([-1])
    expect(propagate.name).toBe('propagateTransforms')
  })

  it('matches three.js updateMatrixWorld for two hierarchies built child-first among unrelated entities', () => {
    const { world, graph, propagate, eids } = buildScene(TWO_HIERARCHIES)
    expect(eids[5]).toBeLessThan(eids[0]!) // children really do have lower ids than their ancestors
    propagate(world)
    expect(graph.stats.recomputed).toBe(TWO_HIERARCHIES.length)
    expect(changedNodes(graph)).toEqual(eids.slice().sort((a, b) => a - b))
    for (const e of eids) expect(graph.store.dirty[e], `dirty ${e}`).toBe(0)
    expectMatchesThree(graph)
  })

  it('refuses a world matrix exactly when an element rounds past float32, at the boundary', () => {
    // The largest float32 and the smallest double that rounds to ∞ in float32 (halfway to 2^128, ties to even).
    const MAX = 2 ** 128 - 2 ** 104
    const cases: [string, number, number, boolean][] = [
      // [what, root scale, child translation x, child refused]
      ['every element below: three at 3e38 (their squares sum past OVER²)', 3e38, 0, false],
      ['an element at the largest float32', 1, MAX, false],
      // Products of float32 locals: 11 × 3.0934759e37 lies between MAX and OVER (rounds down to MAX);
      // 18631 × 1801·2^103 is OVER exactly (2^25 − 1 = 31 · 601 · 1801).
      ['an element between the largest float32 and the rounding point', 11, 3.0934759015802733e37, false],
      ['an element at the rounding point', 18631, 1801 * 2 ** 103, true],
      ['an element past float32 by a product of finite locals', 1e20, 1e20, true],
    ]
    for (const [what, rootScale, childX, refused] of cases) {
      const { world, graph, propagate, eids } = buildScene([-1, 0])
      const { translation, rotation, scale, dirty } = graph.store
      const [root, child] = [eids[0]!, eids[1]!]
      rotation.set([0, 0, 0, 1], root * 4)
      rotation.set([0, 0, 0, 1], child * 4)
      scale.fill(Math.fround(rootScale), root * 3, root * 3 + 3)
      scale.fill(1, child * 3, child * 3 + 3)
      translation.fill(0, root * 3, root * 3 + 3)
      translation.set([Math.fround(childX), 0, 0], child * 3)
      dirty[root] = 1
      dirty[child] = 1
      const before = worldOf(graph, child)
      propagate(world)
      expect(graph.stats.refused, what).toBe(refused ? 1 : 0)
      const after = worldOf(graph, child)
      if (refused) expect(after, what).toEqual(before)
      else {
        expect(after.every(Number.isFinite), what).toBe(true)
        expect(after[12], what).toBe(Math.fround(Math.fround(rootScale) * Math.fround(childX)))
      }
    }
  })

  it('is composeMatrix and multiplyMatrices (src/math/transform.ts) written out: the same bits', () => {
    // The pass inlines the reference functions; every element must equal them rounded to float32 (=== treats
    // ±0 alike: the reference's general 4×4 product adds 0·translation terms, which can turn −0 into +0).
    for (let seed = 1; seed <= 20; seed++) {
      const random = lcg(seed)
      // A forest: every 7th node is a root, the others hang under an earlier node.
      const parents = Array.from({ length: 40 }, (_, i) => (i % 7 === 0 ? -1 : Math.floor(random() * i)))
      const { world, graph, propagate, eids } = buildScene(parents, seed)
      propagate(world)
      const { translation, rotation, scale, parent, world: worlds } = graph.store
      const local = new Float64Array(16)
      const ref = new Float64Array(16)
      for (const e of eids) {
        composeMatrix(local, 0, translation, e * 3, rotation, e * 4, scale, e * 3)
        const p = parent[e]!
        if (p === 0) ref.set(local)
        else multiplyMatrices(ref, 0, worlds, p * 16, local, 0)
        for (let k = 0; k < 16; k++)
          expect(worlds[e * 16 + k] === Math.fround(ref[k]!), `node ${e} element ${k}`).toBe(true)
      }
    }
  })

  it('matches three.js on random forests', () => {
    const forest = fc
      .array(fc.nat(), { minLength: 1, maxLength: 40 })
      .map((picks) => picks.map((k, i) => (i === 0 || k % 4 === 0 ? -1 : Math.floor(k / 4) % i)))
    fc.assert(
      fc.property(forest, fc.nat(), (parents, seed) => {
        const { world, graph, propagate } = buildScene(parents, seed)
        propagate(world)
        expect(graph.stats.recomputed).toBe(parents.length)
        expectMatchesThree(graph)
      }),
      { numRuns: 60 },
    )
  })

  it('recomputes nothing and clears every changed flag when nothing is dirty', () => {
    const { world, graph, propagate, eids } = buildScene(TWO_HIERARCHIES)
    propagate(world)
    const before = Uint32Array.from(worldBits(graph))
    propagate(world)
    expect(graph.stats.recomputed).toBe(0)
    expect(changedNodes(graph)).toEqual([])
    expect(worldBits(graph)).toEqual(before)
    expect(eids.length).toBe(16)
  })

  it("recomputes only a changed joint and its descendants, from its clean parent's current world", () => {
    const { world, graph, propagate, eids } = buildScene(TWO_HIERARCHIES)
    propagate(world)
    const joint = eids[2]!
    const subtree = subtreeOf(graph, joint)
    expect(subtree.size).toBe(6) // 2, 3, 4, 5, 6, 7

    // Give every other node a distinct, deliberately wrong world: a recomputed one would lose it, and the
    // subtree must be built on its parent's matrix as it stands, not on one recomputed from the parent's local.
    const stored = graph.store.world
    for (const e of eids) if (!subtree.has(e)) stored[e * 16 + 12] = stored[e * 16 + 12]! + 1000 + e
    const others = eids.filter((e) => !subtree.has(e))
    const othersBefore = others.map((e) => Array.from(worldBits(graph, e, 1)))

    randomLocal(graph, joint, lcg(99))
    propagate(world)

    expect(graph.stats.recomputed).toBe(subtree.size)
    expect(changedNodes(graph)).toEqual([...subtree].sort((a, b) => a - b))
    others.forEach((e, i) => {
      expect(Array.from(worldBits(graph, e, 1)), `node ${e} untouched`).toEqual(othersBefore[i])
    })
    // Expected subtree worlds: parent's (shifted) world times the locals, in float64 with gl-matrix.
    const { translation: t, rotation: r, scale: s, parent } = graph.store
    const expected = new Map<number, mat4>()
    const worldFor = (e: number): mat4 => {
      const known = expected.get(e)
      if (known) return known
      const local = mat4.fromRotationTranslationScale(
        new Array<number>(16) as unknown as mat4,
        Array.from(r.subarray(e * 4, e * 4 + 4)),
        Array.from(t.subarray(e * 3, e * 3 + 3)),
        Array.from(s.subarray(e * 3, e * 3 + 3)),
      )
      const p = parent[e]!
      const parentWorld = subtree.has(p) ? worldFor(p) : (worldOf(graph, p) as unknown as mat4)
      const w = mat4.multiply(new Array<number>(16) as unknown as mat4, parentWorld, local)
      expected.set(e, w)
      return w
    }
    for (const e of subtree) expectMatrixClose(worldOf(graph, e), Array.from(worldFor(e)), `node ${e}`)
  })

  it('counts each node once when dirty nodes nest, and leaves the other hierarchy alone', () => {
    const { world, graph, propagate, eids } = buildScene(TWO_HIERARCHIES)
    propagate(world)
    const random = lcg(5)
    for (const i of [1, 6, 12]) randomLocal(graph, eids[i]!, random) // 6 is inside 1's subtree
    propagate(world)
    const expected = new Set([...subtreeOf(graph, eids[1]!), ...subtreeOf(graph, eids[12]!)])
    expect(expected.size).toBe(9 + 2)
    expect(graph.stats.recomputed).toBe(expected.size)
    expect(changedNodes(graph)).toEqual([...expected].sort((a, b) => a - b))
    expectMatchesThree(graph)
  })

  it('rebuilds its order after re-parenting, and only then', () => {
    const { world, graph, propagate, eids } = buildScene(TWO_HIERARCHIES)
    propagate(world)
    const builds = graph.stats.orderBuilds
    const random = lcg(7)
    for (let frame = 0; frame < 3; frame++) {
      randomLocal(graph, eids[frame]!, random)
      propagate(world)
    }
    expect(graph.stats.orderBuilds).toBe(builds)

    // Move A's branch 6 ─ 7 under B's leaf 13: the branch now hangs from a node later in the old order.
    setSceneNodeParent(graph, eids[6]!, eids[13]!)
    propagate(world)
    expect(graph.stats.orderBuilds).toBe(builds + 1)
    expect(graph.stats.recomputed).toBe(2)
    expectMatchesThree(graph)

    // Move B's root under A's deepest node: every B node depends on A's chain now.
    setSceneNodeParent(graph, eids[11]!, eids[5]!)
    randomLocal(graph, eids[0]!, random)
    propagate(world)
    expect(graph.stats.recomputed).toBe(TWO_HIERARCHIES.length - 1) // all but the lone root 15
    expectMatchesThree(graph)
  })

  it('rebuilds its order after nodes are added and removed; children of a removed node become roots', () => {
    const { world, graph, propagate, eids } = buildScene(TWO_HIERARCHIES)
    propagate(world)
    const builds = graph.stats.orderBuilds

    removeSceneNode(graph, eids[1]!) // its children 2 and 8 become roots with their own local as world
    removeEntity(world, eids[13]!)
    const added = addEntity(world)
    addSceneNode(graph, added, eids[4]!)
    randomLocal(graph, added, lcg(3))
    propagate(world)

    expect(graph.stats.orderBuilds).toBe(builds + 1)
    // 2's subtree (6 nodes), 8's subtree (2) and the new node.
    expect(graph.stats.recomputed).toBe(6 + 2 + 1)
    expect(graph.store.parent[eids[2]!]).toBe(0)
    expectMatchesThree(graph)
    expect(Array.from(graph.order.subarray(0, graph.orderLength)).sort((a, b) => a - b)).toEqual(
      Array.from(query(world, [graph.store])).sort((a, b) => a - b),
    )
  })

  it('starts a recycled entity id clean: identity local under its new parent, dirty', () => {
    const { world, graph, propagate, eids } = buildScene(TWO_HIERARCHIES)
    propagate(world)
    const leaf = eids[5]!
    removeEntity(world, leaf)
    const recycled = addEntity(world)
    expect(recycled).toBe(leaf)
    addSceneNode(graph, recycled, eids[14]!)
    expect(graph.store.dirty[recycled]).toBe(1)
    propagate(world)
    expect(graph.stats.recomputed).toBe(1)
    // Identity local: its world is its new parent's world.
    expect(worldOf(graph, recycled)).toEqual(worldOf(graph, eids[14]!))
    expectMatchesThree(graph)
  })

  it('keeps two plugins on two worlds apart', () => {
    const a = buildScene([-1, 0], 1)
    const b = buildScene([-1, 0], 2)
    const bBefore = Float32Array.from(b.graph.store.world)
    a.propagate(a.world)
    expect(a.graph.stats.recomputed).toBe(2)
    expect(b.graph.store.world).toEqual(bBefore)
    expect(b.graph.stats.recomputed).toBe(0)
    expect(b.graph.store.dirty[b.eids[0]!]).toBe(1)
  })
})
