import type { GLTF } from '@gltf-transform/core'
import { isObject, shown, type JsonCheck } from './gltfError.ts'

/**
 * Which glTF extensions a file may require, and the checks on EXT_meshopt_compression's JSON that bound what
 * decoding it allocates (checkJson.ts runs them before anything is read).
 *
 * A required extension is honoured in one of two ways:
 *
 *   decoded    KHR_mesh_quantization (integer and normalized integer keys, read as floats: clips.ts) and
 *              EXT_meshopt_compression / KHR_meshopt_compression (buffer views decoded by the meshoptimizer
 *              package's decoder, through @gltf-transform/extensions: read.ts)
 *   ignored    extensions that change only meshes, materials or textures (MESH_ONLY): the asset holds none
 *              of their data, so a file that needs them to draw is still a file whose skeleton and clips
 *              read exactly as without them (Draco-compressed primitives, KTX2/WebP/AVIF images, …)
 *
 * Any other required extension may change what a node, a skin or an animation means (KHR_animation_pointer,
 * a vendor's), so the file is refused with the extension's name.
 */

/** The meshopt extensions, with the JSON layout they share (the KHR one adds the COLOR filter). */
export const MESHOPT_EXTENSIONS = ['EXT_meshopt_compression', 'KHR_meshopt_compression'] as const

/** Extensions the loader decodes. */
const DECODED: readonly string[] = ['KHR_mesh_quantization', ...MESHOPT_EXTENSIONS]

/** Extensions that concern only meshes, materials and textures; any `KHR_materials_*` too. */
const MESH_ONLY: readonly string[] = [
  'KHR_draco_mesh_compression',
  'KHR_texture_basisu',
  'KHR_texture_transform',
  'EXT_texture_webp',
  'EXT_texture_avif',
  'EXT_mesh_gpu_instancing',
  'MSFT_texture_dds',
]

/** Whether a file that requires `name` can be read (see above). */
export function canHonour(name: string): boolean {
  return DECODED.includes(name) || MESH_ONLY.includes(name) || name.startsWith('KHR_materials_')
}

/** Refuses a file requiring an extension canHonour says no to, naming it. */
export function checkRequiredExtensions(c: JsonCheck, json: GLTF.IGLTF): void {
  const required: unknown = json.extensionsRequired ?? []
  if (!Array.isArray(required)) c.fail(`extensionsRequired ${shown(required)} is not an array`)
  for (const name of required as unknown[]) {
    if (typeof name !== 'string') c.fail(`extensionsRequired lists ${shown(name)}, not an extension name`)
    if (!canHonour(name as string)) {
      c.fail(
        `requires the glTF extension "${name}", which this loader cannot honour (it decodes ` +
          `${DECODED.join(', ')}, and ignores extensions that concern only meshes and textures)`,
      )
    }
  }
}

/** A view's or buffer's meshopt extension object (either name), or undefined. */
export function meshoptOf(item: object): Record<string, unknown> | undefined {
  const extensions = (item as { extensions?: unknown }).extensions
  if (!isObject(extensions)) return undefined
  for (const name of MESHOPT_EXTENSIONS) {
    const ext = extensions[name]
    if (ext !== undefined) return isObject(ext) ? ext : {}
  }
  return undefined
}

/** A buffer marked as a meshopt fallback: its bytes, if any, are never needed (its views are decoded). */
export function isFallbackBuffer(buffer: unknown): boolean {
  return isObject(buffer) && meshoptOf(buffer)?.['fallback'] === true
}

/** Element sizes (byteStride) each mode and filter allows (the extension's spec). */
const MODES: Record<string, (stride: number, count: number) => boolean> = {
  ATTRIBUTES: (stride) => stride % 4 === 0 && stride <= 256,
  TRIANGLES: (stride, count) => (stride === 2 || stride === 4) && count % 3 === 0,
  INDICES: (stride) => stride === 2 || stride === 4,
}
const FILTERS: Record<string, (stride: number) => boolean> = {
  NONE: () => true,
  OCTAHEDRAL: (stride) => stride === 4 || stride === 8,
  QUATERNION: (stride) => stride === 8,
  EXPONENTIAL: (stride) => stride % 4 === 0,
  COLOR: (stride) => stride === 4 || stride === 8,
}

/**
 * Every buffer view's meshopt extension, before anything is decoded: its compressed bytes inside a buffer that
 * holds data, a mode and filter the decoder knows (an unknown filter would be skipped without a word) with an
 * element size they allow, and `count × byteStride` equal to the view's byteLength (what the decoder
 * allocates, counted by checkDecodedSize). A view on a fallback buffer must be compressed: the fallback's bytes
 * are not read. Returns, per view, the bytes decoding it makes (0 for a view stored plainly).
 */
export function checkMeshoptViews(
  c: JsonCheck,
  buffers: readonly Record<string, unknown>[],
  bufferViews: readonly Record<string, unknown>[],
  viewLengths: readonly number[],
): number[] {
  const { fail, ref, natural } = c
  return bufferViews.map((view, i) => {
    const where = `bufferView ${i}`
    const ext = meshoptOf(view)
    if (ext === undefined) {
      if (isFallbackBuffer(buffers[view['buffer'] as number])) {
        fail(`${where} lies in buffer ${view['buffer']}, a meshopt fallback buffer, but is not compressed`)
      }
      return 0
    }
    const at = `${where} (meshopt)`
    const buffer = ref(ext['buffer'], buffers.length, 'buffer', at, 'buffers')
    if (isFallbackBuffer(buffers[buffer]))
      fail(`${at}: its compressed bytes are in fallback buffer ${buffer}`)
    const offset = natural(ext['byteOffset'], 0, 'byteOffset', at)
    const length = natural(ext['byteLength'], -1, 'byteLength', at)
    const stride = natural(ext['byteStride'], -1, 'byteStride', at)
    const count = natural(ext['count'], -1, 'count', at)
    if (length < 1 || stride < 1 || count < 1) {
      fail(`${at}: byteLength, byteStride and count must be positive integers`)
    }
    const bufferLength = buffers[buffer]!['byteLength'] as number
    if (offset + length > bufferLength) {
      fail(
        `${at}: bytes ${offset}..${offset + length} run past the end of buffer ${buffer} (${bufferLength} bytes)`,
      )
    }
    const mode = ext['mode']
    const filter = ext['filter'] ?? 'NONE'
    const modeFits = typeof mode === 'string' ? MODES[mode] : undefined
    const filterFits = typeof filter === 'string' ? FILTERS[filter] : undefined
    if (!modeFits) fail(`${at}: mode ${shown(mode)} is not ATTRIBUTES, TRIANGLES or INDICES`)
    if (!filterFits) fail(`${at}: filter ${shown(filter)} is not ${Object.keys(FILTERS).join(', ')}`)
    if (filter !== 'NONE' && mode !== 'ATTRIBUTES') fail(`${at}: filter ${filter} needs mode ATTRIBUTES`)
    if (!modeFits!(stride, count) || !filterFits!(stride)) {
      fail(`${at}: byteStride ${stride} (count ${count}) does not fit mode ${mode} with filter ${filter}`)
    }
    if (count * stride !== viewLengths[i]) {
      fail(`${at}: count ${count} × byteStride ${stride} is not the view's byteLength ${viewLengths[i]}`)
    }
    return count * stride
  })
}
