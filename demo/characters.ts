import { Box3, Mesh, Texture, type Object3D, type Scene } from 'three'
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'
import type { AnimationAsset, AnimationPlugin, AssetHandle } from '../entry/index.ts'
import { readAsset } from '../entry/index.ts'
import {
  cloneSceneView,
  viewOfGltf,
  type ThreeAdapter,
  type ThreeBinding,
  type ThreeSceneView,
} from '../adapters/three.ts'

/**
 * A glTF file loaded twice from the same bytes: by the project (clips, skeleton → plugin) and by three's
 * GLTFLoader (meshes, materials → the picture). The adapter ties the two together node by node.
 */
export interface Model {
  readonly source: string
  readonly handle: AssetHandle
  readonly gltf: GLTF
  /** Uniform scale that brings the file into metres (Fox is in centimetres → 0.01; RobotExpressive → 1). */
  readonly scale: number
  /** Metres to lift the root so the rest pose stands on y = 0. */
  readonly lift: number
  /** Largest horizontal extent in metres (crowd spacing). */
  readonly footprint: number
  /** Rest-pose height, largest dimension and bounding-sphere radius in metres (camera framing). */
  readonly height: number
  readonly size: number
  readonly radius: number
  readonly clipNames: readonly string[]
  /** Whether the file has a skin (ragdolls are built from skins; others use every node). */
  readonly skinned: boolean
}

/** Largest dimensions (file units) taken to be in metres as they are: a plausible size for a character. */
const PLAUSIBLE_METRES = [0.1, 10] as const

/**
 * Metres per file unit, for a file that does not say (see `PLAUSIBLE_METRES`). glTF's unit is the metre, so a
 * largest dimension of 0.1–10 units is taken as it is (RobotExpressive: 4.8 m). Outside that the file was
 * most likely made in another unit (Fox: 155 units, centimetres), and a power of ten brings it into
 * [0.3 m, 3 m): 155 → 1.55 m.
 */
export function guessScale(size: number): number {
  if (!(Number.isFinite(size) && size > 0)) return 1
  if (size >= PLAUSIBLE_METRES[0] && size <= PLAUSIBLE_METRES[1]) return 1
  let scale = 1
  while (size * scale >= 3) scale /= 10
  while (size * scale < 0.3) scale *= 10
  return scale
}

/**
 * Reads a .glb for the plugin and for three. `scale`: metres per file unit when the caller knows it (the
 * shipped models), else guessed from the rest-pose size (`guessScale`). `edit` may change the asset before it
 * is added (clips made at load).
 */
export async function loadModel(
  plugin: AnimationPlugin,
  bytes: Uint8Array,
  source: string,
  scale?: number,
  edit: (asset: AnimationAsset) => AnimationAsset = (a) => a,
): Promise<Model> {
  const asset = edit(await readAsset(bytes, source))
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  const gltf = await new GLTFLoader().parseAsync(buffer, '')
  const handle = plugin.addAsset(asset)

  gltf.scene.updateMatrixWorld(true)
  const box = new Box3().setFromObject(gltf.scene)
  const size = Math.max(box.max.x - box.min.x, box.max.y - box.min.y, box.max.z - box.min.z)
  scale ??= guessScale(size)
  const lift = Number.isFinite(box.min.y) ? -box.min.y * scale : 0
  const footprint = Number.isFinite(size) ? Math.max(box.max.x - box.min.x, box.max.z - box.min.z) * scale : 1
  return {
    source,
    handle,
    gltf,
    scale,
    lift,
    footprint: Math.max(footprint, 0.3),
    height: Number.isFinite(size) ? (box.max.y - box.min.y) * scale : 1,
    size: Number.isFinite(size) ? size * scale : 1,
    radius: Number.isFinite(size) ? (box.max.distanceTo(box.min) / 2) * scale : 1,
    clipNames: asset.clips.map((c) => c.name),
    skinned: asset.skeletons.length > 0,
  }
}

/** One character on stage: its entity, the three objects showing it and their binding. */
export interface Character {
  readonly eid: number
  readonly view: ThreeSceneView
  readonly binding: ThreeBinding
}

export interface SpawnOptions {
  /** Ground position, metres. */
  x: number
  z: number
  /** Facing: a turn about +y given as the quaternion's (y, w) = (sin(θ/2), cos(θ/2)). Default none. */
  yaw?: readonly [number, number]
  /** Use GLTFLoader's own objects (the first character of a model); later ones get clones. */
  original?: boolean
  castShadow?: boolean
}

export function spawn(
  plugin: AnimationPlugin,
  adapter: ThreeAdapter,
  scene: Scene,
  model: Model,
  o: SpawnOptions,
): Character {
  const eid = plugin.addCharacter(model.handle)
  const nodes = plugin.stores.SceneNode
  nodes.scale.fill(model.scale, eid * 3, eid * 3 + 3)
  nodes.translation[eid * 3] = o.x
  nodes.translation[eid * 3 + 1] = model.lift
  nodes.translation[eid * 3 + 2] = o.z
  if (o.yaw) {
    nodes.rotation[eid * 4 + 1] = o.yaw[0]
    nodes.rotation[eid * 4 + 3] = o.yaw[1]
  }
  nodes.dirty[eid] = 1
  const base = viewOfGltf(model.gltf)
  const view = o.original ? base : cloneSceneView(base)
  view.scene.traverse((obj: Object3D) => {
    if (obj instanceof Mesh) {
      // Animated and ragdolled bounds move far from the bind pose: three's cached bounds would cull wrongly.
      obj.frustumCulled = false
      obj.castShadow = o.castShadow ?? false
    }
  })
  const binding = adapter.bind(eid, view)
  scene.add(view.scene)
  return { eid, view, binding }
}

export function despawn(plugin: AnimationPlugin, adapter: ThreeAdapter, c: Character): void {
  adapter.unbind(c.binding)
  c.view.scene.removeFromParent()
  plugin.removeCharacter(c.eid)
}

/** Frees a model's GPU resources once no character shows it any more. */
export function disposeModel(model: Model): void {
  model.gltf.scene.traverse((obj) => {
    if (!(obj instanceof Mesh)) return
    obj.geometry.dispose()
    for (const m of Array.isArray(obj.material) ? obj.material : [obj.material]) {
      for (const value of Object.values(m)) if (value instanceof Texture) value.dispose()
      m.dispose()
    }
  })
}
