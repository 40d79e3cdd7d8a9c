/**
 * Shared setup of the three.js adapter tests (test/adapters/three.*.test.ts): the Fox and BoxAnimated loaded
 * both ways, a rig of two Fox characters bound to three views, and readings of the bound objects against the
 * scene graph.
 */
import { createWorld } from 'bitecs'
import { Object3D, SkinnedMesh } from 'three'
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { loadGltf as loadThree } from './threeScene.ts'
import { expect } from 'vitest'
import {
  cloneSceneView,
  createThreeAdapter,
  viewOfGltf,
  type ThreeAdapter,
  type ThreeSceneView,
} from '../../adapters/three.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const BOX = 'assets/BoxAnimated/glTF-Binary/BoxAnimated.glb'

/** The Fox and BoxAnimated, as ours and as three's GLTFLoader reads them; loaded by `loadAssets` (in beforeAll). */
export let foxAsset: AnimationAsset
export let foxGltf: GLTF
export let boxAsset: AnimationAsset
export let boxGltf: GLTF

/** Loads the four (once per test file). */
export async function loadAssets(): Promise<void> {
  ;[foxAsset, foxGltf, boxAsset, boxGltf] = await Promise.all([
    loadAsset(FOX),
    loadThree(FOX),
    loadAsset(BOX),
    loadThree(BOX),
  ])
}

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

export function foxRig(options: { interpolate?: boolean } = {}): Rig {
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
export function pairs(
  plugin: AnimationPlugin,
  character: number,
  view: ThreeSceneView,
): [Object3D, number][] {
  const out: [Object3D, number][] = [[view.scene, character]]
  for (const [o, node] of view.nodes) out.push([o, plugin.jointEntity(character, node)])
  return out
}

export function worldOf(plugin: AnimationPlugin, e: number): number[] {
  return Array.from(plugin.stores.SceneNode.world.subarray(16 * e, 16 * e + 16))
}

export function expectShowsSceneGraph(
  plugin: AnimationPlugin,
  character: number,
  view: ThreeSceneView,
): void {
  for (const [o, e] of pairs(plugin, character, view)) {
    expect(o.matrixWorld.elements, `${o.name || o.type} (entity ${e})`).toEqual(worldOf(plugin, e))
  }
}

export function skinnedMeshOf(view: ThreeSceneView): SkinnedMesh {
  let mesh: SkinnedMesh | undefined
  view.scene.traverse((o) => {
    if (o instanceof SkinnedMesh) mesh = o
  })
  if (!mesh) throw new Error('no skinned mesh in the view')
  return mesh
}
