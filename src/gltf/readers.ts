/**
 * gltf-transform's readers for readAsset (src/gltf/read.ts): from memory only, and with meshoptimizer's decoder
 * for files whose views in use are meshopt-compressed (made on the first such file).
 */
import { Logger, PlatformIO, Verbosity } from '@gltf-transform/core'
import type { GLTF } from '@gltf-transform/core'
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions'
import { meshoptOf } from './extensions.ts'
import type { MeshoptDecoder } from './accessorData.ts'

/**
 * Rewrites the JSON gltf-transform reads so that it decodes only the compressed buffer views the asset reads
 * (`inUse`, by view): EXT_meshopt_compression's reader decodes every view that carries the extension, and a
 * mesh's views can be most of a file. Views not in use become empty; the KHR_meshopt_compression extension,
 * the same JSON over a bitstream the decoder also reads, is handed over under the EXT name gltf-transform
 * knows. Only the extensions gltf-transform is given readers for stay listed (checkGltfJson accepted the
 * others as concerning meshes and textures only; KHR_mesh_quantization only widens the accessor types clips.ts
 * reads). Returns whether any view in use is compressed.
 */
export function decodeOnlyViewsInUse(json: GLTF.IGLTF, inUse: readonly boolean[]): boolean {
  const asExt = <T extends { extensions?: Record<string, unknown> }>(item: T): T => {
    const ext = meshoptOf(item)
    return ext === undefined ? item : { ...item, extensions: { [EXTMeshoptCompression.EXTENSION_NAME]: ext } }
  }
  let compressed = false
  json.bufferViews = json.bufferViews?.map((view, v) => {
    if (!inUse[v]) return { buffer: view.buffer, byteLength: 0 }
    compressed ||= meshoptOf(view) !== undefined
    return asExt(view)
  })
  json.buffers = json.buffers?.map(asExt)
  // Meshopt is listed (as required, so that gltf-transform decodes the views and drops the fallback buffers)
  // exactly when a view in use is compressed; the reader without it is used otherwise.
  const kept = (names: unknown): string[] => [
    ...new Set(
      (Array.isArray(names) ? (names as unknown[]) : [])
        .map((name): string => String(name))
        .filter((name): name is string => name === KHRMeshQuantization.EXTENSION_NAME)
        .concat(compressed ? [MESHOPT_EXTENSION] : []),
    ),
  ]
  json.extensionsUsed = kept(json.extensionsUsed)
  json.extensionsRequired = kept(json.extensionsRequired)
  return compressed
}

const MESHOPT_EXTENSION = EXTMeshoptCompression.EXTENSION_NAME

/** Reads only from memory: every buffer is handed over in `resources`, so no uri is ever fetched. */
class MemoryIO extends PlatformIO {
  protected async readURI(uri: string): Promise<never> {
    throw new Error(`external resource "${uri}" was not supplied`)
  }
  protected resolve(base: string, path: string): string {
    return base + path
  }
  protected dirname(): string {
    return ''
  }
}

export const io = Promise.resolve(
  new MemoryIO().setLogger(new Logger(Verbosity.SILENT)).registerExtensions([KHRMeshQuantization]),
)

let meshopt: Promise<PlatformIO> | undefined

/**
 * A reader that also decodes meshopt-compressed views, made on the first file that needs it: the decoder
 * (meshoptimizer's, WebAssembly) is imported and compiled only then, so files without compression never load it.
 */
export function meshoptIO(): Promise<PlatformIO> {
  meshopt ??= meshoptDecoder().then((decoder) =>
    new MemoryIO()
      .setLogger(new Logger(Verbosity.SILENT))
      .registerExtensions([KHRMeshQuantization, EXTMeshoptCompression])
      .registerDependencies({ 'meshopt.decoder': decoder }),
  )
  return meshopt
}

let decoder: Promise<MeshoptDecoder> | undefined

/** meshoptimizer's decoder, imported and compiled on first use (see meshoptIO). */
export function meshoptDecoder(): Promise<MeshoptDecoder> {
  decoder ??= import('meshoptimizer/decoder').then(async ({ MeshoptDecoder }) => {
    await MeshoptDecoder.ready
    return MeshoptDecoder
  })
  return decoder
}
