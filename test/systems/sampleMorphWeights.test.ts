/**
 * Morph weights: clip-driven weights against three.js's AnimationMixer on AnimatedMorphCube (the mesh's
 * morphTargetInfluences); the game's own weights under the clips; layers blending them (override by weight,
 * a weight-0 layer changing nothing); snapshots carrying them; the three adapter writing them.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld, query, removeComponent } from 'bitecs'
import type { Mesh } from 'three'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { loadThreeScene } from '../helpers/threeScene.ts'
import { createThreeAdapter } from '../../adapters/three.ts'

const CUBE = 'assets/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb'
const DT = 1 / 60
let cube: AnimationAsset
let node: number

beforeAll(async () => {
  cube = await loadAsset(CUBE)
  node = cube.nodes.findIndex((n) => n.weights.length > 0)
})

function setup(): { plugin: AnimationPlugin; eid: number } {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 64, physics: { ground: false } })
  return { plugin, eid: plugin.addCharacter(cube) }
}

describe('morph weights', () => {
  it('clip-driven weights agree with three.js to 1e-6 over 2 s', async () => {
    const { plugin, eid } = setup()
    plugin.play(eid, 0)
    const three = await loadThreeScene(CUBE)
    three.mixer.clipAction(three.clip(cube.clips[0]!.name)).play()
    const mesh = three.nodes[node] as Mesh
    let worst = 0
    let moved = 0
    for (let k = 1; k <= 120; k++) {
      plugin.step()
      three.mixer.update(k === 1 ? 0 : DT)
      const ours = plugin.getMorphWeights(eid, node)
      const theirs = mesh.morphTargetInfluences!
      expect(ours.length).toBe(theirs.length)
      ours.forEach((w, i) => (worst = Math.max(worst, Math.abs(w - theirs[i]!))))
      moved = Math.max(moved, ...ours.map((w) => Math.abs(w - cube.nodes[node]!.weights[0]!)))
    }
    expect(moved).toBeGreaterThan(0.1)
    expect(worst).toBeLessThan(1e-6)
  })

  it("the game's weights show over the clips; null gives them back; an override layer blends by weight", () => {
    const { plugin, eid } = setup()
    const count = cube.nodes[node]!.weights.length
    const mine = Array.from({ length: count }, (_, i) => 0.25 + 0.1 * i)
    const ref = setup()
    ref.plugin.play(ref.eid, 0, { time: 0.3 })
    plugin.play(eid, 0, { time: 0.3 })
    plugin.setMorphWeights(eid, node, mine)
    plugin.step()
    ref.plugin.step()
    expect(plugin.getMorphWeights(eid, node)).toEqual(mine.map(Math.fround))
    plugin.setMorphWeights(eid, node, null)
    plugin.setTime(eid, 0.3)
    plugin.step()
    const clip = ref.plugin.getMorphWeights(ref.eid, node)
    expect(plugin.getMorphWeights(eid, node)).toEqual(clip)

    // Layer 1 at weight 0.5 over a base that shows the file's defaults (no clip on layer 0).
    const layered = setup()
    layered.plugin.play(layered.eid, 0, { time: 0.3, layer: 1 })
    layered.plugin.setLayer(layered.eid, 1, { weight: 0.5 })
    layered.plugin.step()
    const rest = cube.nodes[node]!.weights.map(Math.fround)
    layered.plugin
      .getMorphWeights(layered.eid, node)
      .forEach((w, i) => expect(w).toBeCloseTo(rest[i]! + (clip[i]! - rest[i]!) * 0.5, 6))
    layered.plugin.setLayer(layered.eid, 1, { weight: 0 })
    layered.plugin.step()
    expect(layered.plugin.getMorphWeights(layered.eid, node)).toEqual(rest)
  })

  it('visits only characters with morph targets, before and after a game removes one', async () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256, physics: { ground: false } })
    const fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    const a = plugin.addCharacter(cube)
    const f = plugin.addCharacter(fox)
    const b = plugin.addCharacter(cube)
    const ctx = contextOf(plugin)
    const listed = () => Array.from(query(plugin.world, [ctx.morphed])).sort((x, y) => x - y)
    expect(listed()).toEqual([a, b].sort((x, y) => x - y))
    expect(f).toBeGreaterThan(0)
    plugin.play(a, 0)
    plugin.play(b, 0, { time: 0.5 })
    // The game takes a's Pose away: a leaves every character query and is skipped here; b still animates.
    removeComponent(plugin.world, a, plugin.stores.Pose)
    const before = plugin.getMorphWeights(b, node)
    for (let k = 0; k < 10; k++) plugin.step()
    expect(plugin.getMorphWeights(b, node)).not.toEqual(before)
    plugin.removeCharacter(b)
    plugin.step()
    expect(listed()).toEqual([a])
  })

  it('are in hash() and in snapshots', () => {
    const a = setup()
    a.plugin.play(a.eid, 0)
    for (let k = 0; k < 10; k++) a.plugin.step()
    const before = a.plugin.hash()
    a.plugin.setMorphWeights(
      a.eid,
      node,
      cube.nodes[node]!.weights.map(() => 0.5),
    )
    expect(a.plugin.hash()).not.toBe(before)
    const bytes = a.plugin.snapshot()
    const b = createAnimationPlugin(createWorld(), { capacity: 64, physics: { ground: false } })
    b.addAsset(cube)
    b.restore(bytes)
    expect(b.hash()).toBe(a.plugin.hash())
    for (let k = 0; k < 20; k++) {
      a.plugin.step()
      b.step()
      expect(b.hash()).toBe(a.plugin.hash())
    }
  })

  it('bad values throw AnimationError and change nothing', () => {
    const { plugin, eid } = setup()
    const before = plugin.hash()
    for (const call of [
      () => plugin.setMorphWeights(eid, node, [1]),
      () => plugin.setMorphWeights(eid, node, [NaN, 0]),
      () => plugin.setMorphWeights(eid, 'nope', [0, 0]),
      () =>
        plugin.setMorphWeights(
          eid,
          cube.nodes.findIndex((n) => n.weights.length === 0),
          [0, 0],
        ),
      () => plugin.getMorphWeights(eid, Symbol() as never),
    ]) {
      expect(call).toThrowError(expect.objectContaining({ name: 'AnimationError' }))
      expect(plugin.hash()).toBe(before)
    }
  })

  it('an unknown node, or one without targets, is refused naming the nodes that have morph targets', async () => {
    const { plugin, eid } = setup()
    const list = `nodes with morph targets: "${cube.nodes[node]!.name}" (${node}, 2 targets)`
    expect(() => plugin.setMorphWeights(eid, 'nope', [0, 0])).toThrow(
      `setMorphWeights(${eid}, "nope"): ${CUBE} has no scene node "nope"; ${list}`,
    )
    // RobotExpressive: a bone is no morph node, a name no node; its Head mesh has three expressions.
    const big = createAnimationPlugin(createWorld(), { capacity: 256 })
    const robot = big.addCharacter(await loadAsset('assets/RobotExpressive/RobotExpressive.glb'))
    const head = /; nodes with morph targets: "Head" \(\d+, 3 targets\)$/
    expect(() => big.getMorphWeights(robot, 'Neck')).toThrow(
      new RegExp(`^getMorphWeights\\(${robot}, "Neck"\\): node "Neck" has no morph targets${head.source}`),
    )
    expect(() => big.setMorphWeights(robot, 'Face', [0, 0, 0])).toThrow(head)
    // A file without morph targets says so.
    const fox = big.addCharacter(await loadAsset('assets/Fox/glTF-Binary/Fox.glb'))
    expect(() => big.setMorphWeights(fox, 'b_Head_05', [0])).toThrow(
      /has no morph targets; assets\/Fox\/glTF-Binary\/Fox.glb has no node with morph targets$/,
    )
  })

  it("the three adapter writes them into the mesh's morphTargetInfluences", async () => {
    const { plugin, eid } = setup()
    plugin.play(eid, 0, { time: 0.5 })
    const three = await loadThreeScene(CUBE)
    const nodes = new Map(three.nodes.map((o, i) => [o, i] as const))
    const adapter = createThreeAdapter(plugin)
    adapter.bind(eid, { scene: three.scene, nodes })
    plugin.step()
    adapter.capture()
    adapter.render()
    const mesh = three.nodes[node] as Mesh
    expect(Array.from(mesh.morphTargetInfluences!)).toEqual(plugin.getMorphWeights(eid, node))
  })
})
