/**
 * Judge 1, the loader: readAsset's outcome on a mutated file. An accepted asset must be whole (checkWholeAsset:
 * structure, then sampleNodeTransforms and a plugin character stepped through every clip, all finite) and hold
 * what the file says (checkAgainstFile, againstFile.ts). Part of test/helpers/fuzzJudges.ts.
 */
import { createWorld } from 'bitecs'
import { sampleNodeTransforms } from '../../../src/skeleton/nodeTransforms.ts'
import { AnimationError } from '../../../src/errors.ts'
import type { AnimationAsset } from '../../../src/gltf/asset.ts'
import { readAsset } from '../../../src/gltf/read.ts'
import { createAnimationPlugin } from '../../../entry/plugin.ts'
import type { MutatedFile } from '../mutate.ts'
import { checkAgainstFile } from './againstFile.ts'

// -----------------------------------------------------------------------------------------------------------
// Judge 1: the loader
// -----------------------------------------------------------------------------------------------------------

export type LoaderOutcome =
  /**
   * `overflow`: the asset is whole, but values near the float32 limit (≥ 1e18, e.g. a translation of 3e38)
   * make world matrices overflow to Infinity in the plugin, or a sample of a clip. Not the loader's to reject (the file is valid
   * glTF).
   */
  | { status: 'accepted'; asset: AnimationAsset; ms: number; overflow?: string }
  | { status: 'rejected'; error: AnimationError; ms: number }
  /** Anything the loader must never do: throw something else, a bad message, or return a broken asset. */
  | { status: 'broken'; problem: string; ms: number }

/** Runs readAsset on the file; an accepted asset is checked with `checkWholeAsset`. */
export async function runLoader(file: MutatedFile): Promise<LoaderOutcome> {
  const start = performance.now()
  let asset: AnimationAsset
  try {
    asset = await readAsset(file.bytes, file.source, { resources: file.resources })
  } catch (error) {
    const ms = performance.now() - start
    if (!(error instanceof AnimationError)) {
      return { status: 'broken', problem: `threw ${describeError(error)}`, ms }
    }
    if (!error.message.startsWith(`${file.source}: `) || error.message.length <= file.source.length + 2) {
      return { status: 'broken', problem: `message does not name the file: ${error.message}`, ms }
    }
    if (error.message.includes('\n'))
      return { status: 'broken', problem: `multi-line message: ${error.message}`, ms }
    return { status: 'rejected', error, ms }
  }
  const ms = performance.now() - start
  try {
    const problem =
      checkWholeAsset(asset) ?? (file.json ? checkAgainstFile(asset, file.json, file.buffers) : null)
    if (problem === null) return { status: 'accepted', asset, ms }
    // Values near the float32 limit overflow in a world matrix (the plugin) or in a sample (a CUBICSPLINE's
    // tangents at 3.4e38 take the curve past it): the file's numbers, not a broken asset.
    const overflows =
      problem.startsWith('plugin:') || /^clip ".*" at .*: node \d+ transform not finite$/.test(problem)
    const huge = overflows ? hugeValue(asset) : null
    if (huge !== null) return { status: 'accepted', asset, ms, overflow: `${problem}; ${huge}` }
    return { status: 'broken', problem, ms }
  } catch (error) {
    return { status: 'broken', problem: `using the asset threw ${describeError(error)}`, ms }
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

const finite = (values: ArrayLike<number>): boolean => Array.prototype.every.call(values, Number.isFinite)
const unit = (x: number, y: number, z: number, w: number): boolean =>
  Math.abs(Math.sqrt(x * x + y * y + z * z + w * w) - 1) < 1e-4

/**
 * null when the asset is whole: every index in range, the node tree a forest, skeletons parent-first with
 * finite inverse bind matrices, clips with strictly increasing finite times and finite values of the right
 * count; and using it works: `sampleNodeTransforms` of every clip at 0, inside, at the end and past it, and a
 * plugin character playing every clip for a few steps give finite transforms (unit rotations). Else what is
 * wrong.
 */
export function checkWholeAsset(asset: AnimationAsset): string | null {
  const n = asset.nodes.length
  for (const [i, node] of asset.nodes.entries()) {
    if (node.index !== i) return `node ${i} has index ${node.index}`
    if (typeof node.name !== 'string' || node.name === '') return `node ${i} name ${String(node.name)}`
    if (!(node.parent === -1 || (node.parent >= 0 && node.parent < n && node.parent !== i)))
      return `node ${i} parent ${node.parent}`
    for (const c of node.children)
      if (asset.nodes[c]?.parent !== i) return `node ${i} child ${c} has another parent`
    if (!finite(node.translation) || !finite(node.scale) || !finite(node.weights))
      return `node ${i} transform not finite`
    if (!unit(...node.rotation)) return `node ${i} rotation ${node.rotation.join(',')} is not unit`
    let steps = 0
    for (let p = node.parent; p !== -1; p = asset.nodes[p]!.parent)
      if (++steps > n) return `node ${i} is in a cycle`
  }
  if (asset.roots.length === 0) return 'no scene roots'
  for (const r of asset.roots) if (asset.nodes[r]?.parent !== -1) return `root ${r} is not a root node`
  for (const [s, skeleton] of asset.skeletons.entries()) {
    const count = skeleton.joints.length
    if (typeof skeleton.name !== 'string') return `skeleton ${s} name ${String(skeleton.name)}`
    if (count === 0) return `skeleton ${s} has no joints`
    if (new Set(skeleton.joints).size !== count) return `skeleton ${s} repeats a joint`
    if (skeleton.inverseBindMatrices.length !== 16 * count || !finite(skeleton.inverseBindMatrices))
      return `skeleton ${s} inverse bind matrices`
    if ([...skeleton.skinJointOrder].sort((a, b) => a - b).some((v, k) => v !== k))
      return `skeleton ${s} skinJointOrder is not a permutation`
    for (let j = 0; j < count; j++) {
      const node = skeleton.joints[j]!
      const p = skeleton.parents[j]!
      if (!(node >= 0 && node < n)) return `skeleton ${s} joint ${j} is node ${node}`
      if (!(p === -1 || (p >= 0 && p < j))) return `skeleton ${s} joint ${j} parent ${p} is not earlier`
      if (p !== -1) {
        let a = asset.nodes[node]!.parent
        while (a !== -1 && a !== skeleton.joints[p]) a = asset.nodes[a]!.parent
        if (a === -1) return `skeleton ${s} joint ${j}: parent joint ${p} is not its ancestor`
      }
    }
    if (!(skeleton.root >= -1 && skeleton.root < n)) return `skeleton ${s} root ${skeleton.root}`
  }
  for (const clip of asset.clips) {
    if (typeof clip.name !== 'string') return `clip name ${String(clip.name)}`
    let duration = 0
    for (const [c, ch] of clip.channels.entries()) {
      const at = `clip "${clip.name}" channel ${c}`
      if (!(ch.node >= 0 && ch.node < n)) return `${at} node ${ch.node}`
      const expected =
        ch.path === 'weights' ? asset.nodes[ch.node]!.weights.length : ch.path === 'rotation' ? 4 : 3
      if (ch.components !== expected)
        return `${at} has ${ch.components} components, the node needs ${expected}`
      const keys = ch.times.length
      if (keys === 0) return `${at} has no keys`
      for (let k = 0; k < keys; k++) {
        const t = ch.times[k]!
        if (!Number.isFinite(t) || t < 0 || (k > 0 && !(t > ch.times[k - 1]!)))
          return `${at} key ${k} time ${t}`
      }
      const perKey = ch.interpolation === 'CUBICSPLINE' ? 3 : 1
      if (ch.values.length !== keys * perKey * ch.components || !finite(ch.values)) return `${at} values`
      duration = Math.max(duration, ch.times[keys - 1]!)
    }
    if (duration !== clip.duration)
      return `clip "${clip.name}" duration ${clip.duration}, keys end at ${duration}`
    for (const t of [0, clip.duration * 0.37, clip.duration, clip.duration + 1]) {
      for (const nt of sampleNodeTransforms(asset, clip, t)) {
        if (!finite(nt.translation) || !finite(nt.scale) || !finite(nt.weights ?? []))
          return `clip "${clip.name}" at ${t}: node ${nt.node} transform not finite`
        if (!unit(nt.rotation[0]!, nt.rotation[1]!, nt.rotation[2]!, nt.rotation[3]!))
          return `clip "${clip.name}" at ${t}: node ${nt.node} rotation ${nt.rotation.join(',')}`
      }
    }
  }
  return checkInPlugin(asset)
}

/**
 * The first node or clip value of magnitude ≥ 1e18 (a product or sum of two can overflow float32), or null.
 */
function hugeValue(asset: AnimationAsset): string | null {
  const big = (values: ArrayLike<number>): boolean =>
    Array.prototype.some.call(values, (v: number) => Math.abs(v) >= 1e18)
  for (const node of asset.nodes) {
    if (big(node.translation) || big(node.scale)) return `node ${node.index} has a value ≥ 1e18`
  }
  for (const clip of asset.clips) {
    for (const [c, ch] of clip.channels.entries())
      if (big(ch.values)) return `clip "${clip.name}" channel ${c} has a value ≥ 1e18`
  }
  return null
}

/**
 * A character of the asset in a fresh plugin, every clip played for a few fixed steps; world matrices finite.
 */
function checkInPlugin(asset: AnimationAsset): string | null {
  const plugin = createAnimationPlugin(createWorld(), { capacity: asset.nodes.length + 8 })
  const character = plugin.addCharacter(asset)
  const world = plugin.stores.SceneNode.world
  const entities = [character, ...plugin.joints(character)]
  for (let c = 0; c <= asset.clips.length; c++) {
    if (c < asset.clips.length) plugin.play(character, c, { rotation: c % 2 === 0 ? 'slerp' : 'squad' })
    for (let step = 0; step < 3; step++) {
      plugin.step()
      for (const e of entities) {
        if (!finite(world.subarray(16 * e, 16 * e + 16)))
          return `plugin: clip ${c} step ${step}: entity ${e} not finite`
      }
    }
  }
  plugin.dispose()
  return null
}
