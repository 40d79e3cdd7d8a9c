import type { Object3D } from 'three'
import { clone as cloneSkinned } from 'three/examples/jsm/utils/SkeletonUtils.js'
import { AnimationError } from '../src/errors.ts'
import type { AnimationPlugin } from '../entry/index.ts'
import { createWorldSync, type WorldSyncOptions } from './worldSync.ts'

/**
 * three.js renderer adapter: shows characters of an animation plugin with objects three's own GLTFLoader built
 * from the same glTF file (so a game that loads with three keeps doing so).
 *
 * The scene graph (SceneNode world matrices) is the truth; three only displays it. Every bound object gets
 * `matrixAutoUpdate = false` and `matrixWorldAutoUpdate = false`, and the adapter writes its `matrixWorld`
 * directly (skinning reads `bone.matrixWorld`, and SkinnedMesh re-derives `bindMatrixInverse` from its own
 * `matrixWorld` in `updateMatrixWorld`, which the renderer still calls). `position`, `quaternion`, `scale` and
 * `matrix` of bound objects keep their rest values and are not used while bound; do not replace a bound
 * object's `matrixWorld` (its `elements` array is cached). Unbound objects under a bound one (a sword parented
 * to a hand bone) keep auto-updating from it as usual. The glTF scene root (the Group GLTFLoader returns) is
 * placed by the character entity and should hang directly under an identity-transform three scene: the
 * matrices written are SceneNode world matrices, which already include the character's place.
 *
 * Per frame: `capture()` after EVERY fixed step, `render(stepper.alpha)` once before `renderer.render`. Which
 * matrices get written, and how the display is interpolated between the last two steps (lerp T, nlerp R,
 * lerp S), is adapters/worldSync.ts.
 */

/** One copy of a glTF scene in three, with the glTF node index of each object that stands for a node. */
export interface ThreeSceneView {
  /** The scene root (GLTFLoader's `gltf.scene` or a clone): placed by the character entity. */
  readonly scene: Object3D
  /** Object → glTF node index, for the objects under `scene` that are glTF nodes. */
  readonly nodes: ReadonlyMap<Object3D, number>
}

/** The part of GLTFLoader's result the adapter reads. */
export interface GltfLike {
  readonly scene: Object3D
  readonly parser: { readonly associations: ReadonlyMap<object, { nodes?: number }> }
}

/** A view of GLTFLoader's own scene, node indices from `gltf.parser.associations`. */
export function viewOfGltf(gltf: GltfLike): ThreeSceneView {
  const nodes = new Map<Object3D, number>()
  gltf.scene.traverse((o) => {
    const node = gltf.parser.associations.get(o)?.nodes
    if (node !== undefined) nodes.set(o, node)
  })
  return { scene: gltf.scene, nodes }
}

/**
 * An independent copy of a view (for another character of the same asset): SkeletonUtils.clone, so skinned
 * meshes get their own skeleton bound to the copied bones; node indices carried over object by object.
 * Geometry and materials are shared with the source.
 */
export function cloneSceneView(view: ThreeSceneView): ThreeSceneView {
  const scene = cloneSkinned(view.scene)
  const nodes = new Map<Object3D, number>()
  const walk = (a: Object3D, b: Object3D): void => {
    const node = view.nodes.get(a)
    if (node !== undefined) nodes.set(b, node)
    for (let i = 0; i < a.children.length; i++) walk(a.children[i]!, b.children[i]!)
  }
  walk(view.scene, scene)
  return { scene, nodes }
}

export type ThreeAdapterOptions = WorldSyncOptions

/** A character shown by a view. Hand it back to `unbind`. */
export interface ThreeBinding {
  readonly character: number
  readonly view: ThreeSceneView
  /** SceneNode entities driven, parallel to `objects`: the character entity first (→ `view.scene`). */
  readonly entities: Int32Array
  readonly objects: readonly Object3D[]
}

export interface ThreeAdapter {
  /**
   * Drives `view` by `character` from now on: the view's scene by the character entity, every object that is a
   * glTF node by that node's SceneNode entity (`plugin.jointEntity`). Throws AnimationError 'argument' when the
   * character is not the plugin's, the view is already bound, or a node index is not in the character's scene.
   */
  bind(character: number, view: ThreeSceneView): ThreeBinding
  /** Stops driving; the objects get three's auto-update back (they show their rest transforms). */
  unbind(binding: ThreeBinding): void
  /** Call after every fixed step: records what the step changed. Allocation-free. */
  capture(): void
  /**
   * Writes changed matrices into three. `alpha` in [0, 1] (clamped; the stepper's `alpha`) places the display
   * between the step before the last and the last one; omitted (or `interpolate` off) shows the last step.
   * Allocation-free.
   */
  render(alpha?: number): void
  /** Counters for tools and tests: nodes bound, matrices written by the last render, captures so far. */
  readonly stats: { readonly bound: number; readonly uploads: number; readonly captures: number }
  /** Bound characters, in binding order. */
  readonly bindings: readonly ThreeBinding[]
}

export function createThreeAdapter(plugin: AnimationPlugin, options: ThreeAdapterOptions = {}): ThreeAdapter {
  const sync = createWorldSync(plugin.stores.SceneNode, options)
  // Slots are appended per binding, so binding b owns slots [sum of earlier bindings' sizes, + its size).
  const bindings: ThreeBinding[] = []

  function bind(character: number, view: ThreeSceneView): ThreeBinding {
    const what = `ThreeAdapter.bind(${character})`
    if (bindings.some((b) => b.view.scene === view.scene)) {
      throw new AnimationError(
        'argument',
        `${what}: this view's scene is already bound (clone it with cloneSceneView)`,
      )
    }
    try {
      plugin.joints(character)
    } catch (error) {
      throw new AnimationError('argument', `${what}: entity ${character} is not a character of this plugin`, {
        cause: error,
      })
    }
    const entities = [character]
    const driven: Object3D[] = [view.scene]
    view.scene.traverse((o) => {
      const node = view.nodes.get(o)
      if (node === undefined || o === view.scene) return
      let e: number
      try {
        e = plugin.jointEntity(character, node)
      } catch (error) {
        throw new AnimationError(
          'argument',
          `${what}: object "${o.name}" stands for glTF node ${node}, which is not in the character's scene`,
          { cause: error },
        )
      }
      entities.push(e)
      driven.push(o)
    })
    for (const o of driven) {
      o.matrixAutoUpdate = false
      o.matrixWorldAutoUpdate = false
    }
    const binding: ThreeBinding = { character, view, entities: Int32Array.from(entities), objects: driven }
    bindings.push(binding)
    sync.add(
      binding.entities,
      driven.map((o) => o.matrixWorld.elements),
    )
    return binding
  }

  function unbind(binding: ThreeBinding): void {
    const at = bindings.indexOf(binding)
    if (at < 0) {
      throw new AnimationError('argument', `ThreeAdapter.unbind(${binding.character}): not bound here`)
    }
    let start = 0
    for (let b = 0; b < at; b++) start += bindings[b]!.objects.length
    sync.remove(start, binding.objects.length)
    bindings.splice(at, 1)
    for (const o of binding.objects) {
      o.matrixAutoUpdate = true
      o.matrixWorldAutoUpdate = true
      o.matrixWorldNeedsUpdate = true
    }
  }

  const stats = {
    get bound() {
      return sync.count
    },
    get uploads() {
      return sync.uploads
    },
    get captures() {
      return sync.captures
    },
  }

  return { bind, unbind, capture: sync.capture, render: sync.render, stats, bindings }
}
