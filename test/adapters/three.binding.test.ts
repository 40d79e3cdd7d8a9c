/**
 * The three.js adapter (adapters/three.ts): binding and unbinding views and clones, and objects bound to
 * entities (props on joints, the game's nodes).
 * Setup: test/helpers/threeAdapter.ts.
 */
import { addEntity } from 'bitecs'
import { BoxGeometry, Group, Matrix4, Mesh, Object3D, Quaternion, Vector3 } from 'three'
import { beforeAll, describe, expect, it } from 'vitest'
import { cloneSceneView, viewOfGltf, type ThreeSceneView } from '../../adapters/three.ts'
import { AnimationError } from '../../src/errors.ts'
import { addSceneNode } from '../../entry/index.ts'
import {
  foxAsset,
  foxGltf,
  boxAsset,
  loadAssets,
  foxRig,
  worldOf,
  expectShowsSceneGraph,
  skinnedMeshOf,
} from '../helpers/threeAdapter.ts'

beforeAll(loadAssets)

describe('three adapter: binding', () => {
  it('rejects a non-character, a view bound twice, and a view whose nodes the character lacks', () => {
    const rig = foxRig()
    expect(() => rig.adapter.bind(9999, cloneSceneView(rig.viewA))).toThrow(
      new AnimationError(
        'argument',
        'ThreeAdapter.bind(9999): entity 9999 is not a character of this plugin',
      ),
    )
    expect(() => rig.adapter.bind(rig.b, rig.viewA)).toThrow(
      `ThreeAdapter.bind(${rig.b}): this view's scene is already bound (clone it with cloneSceneView)`,
    )
    // Fox nodes 0, 2, 3 exist in BoxAnimated's 4-node scene too; node 4 (b_Hip_01) is the first that does not.
    const box = rig.plugin.addCharacter(boxAsset)
    expect(() => rig.adapter.bind(box, cloneSceneView(rig.viewA))).toThrow(
      `ThreeAdapter.bind(${box}): object "b_Hip_01" stands for glTF node 4, which is not in the character's scene`,
    )
    expect(rig.adapter.bindings.length).toBe(2) // nothing half-bound
  })

  it('cloneSceneView maps every cloned object to the same node, with its own bones', () => {
    const copy = cloneSceneView(viewOfGltf(foxGltf))
    const source = viewOfGltf(foxGltf)
    const names = (v: ThreeSceneView) => [...v.nodes].map(([o, n]) => `${n}:${o.name}`).sort()
    expect(names(copy)).toEqual(names(source))
    for (const o of copy.nodes.keys()) expect(source.nodes.has(o)).toBe(false)
    const mesh = skinnedMeshOf(copy)
    for (const bone of mesh.skeleton.bones) expect(copy.nodes.has(bone)).toBe(true)
  })

  it('unbind gives the objects back to three and stops writing them', () => {
    const rig = foxRig()
    rig.steps(2)
    rig.adapter.render()
    const binding = rig.adapter.bindings.find((b) => b.character === rig.a)!
    rig.adapter.unbind(binding)
    expect(rig.adapter.stats.bound).toBe(foxAsset.nodes.length + 1)
    expect(binding.objects.every((o) => o.matrixAutoUpdate && o.matrixWorldAutoUpdate)).toBe(true)
    const hip = rig.viewA.scene.getObjectByName('b_Hip_01')!
    hip.matrixWorld.elements[13] = 999
    rig.steps(1)
    rig.adapter.render()
    expect(hip.matrixWorld.elements[13]).toBe(999)
    expectShowsSceneGraph(rig.plugin, rig.b, rig.viewB) // the other one is still driven
    expect(() => rig.adapter.unbind(binding)).toThrow(`ThreeAdapter.unbind(${rig.a}): not bound here`)
  })
})

describe('three adapter: objects bound to entities (props on joints, nodes of the game)', () => {
  /** A Fox rig plus a sword on the right hand: a grip node of the game's own under the hand joint. */
  function swordRig() {
    const rig = foxRig()
    const { plugin } = rig
    const hand = plugin.jointEntity(rig.b, 'b_RightHand_08')
    const grip = addEntity(plugin.world)
    addSceneNode(plugin.sceneGraph, grip, hand)
    const nodes = plugin.stores.SceneNode
    // The hand's world has the character's 0.01 scale: the grip undoes it and sits 5 cm along the hand.
    nodes.translation.set([5, 0, 0], grip * 3)
    nodes.rotation.set([0, 0, Math.SQRT1_2, Math.SQRT1_2], grip * 4)
    nodes.scale.fill(100, grip * 3, grip * 3 + 3)
    nodes.dirty[grip] = 1
    const sword = new Mesh(new BoxGeometry(0.02, 0.6, 0.02))
    const pommel = new Object3D() // an unbound child: follows the sword through three's own update
    pommel.position.set(0, -0.3, 0)
    sword.add(pommel)
    const onHand = new Object3D() // bound to the joint entity itself
    return { ...rig, hand, grip, sword, pommel, onHand }
  }

  it("after capture/render an object's matrixWorld is its entity's world matrix, joint or game node", () => {
    const r = swordRig()
    const gripBinding = r.adapter.bindObject(r.grip, r.sword)
    r.adapter.bindObject(r.hand, r.onHand)
    expect(gripBinding).toEqual({ entity: r.grip, object: r.sword })
    expect(r.adapter.objectBindings.map((b) => b.entity)).toEqual([r.grip, r.hand])
    expect(r.adapter.stats.bound).toBe(2 * (foxAsset.nodes.length + 1) + 2)
    const handBone = [...r.viewB.nodes].find(([o]) => o.name === 'b_RightHand_08')![0]
    const seen = new Set<string>()
    for (let i = 0; i < 30; i++) {
      r.steps(1)
      r.adapter.render()
      expect(r.sword.matrixWorld.elements).toEqual(worldOf(r.plugin, r.grip))
      expect(r.onHand.matrixWorld.elements).toEqual(worldOf(r.plugin, r.hand))
      expect(r.onHand.matrixWorld.elements).toEqual(handBone.matrixWorld.elements)
      seen.add(r.sword.matrixWorld.elements.slice(12, 15).join())
    }
    expect(seen.size).toBeGreaterThan(20) // the hand really moved it
    // The grip's world is the hand's world times the grip's local offset (three composes the independent side).
    const expected = new Matrix4()
      .fromArray(worldOf(r.plugin, r.hand))
      .multiply(
        new Matrix4().compose(
          new Vector3(5, 0, 0),
          new Quaternion(0, 0, Math.SQRT1_2, Math.SQRT1_2),
          new Vector3(100, 100, 100),
        ),
      )
    r.sword.matrixWorld.elements.forEach((x, k) => expect(x).toBeCloseTo(expected.elements[k]!, 5))
    // Metre scale again (float32 round trip of 0.01 · 100).
    expect(new Vector3().setFromMatrixScale(r.sword.matrixWorld).x).toBeCloseTo(1, 5)
    // Where the sword hangs in three does not matter; its unbound children follow it.
    const scene = new Group()
    scene.position.set(7, 7, 7)
    scene.add(r.sword)
    scene.updateMatrixWorld(true)
    expect(r.sword.matrixWorld.elements).toEqual(worldOf(r.plugin, r.grip))
    expect(r.pommel.matrixWorld.elements).toEqual(
      r.sword.matrixWorld.clone().multiply(r.pommel.matrix).elements,
    )
  })

  it('is interpolated like the bones: at alpha 0.4 the object on the hand joint shows what the hand bone shows', () => {
    const r = swordRig()
    r.adapter.bindObject(r.hand, r.onHand)
    r.adapter.bindObject(r.grip, r.sword)
    const handBone = [...r.viewB.nodes].find(([o]) => o.name === 'b_RightHand_08')![0]
    r.steps(8)
    const before = worldOf(r.plugin, r.grip)
    r.steps(1)
    const after = worldOf(r.plugin, r.grip)
    r.adapter.render(0.4)
    expect(r.onHand.matrixWorld.elements).toEqual(handBone.matrixWorld.elements)
    expect(r.onHand.matrixWorld.elements).not.toEqual(worldOf(r.plugin, r.hand))
    // Between the two steps: the translation lerped.
    for (let k = 12; k < 15; k++) {
      expect(r.sword.matrixWorld.elements[k]).toBeCloseTo(0.6 * before[k]! + 0.4 * after[k]!, 6)
    }
    r.adapter.render(1)
    expect(r.sword.matrixWorld.elements).toEqual(after)
  })

  it('unbind hands the object back to three; the other bindings keep their slots', () => {
    const r = swordRig()
    const sword = r.adapter.bindObject(r.grip, r.sword)
    r.adapter.bindObject(r.hand, r.onHand)
    r.steps(2)
    r.adapter.render()
    // Unbinding a character bound before the objects moves their slots down: they must still be right.
    r.adapter.unbind(r.adapter.bindings.find((b) => b.character === r.a)!)
    r.steps(3)
    r.adapter.render()
    expect(r.sword.matrixWorld.elements).toEqual(worldOf(r.plugin, r.grip))
    expect(r.onHand.matrixWorld.elements).toEqual(worldOf(r.plugin, r.hand))
    expectShowsSceneGraph(r.plugin, r.b, r.viewB)

    r.adapter.unbind(sword)
    expect(r.adapter.objectBindings.map((b) => b.object)).toEqual([r.onHand])
    expect(r.sword.matrixAutoUpdate && r.sword.matrixWorldAutoUpdate).toBe(true)
    r.sword.matrixWorld.elements[13] = 999
    r.steps(1)
    r.adapter.render()
    expect(r.sword.matrixWorld.elements[13]).toBe(999)
    expect(r.onHand.matrixWorld.elements).toEqual(worldOf(r.plugin, r.hand))
    expect(() => r.adapter.unbind(sword)).toThrow(
      new AnimationError('argument', `ThreeAdapter.unbind(${r.grip}): not bound here`),
    )
    // Bound again, it shows the entity at once (before any new step).
    r.adapter.bindObject(r.grip, r.sword)
    r.adapter.render()
    expect(r.sword.matrixWorld.elements).toEqual(worldOf(r.plugin, r.grip))
  })

  it('rejects entities that are not SceneNodes of the world and objects that already have a writer', () => {
    const r = swordRig()
    const plain = addEntity(r.plugin.world) // an entity of the game's without a SceneNode
    const notNode = (e: number) =>
      new AnimationError(
        'argument',
        `ThreeAdapter.bindObject(${e}): entity ${e} is not a SceneNode of this plugin's world (a joint from ` +
          'plugin.jointEntity, or a node made with addSceneNode(plugin.sceneGraph, entity, parent))',
      )
    for (const e of [plain, 0, -1, 1.5, 512, 1e9, NaN]) {
      expect(() => r.adapter.bindObject(e, r.sword)).toThrow(notNode(e))
    }
    r.adapter.bindObject(r.grip, r.sword)
    expect(() => r.adapter.bindObject(r.hand, r.sword)).toThrow(
      `ThreeAdapter.bindObject(${r.hand}): object "Mesh" is already driven by another binding (unbind it first)`,
    )
    const bone = r.viewA.scene.getObjectByName('b_Head_05')!
    expect(() => r.adapter.bindObject(r.hand, bone)).toThrow(
      `ThreeAdapter.bindObject(${r.hand}): object "b_Head_05" is already driven by another binding (unbind it first)`,
    )
    // And the other way round: a view holding an object that bindObject drives is refused whole.
    const copy = cloneSceneView(viewOfGltf(foxGltf))
    const head = copy.scene.getObjectByName('b_Head_05')!
    r.adapter.bindObject(r.hand, head)
    const fox = r.plugin.addCharacter(foxAsset)
    expect(() => r.adapter.bind(fox, copy)).toThrow(
      `ThreeAdapter.bind(${fox}): object "b_Head_05" of this view is already driven by another binding`,
    )
    // Nothing half-bound: the two Foxes, the sword and the head.
    expect(r.adapter.bindings.length).toBe(2)
    expect(r.adapter.stats.bound).toBe(2 * (foxAsset.nodes.length + 1) + 2)
  })
})
