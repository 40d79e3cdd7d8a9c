/**
 * The asset against the file, read independently (no gltf-transform): an accessor reader of its own, sparse
 * too, and the check that the asset holds what the file says. Part of judge 1 (loader.ts).
 */
import type { AnimationAsset } from '../../../src/gltf/asset.ts'
import type { Json } from '../gltfFiles.ts'
import { COMPONENTS } from '../mutate.ts'

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
export function checkAgainstFile(asset: AnimationAsset, json: Json, buffers: Uint8Array[]): string | null {
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
