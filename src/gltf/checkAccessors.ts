import type { GLTF } from '@gltf-transform/core'
import { gltfError, isObject, nameOf, shown, type JsonCheck } from './gltfError.ts'
import { MAX_ACCESSOR_ELEMENTS, MAX_DECODED_BYTES, MAX_KEYS } from './limits.ts'
import { meshoptOf } from './extensions.ts'
import { animationCopies } from './animationCopies.ts'
import { HERMITE_SEGMENT_STRIDE } from '../clip/segments.ts'
import { SLERP_SEGMENT_STRIDE } from '../clip/rotationCache.ts'

/**
 * The binary half of checkGltfJson (checkJson.ts): buffer views and accessors inside the file's bytes, and
 * what reading the accessors in use will decode (MAX_ACCESSOR_ELEMENTS, MAX_DECODED_BYTES), all before
 * gltf-transform allocates anything; and, after it resolved the buffers, the sparse indices.
 */

type Items = readonly Record<string, unknown>[]

/** Buffer views inside their buffers (whose data was checked to hold byteLength bytes): their lengths. */
export function checkBufferViews(c: JsonCheck, buffers: Items, bufferViews: Items): number[] {
  const { fail, ref, natural } = c
  return bufferViews.map((view, i) => {
    const where = `bufferView ${i}`
    const buffer = ref(view['buffer'], buffers.length, 'buffer', where, 'buffers')
    const offset = natural(view['byteOffset'], 0, 'byteOffset', where)
    const length = natural(view['byteLength'], -1, 'byteLength', where)
    if (length < 1) fail(`${where}: byteLength ${shown(view['byteLength'])} is not a positive integer`)
    const bufferLength = buffers[buffer]!['byteLength'] as number
    if (offset + length > bufferLength) {
      fail(
        `${where}: bytes ${offset}..${offset + length} run past the end of buffer ${buffer} (${bufferLength} bytes)`,
      )
    }
    const stride = view['byteStride']
    if (
      stride !== undefined &&
      (!Number.isInteger(stride) ||
        (stride as number) < 4 ||
        (stride as number) > 252 ||
        (stride as number) % 4 !== 0)
    ) {
      fail(`${where}: byteStride ${shown(stride)} is not a multiple of 4 in [4, 252]`)
    }
    return length
  })
}

/**
 * Accessors inside their buffer views (the last element must end within the view), known types, aligned,
 * within MAX_ACCESSOR_ELEMENTS: per accessor, the bytes gltf-transform allocates to read it.
 */
export function checkAccessors(
  c: JsonCheck,
  accessors: Items,
  bufferViews: Items,
  viewLengths: number[],
): number[] {
  const { fail, ref, natural } = c
  const viewOffsets = bufferViews.map((view) => (view['byteOffset'] as number | undefined) ?? 0)
  const decodedBytes = new Array<number>(accessors.length).fill(0)
  accessors.forEach((accessor, i) => {
    const where = `accessor ${i}`
    // typeof: a string "5126" would find the same entry here and in gltf-transform's tables.
    const componentBytes =
      typeof accessor['componentType'] === 'number' ? COMPONENT_BYTES[accessor['componentType']] : undefined
    if (componentBytes === undefined) {
      fail(`${where}: componentType ${shown(accessor['componentType'])} is not a glTF component type`)
    }
    const components = TYPE_COMPONENTS[accessor['type'] as string]
    if (components === undefined) fail(`${where}: type ${shown(accessor['type'])} is not a glTF type`)
    const count = natural(accessor['count'], -1, 'count', where)
    if (count < 1) fail(`${where}: count ${shown(accessor['count'])} is not a positive integer`)
    const elementBytes = componentBytes! * components!
    if (count > MAX_ACCESSOR_ELEMENTS) {
      fail(
        `${where}: ${count} elements of ${elementBytes} bytes (${count * elementBytes} bytes) are more than ` +
          `the limit of ${MAX_ACCESSOR_ELEMENTS} elements`,
      )
    }
    // What gltf-transform allocates to read it (more when sparse, below).
    decodedBytes[i] = count * elementBytes
    const normalized = accessor['normalized']
    if (normalized !== undefined && typeof normalized !== 'boolean') {
      fail(`${where}: normalized ${shown(normalized)} is not true or false`)
    }
    // Only (U)BYTE/(U)SHORT may be normalized. gltf-transform ignores the flag on FLOAT, so a file saying
    // "normalized FLOAT" would load as plain floats; UNSIGNED_INT is rejected where it is used (clips,
    // skins).
    if (normalized === true && accessor['componentType'] === 5126) {
      fail(`${where}: normalized is true for a FLOAT accessor (only (U)BYTE and (U)SHORT can be normalized)`)
    }
    // `align` is the component size: glTF 2.0 §3.6.2.4 requires offsets (accessor's, and view's + accessor's)
    // to be multiples of it. gltf-transform reads a misaligned accessor without complaint (it copies the
    // bytes).
    const fits = (
      viewValue: unknown,
      offsetValue: unknown,
      n: number,
      bytes: number,
      align: number,
      what: string,
    ): void => {
      const view = ref(viewValue, bufferViews.length, 'bufferView', `${where}${what}`, 'buffer views')
      const offset = natural(offsetValue, 0, 'byteOffset', `${where}${what}`)
      if (offset % align !== 0 || (viewOffsets[view]! + offset) % align !== 0) {
        fail(
          `${where}${what}: byteOffset ${offset} (${viewOffsets[view]! + offset} into the buffer) is not a ` +
            `multiple of the component size ${align}`,
        )
      }
      const viewStride = bufferViews[view]!['byteStride'] as number | undefined
      if (viewStride !== undefined && viewStride < bytes) {
        fail(
          `${where}${what}: elements of ${bytes} bytes do not fit ` +
            `bufferView ${view}'s byteStride ${viewStride}`,
        )
      }
      const stride = viewStride ?? bytes
      const end = offset + stride * (n - 1) + bytes
      if (end > viewLengths[view]!) {
        fail(
          `${where}${what}: ${n} elements of ${bytes} bytes from offset ${offset} need ${end} bytes, ` +
            `bufferView ${view} has ${viewLengths[view]}`,
        )
      }
    }
    if (accessor['bufferView'] !== undefined) {
      fits(accessor['bufferView'], accessor['byteOffset'], count, elementBytes, componentBytes!, '')
    } else if (accessor['byteOffset'] !== undefined) {
      // Without a bufferView the accessor is zeros (§3.6.2.3); an offset says the view went missing.
      fail(`${where}: has a byteOffset but no bufferView`)
    }
    const sparse = accessor['sparse']
    if (sparse !== undefined) {
      if (!isObject(sparse) || !isObject(sparse['indices']) || !isObject(sparse['values'])) {
        return fail(`${where}: sparse is not an object with indices and values`)
      }
      const sparseCount = natural(sparse['count'], -1, 'sparse count', where)
      if (sparseCount < 1 || sparseCount > count) {
        fail(`${where}: sparse count ${shown(sparse['count'])} is not in [1, ${count}]`)
      }
      const indexType = sparse['indices']['componentType']
      const indexBytes = typeof indexType === 'number' ? SPARSE_INDEX_BYTES[indexType] : undefined
      if (indexBytes === undefined) {
        fail(`${where}: sparse indices componentType ${shown(indexType)} is not 5121, 5123 or 5125`)
      }
      fits(
        sparse['indices']['bufferView'],
        sparse['indices']['byteOffset'],
        sparseCount,
        indexBytes!,
        indexBytes!,
        ' sparse indices',
      )
      fits(
        sparse['values']['bufferView'],
        sparse['values']['byteOffset'],
        sparseCount,
        elementBytes,
        componentBytes!,
        ' sparse values',
      )
      // gltf-transform reads the elements again over a bufferView, then the sparse indices and values.
      decodedBytes[i] =
        count * elementBytes * (accessor['bufferView'] === undefined ? 1 : 2) +
        sparseCount * (indexBytes! + elementBytes)
    }
  })
  return decodedBytes
}

/**
 * The arrays made from the file's data, summed before any is made: the accessors in use (`decodedBytes` of
 * checkAccessors), the compressed buffer views they read, decoded whole (`viewDecodedBytes`, extensions.ts),
 * the channels' copies of their keys (and a rotation's segments) and the nodes' morph weights, within
 * MAX_DECODED_BYTES; the keys of the channels built within MAX_KEYS. Channels of an animation that copies an
 * earlier one's (animationCopies.ts) are not built and do not count. Expects JSON that passed checkGltfJson's
 * reference checks.
 */
export function checkDecodedSize(
  c: JsonCheck,
  json: GLTF.IGLTF,
  decodedBytes: readonly number[],
  viewDecodedBytes: readonly number[],
): void {
  const { fail } = c
  const accessors = (json.accessors ?? []) as unknown as Items
  const animations = (json.animations ?? []) as unknown as Items
  const nodes = (json.nodes ?? []) as unknown as Items
  const meshes = (json.meshes ?? []) as unknown as Items
  let decoded = 0
  let keys = 0
  const spend = (bytes: number, what: string): void => {
    decoded += bytes
    if (decoded > MAX_DECODED_BYTES) {
      fail(
        `${what} (${bytes} bytes) would bring the data decoded from the file to ${decoded} bytes, ` +
          `more than the limit of ${MAX_DECODED_BYTES}`,
      )
    }
  }
  accessorsInUse(json).forEach((inUse, i) => {
    if (inUse) spend(decodedBytes[i]!, `accessor ${i}: reading its ${accessors[i]!['count']} elements`)
  })
  viewsInUse(json).forEach((inUse, v) => {
    const bytes = viewDecodedBytes[v]!
    if (inUse && bytes > 0) spend(bytes, `bufferView ${v}: decoding its compressed data`)
  })
  // A copy of an earlier animation builds nothing (clips.ts): only the others' channels count.
  const firstOf = animationCopies(json)
  animations.forEach((animation, a) => {
    if (firstOf[a] !== a) return
    const samplers = animation['samplers'] as Record<string, unknown>[]
    ;(animation['channels'] as Record<string, unknown>[]).forEach((channel, c) => {
      // clips.ts skips a channel without a target node.
      if ((channel['target'] as Record<string, unknown>)['node'] === undefined) return
      const sampler = samplers[channel['sampler'] as number]!
      const input = accessors[sampler['input'] as number]!
      const output = accessors[sampler['output'] as number]!
      const count = input['count'] as number
      const values = (output['count'] as number) * TYPE_COMPONENTS[output['type'] as string]!
      const where = `animation ${a}${nameOf(animation)} channel ${c}`
      keys += count
      if (keys > MAX_KEYS) {
        fail(
          `${where}: its ${count} keys bring the keys to build to ${keys}, more than the limit of ${MAX_KEYS}`,
        )
      }
      // A rotation's segments for the sampler: slerp's (LINEAR) or Hermite's (CUBICSPLINE), per key but the last.
      const interpolation = sampler['interpolation'] ?? 'LINEAR'
      const perSegment =
        (channel['target'] as Record<string, unknown>)['path'] !== 'rotation'
          ? 0
          : interpolation === 'LINEAR'
            ? 8 * SLERP_SEGMENT_STRIDE
            : interpolation === 'CUBICSPLINE'
              ? 4 * HERMITE_SEGMENT_STRIDE
              : 0
      const segments = perSegment * Math.max(0, count - 1)
      spend(
        4 * (count + values) + segments,
        `${where}: copying its ${count} key times and ${values} values` +
          (segments > 0 ? ' and making its rotation segments' : ''),
      )
    })
  })
  nodes.forEach((node, i) => {
    const targets = node['mesh'] === undefined ? 0 : morphTargetCount(meshes[node['mesh'] as number]!)
    if (targets > 0) spend(8 * targets, `node ${i}${nameOf(node)}: its ${targets} default morph weights`)
  })
}

/**
 * Which accessors the asset reads (animation samplers' input and output, skins' inverse bind matrices), by
 * accessor index. The others (meshes') are handed to gltf-transform empty: the asset holds none of their data.
 * Expects JSON that passed checkGltfJson's reference checks.
 */
export function accessorsInUse(json: GLTF.IGLTF): boolean[] {
  const used = new Array<boolean>(json.accessors?.length ?? 0).fill(false)
  for (const animation of json.animations ?? []) {
    for (const sampler of animation.samplers) used[sampler.input] = used[sampler.output] = true
  }
  for (const skin of json.skins ?? []) {
    if (skin.inverseBindMatrices !== undefined) used[skin.inverseBindMatrices] = true
  }
  return used
}

/**
 * Which buffer views the accessors in use read (their elements, sparse indices and values), by view index: the
 * compressed ones among them are decoded, the others are not (read.ts). Expects checked JSON.
 */
export function viewsInUse(json: GLTF.IGLTF): boolean[] {
  const used = new Array<boolean>(json.bufferViews?.length ?? 0).fill(false)
  const inUse = accessorsInUse(json)
  ;(json.accessors ?? []).forEach((accessor, i) => {
    if (!inUse[i]) return
    if (accessor.bufferView !== undefined) used[accessor.bufferView] = true
    if (accessor.sparse)
      used[accessor.sparse.indices.bufferView] = used[accessor.sparse.values.bufferView] = true
  })
  return used
}

/** Morph targets of a mesh's first primitive, as read.ts counts them (0 for a malformed mesh). */
export function morphTargetCount(mesh: Record<string, unknown>): number {
  const primitive: unknown = Array.isArray(mesh['primitives']) ? mesh['primitives'][0] : undefined
  return isObject(primitive) && Array.isArray(primitive['targets']) ? primitive['targets'].length : 0
}

/**
 * Sparse indices must be strictly increasing and name elements of their accessor (glTF 2.0 §3.6.2.3).
 * gltf-transform applies them as they come: an index past the end is dropped without a word, a repeated one
 * applied twice. Only accessors in use are checked: the others are never read (accessorsInUse), and
 * reading the indices of every accessor would let many accessors over one block cost time in their number
 * times its size. Runs after checkGltfJson (every sparse block then lies inside its buffer view and buffer,
 * and the ones in use within MAX_DECODED_BYTES) on the buffers resolveBuffers returned. Throws AnimationError
 * (kind 'gltf').
 */
export function checkSparseIndices(json: GLTF.IGLTF, buffers: readonly Uint8Array[], source: string): void {
  const inUse = accessorsInUse(json)
  ;(json.accessors ?? []).forEach((accessor, i) => {
    const sparse = accessor.sparse
    if (!sparse || !inUse[i]) return
    const view = json.bufferViews![sparse.indices.bufferView]!
    if (meshoptOf(view)) {
      throw gltfError(
        source,
        `accessor ${i}: sparse indices in a meshopt-compressed buffer view are not supported`,
      )
    }
    const bytes = buffers[view.buffer]!
    const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const size = SPARSE_INDEX_BYTES[sparse.indices.componentType]!
    const start = (view.byteOffset ?? 0) + (sparse.indices.byteOffset ?? 0)
    let previous = -1
    for (let k = 0; k < sparse.count; k++) {
      const at = start + k * size
      const index =
        size === 1 ? data.getUint8(at) : size === 2 ? data.getUint16(at, true) : data.getUint32(at, true)
      if (index <= previous) {
        throw gltfError(
          source,
          `accessor ${i}: sparse index ${k} is ${index}, not after sparse index ${k - 1} (${previous})`,
        )
      }
      if (index >= accessor.count) {
        throw gltfError(
          source,
          `accessor ${i}: sparse index ${k} is ${index}, past its ${accessor.count} elements`,
        )
      }
      previous = index
    }
  })
}

/** Bytes per component, by glTF componentType. */
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 }
/** Bytes per sparse index, by its componentType. */
export const SPARSE_INDEX_BYTES: Record<number, number> = { 5121: 1, 5123: 2, 5125: 4 }

/** Components per element, by glTF accessor type. */
export const TYPE_COMPONENTS: Record<string, number> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
}
