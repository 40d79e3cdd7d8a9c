/**
 * The instanced crowd of the three.js adapter: every character of one asset drawn with one draw call per mesh
 * of the file (the Fox: one in all), however many characters there are.
 *
 * Each of the file's meshes becomes one InstancedMesh sharing GLTFLoader's geometry, instance i showing
 * character `characters[i]`:
 *
 * - a skinned mesh gets a copy of its material whose vertex shader skins per instance from one float RGBA
 *   DataTexture of the crowd: row i holds character i's skinning palette (plugin.writePalette: every skin of
 *   the asset, 4 texels per matrix, column by column), and the shader reads its own skin's slice, from
 *   `skin start + JOINTS_0`, at row gl_InstanceID. The palette is in world space, so the mesh is drawn with
 *   identity model and instance matrices; the material keeps its textures, colours and lighting (three's own
 *   shader with its skinning chunks replaced, `onBeforeCompile`).
 * - a mesh that is not skinned (RobotExpressive's body parts hang from bones) is placed per instance by its
 *   instance matrix: its node's world matrix times the mesh's rest offset from that node.
 *
 * As with the adapter's bound views: `capture()` after EVERY fixed step, `render(stepper.alpha)` once per drawn
 * frame before `renderer.render`. capture() writes the step's palettes and matrices; render(alpha) shows the
 * element-wise lerp between the last two captures (linear blend skinning blends these matrices per vertex
 * anyway; over one step's turn of a bone the lerp shrinks it by well under 1e-3), or the last one with
 * `interpolate: false` or alpha 1. A step that placed something (setTransform) is shown at once, as WorldSync
 * does. What the crowd does not show: morph targets (each instance shows the mesh's default shape) and
 * shadows it casts (its InstancedMeshes keep `castShadow` false: three's shadow pass would draw them unskinned).
 *
 * Display only: nothing here feeds the simulation.
 *
 * @module
 */
import {
  DataTexture,
  FloatType,
  Group,
  InstancedMesh,
  Matrix4,
  RGBAFormat,
  SkinnedMesh,
  type BufferGeometry,
  type IUniform,
  type Material,
  type Mesh,
  type Object3D,
} from 'three'
import { AnimationError, showValue } from '../src/errors.ts'
import type { AnimationAsset, AnimationPlugin, AssetHandle } from '../entry/index.ts'
import type { ThreeSceneView } from './three.ts'
import { crowdMaterial } from './crowdMaterial.ts'

export { CROWD_SKINNING } from './crowdMaterial.ts'

/** Options of createInstancedCrowd. */
export interface InstancedCrowdOptions {
  /** Most characters the crowd shows: instances of each mesh, rows of the palette texture. Default 1024. */
  capacity?: number
  /** Interpolate between the last two captured steps in render(alpha). Default true. */
  interpolate?: boolean
  /**
   * Skinning for three's node materials (WebGPURenderer, whose node materials never run onBeforeCompile): given
   * a skinned mesh's material copy, the palette texture, the skin's first matrix and the mesh's bind matrix,
   * it sets the copy's node properties. 'ecs-anim/three/webgpu' passes its own; without it, a crowd drawn by a
   * WebGPURenderer throws an AnimationError instead of drawing unskinned meshes.
   */
  nodeSkinning?: CrowdNodeSkinning
}

/** Sets a crowd material copy's node properties so that node materials skin it (InstancedCrowdOptions.nodeSkinning). */
export type CrowdNodeSkinning = (
  material: Material,
  palette: DataTexture,
  start: number,
  bindMatrix: Matrix4,
) => void

/**
 * Characters of one asset drawn instanced (createInstancedCrowd): `object` goes in the scene once; add and
 * remove characters; `capture()` after every fixed step, `render(alpha)` once per drawn frame.
 */
export interface InstancedCrowd {
  /** Add it to an identity-transform three scene: the crowd's InstancedMeshes (one per mesh of the file). */
  readonly object: Group
  /** The InstancedMeshes, one per mesh of the file: one draw call each per frame while the crowd is not empty. */
  readonly meshes: readonly InstancedMesh[]
  /** The characters shown, instance i showing `characters[i]` (removal moves the last one into the gap). */
  readonly characters: readonly number[]
  /**
   * Shows `character` (of the crowd's asset) from the next render on, as its last step left it. Throws
   * AnimationError 'argument' for an entity that is not a character of the asset or one already shown, and
   * 'capacity' when the crowd is full.
   */
  add(character: number): void
  /** Stops showing `character`. Throws AnimationError 'argument' for one the crowd does not show. */
  remove(character: number): void
  /**
   * Call after every fixed step: writes the step's palettes and matrices, of the characters whose joints the
   * step moved (a still or held one keeps its last). Allocation-free.
   */
  capture(): void
  /** Shows `alpha` ∈ [0, 1] (clamped) of the way from the step before the last to the last. Allocation-free. */
  render(alpha?: number): void
  /** Frees the crowd's texture, material copies and instance buffers (not the file's geometry or textures). */
  dispose(): void
}

const DEFAULT_CAPACITY = 1024

/**
 * An empty instanced crowd of `asset` (added to `plugin`), drawn with the meshes and materials of `view`
 * (GLTFLoader's scene of the same file, `viewOfGltf(gltf)`; it need not be in the scene, and may be bound to a
 * character of its own). Throws AnimationError 'argument' for an asset the plugin has not added or bad options.
 */
export function createInstancedCrowd(
  plugin: AnimationPlugin,
  asset: AnimationAsset | AssetHandle,
  view: ThreeSceneView,
  options: InstancedCrowdOptions = {},
): InstancedCrowd {
  const layout = plugin.paletteLayout(asset)
  const source = 'asset' in asset ? asset.asset : asset
  const capacity = options.capacity ?? DEFAULT_CAPACITY
  if (!(Number.isInteger(capacity) && capacity >= 1 && capacity <= 1 << 16)) {
    throw new AnimationError(
      'argument',
      `createInstancedCrowd: capacity ${showValue(capacity)} must be an integer in [1, 65536]`,
    )
  }
  const interpolate = options.interpolate ?? true
  const object = new Group()
  object.name = `${source.source} crowd`
  object.matrixAutoUpdate = false

  // The palette: one row of 16·M floats (4·M texels) per instance.
  const paletteFloats = 16 * layout.matrices
  const texture =
    layout.matrices === 0
      ? null
      : new DataTexture(
          new Float32Array(capacity * paletteFloats),
          4 * layout.matrices,
          capacity,
          RGBAFormat,
          FloatType,
        )
  const paletteUniform: IUniform = { value: texture }
  const channels: Channel[] = []
  const palette: Channel | null = texture && channel(paletteFloats, texture.image.data as Float32Array)

  const meshes: InstancedMesh[] = []
  const rigid: { node: number; offset: Float32Array; channel: Channel }[] = []
  const materials: Material[] = []
  view.scene.traverse((o) => {
    if (!(o as Mesh).isMesh) return
    const mesh = o as Mesh
    const node = nodeOf(view, mesh)
    if (node < 0) return
    const skinned = mesh instanceof SkinnedMesh && source.nodes[node]!.skin >= 0 && texture !== null
    let material: Material | Material[] = mesh.material
    if (skinned) {
      const start = layout.skins[source.nodes[node]!.skin]!.start
      const bindMatrix = (mesh as SkinnedMesh).bindMatrix
      const copy = (m: Material) => {
        const made = crowdMaterial(m, paletteUniform, start, bindMatrix)
        options.nodeSkinning?.(made, texture!, start, bindMatrix)
        return made
      }
      material = Array.isArray(material) ? material.map(copy) : copy(material)
      materials.push(...(Array.isArray(material) ? material : [material]))
    }
    const instanced = new InstancedMesh(mesh.geometry as BufferGeometry, material, capacity)
    instanced.name = mesh.name
    instanced.count = 0
    instanced.frustumCulled = false // instances are anywhere; the identity instance matrices say nothing
    instanced.matrixAutoUpdate = false
    if (skinned && !options.nodeSkinning) instanced.onBeforeRender = refuseNodeRenderers
    meshes.push(instanced)
    object.add(instanced)
    if (!skinned) {
      const matrices = instanced.instanceMatrix.array as Float32Array
      rigid.push({ node, offset: restOffset(view, mesh), channel: channel(16, matrices) })
    }
  })

  const characters: number[] = []
  /** Per instance, the SceneNode entity of each rigid mesh's node (rigid.length per instance). */
  let entities = new Int32Array(capacity * rigid.length)
  /** Per instance, the character's joint entities (`jointCount` each): what capture checks for change. */
  let jointCount = -1
  let joints = new Int32Array(0)
  const { world, changed } = plugin.stores.SceneNode
  let placements = plugin.sceneGraph.placements

  function channel(stride: number, display: Float32Array): Channel {
    const c: Channel = {
      stride,
      display,
      curr: new Float32Array(capacity * stride),
      prev: new Float32Array(capacity * stride),
    }
    channels.push(c)
    return c
  }

  /** Instance i's current palette and rigid matrices from the plugin. */
  function write(i: number): void {
    if (palette !== null) plugin.writePalette(palette.curr, characters[i]!, i * paletteFloats)
    for (let k = 0; k < rigid.length; k++) {
      const { offset, channel: c } = rigid[k]!
      multiply(c.curr, 16 * i, world, 16 * entities[i * rigid.length + k]!, offset)
    }
  }

  /**
   * Whether any joint of instance i got a new world matrix in the last step's propagation (a joint under a moved
   * node is recomputed too): if none did, its palette and matrices are the previous capture's.
   */
  function moved(i: number): boolean {
    for (let j = i * jointCount, end = j + jointCount; j < end; j++)
      if (changed[joints[j]!] === 1) return true
    return false
  }

  /** Instance i's previous rows as its current ones: a still character costs a copy, not the products. */
  function keep(i: number): void {
    for (let ch = 0; ch < channels.length; ch++) {
      const { curr, prev, stride } = channels[ch]!
      for (let k = i * stride, end = k + stride; k < end; k++) curr[k] = prev[k]!
    }
  }

  function copyRow(c: Channel, from: number, to: number): void {
    c.curr.copyWithin(to * c.stride, from * c.stride, (from + 1) * c.stride)
    c.prev.copyWithin(to * c.stride, from * c.stride, (from + 1) * c.stride)
  }

  function add(character: number): void {
    const what = `InstancedCrowd.add(${showValue(character)})`
    let own: Int32Array
    try {
      own = plugin.joints(character)
    } catch (error) {
      throw new AnimationError('argument', `${what}: not a character of this plugin`, { cause: error })
    }
    if (plugin.paletteLayout(character) !== layout) {
      throw new AnimationError('argument', `${what}: not a character of ${source.source}`)
    }
    if (characters.includes(character)) throw new AnimationError('argument', `${what}: already shown`)
    if (characters.length >= capacity) {
      throw new AnimationError('capacity', `${what}: the crowd is full (capacity ${capacity})`)
    }
    const i = characters.length
    if (jointCount < 0) {
      jointCount = own.length
      joints = new Int32Array(capacity * jointCount)
    }
    joints.set(own, i * jointCount)
    characters.push(character)
    for (let k = 0; k < rigid.length; k++) {
      entities[i * rigid.length + k] = plugin.jointEntity(character, rigid[k]!.node)
    }
    write(i)
    // Nothing to interpolate from yet: the previous capture is this one.
    for (const c of channels) c.prev.set(c.curr.subarray(i * c.stride, (i + 1) * c.stride), i * c.stride)
    for (const m of meshes) m.count = characters.length
  }

  function remove(character: number): void {
    const i = characters.indexOf(character)
    if (i < 0) {
      throw new AnimationError('argument', `InstancedCrowd.remove(${showValue(character)}): not shown`)
    }
    const last = characters.length - 1
    if (i !== last) {
      characters[i] = characters[last]!
      for (const c of channels) copyRow(c, last, i)
      entities.copyWithin(i * rigid.length, last * rigid.length, (last + 1) * rigid.length)
      joints.copyWithin(i * jointCount, last * jointCount, (last + 1) * jointCount)
    }
    characters.pop()
    for (const m of meshes) m.count = characters.length
  }

  function capture(): void {
    for (let ch = 0; ch < channels.length; ch++) {
      const c = channels[ch]!
      const t = c.prev
      c.prev = c.curr
      c.curr = t
    }
    for (let i = 0; i < characters.length; i++) {
      if (moved(i)) write(i)
      else keep(i)
    }
    const now = plugin.sceneGraph.placements
    if (now !== placements) {
      // A teleport: shown at once, not slid across.
      placements = now
      for (let ch = 0; ch < channels.length; ch++) {
        const c = channels[ch]!
        c.prev.set(c.curr.subarray(0, characters.length * c.stride))
      }
    }
  }

  function render(alpha = 1): void {
    const a = interpolate ? (alpha > 0 ? (alpha < 1 ? alpha : 1) : 0) : 1
    // Indexed loops, no subarray views: a frame allocates nothing.
    for (let ch = 0; ch < channels.length; ch++) {
      const { curr, prev, display, stride } = channels[ch]!
      const n = characters.length * stride
      if (a === 1) for (let k = 0; k < n; k++) display[k] = curr[k]!
      else for (let k = 0; k < n; k++) display[k] = prev[k]! + a * (curr[k]! - prev[k]!)
    }
    if (texture !== null) texture.needsUpdate = true
    for (let m = 0; m < meshes.length; m++) meshes[m]!.instanceMatrix.needsUpdate = true
  }

  return {
    object,
    meshes,
    characters,
    add,
    remove,
    capture,
    render,
    dispose() {
      texture?.dispose()
      for (const m of materials) m.dispose()
      for (const m of meshes) m.dispose()
      object.clear()
      entities = new Int32Array(0)
      joints = new Int32Array(0)
    },
  }
}

/**
 * A skinned crowd mesh's onBeforeRender without node skinning: WebGPURenderer (either backend) builds node
 * materials and never runs the copy's onBeforeCompile, so the mesh would be drawn in its bind pose at the
 * origin for every character. Refuse instead, saying what works.
 */
function refuseNodeRenderers(renderer: unknown): void {
  if (!(renderer as { isWebGPURenderer?: boolean }).isWebGPURenderer) return
  throw new AnimationError(
    'argument',
    "createInstancedCrowd: this crowd skins in WebGL shaders (onBeforeCompile), which WebGPURenderer never runs; make it with the createInstancedCrowd of 'ecs-anim/three/webgpu' to draw it with WebGPURenderer",
  )
}

/** One kind of per-instance data: `stride` floats per instance, the last two captures and what three reads. */
interface Channel {
  readonly stride: number
  readonly display: Float32Array
  curr: Float32Array
  prev: Float32Array
}

/** The glTF node a mesh stands for: itself, or the nearest ancestor that is a node (a multi-primitive mesh). */
function nodeOf(view: ThreeSceneView, o: Object3D): number {
  for (let p: Object3D | null = o; p !== null; p = p.parent) {
    const node = view.nodes.get(p)
    if (node !== undefined) return node
  }
  return -1
}

/** The mesh's rest transform relative to its node's object (identity when the mesh is the node). */
function restOffset(view: ThreeSceneView, mesh: Object3D): Float32Array {
  const m = new Matrix4()
  const local = new Matrix4()
  for (let o: Object3D | null = mesh; o !== null && !view.nodes.has(o); o = o.parent) {
    local.compose(o.position, o.quaternion, o.scale)
    m.premultiply(local)
  }
  return Float32Array.from(m.elements)
}

/** out[o..o+16) = a[ao..ao+16) × b, column-major, in three's order (Matrix4.multiplyMatrices). */
function multiply(out: Float32Array, o: number, a: Float32Array, ao: number, b: Float32Array): void {
  for (let c = 0; c < 4; c++) {
    const b0 = b[4 * c]!
    const b1 = b[4 * c + 1]!
    const b2 = b[4 * c + 2]!
    const b3 = b[4 * c + 3]!
    for (let r = 0; r < 4; r++) {
      out[o + 4 * c + r] = a[ao + r]! * b0 + a[ao + 4 + r]! * b1 + a[ao + 8 + r]! * b2 + a[ao + 12 + r]! * b3
    }
  }
}
