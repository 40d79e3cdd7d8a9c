import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import type { AnimationAsset } from './asset.ts'
import { externalBufferUris, isGlb, parseContainer } from './container.ts'
import { gltfError } from './gltfError.ts'
import { readAsset, type LoadAssetOptions } from './read.ts'

/**
 * Node only: loads a .glb or .gltf from disk. A .gltf's external buffers are read from the files its uris name,
 * relative to the .gltf (percent-decoded); external images are not read (animation needs none).
 * `path` becomes `asset.source` and the prefix of every message. `options.compress` makes compact clips
 * (LoadAssetOptions). Throws AnimationError (kind 'gltf' or 'clip'; 'argument' for a bad option).
 */
export async function loadAsset(path: string, options: LoadAssetOptions = {}): Promise<AnimationAsset> {
  const bytes = await readBytes(path, path, 'the file')
  const resources: Record<string, Uint8Array> = {}
  if (!isGlb(bytes)) {
    let uris: string[] = []
    try {
      uris = externalBufferUris(parseContainer(bytes, path).json)
    } catch {
      // Not readable as glTF JSON: readAsset reports why.
    }
    for (const uri of uris) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) {
        throw gltfError(path, `buffer uri "${uri}" is not a relative file path (only local files are read)`)
      }
      resources[uri] = await readBytes(
        resolve(dirname(path), decodeURIComponent(uri)),
        path,
        `buffer file "${uri}"`,
      )
    }
  }
  return readAsset(bytes, path, { compress: options.compress, resources })
}

async function readBytes(file: string, source: string, what: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(file))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error'
    const detail = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code
    throw gltfError(source, `cannot read ${what} (${file === source ? '' : `${file}: `}${detail})`, error)
  }
}
