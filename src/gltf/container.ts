import { BufferUtils } from '@gltf-transform/core'
import type { GLTF } from '@gltf-transform/core'
import { gltfError, describeThrown, isObject, shown } from './gltfError.ts'
import { isFallbackBuffer } from './extensions.ts'

/**
 * The file container: .glb bytes or .gltf JSON bytes → the glTF JSON and one byte array per glTF buffer.
 * Platform-neutral (no fs, no fetch). Every failure is an AnimationError (kind 'gltf') naming the source.
 *
 * GLB layout (little-endian u32s; chunk lengths include their padding):
 *
 *   | magic "glTF" | version 2 | length (whole file) |             12-byte header
 *   | chunk length L0 | type "JSON" | L0 bytes of UTF-8 JSON |    first chunk, required
 *   | chunk length L1 | type "BIN\0" | L1 bytes |                 optional; the data of buffer 0 (no uri)
 *   | further chunks of unknown type |                             ignored
 */

const GLB_MAGIC = 0x46546c67
const CHUNK_JSON = 0x4e4f534a
const CHUNK_BIN = 0x004e4942
const GLB_HEADER_BYTES = 12
const CHUNK_HEADER_BYTES = 8

export interface Container {
  json: GLTF.IGLTF
  /** The GLB BIN chunk, or null (a .gltf file, or a .glb without one). */
  bin: Uint8Array | null
}

/** True when the bytes start with the GLB magic "glTF". */
export function isGlb(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && readU32(bytes, 0) === GLB_MAGIC
}

/** Splits .glb bytes (or parses .gltf JSON bytes) and checks the root is a glTF 2.0 object. */
export function parseContainer(bytes: Uint8Array, source: string): Container {
  let container: Container
  if (isGlb(bytes) || (bytes.length < 4 && startsLikeGlb(bytes))) {
    container = parseGlb(bytes, source)
  } else if (looksLikeJson(bytes)) {
    container = { json: parseJsonText(bytes, source, 'the file'), bin: null }
  } else {
    throw gltfError(
      source,
      `is neither a glTF binary (it does not start with the magic "glTF", it starts with ${describeStart(bytes)}) ` +
        'nor glTF JSON',
    )
  }
  checkRoot(container.json, source)
  return container
}

function parseGlb(bytes: Uint8Array, source: string): Container {
  const size = bytes.length
  if (size < GLB_HEADER_BYTES) {
    throw gltfError(source, `truncated: ${size} bytes is too short for the 12-byte glTF binary header`)
  }
  const version = readU32(bytes, 4)
  if (version !== 2) throw gltfError(source, `glTF binary version ${version} is not supported (expected 2)`)
  const length = readU32(bytes, 8)
  if (length > size) {
    throw gltfError(source, `truncated: the glTF binary header says ${length} bytes, the file has ${size}`)
  }
  if (length < size) {
    throw gltfError(
      source,
      `the glTF binary header says ${length} bytes, but the file has ${size} (extra data)`,
    )
  }

  const chunks: { type: number; offset: number; length: number }[] = []
  let offset = GLB_HEADER_BYTES
  while (offset < size) {
    if (size - offset < CHUNK_HEADER_BYTES) {
      throw gltfError(
        source,
        `truncated: ${size - offset} stray bytes at offset ${offset}, too few for a chunk header`,
      )
    }
    const chunkLength = readU32(bytes, offset)
    const type = readU32(bytes, offset + 4)
    const start = offset + CHUNK_HEADER_BYTES
    if (start + chunkLength > size) {
      throw gltfError(
        source,
        `truncated: chunk ${chunks.length} (${chunkName(type)}, ${chunkLength} bytes at offset ${start}) ` +
          `runs past the end of the file (${size} bytes)`,
      )
    }
    chunks.push({ type, offset: start, length: chunkLength })
    offset = start + chunkLength
  }

  const first = chunks[0]
  if (!first) throw gltfError(source, 'the glTF binary has no JSON chunk after its 12-byte header')
  if (first.type !== CHUNK_JSON) {
    throw gltfError(source, `the first glTF binary chunk is ${chunkName(first.type)}, expected JSON`)
  }
  const json = parseJsonText(
    bytes.subarray(first.offset, first.offset + first.length),
    source,
    'the JSON chunk',
  )
  // The BIN chunk, when present, must directly follow the JSON chunk (glTF 2.0 §4.4.3.3).
  const second = chunks[1]
  const bin =
    second && second.type === CHUNK_BIN ? bytes.subarray(second.offset, second.offset + second.length) : null
  return { json, bin }
}

function parseJsonText(bytes: Uint8Array, source: string, what: string): GLTF.IGLTF {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch (error) {
    throw gltfError(source, `${what} is not valid UTF-8`, error)
  }
  try {
    return JSON.parse(text) as GLTF.IGLTF
  } catch (error) {
    throw gltfError(source, `${what} is not valid JSON (${describeThrown(error)})`, error)
  }
}

function checkRoot(json: unknown, source: string): asserts json is GLTF.IGLTF {
  if (!isObject(json)) throw gltfError(source, 'the glTF JSON is not an object')
  const asset = json['asset']
  if (!isObject(asset)) throw gltfError(source, 'the glTF JSON has no "asset" object')
  if (asset['version'] !== '2.0') {
    throw gltfError(source, `glTF version ${shown(asset['version'])} is not supported (expected "2.0")`)
  }
}

/**
 * The bytes of every glTF buffer, in buffer order. A buffer without a uri is the GLB BIN chunk; a `data:` uri is
 * decoded; any other uri is looked up in `resources` (keyed by the uri exactly as written in the file).
 * Checks each buffer holds at least its declared `byteLength`.
 */
export function resolveBuffers(
  container: Container,
  resources: Readonly<Record<string, Uint8Array>> | undefined,
  source: string,
): Uint8Array[] {
  const defs: unknown = container.json.buffers ?? []
  if (!Array.isArray(defs)) throw gltfError(source, '"buffers" is not an array')
  return defs.map((def: unknown, i): Uint8Array => {
    if (!isObject(def)) throw gltfError(source, `buffer ${i} is not an object`)
    const byteLength = def['byteLength']
    if (!Number.isInteger(byteLength) || (byteLength as number) < 1) {
      throw gltfError(source, `buffer ${i} byteLength ${shown(byteLength)} is not a positive integer`)
    }
    const uri = def['uri']
    let data: Uint8Array
    let holder: string
    // A meshopt fallback's bytes are never read (its views are decoded from other buffers): none are needed.
    if (
      isFallbackBuffer(def) &&
      (typeof uri !== 'string' || (!uri.startsWith('data:') && !resources?.[uri]))
    ) {
      return NO_BYTES
    }
    if (uri === undefined) {
      if (i !== 0 || !container.bin) {
        throw gltfError(source, `buffer ${i} has no uri and the file has no GLB BIN chunk to supply it`)
      }
      data = container.bin
      holder = 'the GLB BIN chunk'
    } else if (typeof uri !== 'string') {
      throw gltfError(source, `buffer ${i} uri is not a string`)
    } else if (uri.startsWith('data:')) {
      if (!/^data:[^,]*;base64,/.test(uri)) {
        throw gltfError(source, `buffer ${i} data: uri is not base64 (expected "data:...;base64,")`)
      }
      data = BufferUtils.createBufferFromDataURI(uri)
      holder = 'its data: uri'
    } else {
      const external = resources?.[uri]
      if (!external) {
        throw gltfError(
          source,
          `buffer ${i} refers to the external file "${uri}", which was not supplied ` +
            '(pass it in options.resources, or load the file from disk with loadAsset)',
        )
      }
      data = external
      holder = `"${uri}"`
    }
    if (data.byteLength < (byteLength as number)) {
      throw gltfError(
        source,
        `buffer ${i} declares ${byteLength} bytes but ${holder} holds only ${data.byteLength} (truncated?)`,
      )
    }
    return data
  })
}

const NO_BYTES = new Uint8Array(0)

/**
 * The uris of the buffers a .gltf keeps in other files (not `data:`), for a loader that can fetch them; not
 * those of meshopt fallback buffers, which are never read.
 */
export function externalBufferUris(json: GLTF.IGLTF): string[] {
  const defs: unknown = json.buffers
  if (!Array.isArray(defs)) return []
  const uris = new Set<string>()
  for (const def of defs) {
    const uri = isObject(def) && !isFallbackBuffer(def) ? def['uri'] : undefined
    if (typeof uri === 'string' && !uri.startsWith('data:')) uris.add(uri)
  }
  return [...uris]
}

function readU32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, true)
}

function startsLikeGlb(bytes: Uint8Array): boolean {
  const magic = [0x67, 0x6c, 0x54, 0x46] // "glTF"
  return bytes.length > 0 && Array.from(bytes).every((b, i) => b === magic[i])
}

/** JSON text starts (after an optional BOM and whitespace) with "{". */
function looksLikeJson(bytes: Uint8Array): boolean {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  while (
    i < bytes.length &&
    (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)
  )
    i++
  return bytes[i] === 0x7b
}

function describeStart(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'nothing: the file is empty'
  const head = Array.from(bytes.subarray(0, 4))
  const printable = head.every((b) => b >= 0x20 && b < 0x7f)
  const hex = head.map((b) => b.toString(16).padStart(2, '0')).join(' ')
  return printable ? `"${String.fromCharCode(...head)}" (${hex})` : hex
}

function chunkName(type: number): string {
  if (type === CHUNK_JSON) return 'JSON'
  if (type === CHUNK_BIN) return 'BIN'
  return `type 0x${type.toString(16).padStart(8, '0')}`
}
