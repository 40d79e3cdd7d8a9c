/**
 * A character's file as r3f code holds it: GLTFLoader's result (drei's useGLTF, r3f's useLoader) or a URL.
 * Either becomes the asset (read from the same glTF JSON and buffers GLTFLoader read, so the bytes are fetched
 * once) and GLTFLoader's view of it, once per file: each is cached, a URL's for the page's life (as useGLTF
 * caches), a GLTF object's while it lives.
 *
 * @module
 */
import type { Object3D } from 'three'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { readAsset, type AnimationAsset } from '../../entry/index.ts'
import { viewOfGltf, type ThreeSceneView } from '../three.ts'

/** GLTFLoader's result as far as it is read here (drei's useGLTF returns one). */
export interface GltfSource {
  /** The scene GLTFLoader built (never shown itself: each character shows a clone). */
  readonly scene: Object3D
  /** GLTFLoader's parser: the file's JSON, its buffers, and which object each node became. */
  readonly parser: {
    /** The file's glTF JSON. */
    readonly json: unknown
    /** Object → what it was made from; an entry's `nodes` is the glTF node index it stands for. */
    readonly associations: ReadonlyMap<
      object,
      {
        /** The glTF node index, when the object stands for a node. */
        nodes?: number
      }
    >
    /** Buffer `index` of the file, as GLTFLoader loaded it. */
    getDependency(type: 'buffer', index: number): Promise<ArrayBuffer>
  }
}

/** A glTF file, loaded (GLTFLoader's result) or by URL. */
export type CharacterSource = GltfSource | string

/** A file's asset and GLTFLoader's view of it. */
export interface LoadedSource {
  readonly asset: AnimationAsset
  readonly view: ThreeSceneView
}

const byObject = new WeakMap<GltfSource, Promise<LoadedSource>>()
const byUrl = new Map<string, Promise<LoadedSource>>()

/** The asset and view of a file (cached; see the module comment). Rejects with AnimationError for a bad file. */
export function loadSource(source: CharacterSource): Promise<LoadedSource> {
  if (typeof source === 'string') {
    let loaded = byUrl.get(source)
    if (!loaded) {
      const url = source
      loaded = new GLTFLoader().loadAsync(url).then((gltf) => fromGltf(gltf as unknown as GltfSource, url))
      byUrl.set(url, loaded)
      loaded.catch(() => byUrl.delete(url)) // a failed load is tried again by the next use
    }
    return loaded
  }
  let loaded = byObject.get(source)
  if (!loaded) {
    loaded = fromGltf(source, 'glTF')
    byObject.set(source, loaded)
  }
  return loaded
}

/** The asset read from GLTFLoader's JSON and buffers (buffers handed over under uris of our own). */
async function fromGltf(gltf: GltfSource, name: string): Promise<LoadedSource> {
  const json = gltf.parser.json as { buffers?: object[] }
  const declared = json.buffers ?? []
  const buffers = await Promise.all(declared.map((_, i) => gltf.parser.getDependency('buffer', i)))
  const resources: Record<string, Uint8Array> = {}
  const copy = {
    ...json,
    buffers: declared.map((buffer, i) => {
      const uri = `ecs-anim-buffer-${i}`
      resources[uri] = new Uint8Array(buffers[i]!)
      return { ...buffer, uri }
    }),
  }
  const asset = await readAsset(new TextEncoder().encode(JSON.stringify(copy)), name, { resources })
  return { asset, view: viewOfGltf(gltf) }
}
