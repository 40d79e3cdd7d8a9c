/**
 * The three.js adapter (adapters/three.ts): what it writes: the bound objects' matrices follow the scene
 * graph (skinning included), only what changed is written, and a frame shows an interpolation between the last
 * two steps.
 * Setup: test/helpers/threeAdapter.ts.
 */
import { createWorld } from 'bitecs'
import { Matrix4, Object3D, Quaternion, Vector3 } from 'three'
import { beforeAll, describe, expect, it } from 'vitest'
import { createThreeAdapter, viewOfGltf } from '../../adapters/three.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import {
  foxAsset,
  boxAsset,
  boxGltf,
  loadAssets,
  foxRig,
  pairs,
  worldOf,
  expectShowsSceneGraph,
  skinnedMeshOf,
} from '../helpers/threeAdapter.ts'

beforeAll(loadAssets)

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
