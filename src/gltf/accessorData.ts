import type { GLTF } from '@gltf-transform/core'
import { SPARSE_INDEX_BYTES, TYPE_COMPONENTS } from './checkAccessors.ts'
import { meshoptOf } from './extensions.ts'
import { describeThrown, gltfError } from './gltfError.ts'

/** What of meshoptimizer's decoder (its 'meshoptimizer/decoder' export, ready) the reader uses. */
export interface MeshoptDecoder {
  decodeGltfBuffer(
    target: Uint8Array,
    count: number,
    size: number,
    source: Uint8Array,
    mode: string,
    filter?: string,
  ): void
}

/** An accessor's elements as stored (integers not mapped, whatever `normalized` says) and how to read them. */
export interface AccessorData {
  /** count × components values, in an array of the component type (Float32Array for FLOAT). */
  readonly array: Float32Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Uint32Array
  /** glTF `type`: SCALAR, VEC3, VEC4, … */
  readonly type: string
  /** glTF `componentType`: 5120 BYTE … 5126 FLOAT. */
  readonly componentType: number
  readonly normalized: boolean
}

/**
 * The animation accessors of a file read straight from its JSON and buffers, as gltf-transform's
 * `Accessor.getArray()` gives them (elements packed, a byteStride's gaps left out, zeros without a bufferView,
 * sparse values applied), each read once however many samplers name it. Packed and aligned ones are views of
 * the file's bytes: read-only to their users. A buffer view compressed with EXT_meshopt_compression (or the KHR
 * one: the same JSON) is decoded whole by `decoder`, once, on first use (checkJson.ts bounded what it makes).
 * Why not gltf-transform: it builds a property with events and graph edges per animation, channel and sampler,
 * ~40 µs a channel here, so a file of 67,000 channels spent 2.5 s there before a clip was built.
 *
 * Expects JSON that passed checkGltfJson (every view and sparse block inside its buffer, offsets aligned,
 * known types) and checkSparseIndices (indices increasing, in range); `buffers` from resolveBuffers. Throws
 * AnimationError (kind 'gltf', naming `source`) for compressed data the decoder refuses.
 */
export function createAccessorReader(
  json: GLTF.IGLTF,
  buffers: readonly Uint8Array[],
  source: string,
  decoder: MeshoptDecoder | null = null,
): (index: number) => AccessorData {
  const read = new Map<number, AccessorData>()
  const decoded = new Map<number, Uint8Array>()
  const viewBytes: ViewBytes = (v) => {
    const view = json.bufferViews![v]!
    const ext = meshoptOf(view)
    if (ext === undefined) return { bytes: buffers[view.buffer]!, start: view.byteOffset ?? 0 }
    let bytes = decoded.get(v)
    if (bytes === undefined) {
      if (decoder === null) throw new Error('accessorData: a compressed view to read, but no meshopt decoder')
      const count = ext['count'] as number
      const stride = ext['byteStride'] as number
      const at = (ext['byteOffset'] as number | undefined) ?? 0
      const packed = buffers[ext['buffer'] as number]!.subarray(at, at + (ext['byteLength'] as number))
      bytes = new Uint8Array(count * stride)
      try {
        decoder.decodeGltfBuffer(bytes, count, stride, packed, ext['mode'] as string, ext['filter'] as string)
      } catch (error) {
        throw gltfError(
          source,
          `bufferView ${v}: its meshopt data cannot be decoded: ${describeThrown(error)}`,
        )
      }
      decoded.set(v, bytes)
    }
    return { bytes, start: 0 }
  }
  return (index) => {
    let data = read.get(index)
    if (data === undefined) {
      data = readAccessor(json, viewBytes, json.accessors![index]!)
      read.set(index, data)
    }
    return data
  }
}

/** A buffer view's bytes: those of its buffer from `start`, or (compressed) the whole view decoded. */
type ViewBytes = (view: number) => { bytes: Uint8Array; start: number }

function readAccessor(json: GLTF.IGLTF, viewBytes: ViewBytes, accessor: GLTF.IAccessor): AccessorData {
  const Array = ARRAYS[accessor.componentType]!
  const components = TYPE_COMPONENTS[accessor.type]!
  const elementBytes = Array.BYTES_PER_ELEMENT * components
  const v = accessor.bufferView
  if (v !== undefined && accessor.sparse === undefined) {
    // Packed elements at an aligned place: a view of the file's bytes, not a copy (clips copy what they keep).
    const { bytes, start } = viewBytes(v)
    const at = bytes.byteOffset + start + (accessor.byteOffset ?? 0)
    const stride = json.bufferViews![v]!.byteStride ?? elementBytes
    if (stride === elementBytes && at % Array.BYTES_PER_ELEMENT === 0) {
      return data(new Array(bytes.buffer as ArrayBuffer, at, accessor.count * components), accessor)
    }
  }
  const array = new Array(accessor.count * components)
  const out = new Uint8Array(array.buffer)
  if (v !== undefined) {
    copyElements(json, viewBytes, v, accessor.byteOffset ?? 0, accessor.count, elementBytes, out, null)
  }
  const sparse = accessor.sparse
  if (sparse !== undefined) {
    const { bytes: indexBytes, start } = viewBytes(sparse.indices.bufferView)
    const indexSize = SPARSE_INDEX_BYTES[sparse.indices.componentType]!
    const at = start + (sparse.indices.byteOffset ?? 0)
    const data = new DataView(indexBytes.buffer, indexBytes.byteOffset + at, sparse.count * indexSize)
    const targets = new Uint32Array(sparse.count)
    for (let k = 0; k < sparse.count; k++) {
      const o = k * indexSize
      targets[k] =
        indexSize === 1
          ? data.getUint8(o)
          : indexSize === 2
            ? data.getUint16(o, true)
            : data.getUint32(o, true)
    }
    const values = sparse.values
    copyElements(
      json,
      viewBytes,
      values.bufferView,
      values.byteOffset ?? 0,
      sparse.count,
      elementBytes,
      out,
      targets,
    )
  }
  return data(array, accessor)
}

function data(array: AccessorData['array'], accessor: GLTF.IAccessor): AccessorData {
  return {
    array,
    type: accessor.type,
    componentType: accessor.componentType,
    normalized: accessor.normalized === true,
  }
}

/**
 * `count` elements of `elementBytes` from bufferView `view` at `offset` (its byteStride apart, packed without
 * one) into `out`: element k to element k, or to element `targets[k]`. Byte copies, so any alignment of the
 * file's bytes will do; packed runs in one copy.
 */
function copyElements(
  json: GLTF.IGLTF,
  viewBytes: ViewBytes,
  viewIndex: number,
  offset: number,
  count: number,
  elementBytes: number,
  out: Uint8Array,
  targets: Uint32Array | null,
): void {
  const view = json.bufferViews![viewIndex]!
  const { bytes, start: viewStart } = viewBytes(viewIndex)
  const start = viewStart + offset
  const stride = view.byteStride ?? elementBytes
  if (targets === null && stride === elementBytes) {
    out.set(bytes.subarray(start, start + count * elementBytes))
    return
  }
  for (let k = 0; k < count; k++) {
    const from = start + k * stride
    const to = (targets === null ? k : targets[k]!) * elementBytes
    for (let b = 0; b < elementBytes; b++) out[to + b] = bytes[from + b]!
  }
}

const ARRAYS: Record<
  number,
  | Float32ArrayConstructor
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Uint32ArrayConstructor
> = {
  5120: Int8Array,
  5121: Uint8Array,
  5122: Int16Array,
  5123: Uint16Array,
  5125: Uint32Array,
  5126: Float32Array,
}
