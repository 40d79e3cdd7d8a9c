import { addEntity, createWorld } from 'bitecs'
import { BoxGeometry, Group, Matrix4, Mesh, Object3D, Quaternion, SkinnedMesh, Vector3 } from 'three'
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { loadGltf as loadThree } from '../helpers/threeScene.ts'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  cloneSceneView,
  createThreeAdapter,
  viewOfGltf,
  type ThreeAdapter,
  type ThreeSceneView,
} from '../../adapters/three.ts'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { addSceneNode } from '../../entry/index.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const BOX = 'assets/BoxAnimated/glTF-Binary/BoxAnimated.glb'

let foxAsset: AnimationAsset
let foxGltf: GLTF
let boxAsset: AnimationAsset
let boxGltf: GLTF
beforeAll(async () => {
  ;[foxAsset, foxGltf, boxAsset, boxGltf] = await Promise.all([
    loadAsset(FOX),
    loadThree(FOX),
    loadAsset(BOX),
    loadThree(BOX),
  ])
})

interface Rig {
  plugin: AnimationPlugin
  adapter: ThreeAdapter
  /** Two Fox characters: A walks, B runs from half a second in. */
  a: number
  b: number
  viewA: ThreeSceneView
  viewB: ThreeSceneView
  /** Steps the plugin and captures, `n` times. */
  steps(n: number): void
}

function foxRig(options: { interpolate?: boolean } = {}): Rig {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 512 })
  const adapter = createThreeAdapter(plugin, options)
  const a = plugin.addCharacter(foxAsset)
  const b = plugin.addCharacter(foxAsset)
  const nodes = plugin.stores.SceneNode
  for (const [eid, x] of [
    [a, -1],
    [b, 1],
  ] as const) {
    nodes.scale.fill(0.01, eid * 3, eid * 3 + 3)
    nodes.translation[eid * 3] = x
    nodes.dirty[eid] = 1
  }
  plugin.play(a, 'Walk')
  plugin.play(b, 'Run', { time: 0.5 })
  const viewA = viewOfGltf(foxGltf)
  const viewB = cloneSceneView(viewA)
  adapter.bind(a, viewA)
  adapter.bind(b, viewB)
  return {
    plugin,
    adapter,
    a,
    b,
    viewA,
    viewB,
    steps(n) {
      for (let i = 0; i < n; i++) {
        plugin.step()
        adapter.capture()
      }
    },
  }
}

/** [object, SceneNode entity] for every object of a view that stands for something, the scene root first. */
function pairs(plugin: AnimationPlugin, character: number, view: ThreeSceneView): [Object3D, number][] {
  const out: [Object3D, number][] = [[view.scene, character]]
  for (const [o, node] of view.nodes) out.push([o, plugin.jointEntity(character, node)])
  return out
}

function worldOf(plugin: AnimationPlugin, e: number): number[] {
  return Array.from(plugin.stores.SceneNode.world.subarray(16 * e, 16 * e + 16))
}

function expectShowsSceneGraph(plugin: AnimationPlugin, character: number, view: ThreeSceneView): void {
  for (const [o, e] of pairs(plugin, character, view)) {
    expect(o.matrixWorld.elements, `${o.name || o.type} (entity ${e})`).toEqual(worldOf(plugin, e))
  }
}

function skinnedMeshOf(view: ThreeSceneView): SkinnedMesh {
  let mesh: SkinnedMesh | undefined
  view.scene.traverse((o) => {
    if (o instanceof SkinnedMesh) mesh = o
  })
  if (!mesh) throw new Error('no skinned mesh in the view')
  return mesh
}

describe('three adapter: matrices follow the scene graph', () => {
  it('after every step the bound objects hold the SceneNode world matrices, for two characters', () => {
    const rig = foxRig()
    const { plugin, adapter } = rig
    // 26 glTF nodes (all objects GLTFLoader made for them) + the scene root, per character.
    expect(rig.viewA.nodes.size).toBe(foxAsset.nodes.length)
    expect(adapter.stats.bound).toBe(2 * (foxAsset.nodes.length + 1))
    for (let i = 0; i < 40; i++) {
      rig.steps(1)
      adapter.render()
      expectShowsSceneGraph(plugin, rig.a, rig.viewA)
      expectShowsSceneGraph(plugin, rig.b, rig.viewB)
    }
    // The two characters are in different states, so their bones really differ.
    const hipA = rig.viewA.scene.getObjectByName('b_Hip_01')!
    const hipB = rig.viewB.scene.getObjectByName('b_Hip_01')!
    expect(hipA).not.toBe(hipB)
    expect(hipA.matrixWorld.elements[12]).toBeLessThan(0)
    expect(hipB.matrixWorld.elements[12]).toBeGreaterThan(0)
  })

  it("three's own matrix update (what the renderer runs) leaves the written matrices alone", () => {
    const rig = foxRig()
    rig.steps(25)
    rig.adapter.render()
    rig.viewA.scene.updateMatrixWorld(true)
    rig.viewB.scene.updateMatrixWorld(true)
    expectShowsSceneGraph(rig.plugin, rig.a, rig.viewA)
    expectShowsSceneGraph(rig.plugin, rig.b, rig.viewB)
  })

  it('the skinned mesh deforms as glTF skinning of the scene graph says (independent skinning sum)', () => {
    const rig = foxRig()
    rig.steps(17)
    rig.adapter.render()
    rig.viewB.scene.updateMatrixWorld(true) // SkinnedMesh re-derives bindMatrixInverse here
    const mesh = skinnedMeshOf(rig.viewB)
    const skeleton = foxAsset.skeletons[0]!
    // glTF: v_world = Σ_k w_k · World(joint node of skin.joints[i_k]) · IBM[i_k] · v (the mesh node's own
    // transform is ignored). IBMs and joints from our asset, reordered back to file order.
    const jointWorld: Matrix4[] = []
    for (let j = 0; j < skeleton.joints.length; j++) {
      const file = skeleton.skinJointOrder[j]!
      const e = rig.plugin.jointEntity(rig.b, skeleton.joints[j]!)
      const ibm = new Matrix4().fromArray(skeleton.inverseBindMatrices, 16 * j)
      jointWorld[file] = new Matrix4().fromArray(worldOf(rig.plugin, e)).multiply(ibm)
    }
    const position = mesh.geometry.getAttribute('position')
    const skinIndex = mesh.geometry.getAttribute('skinIndex')
    const skinWeight = mesh.geometry.getAttribute('skinWeight')
    const three = new Vector3()
    const ours = new Vector3()
    const term = new Vector3()
    let worst = 0
    for (let v = 0; v < position.count; v += 7) {
      mesh.getVertexPosition(v, three).applyMatrix4(mesh.matrixWorld)
      ours.set(0, 0, 0)
      for (let k = 0; k < 4; k++) {
        const w = skinWeight.getComponent(v, k)
        if (w === 0) continue
        term.fromBufferAttribute(position, v).applyMatrix4(jointWorld[skinIndex.getComponent(v, k)]!)
        ours.addScaledVector(term, w)
      }
      worst = Math.max(worst, three.distanceTo(ours))
    }
    // Metres (the Fox is ~1.6 m long at scale 0.01); float32 matrices give ~1e-6.
    expect(worst).toBeLessThan(1e-5)
    // And it is posed, not at rest: the vertices moved with the Run clip.
    expect(ours.x).toBeGreaterThan(0.5)
  })

  it('works for a file without skins: BoxAnimated nodes animate their meshes', () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 64 })
    const adapter = createThreeAdapter(plugin)
    const box = plugin.addCharacter(boxAsset)
    plugin.play(box, 0)
    const view = viewOfGltf(boxGltf)
    adapter.bind(box, view)
    const inner = view.scene.getObjectByName('inner_box')!
    const seen = new Set<string>()
    for (let i = 0; i < 60; i++) {
      plugin.step()
      adapter.capture()
      adapter.render()
      expectShowsSceneGraph(plugin, box, view)
      seen.add(inner.matrixWorld.elements.slice(12, 15).join())
    }
    expect(seen.size).toBeGreaterThan(30)
    adapter.unbind(adapter.bindings[0]!)
    expect(inner.matrixAutoUpdate).toBe(true)
  })
})

describe('three adapter: writes only what changed', () => {
  it('still nodes are not written: a poisoned unanimated node keeps its poison, bones are rewritten', () => {
    const rig = foxRig()
    rig.steps(3)
    rig.adapter.render()
    // Fox nodes 0 ("root") and 1 (the mesh node) have no channels; bones do.
    const root = rig.viewA.scene.getObjectByName('root')!
    const hip = rig.viewA.scene.getObjectByName('b_Hip_01')!
    root.matrixWorld.elements[13] = 999
    hip.matrixWorld.elements[13] = 999
    rig.steps(1)
    rig.adapter.render()
    expect(root.matrixWorld.elements[13]).toBe(999)
    expect(hip.matrixWorld.elements[13]).toBe(
      worldOf(rig.plugin, rig.plugin.jointEntity(rig.a, 'b_Hip_01'))[13],
    )
  })

  it('counts one upload per node whose world changed, and none for a paused character', () => {
    const rig = foxRig()
    const { plugin, adapter } = rig
    rig.steps(5)
    adapter.render()
    rig.steps(1)
    const changed = plugin.stores.SceneNode.changed
    const moved = [rig.a, rig.b].flatMap((c) => pairs(plugin, c, c === rig.a ? rig.viewA : rig.viewB))
    const expected = moved.filter(([, e]) => changed[e] === 1).length
    adapter.render()
    expect(adapter.stats.uploads).toBe(expected)
    // Bones under the clips' channels move; the character node, "root" and the mesh node do not.
    expect(expected).toBeGreaterThan(2 * 20)
    expect(expected).toBeLessThan(moved.length - 2 * 3)
    adapter.render()
    expect(adapter.stats.uploads).toBe(0) // nothing new since the last render

    plugin.play(rig.a, 'Walk', { speed: 0, time: 0.3 })
    plugin.play(rig.b, 'Run', { speed: 0, time: 0.3 })
    rig.steps(2) // the first samples the new time, the second finds nothing to do
    adapter.render()
    rig.steps(3)
    adapter.render()
    expect(adapter.stats.uploads).toBe(0)
    expectShowsSceneGraph(plugin, rig.a, rig.viewA)
  })

  it('a node that moved in an earlier step of a multi-step frame is still written', () => {
    const rig = foxRig()
    const { plugin, adapter } = rig
    plugin.play(rig.a, 'Walk', { speed: 0 })
    plugin.play(rig.b, 'Run', { speed: 0 })
    rig.steps(3)
    adapter.render()
    // One frame, two steps: the character moves in the first, nothing moves in the second.
    const nodes = plugin.stores.SceneNode
    nodes.translation[rig.a * 3 + 2] = 2.5
    nodes.dirty[rig.a] = 1
    rig.steps(2)
    const everything = pairs(plugin, rig.a, rig.viewA)
    expect(everything.every(([, e]) => nodes.changed[e] === 0)).toBe(true) // the last step changed nothing
    adapter.render()
    expect(adapter.stats.uploads).toBe(everything.length)
    expectShowsSceneGraph(plugin, rig.a, rig.viewA)
    expect(rig.viewA.scene.matrixWorld.elements[14]).toBe(2.5)
  })
})

describe('three adapter: interpolation between the last two steps', () => {
  /** Decomposes a column-major matrix with three (the independent side). */
  function trs(m: ArrayLike<number>): { t: Vector3; r: Quaternion; s: Vector3 } {
    const t = new Vector3()
    const r = new Quaternion()
    const s = new Vector3()
    new Matrix4().fromArray(Array.from(m)).decompose(t, r, s)
    return { t, r, s }
  }

  /**
   * Every object shows lerp T / slerp R / lerp S of its `before` and `after` worlds at `alpha` (R within nlerp's
   * documented θ³/10 of slerp). Returns the largest rotation θ between before and after.
   */
  function expectBlend(
    ents: [Object3D, number][],
    before: number[][],
    after: number[][],
    alpha: number,
  ): number {
    let largest = 0
    let moving = 0
    ents.forEach(([o], i) => {
      const p = trs(before[i]!)
      const c = trs(after[i]!)
      const got = trs(o.matrixWorld.elements)
      const angle = 2 * Math.acos(Math.min(1, Math.abs(p.r.dot(c.r))))
      if (angle > 1e-3) moving++
      largest = Math.max(largest, angle)
      expect(got.t.distanceTo(p.t.clone().lerp(c.t, alpha))).toBeLessThan(1e-7)
      expect(got.s.distanceTo(p.s.clone().lerp(c.s, alpha))).toBeLessThan(1e-9)
      const slerped = p.r.clone().slerp(c.r, alpha)
      const sign = Math.sign(got.r.dot(slerped)) || 1 // q and -q are the same rotation
      const err = Math.hypot(
        got.r.x - sign * slerped.x,
        got.r.y - sign * slerped.y,
        got.r.z - sign * slerped.z,
        got.r.w - sign * slerped.w,
      )
      expect(err).toBeLessThan(angle ** 3 / 10 + 1e-6)
    })
    expect(moving).toBeGreaterThan(10)
    return largest
  }

  it('alpha 0 shows the step before, alpha 1 the last step, in between ≈ lerp T / slerp R / lerp S', () => {
    const rig = foxRig()
    const { plugin, adapter } = rig
    rig.steps(10)
    const ents = pairs(plugin, rig.b, rig.viewB)
    const before = ents.map(([, e]) => worldOf(plugin, e))
    rig.steps(1)
    const after = ents.map(([, e]) => worldOf(plugin, e))

    // alpha 0: the step before, recomposed from its decomposition (float64 from float32: ~1e-9 off).
    adapter.render(0)
    ents.forEach(([o], i) => {
      o.matrixWorld.elements.forEach((x, k) => expect(x).toBeCloseTo(before[i]![k]!, 7))
    })
    adapter.render(1)
    ents.forEach(([o], i) => expect(o.matrixWorld.elements).toEqual(after[i]))
    adapter.render(1.7) // clamped
    ents.forEach(([o], i) => expect(o.matrixWorld.elements).toEqual(after[i]))

    let largest = 0
    for (const alpha of [0.25, 0.5, 0.8]) {
      adapter.render(alpha)
      largest = Math.max(largest, expectBlend(ents, before, after, alpha))
    }
    expect(largest).toBeGreaterThan(0.02) // the check covered real motion
  })

  it('a placement (setTransform) is shown at once, not interpolated across; the next step interpolates again', () => {
    const rig = foxRig()
    const { plugin, adapter } = rig
    rig.steps(10)
    const ents = pairs(plugin, rig.b, rig.viewB)
    plugin.setTransform(rig.b, { position: [40, 0, 0] })
    rig.steps(1)
    const placed = ents.map(([, e]) => worldOf(plugin, e))
    // Mid-frame the jump shows whole: every object is at its placed world matrix, not half way.
    adapter.render(0.5)
    ents.forEach(([o], i) => expect(o.matrixWorld.elements).toEqual(placed[i]))
    rig.steps(1)
    const after = ents.map(([, e]) => worldOf(plugin, e))
    for (const alpha of [0.25, 0.5]) {
      adapter.render(alpha)
      expectBlend(ents, placed, after, alpha)
    }
  })

  it('stays right step after step (decompositions reused) and across multi-step frames (recomputed)', () => {
    const rig = foxRig()
    const { plugin, adapter } = rig
    rig.steps(4)
    const ents = pairs(plugin, rig.a, rig.viewA)
    const snapshot = () => ents.map(([, e]) => worldOf(plugin, e))
    let before = snapshot()
    // One step per frame: each render blends the previous step's world (decomposed last frame) and the new one.
    for (let i = 0; i < 6; i++) {
      rig.steps(1)
      const after = snapshot()
      adapter.render(0.4)
      expectBlend(ents, before, after, 0.4)
      before = after
    }
    // Two or three steps per frame: prev is a world the adapter never decomposed.
    for (const n of [2, 3]) {
      rig.steps(n - 1)
      before = snapshot()
      rig.steps(1)
      const after = snapshot()
      adapter.render(0.7)
      expectBlend(ents, before, after, 0.7)
    }
  })

  it('a still node shows its last value whatever alpha is; interpolate:false ignores alpha', () => {
    const rig = foxRig({ interpolate: false })
    rig.steps(10)
    const ents = pairs(rig.plugin, rig.a, rig.viewA)
    rig.adapter.render(0.3)
    ents.forEach(([o, e]) => expect(o.matrixWorld.elements).toEqual(worldOf(rig.plugin, e)))

    const smooth = foxRig()
    smooth.steps(10)
    smooth.adapter.render(0.3)
    const root = smooth.viewA.scene.getObjectByName('root')!
    expect(root.matrixWorld.elements).toEqual(
      worldOf(smooth.plugin, smooth.plugin.jointEntity(smooth.a, 'root')),
    )
  })
})

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
