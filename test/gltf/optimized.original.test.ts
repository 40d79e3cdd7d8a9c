/**
 * Optimized files against the file they were made from (test/helpers/optimized.ts): at every key time of the
 * optimized clip, each animated node's local transform, found by name, is within the error the tool's
 * quantization allows. The recipes that resample (gltfpack, which resamples at 30 Hz) wrote their keys from
 * the original curve, and gltf-transform's `resample` keeps a subset of the original keys, so at those times
 * the difference is the quantization's (and resample's own value tolerance), not interpolation.
 *
 * Each channel is compared at its own key times, where an optimized file holds values the tool wrote from the
 * original: the difference is then the quantization alone. The bounds, per component, from each tool's
 * precision:
 *   rotation     gltfpack -ar b (default 12): b-bit components, |Δ| ≤ 2^(1−b); gltf-transform meshopt: its
 *                QUATERNION filter at 16 bits re-made unit from 3 components, 2^-12 (the files that store
 *                slightly non-unit keys, SimpleSkin's and RiggedSimple's, come within 1.5e-4 of it)
 *   translation  gltfpack -at 16 / -as 16: 16 bits of mantissa, relative 2^-15 of the value's largest
 *   and scale    magnitude; gltf-transform meshopt: its EXPONENTIAL filter at 12 bits, 2^-11
 *   otherwise    float32 as in the original (draco and quantize change meshes only; resample keeps a subset
 *                of the original keys)
 */
import { describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { sampleNodeTransforms, type NodeTransform } from '../../src/skeleton/nodeTransforms.ts'
import { ANIMATED_MODELS, optimizedFile, RECIPES, type Recipe } from '../helpers/optimized.ts'

/** Per recipe: the largest rotation component difference and the relative translation/scale difference. */
const BOUNDS: Record<string, { rotation: number; vector: number }> = {
  'gltfpack -c': { rotation: 2 ** -11, vector: 2 ** -15 },
  'gltfpack -cc': { rotation: 2 ** -11, vector: 2 ** -15 },
  'gltfpack -cc -ce khr': { rotation: 2 ** -11, vector: 2 ** -15 },
  'gltfpack -cc -af 0 -ar 16': { rotation: 2 ** -15, vector: 2 ** -15 },
  'gltf-transform meshopt': { rotation: 2 ** -12, vector: 2 ** -11 },
  'gltf-transform draco': { rotation: 1e-7, vector: 1e-7 },
  'gltf-transform resample': { rotation: 1e-4, vector: 1e-4 },
  'gltf-transform quantize': { rotation: 1e-7, vector: 1e-7 },
}

describe('optimized files agree with their original to the quantization error', () => {
  for (const model of ANIMATED_MODELS) {
    it.each(RECIPES.map((r) => [r.label, r] as const))(`${model}: %s`, async (_label, recipe) => {
      const original = await loadAsset(model)
      const optimized = await loadAsset(await optimizedFile(model, recipe))
      const worst = compare(original, optimized, recipe)
      const bound = BOUNDS[recipe.label]!
      expect(worst.rotation, worst.where).toBeLessThanOrEqual(bound.rotation)
      expect(worst.vector, worst.where).toBeLessThanOrEqual(bound.vector)
      // The others animate unnamed nodes (the tools renumber nodes) or only morph weights.
      if (/Fox|Robot|Rigged|Interpolation/.test(model)) expect(worst.compared).toBeGreaterThan(0)
    })
  }
})

/**
 * The largest differences over every clip and channel of the optimized clip, at the channel's own key times
 * (matched by clip name, node name and path; the tools move mesh nodes' rest transforms, which no clip
 * animates). Rotations as q and −q alike; translation and scale relative to the value's largest magnitude.
 */
function compare(original: AnimationAsset, optimized: AnimationAsset, recipe: Recipe) {
  const worst = { rotation: 0, vector: 0, where: '', compared: 0 }
  for (const clip of optimized.clips) {
    const source = original.clips.find((c) => c.name === clip.name)
    if (!source) throw new Error(`${recipe.label}: clip "${clip.name}" is not in the original`)
    for (const ch of clip.channels) {
      if (ch.path === 'weights') continue
      for (const time of ch.times) {
        if (time > source.duration) continue
        const after = byName(optimized, sampleNodeTransforms(optimized, clip, time)).get(ch.nodeName)
        if (!after) continue
        const then = byName(original, sampleNodeTransforms(original, source, time)).get(ch.nodeName)
        if (!then) throw new Error(`${recipe.label}: "${ch.nodeName}" is not animated in the original`)
        worst.compared++
        const a = then[ch.path]
        const b = after[ch.path]
        const sign = ch.path === 'rotation' ? Math.sign(dot(a, b)) || 1 : 1
        const scale = ch.path === 'rotation' ? 1 : Math.max(1e-3, ...a.map(Math.abs))
        const d = Math.max(...a.map((v, i) => Math.abs(v - sign * b[i]!) / scale))
        const kind = ch.path === 'rotation' ? 'rotation' : 'vector'
        if (d > worst[kind]) {
          worst[kind] = d
          worst.where = `"${clip.name}" ${ch.nodeName}.${ch.path} at ${time}`
        }
      }
    }
  }
  return worst
}

/**
 * Transforms by node name, of nodes whose name is the file's and unique in it (the tools renumber nodes, so
 * an unnamed node's `node<i>` may change; RobotExpressive has a mesh and a joint both named "Head").
 */
function byName(asset: AnimationAsset, transforms: NodeTransform[]): Map<string, NodeTransform> {
  const count = new Map<string, number>()
  for (const node of asset.nodes) count.set(node.name, (count.get(node.name) ?? 0) + 1)
  const named = (t: NodeTransform) => count.get(t.name) === 1 && t.name !== `node${t.node}`
  return new Map(transforms.filter(named).map((t) => [t.name, t]))
}

function dot(a: number[], b: number[]): number {
  return a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]! + a[3]! * b[3]!
}
