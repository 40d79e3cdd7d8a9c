/**
 * The README's three.js recipe with an optimized file: the Fox as `gltfpack -cc` makes it (meshopt-compressed,
 * quantized) and as gltf-transform's `draco` makes it, read once by three's GLTFLoader with its decoders set up
 * as the README shows (helpers/threeScene.ts; Draco through a stand-in, as three's DRACOLoader needs a web
 * Worker) and once by readAsset (compact clips too), bound by the adapter: after each step and render, every
 * bound object shows its SceneNode's world matrix, the skinned mesh's bones included.
 */
import { readFileSync } from 'node:fs'
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createThreeAdapter, viewOfGltf } from '../../adapters/three.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { readAsset } from '../../src/gltf/read.ts'
import { optimizedFile, RECIPES } from '../helpers/optimized.ts'
import { parseGltf } from '../helpers/threeScene.ts'
import { expectShowsSceneGraph, skinnedMeshOf } from '../helpers/threeAdapter.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'

describe('the three.js recipe with an optimized file', () => {
  it.each(['gltfpack -cc', 'gltf-transform draco'])('%s', async (label) => {
    const file = await optimizedFile(
      FOX,
      RECIPES.find((r) => r.label === label)!,
    )
    const bytes = new Uint8Array(readFileSync(file))
    const gltf = await parseGltf(bytes, true)
    for (const compress of [false, true]) {
      const plugin = createAnimationPlugin(createWorld())
      const fox = plugin.addCharacter(await readAsset(bytes, 'Fox.glb', { compress }))
      plugin.play(fox, 'Walk')
      const adapter = createThreeAdapter(plugin)
      const view = viewOfGltf(gltf)
      adapter.bind(fox, view)
      for (let s = 0; s < 5; s++) {
        plugin.step()
        adapter.capture()
      }
      adapter.render(1)
      expectShowsSceneGraph(plugin, fox, view)
      expect(skinnedMeshOf(view).skeleton.bones.length).toBeGreaterThan(20)
      adapter.unbind(adapter.bindings[0]!)
    }
  })
})
