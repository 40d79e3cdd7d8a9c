import { addEntity, createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { addSceneNode, createSceneGraph } from '../../components/SceneNode.ts'
import { JOINT_STRIDE } from '../../components/Pose.ts'
import { applyPoseToSceneGraph, poseWriter } from '../../systems/blendPoses.ts'
import type { AnimationPlugin } from '../../entry/plugin.ts'
import {
  animLayer,
  createTestPlugin,
  expectWorldMatchesThree,
  HEAD,
  localOf,
  REST,
  sceneNodes,
  snapshotLocals,
  SPINE,
  stepN,
  vecDistance,
} from '../helpers/ecs.ts'
import { expectQuatClose, quatAt, refSlerp } from '../helpers/quat.ts'

describe('applyPoseToSceneGraph', () => {
  function setup() {
    const world = createWorld()
    const graph = createSceneGraph(world, 16)
    const eids = [0, 1, 2, 3].map(() => addEntity(world))
    for (const e of eids) addSceneNode(graph, e)
    graph.store.dirty.fill(0)
    return { graph, eids }
  }
  // Two 2-joint poses back to back in one buffer, with values distinct per float.
  const pose = Float32Array.from({ length: 4 * JOINT_STRIDE }, (_, i) => 0.5 + i)
  for (let j = 0; j < 4; j++) pose.set([0, 0, 0.6, 0.8], j * JOINT_STRIDE + 3)

  it('has one writer per scene-graph store, which writes as applyPoseToSceneGraph does', () => {
    const a = setup()
    const b = setup()
    expect(poseWriter(a.graph.store)).toBe(poseWriter(a.graph.store))
    expect(poseWriter(b.graph.store)).not.toBe(poseWriter(a.graph.store))
    expect(poseWriter(a.graph.store)(pose, a.eids, 0, 0, 4, null)).toBe(4)
    expect(applyPoseToSceneGraph(b.graph.store, pose, b.eids)).toBe(4)
    expect(a.graph.store.translation).toEqual(b.graph.store.translation)
    expect(a.graph.store.rotation).toEqual(b.graph.store.rotation)
    expect(a.graph.store.dirty).toEqual(b.graph.store.dirty)
  })

  it('makes a store’s writer without changing the store (the writer is primed on one slot, put back)', () => {
    const { graph } = setup()
    const last = graph.store.dirty.length - 1
    graph.store.translation.set([1, -0, 3], last * 3)
    graph.store.rotation.set([0, 0.6, 0, 0.8], last * 4)
    graph.store.scale.set([2, 2, Number.NaN], last * 3)
    graph.store.dirty[last] = 1
    const before = Object.values(graph.store).map((a: ArrayLike<number>) => Array.from(a))
    poseWriter(graph.store)
    const after = Object.values(graph.store).map((a: ArrayLike<number>) => Array.from(a))
    expect(after).toEqual(before) // toEqual tells −0 from 0 and matches NaN
  })

  it('writes joint j into entity jointIndices[jointStart + j], marks dirty and counts the changed ones', () => {
    const { graph, eids } = setup()
    const s = graph.store
    // Second "character": pose floats from joint 2 on, entities from index 2 on.
    expect(applyPoseToSceneGraph(s, pose, eids, 2 * JOINT_STRIDE, 2, 2)).toBe(2)
    expect(Array.from(s.dirty.subarray(eids[0]!, eids[3]! + 1))).toEqual([0, 0, 1, 1])
    const e = eids[3]!
    expect(Array.from(s.translation.subarray(e * 3, e * 3 + 3))).toEqual([30.5, 31.5, 32.5])
    expect(Array.from(s.rotation.subarray(e * 4, e * 4 + 4))).toEqual(
      Array.from(new Float32Array([0, 0, 0.6, 0.8])),
    )
    expect(Array.from(s.scale.subarray(e * 3, e * 3 + 3))).toEqual([37.5, 38.5, 39.5])
    // The first character's nodes are untouched (identity).
    expect(Array.from(s.translation.subarray(eids[0]! * 3, eids[0]! * 3 + 3))).toEqual([0, 0, 0])
  })

  it('marks nothing dirty when nothing changed, and only the joint whose one float changed', () => {
    const { graph, eids } = setup()
    const s = graph.store
    expect(applyPoseToSceneGraph(s, pose, eids)).toBe(4)
    s.dirty.fill(0)
    expect(applyPoseToSceneGraph(s, pose, eids)).toBe(0)
    expect(s.dirty.every((d) => d === 0)).toBe(true)
    for (const k of [0, 4, 9]) {
      const changed = pose.slice()
      changed[JOINT_STRIDE + k] = changed[JOINT_STRIDE + k]! + 0.25
      expect(applyPoseToSceneGraph(s, changed, eids), `float ${k}`).toBe(1)
      expect(s.dirty[eids[1]!]).toBe(1)
      expect(s.dirty[eids[0]!]! + s.dirty[eids[2]!]! + s.dirty[eids[3]!]!).toBe(0)
      applyPoseToSceneGraph(s, pose, eids)
      s.dirty.fill(0)
    }
  })
})

/**
 * Nodes whose world must be recomputed this step: local changed, or an ancestor's did (independent of the
 * system's bookkeeping: computed from value snapshots and the parent column).
 */
function expectedRecompute(plugin: AnimationPlugin, nodes: number[], before: Float32Array): Set<number> {
  const after = snapshotLocals(plugin, nodes)
  const moved = new Set<number>()
  nodes.forEach((e, i) => {
    for (let k = 0; k < 10; k++) if (!Object.is(before[i * 10 + k], after[i * 10 + k])) moved.add(e)
  })
  const parent = plugin.stores.SceneNode.parent
  const out = new Set<number>()
  for (const e of nodes) for (let a = e; a !== 0; a = parent[a]!) if (moved.has(a)) out.add(e)
  return out
}

describe('the dirty-flag contract through the whole pipeline', () => {
  it('recomputes exactly the moved joints and their descendants; world matrices equal a full three.js recompute', () => {
    const { world, plugin, handle } = createTestPlugin()
    const playing = plugin.addCharacter(handle)
    const paused = plugin.addCharacter(handle)
    const fading = plugin.addCharacter(handle)
    const once = plugin.addCharacter(handle)
    // A game node holding a character, and a game node (a hat) on the playing character's head.
    const holder = addEntity(world)
    addSceneNode(plugin.sceneGraph, holder)
    const carried = plugin.addCharacter(handle, { parent: holder })
    const hat = addEntity(world)
    addSceneNode(plugin.sceneGraph, hat, plugin.jointEntity(playing, 'head'))
    plugin.stores.SceneNode.translation[hat * 3 + 1] = 0.2

    plugin.play(playing, 'Turn')
    plugin.play(paused, 'Nod', { time: 0.2, speed: 0 })
    plugin.play(fading, 'Wag', { time: 0.5 })
    plugin.play(once, 'Nod', { loop: 'once', time: 0.4 })
    plugin.play(carried, 'Wag', { speed: 0.5 })
    const nodes = sceneNodes(plugin)
    expect(nodes.length).toBe(5 * 6 + 2)
    const { changed } = plugin.stores.SceneNode
    plugin.step()
    expect(plugin.sceneGraph.stats.recomputed).toBe(nodes.length)
    expectWorldMatchesThree(plugin)
    const pausedJoints = [paused, ...plugin.joints(paused)]
    for (let n = 2; n <= 60; n++) {
      if (n === 10) plugin.crossFade(fading, 'Turn', 0.4)
      if (n === 30) {
        // The game moves its holder: the whole carried character is recomputed.
        plugin.stores.SceneNode.translation[holder * 3] = 3
        plugin.stores.SceneNode.dirty[holder] = 1
      }
      const before = snapshotLocals(plugin, nodes)
      if (n === 30) before[nodes.indexOf(holder) * 10] = 0
      plugin.step()
      const expected = expectedRecompute(plugin, nodes, before)
      expect(plugin.sceneGraph.stats.recomputed, `step ${n}`).toBe(expected.size)
      for (const e of nodes) expect(changed[e], `node ${e}, step ${n}`).toBe(expected.has(e) ? 1 : 0)
      // The paused character is never touched again.
      for (const e of pausedJoints) expect(changed[e]).toBe(0)
      expectWorldMatchesThree(plugin)
    }
    // The once-clip has ended (0.4 + 59 steps > 0.5 s), the prop joints never move: both idle now.
    const before = snapshotLocals(plugin, nodes)
    plugin.step()
    const idle = [once, ...plugin.joints(once), plugin.jointEntity(playing, 'prop')]
    for (const e of idle) expect(changed[e]).toBe(0)
    expect(plugin.sceneGraph.stats.recomputed).toBe(expectedRecompute(plugin, nodes, before).size)
  })
})

describe('blendPoses: ragdoll weight per character', () => {
  it('blends ANIM with PHYS by each character’s own weight (lerp T/S, slerp R)', () => {
    const { plugin, handle } = createTestPlugin()
    const { Ragdoll } = plugin.stores
    const half = plugin.addCharacter(handle)
    const none = plugin.addCharacter(handle)
    const full = plugin.addCharacter(handle)
    for (const e of [half, none, full]) plugin.play(e, 'Nod', { time: 0.3, speed: 0 })
    plugin.step()
    // The PHYS layer holds the rest pose (nothing wrote it); the ragdolls themselves stay off.
    Ragdoll.weight[half] = 0.5
    Ragdoll.weight[full] = 1
    plugin.step()
    for (const [e, w] of [
      [half, 0.5],
      [none, 0],
      [full, 1],
    ] as const) {
      const anim = animLayer(plugin, e)
      const spine = localOf(plugin, plugin.jointEntity(e, 'spine'))
      expectQuatClose(spine.r, refSlerp(quatAt(anim, SPINE * JOINT_STRIDE + 3), REST[SPINE]!.r, w), 2e-6)
      const head = localOf(plugin, plugin.jointEntity(e, 'head'))
      const animHead = Array.from(anim.subarray(HEAD * JOINT_STRIDE, HEAD * JOINT_STRIDE + 3))
      const expectedHead = animHead.map((x, k) => x + (REST[HEAD]!.t[k]! - x) * w)
      expect(vecDistance(head.t, expectedHead)).toBeLessThan(1e-6)
    }
    // Paused and at a constant weight: nothing changes, nothing is recomputed.
    stepN(plugin, 2)
    expect(plugin.sceneGraph.stats.recomputed).toBe(0)
    expectWorldMatchesThree(plugin)
  })
})
