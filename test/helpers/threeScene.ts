/**
 * A glTF file loaded by three.js's own GLTFLoader (in Node), for tests that hold the plugin against three's
 * AnimationMixer world matrix by world matrix: the scene, the Object3D of every glTF node (by node index, via
 * the parser's dependencies), a mixer on the scene, and the file's clips by name.
 */
import { readFileSync } from 'node:fs'
import { AnimationMixer, type AnimationClip, type Object3D } from 'three'
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { vi } from 'vitest'

export interface ThreeScene {
  scene: Object3D
  nodes: Object3D[]
  mixer: AnimationMixer
  clip: (name: string) => AnimationClip
}

/** GLTFLoader's result for a .glb in Node (an embedded texture fails to decode, harmlessly; its error is muted). */
export function loadGltf(file: string): Promise<GLTF> {
  return parseGltf(readFileSync(file))
}

/**
 * loadGltf on a .glb's bytes (threeOracle.ts packGltfAsGlb makes them for a .gltf). With `decoders`, GLTFLoader
 * is set up as the README shows for optimized files: three's MeshoptDecoder (meshopt_decoder.module.js) and a
 * Draco loader. three's DRACOLoader cannot run in Node (it decodes in a web Worker from decoder files it
 * fetches), so a stand-in answers every Draco primitive with an empty geometry: Draco compresses only meshes,
 * and the tests read the nodes and clips.
 */
export async function parseGltf(bytes: Uint8Array, decoders = false): Promise<GLTF> {
  ;(globalThis as { self?: unknown }).self ??= globalThis
  const { GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js')
  const loader = new GLTFLoader()
  if (decoders) {
    const { MeshoptDecoder } = await import('three/examples/jsm/libs/meshopt_decoder.module.js')
    const { BufferGeometry } = await import('three')
    loader.setMeshoptDecoder(MeshoptDecoder)
    const emptyDraco = {
      preload: () => emptyDraco,
      decodeDracoFile: (_data: ArrayBuffer, done: (geometry: InstanceType<typeof BufferGeometry>) => void) =>
        done(new BufferGeometry()),
    }
    loader.setDRACOLoader(emptyDraco as unknown as Parameters<typeof loader.setDRACOLoader>[0])
  }
  const quiet = vi.spyOn(console, 'error').mockImplementation(() => {})
  try {
    return await loader.parseAsync(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      '',
    )
  } finally {
    quiet.mockRestore()
  }
}

/** The Object3D of every glTF node of a loaded file, by node index. */
export async function gltfNodes(gltf: GLTF): Promise<Object3D[]> {
  const count = (gltf.parser.json as { nodes: unknown[] }).nodes.length
  const nodes: Object3D[] = []
  for (let i = 0; i < count; i++) nodes.push((await gltf.parser.getDependency('node', i)) as Object3D)
  return nodes
}

export async function loadThreeScene(file: string): Promise<ThreeScene> {
  const gltf = await loadGltf(file)
  return {
    scene: gltf.scene,
    nodes: await gltfNodes(gltf),
    mixer: new AnimationMixer(gltf.scene),
    clip: (name) => gltf.animations.find((a) => a.name === name)!,
  }
}
