import { addEntity, createWorld, removeEntity } from 'bitecs'
import { addSceneNode } from '../../components/SceneNode.ts'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationAsset, AssetNode } from '../../src/gltf/asset.ts'
import { problems } from '../helpers/ecs.ts'

/** A chain of nodes with the given scales; the last has translation [1, 0, 0]. */
function chain(scales: number[]): AnimationAsset {
  const nodes: AssetNode[] = scales.map((s, i) => ({
    index: i,
    name: `n${i}`,
    parent: i - 1,
    children: i + 1 < scales.length ? [i + 1] : [],
    translation: i === scales.length - 1 ? [1, 0, 0] : [0, 0, 0],
    rotation: [0, 0, 0, 1],
    scale: [s, s, s],
    weights: [],
    skin: -1,
    mesh: -1,
  }))
  return { source: 'chain', nodes, roots: [0], skeletons: [], clips: [] }
}

function nonFiniteWorlds(world: Float32Array): number {
  let n = 0
  for (let i = 0; i < world.length; i++) if (!Number.isFinite(world[i]!)) n++
  return n
}

describe('world matrices past float32 (issue 13: finite locals, non-finite products)', () => {
  it('scales 1e20 · 1e20: no NaN or ∞ in any world matrix, one event per character, others unaffected', () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 64 })
    const bad = plugin.addCharacter(chain([1e20, 1e20, 1]))
    const good = plugin.addCharacter(chain([2, 3, 1]))
    for (let i = 0; i < 5; i++) plugin.step()
    const world = plugin.stores.SceneNode.world
    expect(nonFiniteWorlds(world)).toBe(0)
    expect(problems(plugin).map((e) => [e.kind, e.entity])).toEqual([['world-non-finite', bad]])
    expect(problems(plugin)[0]!.message).toContain(`character ${bad}: 1 node(s)`)
    expect(problems(plugin)[0]!.message).toContain('joint 1 "n1"')
    // The other character's leaf sits at 2·3·1 = 6 along x.
    const leaf = plugin.jointEntity(good, 2)
    expect(world[leaf * 16 + 12]).toBe(6)
    // The refused nodes keep their last world matrix: here the identity a node starts with.
    const n1 = plugin.jointEntity(bad, 1)
    expect(Array.from(world.subarray(n1 * 16, n1 * 16 + 16))).toEqual([
      1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
    ])
  })

  it('a snapshot holding a world-non-finite event restores, event included, and steps on to the same hash', () => {
    const make = () => {
      const plugin = createAnimationPlugin(createWorld(), { capacity: 64 })
      plugin.addAsset(asset)
      return plugin
    }
    const asset = chain([1e20, 1e20, 1])
    const a = make()
    a.addCharacter(asset)
    for (let i = 0; i < 3; i++) a.step()
    expect(problems(a).map((e) => e.kind)).toEqual(['world-non-finite'])
    const b = make()
    b.restore(a.snapshot())
    expect(b.events).toEqual(a.events)
    a.step()
    b.step()
    expect(b.hash()).toBe(a.hash())
  })
})

describe('problem reports end with their character', () => {
  it('removing a character forgets its reports: the same hash and snapshot as a twin that never had one', () => {
    // Twins with the same asset and history, but one placed at scale 1e30, so its world matrices overflow
    // float32 (reported once per character lifetime) and the other's do not.
    const twin = (scale: number) => {
      const plugin = createAnimationPlugin(createWorld(), { capacity: 64 })
      const c = plugin.addCharacter(chain([1e10, 1, 1]))
      plugin.setTransform(c, { scale: [scale, scale, scale] })
      for (let i = 0; i < 3; i++) plugin.step()
      return { plugin, c }
    }
    const bad = twin(1e30)
    const good = twin(1)
    expect(problems(bad.plugin).map((e) => e.kind)).toEqual(['world-non-finite'])
    expect(problems(good.plugin)).toEqual([])
    for (const { plugin, c } of [bad, good]) {
      plugin.removeCharacter(c)
      plugin.events.length = 0
      plugin.step()
    }
    expect(bad.plugin.hash()).toBe(good.plugin.hash())
    expect(bad.plugin.snapshot()).toEqual(good.plugin.snapshot())
  })
})

describe("a game node's report ends with it", () => {
  it('a node of no character removed and its id reused: the new node is reported on its own', () => {
    const world = createWorld()
    const plugin = createAnimationPlugin(world, { capacity: 64 })
    const graph = plugin.sceneGraph
    const nodes = graph.store
    // A game's parent scaled 1e20 and a child scaled 1e20: the child's world scale overflows float32.
    const parent = addEntity(world)
    addSceneNode(graph, parent)
    const child = () => {
      const e = addEntity(world)
      addSceneNode(graph, e, parent)
      for (const s of [parent, e]) nodes.scale.fill(1e20, s * 3, s * 3 + 3)
      nodes.dirty[parent] = 1
      return e
    }
    const first = child()
    plugin.step()
    expect(problems(plugin).map((e) => [e.kind, e.entity])).toEqual([['world-non-finite', first]])
    plugin.events.length = 0
    removeEntity(world, first)
    const second = child()
    expect(second).toBe(first) // bitecs hands the id out again
    plugin.step()
    expect(problems(plugin).map((e) => [e.kind, e.entity])).toEqual([['world-non-finite', second]])
  })
})
