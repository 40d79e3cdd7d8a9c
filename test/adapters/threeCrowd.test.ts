/**
 * The instanced crowd (adapters/threeCrowd.ts) in Node, without a GPU: what it hands three (the palette
 * texture's rows, instance matrices, the patched shader) checked against three's own non-instanced path for
 * the same characters (GLTFLoader's objects bound by the adapter): the shader's skinning formula evaluated on
 * the CPU with the texture's rows must put every vertex where three's SkinnedMesh puts it
 * (`getVertexPosition`, then the mesh's world matrix). (RobotExpressive's two skins are the same joints with the
 * same inverse binds: a hand given the other hand's slice of the palette would pass there, not on the Fox.) The GPU half (the GLSL itself, one draw call, the
 * picture) is e2e/demo.e2e.test.ts's.
 */
import { createWorld } from 'bitecs'
import {
  Matrix4,
  type BufferAttribute,
  MeshBasicMaterial,
  MeshLambertMaterial,
  MeshPhongMaterial,
  MeshPhysicalMaterial,
  MeshStandardMaterial,
  MeshToonMaterial,
  ShaderLib,
  SkinnedMesh,
  Vector3,
  Vector4,
  type InstancedMesh,
  type Mesh,
  type Object3D,
  type WebGLProgramParametersWithUniforms,
} from 'three'
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  cloneSceneView,
  createInstancedCrowd,
  createThreeAdapter,
  viewOfGltf,
  type ThreeSceneView,
} from '../../adapters/three.ts'
import { CROWD_SKINNING } from '../../adapters/threeCrowd.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { loadGltf } from '../helpers/threeScene.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const ROBOT = 'assets/RobotExpressive/RobotExpressive.glb'

interface Loaded {
  asset: AnimationAsset
  gltf: GLTF
}
const files: Record<string, Loaded> = {}
beforeAll(async () => {
  for (const f of [FOX, ROBOT]) files[f] = { asset: await loadAsset(f), gltf: await loadGltf(f) }
})

/** A plugin with `n` characters of the file, placed apart, each playing a clip from its own time. */
function setup(file: string, n: number) {
  const { asset, gltf } = files[file]!
  const plugin = createAnimationPlugin(createWorld(), { capacity: 4096, physics: { ground: false } })
  const handle = plugin.addAsset(asset)
  const ids: number[] = []
  for (let i = 0; i < n; i++) {
    const eid = plugin.addCharacter(handle)
    plugin.setTransform(eid, {
      position: [3 * i, 0, -i],
      rotation: [0, Math.sin(i * 0.4), 0, Math.cos(i * 0.4)],
      scale: [0.01 + 0.005 * i, 0.01 + 0.005 * i, 0.01 + 0.005 * i],
    })
    plugin.play(eid, i % asset.clips.length, { time: 0.13 * i })
    ids.push(eid)
  }
  const template = viewOfGltf(gltf)
  return { plugin, handle, ids, template, asset }
}

/** Meshes of a view with their glTF node (the nearest ancestor that is one). */
function meshesOf(view: ThreeSceneView): { mesh: Mesh; node: number }[] {
  const out: { mesh: Mesh; node: number }[] = []
  view.scene.traverse((o: Object3D) => {
    if (!(o as Mesh).isMesh) return
    let p: Object3D | null = o
    while (p && !view.nodes.has(p)) p = p.parent
    out.push({ mesh: o as Mesh, node: view.nodes.get(p!)! })
  })
  return out
}

/**
 * Where the crowd's shader puts vertex `v` of instance `i` (CROWD_SKINNING, evaluated here in double), from
 * what the crowd hands three: the mesh's uniforms and the palette texture's row i.
 */
function crowdVertex(crowd: InstancedMesh, i: number, v: number): Vector3 {
  const { palette, start, bind, rowFloats } = crowdUniforms(crowd)
  const g = crowd.geometry
  const p = new Vector4().fromBufferAttribute(g.attributes.position as BufferAttribute, v)
  p.w = 1
  p.applyMatrix4(bind)
  const index = new Vector4().fromBufferAttribute(g.attributes.skinIndex as BufferAttribute, v)
  const weight = new Vector4().fromBufferAttribute(g.attributes.skinWeight as BufferAttribute, v)
  const out = new Vector4(0, 0, 0, 0)
  const bone = new Matrix4()
  for (let k = 0; k < 4; k++) {
    const w = weight.getComponent(k)
    if (w === 0) continue
    const m = i * rowFloats + 16 * (start + index.getComponent(k))
    bone.fromArray(palette, m)
    const q = p.clone().applyMatrix4(bone).multiplyScalar(w)
    out.add(q)
  }
  return new Vector3(out.x, out.y, out.z)
}

describe('createInstancedCrowd', () => {
  for (const file of [FOX, ROBOT]) {
    it(`${file.split('/').pop()}: every vertex where three's SkinnedMesh and bound meshes put it`, () => {
      const { plugin, handle, ids, template } = setup(file, 4)
      const crowd = createInstancedCrowd(plugin, handle, template, { interpolate: false })
      for (const eid of ids) crowd.add(eid)
      // three's own path for the same characters: a clone of the file per character, bound by the adapter.
      const adapter = createThreeAdapter(plugin, { interpolate: false })
      const views = ids.map((eid) => {
        const view = cloneSceneView(template)
        adapter.bind(eid, view)
        return view
      })
      const templateMeshes = meshesOf(template)
      expect(crowd.meshes.length).toBe(templateMeshes.length)
      let worst = 0
      let compared = 0
      for (let k = 0; k < 30; k++) {
        plugin.step()
        crowd.capture()
        adapter.capture()
        if (k % 10 !== 9) continue
        crowd.render(1)
        adapter.render(1)
        ids.forEach((eid, i) => {
          const view = views[i]!
          view.scene.updateMatrixWorld(true)
          const size = plugin.stores.SceneNode.scale[3 * eid]! * 200 // the Fox is ~150 units; the robot ~5
          meshesOf(view).forEach(({ mesh }, m) => {
            const instanced = crowd.meshes[m]!
            expect(instanced.count).toBe(ids.length)
            if (mesh instanceof SkinnedMesh) {
              mesh.skeleton.update()
              const count = mesh.geometry.attributes.position!.count
              for (let v = 0; v < count; v += Math.max(1, Math.floor(count / 60))) {
                const theirs = mesh.getVertexPosition(v, new Vector3()).applyMatrix4(mesh.matrixWorld)
                const ours = crowdVertex(instanced, i, v)
                worst = Math.max(worst, ours.distanceTo(theirs) / size)
                compared++
              }
            } else {
              const ours = new Matrix4().fromArray(instanced.instanceMatrix.array, 16 * i)
              const theirs = mesh.matrixWorld
              for (let e = 0; e < 16; e++) {
                worst = Math.max(worst, Math.abs(ours.elements[e]! - theirs.elements[e]!) / size)
              }
              compared++
            }
          })
        })
      }
      expect(compared).toBeGreaterThan(100)
      expect(worst).toBeLessThan(1e-5)
      crowd.dispose()
    })
  }

  it('texture rows are the characters’ palettes; removal moves the last into the gap; render lerps', () => {
    const { plugin, handle, ids, template } = setup(FOX, 3)
    const crowd = createInstancedCrowd(plugin, handle, template, { capacity: 8 })
    for (const eid of ids) crowd.add(eid)
    const row = 16 * plugin.paletteLayout(handle).matrices
    const texture = paletteData(crowd.meshes[0]!)
    expect(texture.length).toBe(8 * row)
    const palettes = (): Float32Array[] =>
      crowd.characters.map((eid) => {
        const out = new Float32Array(row)
        plugin.writePalette(out, eid)
        return out
      })
    plugin.step()
    crowd.capture()
    const before = palettes()
    plugin.step()
    crowd.capture()
    const after = palettes()
    crowd.render(1)
    after.forEach((p, i) =>
      expect(Array.from(texture.subarray(i * row, (i + 1) * row))).toEqual(Array.from(p)),
    )
    crowd.render(0.25)
    for (let i = 0; i < 3; i++) {
      for (let k = 0; k < row; k += 7) {
        const want = before[i]![k]! + 0.25 * (after[i]![k]! - before[i]![k]!)
        expect(texture[i * row + k]).toBeCloseTo(want, 4)
      }
    }
    expect(before.some((p, i) => p.some((x, k) => x !== after[i]![k]))).toBe(true)

    crowd.remove(ids[0]!)
    expect(crowd.characters).toEqual([ids[2], ids[1]])
    expect(crowd.meshes[0]!.count).toBe(2)
    crowd.render(1)
    expect(Array.from(texture.subarray(0, row))).toEqual(Array.from(after[2]!))
    // A teleport shows at once, whatever alpha is.
    plugin.setTransform(ids[1]!, { position: [40, 0, 0] })
    plugin.step()
    crowd.capture()
    crowd.render(0)
    const moved = palettes()
    expect(Array.from(texture.subarray(row, 2 * row))).toEqual(Array.from(moved[1]!))
  })

  it('capture rewrites the characters the step moved and keeps the others, every row right', () => {
    const { plugin, handle, ids, template } = setup(FOX, 4)
    const crowd = createInstancedCrowd(plugin, handle, template, { interpolate: false })
    for (const eid of ids) crowd.add(eid)
    plugin.pause(ids[1]!)
    plugin.setLod({ near: 0, far: 0 }) // every character held three steps in four
    const row = 16 * plugin.paletteLayout(handle).matrices
    const texture = paletteData(crowd.meshes[0]!)
    const out = new Float32Array(row)
    let kept = 0
    for (let k = 0; k < 12; k++) {
      if (k === 6) plugin.setTransform(ids[1]!, { position: [-5, 1, 2] }) // the paused one moves
      const before = Float32Array.from(texture)
      plugin.step()
      crowd.capture()
      crowd.render(1)
      crowd.characters.forEach((eid, i) => {
        plugin.writePalette(out, eid)
        expect(Array.from(texture.subarray(i * row, (i + 1) * row)), `row ${i} after step ${k}`).toEqual(
          Array.from(out),
        )
        if (texture.subarray(i * row, (i + 1) * row).every((x, j) => x === before[i * row + j])) kept++
      })
    }
    expect(kept).toBeGreaterThan(20)
  })

  it('refuses what it cannot show', () => {
    const { plugin, handle, ids, template } = setup(FOX, 3)
    const crowd = createInstancedCrowd(plugin, handle, template, { capacity: 2 })
    crowd.add(ids[0]!)
    expect(() => crowd.add(ids[0]!)).toThrow(AnimationError)
    expect(() => crowd.add(9999)).toThrow(AnimationError)
    const robot = plugin.addCharacter(files[ROBOT]!.asset)
    expect(() => crowd.add(robot)).toThrow(AnimationError)
    crowd.add(ids[1]!)
    expect(() => crowd.add(ids[2]!)).toThrow(/full/)
    expect(() => crowd.remove(ids[2]!)).toThrow(AnimationError)
    expect(() => createInstancedCrowd(plugin, handle, template, { capacity: 0 })).toThrow(AnimationError)
    expect(() => createInstancedCrowd(plugin, files[ROBOT]!.asset, template)).not.toThrow()
    const other = createAnimationPlugin(createWorld())
    expect(() => createInstancedCrowd(other, handle, template)).toThrow(AnimationError)
  })

  it("replaces the four skinning chunks of every lit and unlit material three's skinned meshes use", () => {
    const { plugin, handle, template } = setup(FOX, 1)
    const skinned = meshesOf(template).find(({ mesh }) => mesh instanceof SkinnedMesh)!.mesh
    const kinds = [
      [MeshStandardMaterial, ShaderLib.standard],
      [MeshPhysicalMaterial, ShaderLib.physical],
      [MeshLambertMaterial, ShaderLib.lambert],
      [MeshPhongMaterial, ShaderLib.phong],
      [MeshToonMaterial, ShaderLib.toon],
      [MeshBasicMaterial, ShaderLib.basic],
    ] as const
    for (const [Kind, shaderLib] of kinds) {
      const lib = shaderLib!
      const original = skinned.material
      skinned.material = new Kind()
      const crowd = createInstancedCrowd(plugin, handle, template)
      skinned.material = original
      const material = crowd.meshes[0]!.material as MeshStandardMaterial
      const shader = {
        vertexShader: lib.vertexShader,
        fragmentShader: lib.fragmentShader,
        uniforms: {},
      } as unknown as WebGLProgramParametersWithUniforms
      material.onBeforeCompile(shader, null as never)
      for (const chunk of ['skinbase_vertex', 'skinnormal_vertex', 'skinning_vertex']) {
        expect(lib.vertexShader, `${Kind.name} has ${chunk}`).toContain(`#include <${chunk}>`)
        expect(shader.vertexShader).not.toContain(`#include <${chunk}>`)
      }
      for (const glsl of Object.values(CROWD_SKINNING)) {
        // The normal chunk only where the material computes normals (unlit Basic does not, unless it has an envMap).
        if (glsl === CROWD_SKINNING.normal && !lib.vertexShader.includes('skinnormal_vertex')) continue
        expect(shader.vertexShader).toContain(glsl)
      }
      expect(Object.keys(shader.uniforms).sort()).toEqual([
        'crowdBindMatrix',
        'crowdPalette',
        'crowdSkinStart',
      ])
      expect(material.customProgramCacheKey()).not.toBe(
        (new Kind() as MeshStandardMaterial).customProgramCacheKey(),
      )
      crowd.dispose()
    }
  })
})

/** What a skinned crowd mesh's shader gets: the palette texture's data and row length, its skin's start, bind. */
function crowdUniforms(mesh: InstancedMesh) {
  const material = mesh.material as MeshStandardMaterial & {
    onBeforeCompile: (s: unknown, r: unknown) => void
  }
  const shader = { vertexShader: '', fragmentShader: '', uniforms: {} as Record<string, { value: unknown }> }
  material.onBeforeCompile(shader, null)
  const texture = shader.uniforms.crowdPalette!.value as { image: { data: Float32Array; width: number } }
  return {
    palette: texture.image.data,
    rowFloats: 4 * texture.image.width,
    start: shader.uniforms.crowdSkinStart!.value as number,
    bind: shader.uniforms.crowdBindMatrix!.value as Matrix4,
  }
}

/** The crowd's palette texture data (every skinned InstancedMesh's material reads the same one). */
function paletteData(mesh: InstancedMesh): Float32Array {
  return crowdUniforms(mesh).palette
}
