/**
 * Applying a fuzz case to a copy of its subject and writing the file back in its own container (a GLB joiner
 * of its own, byte offsets from the JSON, so a bug in the loader's reading cannot hide the same bug here).
 * Part of the loader fuzzer's engine, test/helpers/mutate.ts.
 */
import { glbFromText, type Json } from '../gltfFiles.ts'
import type { Container, FuzzCase, JsonValue, KeyTimeEdit, Mutation, Path } from '../mutate.ts'
import { loadSubjects, type Subject } from './subjects.ts'

export interface MutatedFile {
  /** Source name for messages: the subject's file name. */
  source: string
  bytes: Uint8Array
  /** The external buffers (`external` container only), keyed by uri as written. */
  resources: Record<string, Uint8Array>
  /**
   * The mutated JSON, or null after a byte edit or truncation (which may leave it unreadable or different).
   */
  json: Json | null
  /** The bytes of each buffer as written (BIN chunk, data: uri or external file), by buffer index. */
  buffers: Uint8Array[]
}

export function applyCase(fuzzCase: FuzzCase): MutatedFile {
  const subject = loadSubjects()[fuzzCase.subject]!
  const json = structuredClone(subject.json)
  const buffers = subject.buffers.map((b) => b.slice())
  // Data edits use the file's own layout, so they land where the file's accessors are, whatever JSON edits
  // do.
  for (const m of fuzzCase.mutations) applyData(subject, buffers, m)
  for (const m of fuzzCase.mutations) if (m.op === 'sparse') applySparse(subject, json, buffers, m)
  for (const m of fuzzCase.mutations) {
    if (m.op === 'set') setAt(json, m.path, m.value)
    else if (m.op === 'delete') deleteAt(json, m.path)
  }
  let { bytes, textStart, textLength } = writeFile(subject.container, json, buffers)
  let jsonIntact = true
  for (const m of fuzzCase.mutations) {
    if (m.op === 'textByte' && textLength > 0) {
      bytes[textStart + (m.at % textLength)] = m.value
      jsonIntact = false
    } else if (m.op === 'fileByte' && bytes.length > 0) {
      bytes[m.at % bytes.length] = m.value
      jsonIntact = false
    } else if (m.op === 'truncate') {
      bytes = bytes.slice(0, Math.floor(m.fraction * bytes.length))
      if (m.fixHeader && subject.container === 'glb' && bytes.length >= 12) {
        new DataView(bytes.buffer).setUint32(8, bytes.length, true)
      }
      jsonIntact = false
    }
  }
  const resources: Record<string, Uint8Array> = {}
  if (subject.container === 'external') {
    subject.json.buffers.forEach((b: Json, i: number) => (resources[b.uri] = buffers[i]!))
  }
  return { source: subject.file.split('/').pop()!, bytes, resources, json: jsonIntact ? json : null, buffers }
}

function applySparse(
  subject: Subject,
  json: Json,
  buffers: Uint8Array[],
  m: Extract<Mutation, { op: 'sparse' }>,
): void {
  const layout = subject.floatLayout[m.accessor]
  if (!layout) return
  const b = layout.buffer
  const indexBytes = m.indexType === 5121 ? 1 : m.indexType === 5123 ? 2 : 4
  const start = Math.ceil(buffers[b]!.length / 4) * 4
  const valuesStart = start + Math.ceil((m.indices.length * indexBytes) / 4) * 4
  const grown = new Uint8Array(valuesStart + 4 * m.values.length)
  grown.set(buffers[b]!)
  const view = new DataView(grown.buffer)
  m.indices.forEach((index, k) => {
    const at = start + k * indexBytes
    if (indexBytes === 1) view.setUint8(at, index & 0xff)
    else if (indexBytes === 2) view.setUint16(at, index & 0xffff, true)
    else view.setUint32(at, index >>> 0, true)
  })
  m.values.forEach((v, k) => view.setFloat32(valuesStart + 4 * k, v, true))
  buffers[b] = grown
  json.buffers[b].byteLength = grown.length
  const views: Json[] = (json.bufferViews ??= [])
  views.push(
    { buffer: b, byteOffset: start, byteLength: Math.max(1, valuesStart - start) },
    { buffer: b, byteOffset: valuesStart, byteLength: Math.max(1, 4 * m.values.length) },
  )
  const offset = m.offsets ? { byteOffset: 0 } : {}
  json.accessors[m.accessor].sparse = {
    count: m.indices.length,
    indices: { bufferView: views.length - 2, componentType: m.indexType, ...offset },
    values: { bufferView: views.length - 1, ...offset },
  }
}

function applyData(subject: Subject, buffers: Uint8Array[], m: Mutation): void {
  if (m.op === 'binByte') {
    const b = buffers[m.buffer]
    if (b && b.length > 0) b[m.at % b.length] = m.value
    return
  }
  if (m.op === 'cutBuffer') {
    buffers[m.buffer] = buffers[m.buffer]!.slice(0, m.length)
    return
  }
  if (m.op !== 'keyTime' && m.op !== 'floats' && m.op !== 'scaleElement') return
  const layout = subject.floatLayout[m.accessor]
  if (!layout) return
  const bytes = buffers[layout.buffer]!
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const address = (element: number, component: number): number =>
    layout.offset + element * layout.stride + 4 * component
  // Another edit may have cut the buffer short: reads past its end give NaN, writes there are dropped.
  const inside = (at: number): boolean => at + 4 <= bytes.length
  const read = (element: number, component = 0): number => {
    const at = address(element, component)
    return inside(at) ? view.getFloat32(at, true) : NaN
  }
  const write = (element: number, component: number, value: number): void => {
    const at = address(element, component)
    if (inside(at)) view.setFloat32(at, value, true)
  }
  if (m.op === 'floats') {
    m.values.forEach((v, k) => m.component + k < layout.components && write(m.element, m.component + k, v))
  } else if (m.op === 'scaleElement') {
    for (let c = 0; c < layout.components; c++) write(m.element, c, read(m.element, c) * m.factor)
  } else {
    const k = m.key
    const prev = k > 0 ? read(k - 1) : 0
    const next = k + 1 < layout.count ? read(k + 1) : undefined
    const values: Record<KeyTimeEdit, () => void> = {
      'repeat-previous': () => write(k, 0, prev),
      'before-previous': () => write(k, 0, prev - 0.25),
      negative: () => write(k, 0, -0.5),
      nan: () => write(k, 0, NaN),
      infinity: () => write(k, 0, Infinity),
      huge: () => write(k, 0, 3e38),
      'negative-zero': () => write(k, 0, -0),
      'swap-next': () => {
        if (next === undefined) return
        write(k + 1, 0, read(k))
        write(k, 0, next)
      },
      'one-ulp-later': () => {
        if (k === 0) return
        const f = new Float32Array([prev])
        new Uint32Array(f.buffer)[0]! += prev >= 0 ? 1 : -1
        if (next === undefined || f[0]! < next) write(k, 0, f[0]!)
      },
    }
    values[m.edit]()
  }
}

function setAt(root: Json, path: Path, value: JsonValue): void {
  const parent = walkTo(root, path.slice(0, -1))
  if (parent !== null && typeof parent === 'object') parent[path[path.length - 1]!] = structuredClone(value)
  else if (path.length === 0) return
}

function deleteAt(root: Json, path: Path): void {
  const parent = walkTo(root, path.slice(0, -1))
  if (parent === null || typeof parent !== 'object') return
  const key = path[path.length - 1]!
  if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1)
  else delete parent[key]
}

function walkTo(root: Json, path: Path): Json {
  let at = root
  for (const key of path) {
    if (at === null || typeof at !== 'object') return null
    at = at[key]
  }
  return at ?? null
}

/** Writes the file; also says where the JSON text lies in it (for text edits). */
function writeFile(
  container: Container,
  json: Json,
  buffers: Uint8Array[],
): { bytes: Uint8Array; textStart: number; textLength: number } {
  // JSON.stringify writes ±Infinity as null and -0 as 0; the file keeps them (1e999 parses as Infinity).
  let text = JSON.stringify(json, (_, v: unknown) => {
    if (typeof v !== 'number') return v
    if (Object.is(v, -0)) return '@@-0@@'
    return Number.isNaN(v) || Number.isFinite(v) ? v : v > 0 ? '@@INF@@' : '@@-INF@@'
  })
  text = text.replaceAll('"@@INF@@"', '1e999').replaceAll('"@@-INF@@"', '-1e999').replaceAll('"@@-0@@"', '-0')
  if (container === 'embedded') {
    text = text.replace(/@@BUFFER(\d+)@@/g, (_, i: string) =>
      Buffer.from(buffers[Number(i)] ?? []).toString('base64'),
    )
  }
  const encoded = new TextEncoder().encode(text)
  if (container !== 'glb') return { bytes: encoded, textStart: 0, textLength: encoded.length }
  return { bytes: glbFromText(encoded, buffers[0] ?? null), textStart: 20, textLength: encoded.length }
}
