/**
 * World matrices of every node of an asset with one clip applied at one time, for tests that compare whole
 * poses (three's GLTFLoader and mixer, another file of the same model): the clip sampled onto the nodes by
 * sampleNodeTransforms (the sampler the plugin runs), composed down the node tree in float64.
 */
import type { Clip } from '../../src/clip/clip.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { sampleNodeTransforms } from '../../src/skeleton/nodeTransforms.ts'
import { composeMatrix, multiplyMatrices } from '../../src/math/transform.ts'

/** 16 doubles per node, column-major, `worlds[16·i ..]` for glTF node i; with the sampled morph weights. */
export interface ClipPose {
  worlds: Float64Array
  weights: Map<number, number[]>
}

export function clipPose(asset: AnimationAsset, clip: Clip, time: number): ClipPose {
  const n = asset.nodes.length
  const local = new Float64Array(16 * n)
  for (const node of asset.nodes) {
    composeMatrix(local, 16 * node.index, f64(node.translation), 0, f64(node.rotation), 0, f64(node.scale), 0)
  }
  const weights = new Map<number, number[]>()
  for (const t of sampleNodeTransforms(asset, clip, time)) {
    composeMatrix(local, 16 * t.node, f64(t.translation), 0, f64(t.rotation), 0, f64(t.scale), 0)
    if (t.weights) weights.set(t.node, t.weights)
  }
  const worlds = new Float64Array(16 * n)
  const done = new Uint8Array(n)
  const place = (i: number): void => {
    if (done[i]) return
    const parent = asset.nodes[i]!.parent
    if (parent < 0) worlds.set(local.subarray(16 * i, 16 * i + 16), 16 * i)
    else {
      place(parent)
      multiplyMatrices(worlds, 16 * i, worlds, 16 * parent, local, 16 * i)
    }
    done[i] = 1
  }
  for (let i = 0; i < n; i++) place(i)
  return { worlds, weights }
}

function f64(values: readonly number[]): Float64Array {
  return Float64Array.from(values)
}
