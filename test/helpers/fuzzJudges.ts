/**
 * The two judges of a mutated file (test/helpers/mutate.ts makes the files), shared by test/gltf/fuzz.test.ts
 * and scripts/fuzz.ts:
 *
 *   runLoader      readAsset's outcome. An accepted asset must be whole (checkWholeAsset: structure, then
 *                  sampleNodeTransforms and a plugin character stepped through every clip, all finite) and
 *                  hold what the file says (checkAgainstFile: an independent accessor reader, sparse too).
 *   runValidator   Khronos gltf-validator on the same bytes, its errors sorted into categories.
 *                  DELIBERATE_REPAIRS lists the errors the loader accepts on purpose, and what it does.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createWorld } from 'bitecs'
import { sampleNodeTransforms } from '../../src/skeleton/nodeTransforms.ts'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { readAsset } from '../../src/gltf/read.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import type { Json } from './gltfFiles.ts'
import { assetPath } from './gltfFiles.ts'
import { COMPONENTS, type MutatedFile, type Subject } from './mutate.ts'

// -----------------------------------------------------------------------------------------------------------
// Judge 1: the loader
// -----------------------------------------------------------------------------------------------------------

export type LoaderOutcome =
  /**
   * `overflow`: the asset is whole, but values near the float32 limit (≥ 1e18, e.g. a translation of 3e38)
   * make world matrices overflow to Infinity in the plugin. Not the loader's to reject (the file is valid
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
    const huge = problem.startsWith('plugin:') ? hugeValue(asset) : null
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

// ---- The asset against the file, read independently (no gltf-transform) ----

const COMPONENT_SIZE: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 }
/** glTF 2.0 §3.11: normalized integer → float. */
const NORMALIZED: Record<number, (c: number) => number> = {
  5120: (c) => Math.max(c / 127, -1),
  5121: (c) => c / 255,
  5122: (c) => Math.max(c / 32767, -1),
  5123: (c) => c / 65535,
}

/**
 * An accessor's components as stored (integers not decoded), from the spec: elements `byteStride` apart
 * (default: packed), zeros without a bufferView, then sparse substitution (indices and values at their own
 * byteOffset, default 0). null when the JSON is not readable this way (the loader should then have rejected
 * the file).
 */
function readAccessor(json: Json, buffers: Uint8Array[], index: number): number[] | null {
  const a = json.accessors?.[index]
  const size = COMPONENT_SIZE[a?.componentType]
  const n = COMPONENTS[a?.type]
  if (!size || !n || !Number.isInteger(a.count)) return null
  const read = (
    viewIndex: number,
    offset: number,
    type: number,
    count: number,
    components: number,
  ): number[] | null => {
    const view = json.bufferViews?.[viewIndex]
    const bytes = buffers[view?.buffer]
    const componentSize = COMPONENT_SIZE[type]
    if (!view || !bytes || !componentSize) return null
    const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const stride = view.byteStride ?? components * componentSize
    const out: number[] = []
    for (let e = 0; e < count; e++) {
      for (let c = 0; c < components; c++) {
        const at = (view.byteOffset ?? 0) + offset + e * stride + c * componentSize
        if (at + componentSize > bytes.length) return null
        const getters: Record<number, () => number> = {
          5120: () => data.getInt8(at),
          5121: () => data.getUint8(at),
          5122: () => data.getInt16(at, true),
          5123: () => data.getUint16(at, true),
          5125: () => data.getUint32(at, true),
          5126: () => data.getFloat32(at, true),
        }
        out.push(getters[type]!())
      }
    }
    return out
  }
  const values =
    a.bufferView === undefined
      ? new Array<number>(a.count * n).fill(0)
      : read(a.bufferView, a.byteOffset ?? 0, a.componentType, a.count, n)
  if (!values || !a.sparse) return values
  const { count, indices, values: sparseValues } = a.sparse
  const at = read(indices.bufferView, indices.byteOffset ?? 0, indices.componentType, count, 1)
  const replacement = read(sparseValues.bufferView, sparseValues.byteOffset ?? 0, a.componentType, count, n)
  if (!at || !replacement) return null
  at.forEach((i, k) => {
    for (let c = 0; c < n; c++) values[i * n + c] = replacement[k * n + c]!
  })
  return values
}

/**
 * null when the accepted asset holds what the (mutated) file says: every clip channel's node, path, key times
 * and values (integers decoded, rotations normalized), every node's children and T/R/S (normalized rotation;
 * nodes given by a matrix are skipped), and every skin's joints and inverse bind matrices. Catches a loader
 * that reads the wrong bytes (offsets, strides, sparse) while producing a well-formed asset.
 */
function checkAgainstFile(asset: AnimationAsset, json: Json, buffers: Uint8Array[]): string | null {
  const same = (a: number, b: number, rotation: boolean): boolean =>
    rotation ? Math.abs(a - b) <= 1e-6 : Object.is(Math.fround(a), b) || (a === 0 && b === 0)
  for (const [a, clip] of asset.clips.entries()) {
    const animation = json.animations[a]
    const channels = (animation.channels as Json[]).filter((c) => c.target.node !== undefined)
    if (channels.length !== clip.channels.length)
      return `clip ${a}: ${clip.channels.length} channels, file has ${channels.length}`
    for (const [k, ch] of clip.channels.entries()) {
      const at = `clip ${a} channel ${k}`
      const def = channels[k]
      if (ch.node !== def.target.node || ch.path !== def.target.path)
        return `${at} targets ${ch.node}.${ch.path}`
      const sampler = animation.samplers[def.sampler]
      const times = readAccessor(json, buffers, sampler.input)
      if (!times) return `${at}: the file's key times are unreadable, yet the asset was built`
      if (times.length !== ch.times.length || times.some((t, i) => !same(t, ch.times[i]!, false)))
        return `${at}: key times differ from the file's`
      const output = json.accessors[sampler.output]
      let values = readAccessor(json, buffers, sampler.output)
      if (!values) return `${at}: the file's values are unreadable, yet the asset was built`
      if (output.componentType !== 5126 && output.normalized)
        values = values.map(NORMALIZED[output.componentType]!)
      const rotation = ch.path === 'rotation'
      if (rotation) {
        const perKey = ch.interpolation === 'CUBICSPLINE' ? 3 : 1
        for (let e = 0; e * 4 < values.length; e++) {
          if (perKey === 3 && e % 3 !== 1) continue
          const q = values.slice(4 * e, 4 * e + 4).map(Math.fround)
          const length = Math.hypot(...q)
          for (let c = 0; c < 4; c++) values[4 * e + c] = q[c]! / length
        }
      }
      if (values.length !== ch.values.length || values.some((v, i) => !same(v, ch.values[i]!, rotation)))
        return `${at}: values differ from the file's`
    }
  }
  for (const [i, node] of asset.nodes.entries()) {
    const def = json.nodes[i]
    const children: number[] = def.children ?? []
    if (children.length !== node.children.length || children.some((c, k) => c !== node.children[k]))
      return `node ${i} children [${node.children.join(',')}], file has [${children.join(',')}]`
    if (def.matrix !== undefined) continue // decomposed: checked for finiteness and unit rotation only
    const rotation: number[] = def.rotation ?? [0, 0, 0, 1]
    const length = Math.hypot(...rotation)
    const expected = [
      ...(def.translation ?? [0, 0, 0]),
      ...rotation.map((v) => v / length),
      ...(def.scale ?? [1, 1, 1]),
    ] as number[]
    const actual = [...node.translation, ...node.rotation, ...node.scale]
    if (expected.some((v, k) => Math.abs(v - actual[k]!) > 1e-6 * Math.max(1, Math.abs(v))))
      return `node ${i} rest transform [${actual.join(',')}], file has [${expected.join(',')}]`
  }
  for (const [s, skeleton] of asset.skeletons.entries()) {
    const skin = json.skins[s]
    const ibm =
      skin.inverseBindMatrices === undefined ? null : readAccessor(json, buffers, skin.inverseBindMatrices)
    for (let j = 0; j < skeleton.joints.length; j++) {
      const f = skeleton.skinJointOrder[j]!
      if (skin.joints[f] !== skeleton.joints[j])
        return `skeleton ${s} joint ${j} is not the file's joint ${f}`
      for (let e = 0; e < 16; e++) {
        const expected = ibm ? ibm[16 * f + e]! : e % 5 === 0 ? 1 : 0
        if (!same(expected, skeleton.inverseBindMatrices[16 * j + e]!, false))
          return `skeleton ${s} joint ${j}: inverse bind matrix differs from the file's`
      }
    }
  }
  return null
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

// -----------------------------------------------------------------------------------------------------------
// Judge 2: Khronos gltf-validator
// -----------------------------------------------------------------------------------------------------------

interface ValidatorMessage {
  code: string
  message: string
  severity: number
  pointer?: string
}
interface ValidatorApi {
  validateBytes(
    data: Uint8Array,
    options: {
      maxIssues?: number
      writeTimestamp?: boolean
      format?: string
      externalResourceFunction?: (uri: string) => Promise<Uint8Array>
    },
  ): Promise<{ issues: { numErrors: number; messages: ValidatorMessage[] } }>
  version(): string
}

let validator: ValidatorApi | undefined
/** gltf-validator (compiled Dart, CommonJS, no types): loaded on first use. */
export function gltfValidator(): ValidatorApi {
  validator ??= createRequire(import.meta.url)('gltf-validator') as ValidatorApi
  return validator
}

/** What the validator's errors are about, as far as this loader cares. */
export type ValidatorCategory =
  | 'animation' // ANIMATION_*, /animations/..., and accessor errors on sampler input/output accessors
  | 'skin' // SKIN_*, /skins/..., and accessor errors on inverseBindMatrices accessors
  | 'node' // NODE_*, SCENE_*, /nodes/..., /scenes/...
  | 'accessor' // other accessors (mesh data: not read by the loader)
  | 'buffer' // buffers and buffer views
  | 'file' // container, JSON syntax, asset version, extensions
  | 'other' // meshes, materials, images, textures

/** The categories whose errors the loader must reject or repair (documented below). */
export const LOADER_CATEGORIES: readonly ValidatorCategory[] = ['animation', 'skin', 'node']

export interface ValidatorError {
  code: string
  pointer: string
  message: string
  category: ValidatorCategory
}

/**
 * Runs the validator on the file (external buffers from `resources`, images from the asset's folder) and
 * returns its errors (severity 0), or null when the validator cannot judge it: it rejects its promise with a
 * Dart exception on some inputs (e.g. a node replaced by `[null]`), and on a JSON number that overflows to
 * ±Infinity (`1e999`) it throws `Unsupported operation: -Infinity.toInt()` outside its promise, which would
 * take the process down; so does JSON nested deeper than its recursive walk's stack (a 200,000-deep array:
 * `RangeError: Maximum call stack size exceeded`), and so does a node tree deeper than its recursive walk over
 * children (VALIDATOR_MAX_NODE_DEPTH). Those files are not given to it.
 */
export async function runValidator(file: MutatedFile, subject: Subject): Promise<ValidatorError[] | null> {
  if (Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength).includes('e999'))
    return null
  if (jsonDepth(file.bytes) > VALIDATOR_MAX_DEPTH) return null
  if (nodeDepth(file.json ?? parsedJson(file.bytes)) > VALIDATOR_MAX_NODE_DEPTH) return null
  const folder = dirname(assetPath(subject.file))
  const report = await gltfValidator()
    .validateBytes(file.bytes, {
      maxIssues: 0,
      writeTimestamp: false,
      format: subject.container === 'glb' ? 'glb' : 'gltf',
      externalResourceFunction: async (uri) => {
        // Buffers only from the case (as the loader gets them); images, which the loader never reads, from
        // disk.
        const bytes = file.resources[uri]
        if (bytes) return bytes
        if (!/^[\w.-]+\.(png|jpe?g)$/i.test(uri)) throw new Error(`no file ${uri}`)
        return new Uint8Array(readFileSync(join(folder, uri)))
      },
    })
    .catch(() => null)
  if (report === null) return null
  const uses = accessorUses(file.json)
  return report.issues.messages
    .filter((m) => m.severity === 0)
    .map((m) => ({
      code: m.code,
      pointer: m.pointer ?? '',
      message: m.message,
      category: categorize(m, uses),
    }))
}

/** Deepest JSON nesting gltf-validator is given (far past any real file; 200,000 overflowed its stack). */
const VALIDATOR_MAX_DEPTH = 1000

/**
 * Deepest node tree gltf-validator is given. Its scene walk recurses once per level of children (`cd` in
 * gltf_validator.dart.js), and its stack overflow escapes its promise: a 16,000-deep chain overflowed Node's
 * main-thread stack (984 KiB), a 65,600-deep one a fuzz worker's (4 MiB); 4,000 passes on the main thread.
 */
export const VALIDATOR_MAX_NODE_DEPTH = 4000

/**
 * The most nodes on one path down the node tree (`children` links, from the nodes no node names as a child,
 * then from any node not yet reached: a cycle), walked iteratively; malformed entries are skipped.
 */
export function nodeDepth(json: Json | null): number {
  const nodes: unknown = json?.nodes
  if (!Array.isArray(nodes)) return 0
  const n = nodes.length
  const childrenOf = (i: number): number[] => {
    const node: unknown = nodes[i]
    const children: unknown = node !== null && typeof node === 'object' ? (node as Json).children : null
    return Array.isArray(children)
      ? children.filter((c): c is number => Number.isInteger(c) && c >= 0 && c < n)
      : []
  }
  const isChild = new Uint8Array(n)
  for (let i = 0; i < n; i++) for (const c of childrenOf(i)) isChild[c] = 1
  const reached = new Uint8Array(n)
  const stack: [number, number][] = []
  let deepest = 0
  const walk = (root: number): void => {
    reached[root] = 1
    stack.push([root, 1])
    while (stack.length > 0) {
      const [e, depth] = stack.pop()!
      deepest = Math.max(deepest, depth)
      for (const c of childrenOf(e)) {
        if (reached[c] === 1) continue
        reached[c] = 1
        stack.push([c, depth + 1])
      }
    }
  }
  for (let i = 0; i < n; i++) if (isChild[i] === 0) walk(i)
  for (let i = 0; i < n; i++) if (reached[i] === 0) walk(i)
  return deepest
}

/** The JSON of a .gltf's text or a .glb's JSON chunk, or null where it does not parse. */
function parsedJson(bytes: Uint8Array): Json | null {
  const [start, end] = jsonRange(bytes)
  try {
    return JSON.parse(new TextDecoder().decode(bytes.subarray(start, end))) as Json
  } catch {
    return null
  }
}

/** Where the JSON text is: the whole of a .gltf, a .glb's first chunk (bounded by the bytes there are). */
function jsonRange(bytes: Uint8Array): [number, number] {
  const glb =
    bytes.length >= 20 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46
  if (!glb) return [0, bytes.length]
  return [20, Math.min(bytes.length, 20 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true))]
}

/** How deep the file's JSON nests ([ and { outside strings; a .glb's JSON chunk only). */
function jsonDepth(bytes: Uint8Array): number {
  const [start, end] = jsonRange(bytes)
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = start; i < end; i++) {
    const c = bytes[i]!
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth)
    else if (c === 0x5d || c === 0x7d) depth--
  }
  return deepest
}

function accessorUses(json: Json | null): { animation: Set<number>; skin: Set<number> } {
  const animation = new Set<number>()
  const skin = new Set<number>()
  try {
    for (const a of json?.animations ?? [])
      for (const s of a.samplers ?? []) {
        animation.add(s.input)
        animation.add(s.output)
      }
    for (const s of json?.skins ?? []) skin.add(s.inverseBindMatrices)
  } catch {
    // A mutated JSON whose animations are not arrays: the validator's pointers say the rest.
  }
  return { animation, skin }
}

const EXTENSION_CODES = ['UNDECLARED_EXTENSION', 'UNEXPECTED_EXTENSION_OBJECT', 'UNSUPPORTED_EXTENSION']

function categorize(
  m: ValidatorMessage,
  uses: { animation: Set<number>; skin: Set<number> },
): ValidatorCategory {
  const pointer = m.pointer ?? ''
  const accessor = /^\/accessors\/(\d+)/.exec(pointer)
  if (EXTENSION_CODES.includes(m.code) || pointer.includes('/extensions')) return 'file'
  if (
    m.code.startsWith('ANIMATION_') ||
    m.code.startsWith('ACCESSOR_ANIMATION_') ||
    pointer.startsWith('/animations')
  )
    return 'animation'
  if (m.code.startsWith('SKIN_') || m.code.includes('IBM') || pointer.startsWith('/skins')) return 'skin'
  if (accessor) {
    const i = Number(accessor[1])
    if (uses.animation.has(i)) return 'animation'
    if (uses.skin.has(i)) return 'skin'
    return 'accessor'
  }
  if (m.code.startsWith('NODE_') || m.code.startsWith('SCENE_') || /^\/(nodes|scenes?)\b/.test(pointer))
    return 'node'
  if (m.code.startsWith('BUFFER') || /^\/(buffers|bufferViews)\b/.test(pointer)) return 'buffer'
  if (
    m.code.startsWith('GLB_') ||
    [
      'INVALID_JSON',
      'UNKNOWN_ASSET_MAJOR_VERSION',
      'UNUSED_EXTENSION_REQUIRED',
      'NON_REQUIRED_EXTENSION',
    ].includes(m.code) ||
    /^\/(asset|extensionsRequired|extensionsUsed)\b/.test(pointer) ||
    pointer === ''
  )
    return 'file'
  return 'other'
}

/**
 * A validator error the loader accepts on purpose: the codes, where the pointer must match, an optional finer
 * test on the error and the mutated JSON, and why.
 */
export interface Repair {
  /** The validator codes it explains; absent: any code (then `pointer` and `when` decide). */
  codes?: readonly string[]
  pointer?: RegExp
  when?: (error: ValidatorError, json: Json | null) => boolean
  why: string
}

/**
 * True when the error is about data the loader never reads: a sampler (`/animations/a/samplers/s...`) that no
 * channel with a target node uses, or an accessor (`/accessors/i...`) used only by such samplers.
 */
function unusedAnimationData(error: ValidatorError, json: Json | null): boolean {
  if (!json || !Array.isArray(json.animations)) return false
  const used = (a: number, s: number): boolean => {
    const channels: unknown = json.animations[a]?.channels
    return (
      Array.isArray(channels) && channels.some((c: Json) => c?.sampler === s && c?.target?.node !== undefined)
    )
  }
  const sampler = /^\/animations\/(\d+)\/samplers\/(\d+)/.exec(error.pointer)
  if (sampler) return !used(Number(sampler[1]), Number(sampler[2]))
  const channel = /^\/animations\/(\d+)\/channels\/(\d+)/.exec(error.pointer)
  if (channel)
    return json.animations[Number(channel[1])]?.channels?.[Number(channel[2])]?.target?.node === undefined
  const accessor = /^\/accessors\/(\d+)/.exec(error.pointer)
  if (!accessor) return false
  const i = Number(accessor[1])
  let users = 0
  for (const [a, animation] of (json.animations as Json[]).entries()) {
    if (!Array.isArray(animation?.samplers)) continue
    for (const [s, sampler] of (animation.samplers as Json[]).entries()) {
      if (sampler?.input !== i && sampler?.output !== i) continue
      users++
      if (used(a, s)) return false
    }
  }
  return users > 0
}

/**
 * True for an ACCESSOR_INVALID_IBM whose last-row element is within 1e-5 of what it should be (0, or 1 at
 * 15).
 */
function ibmNoise(error: ValidatorError): boolean {
  const at = /component index (\d+)\) contains invalid value: (\S+)\.?$/.exec(error.message)
  if (!at) return false
  const value = Number(at[2]!.replace(/\.$/, ''))
  return Math.abs(value - (at[1] === '15' ? 1 : 0)) <= 1e-5
}

/**
 * Validator errors the loader accepts on purpose, and what it does instead. A case where the validator
 * reports an error of a LOADER_CATEGORIES category and the loader returns an asset must be explained here
 * (else it is a missing check, and the fuzz test fails).
 */
export const DELIBERATE_REPAIRS: readonly Repair[] = [
  {
    codes: ['ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION'],
    why: 'rotation keys are normalized (buildClip); only a zero-length key is rejected',
  },
  {
    codes: [
      'ACCESSOR_MIN_MISMATCH',
      'ACCESSOR_MAX_MISMATCH',
      'ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND',
      'ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND',
      'ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS',
      'TYPE_MISMATCH',
      'ARRAY_TYPE_MISMATCH',
      'ARRAY_LENGTH_NOT_IN_LIST',
      'EMPTY_ENTITY',
    ],
    pointer: /^\/(accessors\/\d+\/(min|max)|animations\/\d+\/samplers\/\d+\/input$)/,
    why: 'accessor min/max are never read: the key times and values themselves are checked',
  },
  {
    pointer: /^\/(animations\/\d+\/(samplers|channels)|accessors)\/\d+/,
    when: unusedAnimationData,
    why: 'channels without a target node are skipped (§5.6); samplers/accessors only they use are unread',
  },
  {
    codes: ['ACCESSOR_INVALID_IBM'],
    when: ibmNoise,
    why: 'an inverse bind matrix whose last row is within 1e-5 of [0, 0, 0, 1] is accepted (float noise)',
  },
  {
    codes: ['ANIMATION_CHANNEL_TARGET_NODE_MATRIX'],
    why: "the node's matrix is decomposed into T/R/S, which the channel animates (as three.js's loader does)",
  },
  {
    codes: ['NODE_MATRIX_TRS'],
    why: 'a node with both matrix and T/R/S: the matrix wins (gltf-transform and three.js read it so)',
  },
  {
    codes: ['ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE', 'SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE'],
    why: 'an animation or inverse-bind-matrix accessor in a strided buffer view is read with that stride',
  },
  {
    codes: ['BUFFER_VIEW_TARGET_OVERRIDE', 'ACCESSOR_USAGE_OVERRIDE'],
    why: 'an accessor shared by mesh data and an animation is read as animation data; its usage is not used',
  },
  {
    codes: ['SKIN_NO_COMMON_ROOT'],
    why: 'joints in separate trees: the skeleton is still built, with Skeleton.root = -1 (as asset.ts says)',
  },
  {
    codes: ['NODE_SKIN_NO_SCENE'],
    why: 'skeletons are built from the node tree, whether or not their joints are in the scene',
  },
  {
    codes: ['VALUE_NOT_IN_RANGE', 'ROTATION_NON_UNIT'],
    pointer: /^\/nodes\/\d+\/rotation/,
    why: 'a non-unit rest rotation is normalized; only a zero-length one is rejected',
  },
  {
    codes: ['UNSATISFIED_DEPENDENCY', 'NODE_SKIN_WITH_NON_SKINNED_MESH'],
    pointer: /^\/nodes\/\d+(\/skin)?$/,
    why: 'mesh attributes are not read: a skin on a node without a (skinned) mesh is kept as AssetNode.skin',
  },
  {
    codes: ['ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT'],
    when: (error) => /for path '(translation|scale)'/.test(error.message) && /BYTE|SHORT/.test(error.message),
    why: 'translation/scale keys stored as (U)BYTE/(U)SHORT, normalized or not, are decoded (clips.ts)',
  },
  {
    codes: ['EMPTY_ENTITY'],
    pointer: /^\/(nodes\/\d+\/children|animations\/\d+\/(channels|samplers))$/,
    why: 'an empty children, channels or samplers list is read as none (no channels: an empty clip)',
  },
  {
    codes: ['DUPLICATE_ELEMENTS'],
    pointer: /^\/scenes\/\d+\/nodes/,
    why: 'a scene root listed twice counts once',
  },
]

/** The documented repair that explains a validator error on the (mutated) JSON, if any. */
export function repairFor(error: ValidatorError, json: Json | null): Repair | undefined {
  return DELIBERATE_REPAIRS.find(
    (r) =>
      (!r.codes || r.codes.includes(error.code)) &&
      (!r.pointer || r.pointer.test(error.pointer)) &&
      (!r.when || r.when(error, json)),
  )
}
