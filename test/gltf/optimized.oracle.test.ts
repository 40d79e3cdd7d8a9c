/**
 * Optimized files, as gltfpack and gltf-transform make them from every shipped animated model
 * (test/helpers/optimized.ts: meshopt compression, KHR_mesh_quantization keys, Draco meshes, resampled and
 * quantized clips), read by the loader and by three.js's GLTFLoader with its decoders (three's MeshoptDecoder;
 * for Draco a stand-in, since three's DRACOLoader cannot run in Node: helpers/threeScene.ts), then every clip
 * sampled by both at 9 times: every node's world matrix agrees to 1e-4, morph weights too. three slerps the
 * rotation keys as stored and quantized keys are not unit, so its keys are normalized first, as the loader
 * normalizes them (test/oracle/threeOracle.ts says why).
 */
import { readFileSync } from 'node:fs'
import { AnimationMixer, LoopOnce, type Object3D } from 'three'
import { describe, expect, it } from 'vitest'
import { loadAsset } from '../../src/gltf/load.ts'
import { ANIMATED_MODELS, optimizedFile, RECIPES } from '../helpers/optimized.ts'
import { gltfNodes, parseGltf } from '../helpers/threeScene.ts'
import { normalizeRotationKeys } from '../oracle/threeOracle.ts'
import { clipPose } from '../helpers/worlds.ts'

const TOLERANCE = 1e-4
const TIMES = 9

describe('optimized files agree with three.js GLTFLoader on the same file', () => {
  for (const model of ANIMATED_MODELS) {
    describe(model, () => {
      it.each(RECIPES.map((r) => [r.label, r] as const))('%s', async (_label, recipe) => {
        const file = await optimizedFile(model, recipe)
        const asset = await loadAsset(file)
        const gltf = await parseGltf(new Uint8Array(readFileSync(file)), true)
        const nodes = await gltfNodes(gltf)
        const mixer = new AnimationMixer(gltf.scene)
        // three names an unnamed animation animation_<i>, the loader animation<i>.
        const names = asset.clips.map((c) => c.name.replace(/^animation(\d+)$/, 'animation_$1'))
        expect(gltf.animations.map((c) => c.name)).toEqual(names)
        expect(asset.clips.length).toBeGreaterThan(0)
        let worst = 0
        asset.clips.forEach((clip, c) => {
          const three = gltf.animations[c]!
          normalizeRotationKeys(three)
          const action = mixer.clipAction(three).setLoop(LoopOnce, 1)
          action.clampWhenFinished = true
          for (let k = 0; k < TIMES; k++) {
            const time = (clip.duration * k) / (TIMES - 1)
            mixer.stopAllAction()
            action.play()
            mixer.update(time)
            gltf.scene.updateMatrixWorld(true)
            const ours = clipPose(asset, clip, time)
            nodes.forEach((object, i) => {
              const d = maxDifference(ours.worlds.subarray(16 * i, 16 * i + 16), object.matrixWorld.elements)
              worst = Math.max(worst, d)
              if (d > TOLERANCE) {
                expect.fail(`${recipe.label}: "${clip.name}" at ${time} s: node ${i} is off by ${d}`)
              }
            })
            for (const [node, weights] of ours.weights) {
              const influences = morphInfluences(nodes[node]!)
              expect(maxDifference(weights, influences)).toBeLessThanOrEqual(TOLERANCE)
            }
          }
        })
        expect(worst).toBeLessThanOrEqual(TOLERANCE)
      })
    })
  }
})

function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length)
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!))
  return m
}

/** The morph weights three animates for a node: its own, or its first primitive's. */
function morphInfluences(object: Object3D): number[] {
  const own = (object as { morphTargetInfluences?: number[] }).morphTargetInfluences
  if (own) return own
  for (const child of object.children) {
    const w = (child as { morphTargetInfluences?: number[] }).morphTargetInfluences
    if (w) return w
  }
  throw new Error('no morph targets')
}
