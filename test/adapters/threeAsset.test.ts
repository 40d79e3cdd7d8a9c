/**
 * assetFromObject (adapters/threeAsset.ts): an asset made from GLTFLoader's objects and clips animates the same
 * as the asset read from the file (STEP, LINEAR, CUBICSPLINE, morph weights, a skin), joint by joint.
 */
import { createWorld } from 'bitecs'
import { AnimationClip, NumberKeyframeTrack, Object3D, InterpolateSmooth } from 'three'
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js'
import { describe, expect, it } from 'vitest'
import { assetFromObject } from '../../adapters/threeAsset.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { AnimationError } from '../../src/errors.ts'
import { loadGltf } from '../helpers/threeScene.ts'

/** Plays every clip on both assets for `steps` steps; the largest difference of any named node's world matrix. */
async function differenceFromFile(
  file: string,
  steps: number,
): Promise<{ worst: number; clips: number; pairs: number }> {
  const gltf = await loadGltf(file)
  const fromFile = await loadAsset(file)
  const { asset } = assetFromObject(clone(gltf.scene), gltf.animations, file)
  // GLTFLoader names an unnamed animation animation_<i>, the file reader animation<i>.
  expect(asset.clips.map((c) => c.name.replace(/^animation_/, 'animation'))).toEqual(
    fromFile.clips.map((c) => c.name),
  )
  if (fromFile.skeletons.length > 0) expect(asset.skeletons.length).toBeGreaterThan(0)
  let worst = 0
  let pairs = 0
  for (const [c, clip] of fromFile.clips.entries()) {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 1024 })
    const a = plugin.addCharacter(fromFile)
    const b = plugin.addCharacter(asset)
    plugin.play(a, clip.name)
    plugin.play(b, asset.clips[c]!.name)
    const world = plugin.stores.SceneNode.world
    for (let s = 0; s < steps; s++) {
      plugin.step()
      for (const node of fromFile.nodes) {
        const twin = asset.nodes.find(
          (n) => n.name === node.name.replace(/[\s.:/[\]]/g, (c) => (c === ' ' ? '_' : '')),
        )
        if (!twin) continue
        pairs++
        const ea = plugin.jointEntity(a, node.index)
        const eb = plugin.jointEntity(b, twin.index)
        for (let k = 0; k < 16; k++)
          worst = Math.max(worst, Math.abs(world[16 * ea + k]! - world[16 * eb + k]!))
      }
    }
    const morphs = plugin.morphWeights(a)
    if (morphs) expect(Array.from(plugin.morphWeights(b)!.weights)).toEqual(Array.from(morphs.weights))
  }
  return { worst, clips: fromFile.clips.length, pairs }
}

describe('assetFromObject: GLTFLoader objects and clips → an asset', () => {
  it.each([
    ['assets/InterpolationTest/glTF-Binary/InterpolationTest.glb'],
    ['assets/Fox/glTF-Binary/Fox.glb'],
    ['assets/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb'],
    ['assets/RiggedFigure/glTF-Binary/RiggedFigure.glb'],
  ])('%s animates as the file does', async (file) => {
    const { worst, clips, pairs } = await differenceFromFile(file, 40)
    expect(clips).toBeGreaterThan(0)
    expect(pairs).toBeGreaterThanOrEqual(40 * clips)
    expect(worst).toBeLessThan(1e-4)
  })

  it("refuses three's smooth interpolation, which glTF cannot say, naming the track", () => {
    const root = new Object3D()
    const child = new Object3D()
    child.name = 'box'
    root.add(child)
    const track = new NumberKeyframeTrack('box.position[x]', [0, 1], [0, 1])
    const smooth = new NumberKeyframeTrack('box.scale', [0, 1], [1, 1, 1, 2, 2, 2], InterpolateSmooth)
    expect(() => assetFromObject(root, [new AnimationClip('grow', -1, [track, smooth])], 'box')).toThrow(
      new AnimationError(
        'argument',
        `box: clip "grow", track "box.scale": interpolation 2302 (three's smooth) has no glTF form; use discrete, linear or GLTFLoader's cubic`,
      ),
    )
  })
})
