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
 * Objects that are not glTF nodes (a sword, a hat, a camera rig) are bound one by one with `bindObject`, to a
 * joint entity or to any SceneNode entity of the game's own.
 *
 * Per frame: `capture()` after EVERY fixed step, `render(stepper.alpha)` once before `renderer.render`. Which
 * matrices get written, and how the display is interpolated between the last two steps (lerp T, nlerp R,
 * lerp S), is WorldSync's (createWorldSync, adapters/worldSync.ts).
 *
 * @module
 */
import { hasComponent } from 'bitecs'
import type { Object3D } from 'three'
import { clone as cloneSkinned } from 'three/examples/jsm/utils/SkeletonUtils.js'
import { AnimationError } from '../src/errors.ts'
import type { AnimationPlugin } from '../entry/index.ts'
import { createWorldSync, type WorldSyncOptions } from './worldSync.ts'

// The instanced crowd: one draw call per mesh of a file for every character of it (adapters/threeCrowd.ts; its material and shader in crowdMaterial.ts).
export {
  createInstancedCrowd,
  type CrowdNodeSkinning,
  type InstancedCrowd,
  type InstancedCrowdOptions,
} from './threeCrowd.ts'

// The renderer-neutral half, for a renderer other than three (one 16-number target per SceneNode entity).
export { createWorldSync, type MatrixTarget, type WorldSync, type WorldSyncOptions } from './worldSync.ts'

// Clips from three's loaders (FBXLoader, BVHLoader, …) as clips of an asset, for plugin.addClip (adapters/threeClips.ts).
export { clipFromThree, type ClipFromThreeOptions } from './threeClips.ts'

/** One copy of a glTF scene in three, with the glTF node index of each object that stands for a node. */
export interface ThreeSceneView {
  /** The scene root (GLTFLoader's `gltf.scene` or a clone): placed by the character entity. */
  readonly scene: Object3D
  /** Object → glTF node index, for the objects under `scene` that are glTF nodes. */
  readonly nodes: ReadonlyMap<Object3D, number>
}

/** The part of GLTFLoader's result the adapter reads. */
export interface GltfLike {
  /** GLTFLoader's `gltf.scene`: the root of the objects it built. */
  readonly scene: Object3D
  /** GLTFLoader's `gltf.parser`, of which only `associations` is read. */
  readonly parser: {
    /** Object → what it was made from; only the entries with a `nodes` index are read. */
    readonly associations: ReadonlyMap<
      object,
      {
        /** The glTF node index the object stands for, when it stands for one. */
        nodes?: number
      }
    >
  }
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

/** Options of createThreeAdapter: those of its WorldSync (`interpolate`, default true). */
export type ThreeAdapterOptions = WorldSyncOptions

/** A character shown by a view. Hand it back to `unbind`. */
export interface ThreeBinding {
  /** The character entity bound. */
  readonly character: number
  /** The view that shows it. */
  readonly view: ThreeSceneView
  /** SceneNode entities driven, parallel to `objects`: the character entity first (→ `view.scene`). */
  readonly entities: Int32Array
  /** The objects driven, parallel to `entities`: `view.scene` first, then every object that is a glTF node. */
  readonly objects: readonly Object3D[]
  /**
   * Morph targets shown: per mesh (the node's object, or the meshes GLTFLoader made under it for a
   * multi-primitive mesh), its `morphTargetInfluences` and where the node's weights start in the character's
   * morph weights. Written by render().
   */
  readonly morphs: readonly {
    /** The mesh's `morphTargetInfluences` (three's own array). */
    readonly influences: number[]
    /** Where the node's weights start in the character's morph weights (`plugin.morphWeights`). */
    readonly offset: number
    /** How many: the mesh's morph targets. */
    readonly count: number
  }[]
}

/** One object driven by one SceneNode entity (`bindObject`). Hand it back to `unbind`. */
export interface ThreeObjectBinding {
  /** The SceneNode entity whose world matrix the object shows. */
  readonly entity: number
  /** The object driven. */
  readonly object: Object3D
}

/**
 * Shows an animation plugin's SceneNodes with three.js objects (createThreeAdapter): binds views and objects,
 * records each fixed step's changes, writes `matrixWorld`s. It owns the bound objects' matrices until they are
 * unbound.
 */
export interface ThreeAdapter {
  /**
   * Drives `view` by `character` from now on: the view's scene by the character entity, every object that is a
   * glTF node by that node's SceneNode entity (`plugin.jointEntity`). Throws AnimationError 'argument' when the
   * character is not the plugin's, the view is already bound, one of its objects is already driven
   * (`bindObject`), or a node index is not in the character's scene.
   */
  bind(character: number, view: ThreeSceneView): ThreeBinding
  /**
   * Drives one object by SceneNode entity `entity` from now on: its `matrixWorld` is the entity's world matrix,
   * written and interpolated exactly like a character's bones. The entity is a joint (`plugin.jointEntity`) or
   * a node of the game's own (`addSceneNode(plugin.sceneGraph, e, parent)`), e.g. a grip node under a hand
   * joint whose local transform is the sword's offset, so the offset is part of the deterministic simulation.
   *
   * The object's three parent does not matter (its world is written whole): add it to the scene directly. Its
   * children follow it as usual, so a mesh can also sit, with its own offset, under an empty Object3D bound to
   * a joint. Joint worlds include the character's scale (Fox: 0.01), which a node of the game's own can undo.
   * Unbind it before its entity is removed (`removeCharacter` removes the joints): bitecs recycles ids, and
   * the object would follow whichever entity gets the id next.
   *
   * Throws AnimationError 'argument' when `entity` is not a SceneNode of the plugin's world or `object` is
   * already driven (by `bindObject`, or as part of a bound view), changing nothing.
   */
  bindObject(entity: number, object: Object3D): ThreeObjectBinding
  /**
   * Stops driving a character's view or an object; the objects get three's auto-update back (they show their
   * own local transforms again). Throws AnimationError 'argument' for a binding that is not bound here.
   */
  unbind(binding: ThreeBinding | ThreeObjectBinding): void
  /** Call after every fixed step: records what the step changed. Allocation-free. */
  capture(): void
  /**
   * Writes changed matrices into three. `alpha` in [0, 1] (clamped; the stepper's `alpha`) places the display
   * between the step before the last and the last one; omitted (or `interpolate` off) shows the last step.
   * Allocation-free.
   */
  render(alpha?: number): void
  /** Counters for tools and tests: objects bound, matrices written by the last render, captures so far. */
  readonly stats: {
    /** Objects bound (views' objects and single objects). */
    readonly bound: number
    /** Matrices written by the last render. */
    readonly uploads: number
    /** capture() calls so far. */
    readonly captures: number
  }
  /** Bound characters, in binding order. */
  readonly bindings: readonly ThreeBinding[]
  /** Objects bound with `bindObject`, in binding order. */
  readonly objectBindings: readonly ThreeObjectBinding[]
}

/**
 * A three.js adapter for `plugin`, with nothing bound. It reads the plugin's SceneNode store and writes only
 * the bound objects; it changes nothing of the plugin's.
 */
export function createThreeAdapter(plugin: AnimationPlugin, options: ThreeAdapterOptions = {}): ThreeAdapter {
  const sync = createWorldSync(plugin.stores.SceneNode, {
    placements: () => plugin.sceneGraph.placements,
    ...options,
  })
  // Slots are appended per binding, so the binding at `order[b]` owns slots [sum of earlier sizes, + its size).
  /** Each bound character's live morph weights (plugin.morphWeights), read by render. */
  const morphViews = new Map<number, Float32Array>()
  const order: (ThreeBinding | ThreeObjectBinding)[] = []
  const bindings: ThreeBinding[] = []
  const objectBindings: ThreeObjectBinding[] = []
  /** Every object some binding drives, so no object gets two writers. */
  const driven = new Set<Object3D>()
  const size = (b: ThreeBinding | ThreeObjectBinding): number => ('view' in b ? b.objects.length : 1)

  function take(objects: readonly Object3D[]): void {
    for (const o of objects) {
      o.matrixAutoUpdate = false
      o.matrixWorldAutoUpdate = false
      driven.add(o)
    }
  }

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
    const objects: Object3D[] = [view.scene]
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
      objects.push(o)
    })
    const taken = objects.find((o) => driven.has(o))
    if (taken) {
      throw new AnimationError(
        'argument',
        `${what}: object "${taken.name || taken.type}" of this view is already driven by another binding`,
      )
    }
    take(objects)
    const morphs = morphTargets(character, view)
    const binding: ThreeBinding = { character, view, entities: Int32Array.from(entities), objects, morphs }
    order.push(binding)
    bindings.push(binding)
    sync.add(
      binding.entities,
      objects.map((o) => o.matrixWorld.elements),
    )
    return binding
  }

  /** The meshes of a view whose morph targets the character's morph weights drive. */
  function morphTargets(character: number, view: ThreeSceneView): ThreeBinding['morphs'] {
    const mw = plugin.morphWeights(character)
    if (mw === null) return []
    const byNode = new Map<number, Object3D>()
    for (const [o, node] of view.nodes) byNode.set(node, o)
    const out: { influences: number[]; offset: number; count: number }[] = []
    mw.nodes.forEach((node, k) => {
      const o = byNode.get(node)
      if (!o) return
      const count = mw.offsets[k + 1]! - mw.offsets[k]!
      const meshes = [o, ...o.children.filter((c) => !view.nodes.has(c))]
      for (const mesh of meshes) {
        const influences = (mesh as { morphTargetInfluences?: number[] }).morphTargetInfluences
        if (influences && influences.length === count) out.push({ influences, offset: mw.offsets[k]!, count })
      }
    })
    morphViews.set(character, mw.weights)
    return out
  }

  function renderMorphs(): void {
    for (let b = 0; b < bindings.length; b++) {
      const binding = bindings[b]!
      const weights = morphViews.get(binding.character)
      if (weights === undefined) continue
      for (const { influences, offset, count } of binding.morphs) {
        for (let k = 0; k < count; k++) influences[k] = weights[offset + k]!
      }
    }
  }

  function bindObject(entity: number, object: Object3D): ThreeObjectBinding {
    const what = `ThreeAdapter.bindObject(${entity})`
    const graph = plugin.sceneGraph
    if (
      !Number.isInteger(entity) ||
      entity < 1 ||
      entity >= graph.capacity ||
      !hasComponent(plugin.world, entity, graph.store)
    ) {
      throw new AnimationError(
        'argument',
        `${what}: entity ${entity} is not a SceneNode of this plugin's world (a joint from plugin.jointEntity, ` +
          `or a node made with addSceneNode(plugin.sceneGraph, entity, parent))`,
      )
    }
    if (driven.has(object)) {
      throw new AnimationError(
        'argument',
        `${what}: object "${object.name || object.type}" is already driven by another binding (unbind it first)`,
      )
    }
    take([object])
    const binding: ThreeObjectBinding = { entity, object }
    order.push(binding)
    objectBindings.push(binding)
    sync.add([entity], [object.matrixWorld.elements])
    return binding
  }

  function unbind(binding: ThreeBinding | ThreeObjectBinding): void {
    const at = order.indexOf(binding)
    if (at < 0) {
      const who = 'view' in binding ? binding.character : binding.entity
      throw new AnimationError('argument', `ThreeAdapter.unbind(${who}): not bound here`)
    }
    let start = 0
    for (let b = 0; b < at; b++) start += size(order[b]!)
    sync.remove(start, size(binding))
    order.splice(at, 1)
    const list: (ThreeBinding | ThreeObjectBinding)[] = 'view' in binding ? bindings : objectBindings
    list.splice(list.indexOf(binding), 1)
    if ('view' in binding && !bindings.some((b) => b.character === binding.character)) {
      morphViews.delete(binding.character)
    }
    for (const o of 'view' in binding ? binding.objects : [binding.object]) {
      driven.delete(o)
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

  return {
    bind,
    bindObject,
    unbind,
    capture: sync.capture,
    render(alpha?: number) {
      sync.render(alpha)
      renderMorphs()
    },
    stats,
    bindings,
    objectBindings,
  }
}
