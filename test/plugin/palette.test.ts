/**
 * The skinning palette (writePalette) against three.js: GLTFLoader's SkinnedMeshes of the same file, their
 * `Skeleton.update()` → `boneMatrices`, skin by skin.
 *
 * - Same pose: the adapter writes our world matrices into three's bones, so three multiplies the same inputs:
 *   the palette must be three's boneMatrices bit for bit (same products, same order, one float32 rounding).
 * - Independent: three's own AnimationMixer plays the same clip on its own copy of the file, at several times
 *   (our first step after play shows the start time, three's `update(0)`; see test/entry/fox.test.ts), and its
 *   boneMatrices are compared with our palette to 1e-5 of the matrix's largest element.
 */
import { execFileSync } from 'node:child_process'
import { createWorld } from 'bitecs'
import { AnimationMixer, SkinnedMesh, type Object3D } from 'three'
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { describe, expect, it } from 'vitest'
import { loadGltf as loadThree } from '../helpers/threeScene.ts'
import { createThreeAdapter, viewOfGltf } from '../../adapters/three.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError } from '../../src/errors.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { HANG_MS } from '../helpers/hang.ts'
import { ALLOCATION_NODE_FLAGS } from '../helpers/heapWindows.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const ROBOT = 'assets/RobotExpressive/RobotExpressive.glb'
const FIGURE = 'assets/RiggedFigure/glTF-Binary/RiggedFigure.glb'
const DT = 1 / 60

/** Every SkinnedMesh of the file with its asset skin index (from its glTF node, or its Group's). */
function skinnedMeshes(gltf: GLTF, asset: AnimationAsset): { mesh: SkinnedMesh; skin: number }[] {
  const out: { mesh: SkinnedMesh; skin: number }[] = []
  gltf.scene.traverse((o: Object3D) => {
    if (!(o instanceof SkinnedMesh)) return
    const node = gltf.parser.associations.get(o)?.nodes ?? gltf.parser.associations.get(o.parent!)?.nodes
    out.push({ mesh: o, skin: asset.nodes[node!]!.skin })
  })
  return out
}

/** Largest |ours − three| over a skin's matrices, each divided by max(1, the largest |element| of three's). */
function worstRelative(ours: Float32Array, start: number, three: Float32Array): number {
  let worst = 0
  for (let m = 0; m < three.length / 16; m++) {
    let scale = 1
    for (let k = 0; k < 16; k++) scale = Math.max(scale, Math.abs(three[16 * m + k]!))
    for (let k = 0; k < 16; k++) {
      const d = Math.abs(ours[16 * (start + m) + k]! - three[16 * m + k]!) / scale
      worst = Number.isNaN(d) ? Infinity : Math.max(worst, d)
    }
  }
  return worst
}

describe('writePalette', () => {
  it('lays out every skin in asset order, joints in file order (RobotExpressive: two skins)', async () => {
    const asset = await loadAsset(ROBOT)
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
    const handle = plugin.addAsset(asset)
    const eid = plugin.addCharacter(handle)
    const layout = plugin.paletteLayout(eid)
    expect(layout.skins.map((s) => [s.start, s.count])).toEqual([
      [0, asset.skeletons[0]!.joints.length],
      [asset.skeletons[0]!.joints.length, asset.skeletons[1]!.joints.length],
    ])
    expect(layout.matrices).toBe(asset.skeletons[0]!.joints.length + asset.skeletons[1]!.joints.length)
    expect(plugin.paletteLayout(handle)).toBe(layout)
    expect(plugin.paletteLayout(asset)).toBe(layout)
  })

  for (const file of [FOX, ROBOT, FIGURE]) {
    it(`${file.split('/').pop()}: three's boneMatrices for our world matrices, bit for bit`, async () => {
      const asset = await loadAsset(file)
      const gltf = await loadThree(file)
      const plugin = createAnimationPlugin(createWorld(), { capacity: 512, physics: { ground: false } })
      const eid = plugin.addCharacter(asset)
      // A placed character: the palette is in world space.
      plugin.setTransform(eid, { position: [1, 2, -3], rotation: [0, 0.6, 0, 0.8], scale: [0.5, 0.5, 0.5] })
      plugin.play(eid, asset.clips.length - 1, { time: 0.3 })
      const adapter = createThreeAdapter(plugin, { interpolate: false })
      adapter.bind(eid, viewOfGltf(gltf))
      const layout = plugin.paletteLayout(eid)
      const palette = new Float32Array(16 * layout.matrices + 5)
      const meshes = skinnedMeshes(gltf, asset)
      expect(meshes.length).toBeGreaterThan(0)
      let compared = 0
      for (let k = 0; k < 12; k++) {
        plugin.step()
        adapter.capture()
        adapter.render()
        plugin.writePalette(palette, eid, 5)
        for (const { mesh, skin } of meshes) {
          mesh.skeleton.update()
          const slice = layout.skins[skin]!
          expect(mesh.skeleton.bones.length).toBe(slice.count)
          const ours = palette.subarray(5 + 16 * slice.start, 5 + 16 * (slice.start + slice.count))
          expect(Array.from(ours)).toEqual(Array.from(mesh.skeleton.boneMatrices!))
          compared++
        }
      }
      expect(compared).toBe(12 * meshes.length)
    })

    it(`${file.split('/').pop()}: three's AnimationMixer and Skeleton.update() at several times, to 1e-5`, async () => {
      const asset = await loadAsset(file)
      const gltf = await loadThree(file)
      const plugin = createAnimationPlugin(createWorld(), { capacity: 512, physics: { ground: false } })
      const eid = plugin.addCharacter(asset)
      const layout = plugin.paletteLayout(eid)
      const palette = new Float32Array(16 * layout.matrices)
      const meshes = skinnedMeshes(gltf, asset)
      const mixer = new AnimationMixer(gltf.scene)
      let worst = 0
      // Every clip of the file, each sampled at several times from a start of 0.1 s.
      for (let c = 0; c < Math.min(asset.clips.length, 4); c++) {
        const clip = gltf.animations[c]!
        mixer.stopAllAction()
        const action = mixer.clipAction(clip)
        action.reset()
        action.time = 0.1
        action.play()
        plugin.play(eid, c, { time: 0.1 })
        for (let k = 1; k <= 40; k++) {
          plugin.step()
          mixer.update(k === 1 ? 0 : DT)
          if (k % 7 !== 1) continue
          gltf.scene.updateMatrixWorld(true)
          plugin.writePalette(palette, eid)
          for (const { mesh, skin } of meshes) {
            mesh.skeleton.update()
            worst = Math.max(
              worst,
              worstRelative(palette, layout.skins[skin]!.start, mesh.skeleton.boneMatrices!),
            )
          }
        }
      }
      expect(worst).toBeLessThan(1e-5)
    })
  }

  it('refuses a bad out, offset or character and writes nothing', async () => {
    const asset = await loadAsset(FOX)
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
    const eid = plugin.addCharacter(asset)
    plugin.play(eid, 'Walk')
    plugin.step()
    const floats = 16 * plugin.paletteLayout(eid).matrices
    const out = new Float32Array(floats + 1).fill(7)
    for (const [o, offset] of [
      [new Float64Array(floats), 0],
      [[] as unknown as Float32Array, 0],
      [out, 2],
      [out, -1],
      [out, 0.5],
      [new Float32Array(floats - 1), 0],
    ] as const) {
      expect(() => plugin.writePalette(o as Float32Array, eid, offset)).toThrow(AnimationError)
    }
    expect(() => plugin.writePalette(out, 9999)).toThrow(AnimationError)
    expect(out.every((x) => x === 7)).toBe(true)
    plugin.writePalette(out, eid, 1)
    expect(out[0]).toBe(7)
    expect(out.subarray(1).some((x) => x !== 7)).toBe(true)
  })
  it('allocates nothing per call, nor does an instanced crowd per step', () => {
    // Measured in a process of its own (test/helpers/paletteAllocation.ts).
    const out = execFileSync(
      process.execPath,
      [...ALLOCATION_NODE_FLAGS, '--import', 'tsx', 'test/helpers/paletteAllocation.ts'],
      { encoding: 'utf8', timeout: HANG_MS },
    )
    const { palette, crowd, control } = JSON.parse(out) as { palette: number; crowd: number; control: number }
    expect(palette).toBe(0)
    expect(crowd).toBe(0)
    // The control: each call copies 26 joint ids into a new array (~170 B).
    expect(control).toBeGreaterThan(100)
  })
})
