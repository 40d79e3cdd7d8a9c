import { readFileSync } from 'node:fs'
import { mat4, quat, vec3 } from 'gl-matrix'
import { describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { readAsset } from '../../src/gltf/read.ts'
import {
  ASSET_FILES,
  SAME_MODEL_PAIRS,
  assetPath,
  embeddedGltf,
  manifestEntry,
  rawFloatAccessor,
  readRaw,
} from '../helpers/gltfFiles.ts'
import { applyCase } from '../helpers/mutate.ts'
import { deepDifference } from '../helpers/deepDifference.ts'

const ELEMENT_SIZE: Record<string, number> = { translation: 3, rotation: 4, scale: 3, weights: 1 }

const loaded = new Map<string, Promise<AnimationAsset>>()
function load(file: string): Promise<AnimationAsset> {
  if (!loaded.has(file)) loaded.set(file, loadAsset(assetPath(file)))
  return loaded.get(file)!
}

describe.each(ASSET_FILES)('%s', (file) => {
  it('matches manifest.json: clips, channels, key counts, durations, skins, morph targets', async () => {
    const asset = await load(file)
    const entry = manifestEntry(file)
    expect(asset.source).toBe(assetPath(file))
    expect(asset.clips.map((c) => c.name)).toEqual(entry.animations.map((a, i) => a.name || `animation${i}`))
    asset.clips.forEach((clip, i) => {
      const expected = entry.animations[i]!
      expect(clip.duration).toBe(expected.duration)
      expect(clip.channels).toHaveLength(expected.channels)
      clip.channels.forEach((channel, c) => {
        const detail = expected.channelDetail[c]!
        expect(channel.nodeName).toBe(detail.node || `node${channel.node}`)
        expect(asset.nodes[channel.node]!.name).toBe(channel.nodeName)
        expect(channel.path).toBe(detail.path)
        expect(channel.interpolation).toBe(detail.interp)
        expect(channel.times.length).toBe(detail.keys)
        expect(channel.values.length).toBe(detail.outCount * ELEMENT_SIZE[detail.path]!)
      })
    })
    expect(asset.skeletons.map((s) => [s.name, s.joints.length])).toEqual(
      entry.skins.map((s) => [s.name, s.joints]),
    )
    asset.skeletons.forEach((skeleton, s) => {
      const named = entry.skins[s]!.skeleton
      if (named !== null) expect(asset.nodes[skeleton.root]!.name).toBe(named)
    })
    expect(Math.max(0, ...asset.nodes.map((n) => n.weights.length))).toBe(entry.maxMorphTargets)
  })

  it('has the raw JSON node tree: order, names, parents, children, mesh, skin, roots, rest T/R/S', async () => {
    const asset = await load(file)
    const { json } = readRaw(file)
    expect(asset.nodes).toHaveLength(json.nodes.length)
    const parentOf = new Map<number, number>()
    json.nodes.forEach((node: { children?: number[] }, i: number) => {
      for (const c of node.children ?? []) parentOf.set(c, i)
    })
    json.nodes.forEach((raw: Record<string, never>, i: number) => {
      const node = asset.nodes[i]!
      expect(node.index).toBe(i)
      expect(node.name).toBe(raw['name'] || `node${i}`)
      expect(node.parent).toBe(parentOf.get(i) ?? -1)
      expect(node.children).toEqual(raw['children'] ?? [])
      expect(node.mesh).toBe(raw['mesh'] ?? -1)
      expect(node.skin).toBe(raw['skin'] ?? -1)
      if (raw['matrix']) return // decomposed: checked in its own test
      expect(node.translation).toEqual(raw['translation'] ?? [0, 0, 0])
      expect(node.scale).toEqual(raw['scale'] ?? [1, 1, 1])
      const r: number[] = raw['rotation'] ?? [0, 0, 0, 1]
      const length = Math.hypot(...r)
      r.forEach((v, k) => expect(node.rotation[k]).toBeCloseTo(v / length, 12))
    })
    expect(asset.roots).toEqual([...json.scenes[json.scene ?? 0].nodes].sort((a: number, b: number) => a - b))
  })

  it('has key times and values equal to the raw accessors (rotation keys normalized)', async () => {
    const asset = await load(file)
    const raw = readRaw(file)
    asset.clips.forEach((clip, a) => {
      const animation = raw.json.animations[a]
      clip.channels.forEach((channel, c) => {
        const sampler = animation.samplers[animation.channels[c].sampler]
        expect(Array.from(channel.times)).toEqual(rawFloatAccessor(raw, sampler.input))
        const values = rawFloatAccessor(raw, sampler.output)
        if (channel.path !== 'rotation') {
          expect(Array.from(channel.values)).toEqual(values.map(Math.fround))
          return
        }
        const perKey = channel.interpolation === 'CUBICSPLINE' ? 3 : 1
        for (let e = 0; e < values.length / 4; e++) {
          const q = values.slice(4 * e, 4 * e + 4)
          const isTangent = perKey === 3 && e % 3 !== 1
          const length = isTangent ? 1 : Math.hypot(...q)
          q.forEach((v, k) => expect(channel.values[4 * e + k]).toBeCloseTo(v / length, 6))
        }
      })
    })
  })

  it('puts every skin joint after its parent joint, with inverse bind matrices moved along', async () => {
    const asset = await load(file)
    const raw = readRaw(file)
    const parentOf = new Map<number, number>()
    raw.json.nodes.forEach((node: { children?: number[] }, i: number) => {
      for (const c of node.children ?? []) parentOf.set(c, i)
    })
    asset.skeletons.forEach((skeleton, s) => {
      const skin = raw.json.skins[s]
      const joints = Array.from(skeleton.joints)
      expect([...joints].sort((x, y) => x - y)).toEqual(
        [...skin.joints].sort((x: number, y: number) => x - y),
      )
      joints.forEach((node, j) => {
        expect(skin.joints[skeleton.skinJointOrder[j]!]).toBe(node)
        // Parent: the nearest ancestor that is a joint of this skin, found by walking the raw JSON.
        let p = parentOf.get(node)
        while (p !== undefined && !joints.includes(p)) p = parentOf.get(p)
        expect(skeleton.parents[j]).toBe(p === undefined ? -1 : joints.indexOf(p))
        expect(skeleton.parents[j]!).toBeLessThan(j)
      })
      const ibm =
        skin.inverseBindMatrices === undefined ? null : rawFloatAccessor(raw, skin.inverseBindMatrices)
      for (let j = 0; j < joints.length; j++) {
        const expected = ibm
          ? ibm.slice(16 * skeleton.skinJointOrder[j]!, 16 * skeleton.skinJointOrder[j]! + 16)
          : mat4IdentityArray()
        expect(Array.from(skeleton.inverseBindMatrices.subarray(16 * j, 16 * j + 16))).toEqual(expected)
      }
    })
  })
})

it('reorders RiggedFigure, whose skin lists joints out of parent order, depth first', async () => {
  const asset = await load('RiggedFigure/glTF-Binary/RiggedFigure.glb')
  const { json } = readRaw('RiggedFigure/glTF-Binary/RiggedFigure.glb')
  const skeleton = asset.skeletons[0]!
  // The file order is not parent-first, so the reordering is exercised, not the identity.
  expect(Array.from(skeleton.skinJointOrder)).not.toEqual(
    json.skins[0].joints.map((_: number, i: number) => i),
  )
  // Depth-first pre-order: each joint's subtree is contiguous, starting right after the joint.
  const n = skeleton.joints.length
  for (let j = 0; j < n; j++) {
    let end = j + 1
    while (end < n && isDescendant(skeleton.parents, end, j)) end++
    for (let k = end; k < n; k++) expect(isDescendant(skeleton.parents, k, j)).toBe(false)
  }
})

it('roots SimpleSkin, whose skin names no skeleton, at the common ancestor of its joints', async () => {
  const asset = await load('SimpleSkin/glTF/SimpleSkin.gltf')
  const { json } = readRaw('SimpleSkin/glTF/SimpleSkin.gltf')
  expect(json.skins[0].skeleton).toBeUndefined()
  expect(json.skins[0].joints).toEqual([1, 2])
  expect(json.nodes[1].children).toEqual([2])
  expect(asset.skeletons[0]!.root).toBe(1)
})

it('decomposes matrix nodes (RiggedSimple) into T/R/S that recompose to the raw matrix', async () => {
  const file = 'RiggedSimple/glTF/RiggedSimple.gltf'
  const asset = await load(file)
  const { json } = readRaw(file)
  const matrixNodes = json.nodes.flatMap((node: { matrix?: number[] }, i: number) => (node.matrix ? [i] : []))
  expect(matrixNodes).toEqual([0, 1, 3])
  for (const i of matrixNodes) {
    const node = asset.nodes[i]!
    const raw = json.nodes[i].matrix as number[]
    const m = mat4.fromRotationTranslationScale(mat4.create(), node.rotation, node.translation, node.scale)
    Array.from(m).forEach((v, k) => expect(v).toBeCloseTo(raw[k]!, 6))
    // gl-matrix's own decomposition agrees (rotation up to sign).
    const rawM = mat4.clone(raw as unknown as mat4)
    const t = mat4.getTranslation(vec3.create(), rawM)
    const r = mat4.getRotation(quat.create(), rawM)
    const sign = Math.sign(quat.dot(r, node.rotation as quat)) || 1
    node.translation.forEach((v, k) => expect(v).toBeCloseTo(t[k]!, 6))
    node.rotation.forEach((v, k) => expect(v).toBeCloseTo(sign * r[k]!, 6))
    expect(Math.hypot(...node.rotation)).toBeCloseTo(1, 12)
  }
  // Node 0 ("Z_UP") is a -90° turn about x.
  expect(asset.nodes[0]!.rotation[0]).toBeCloseTo(-Math.SQRT1_2, 6)
})

it('gives AnimatedMorphCube weights channels the morph target count and the mesh default weights', async () => {
  const file = 'AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb'
  const asset = await load(file)
  const { json } = readRaw(file)
  const channel = asset.clips[0]!.channels[0]!
  expect(channel.path).toBe('weights')
  expect(channel.components).toBe(2)
  const node = asset.nodes[channel.node]!
  expect(node.weights).toEqual((json.meshes[node.mesh].weights as number[]).map((w) => w))
})

describe.each(SAME_MODEL_PAIRS)('%s and %s', (a, b) => {
  it('give identical assets (rest transforms to float32: the RiggedSimple pair differs in the 17th digit)', async () => {
    const [first, second] = await Promise.all([load(a), load(b)])
    expect(deepDifference(comparable(second), comparable(first))).toBeNull()
    expect(deepDifference(second.clips, first.clips)).toBeNull()
  })
})

it('readAsset reads a .gltf whose buffers are supplied in options.resources or embedded, like loadAsset', async () => {
  const file = 'Fox/glTF/Fox.gltf'
  const bytes = new Uint8Array(readFileSync(assetPath(file)))
  const bin = new Uint8Array(readFileSync(assetPath('Fox/glTF/Fox.bin')))
  const fromDisk = await load(file)
  const supplied = await readAsset(bytes, 'fox', { resources: { 'Fox.bin': bin } })
  const raw = readRaw(file)
  const embedded = await readAsset(embeddedGltf(raw.json, raw.buffers), 'fox')
  expect(deepDifference(supplied, { ...fromDisk, source: 'fox' })).toBeNull()
  expect(deepDifference(embedded, { ...fromDisk, source: 'fox' })).toBeNull()
})

/** The asset without its source, rest transforms rounded to float32. */
function comparable(asset: AnimationAsset): unknown {
  const f32 = (v: readonly number[]): number[] => v.map(Math.fround)
  const nodes = asset.nodes.map((n) => ({
    ...n,
    translation: f32(n.translation),
    rotation: f32(n.rotation),
    scale: f32(n.scale),
  }))
  return { ...asset, source: '', nodes }
}

function isDescendant(parents: Int32Array, j: number, ancestor: number): boolean {
  for (let p = parents[j]!; p !== -1; p = parents[p]!) if (p === ancestor) return true
  return false
}

function mat4IdentityArray(): number[] {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
}

describe("the file's own extras", () => {
  it('root extras, even 300,000 numbers of them, are left out: the same asset as without them', async () => {
    // gltf-transform spreads root extras into a new object key by key (0.2–1 s for this array); the asset holds
    // no extras, so the loader does not hand them over.
    const subject = ASSET_FILES.indexOf('RiggedSimple/glTF-Binary/RiggedSimple.glb')
    const plain = applyCase({ subject, mutations: [] })
    const extras = Array.from({ length: 300_000 }, (_, i) => i * 0.5)
    const wide = applyCase({
      subject,
      mutations: [{ kind: 'extras', op: 'set', path: ['extras'], value: extras }],
    })
    expect(wide.bytes.length).toBeGreaterThan(plain.bytes.length + 1_000_000)
    const [a, b] = await Promise.all([readAsset(plain.bytes, 'x.glb'), readAsset(wide.bytes, 'x.glb')])
    expect(deepDifference(b, a)).toBeNull()
  })
})
