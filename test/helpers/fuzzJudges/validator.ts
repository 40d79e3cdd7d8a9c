/**
 * Judge 2: Khronos gltf-validator on the same bytes, its errors sorted into categories. Part of
 * test/helpers/fuzzJudges.ts.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { type Json, assetPath } from '../gltfFiles.ts'
import type { MutatedFile, Subject } from '../mutate.ts'

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
