import { AnimationError } from '../src/errors.ts'
import { createPropagationKernel, kernelLayout, type PropagationKernel } from '../src/engine/wasmKernels.ts'
import type { SceneNodeStore } from '../src/skeleton/sceneNodes.ts'

export type { SceneNodeStore } from '../src/skeleton/sceneNodes.ts'

/** Largest capacity accepted: bitecs's versioned ids keep the id in the low 24 bits. */
export const MAX_SCENE_CAPACITY = 2 ** 24

/** Makes an empty store for entity ids `0 <= e < capacity` (all zeros: add nodes with `addSceneNode`). */
export function createSceneNodeStore(capacity: number): SceneNodeStore {
  checkCapacity(capacity)
  return {
    translation: new Float32Array(capacity * 3),
    rotation: new Float32Array(capacity * 4),
    scale: new Float32Array(capacity * 3),
    parent: new Int32Array(capacity),
    dirty: new Uint8Array(capacity),
    changed: new Uint8Array(capacity),
    world: new Float32Array(capacity * 16),
  }
}

/**
 * The store as views over a kernel memory: the same seven fields in the same order as createSceneNodeStore's
 * (snapshots record every typed-array field of the store).
 */
export function kernelStore({ buffer, layout }: PropagationKernel, capacity: number): SceneNodeStore {
  return {
    translation: new Float32Array(buffer, layout.translation, capacity * 3),
    rotation: new Float32Array(buffer, layout.rotation, capacity * 4),
    scale: new Float32Array(buffer, layout.scale, capacity * 3),
    parent: new Int32Array(buffer, layout.parent, capacity),
    dirty: new Uint8Array(buffer, layout.dirty, capacity),
    changed: new Uint8Array(buffer, layout.changed, capacity),
    world: new Float32Array(buffer, layout.world, capacity * 16),
  }
}

export function checkCapacity(capacity: number): void {
  if (!Number.isInteger(capacity) || capacity < 2 || capacity > MAX_SCENE_CAPACITY) {
    throw new AnimationError(
      'argument',
      `SceneNode store: capacity ${capacity} must be an integer in [2, ${MAX_SCENE_CAPACITY}] (entity ids are 1..capacity-1)`,
    )
  }
}

/**
 * Which code propagates a scene graph's world matrices: 'js' (systems/propagateTransforms.ts, the reference, and
 * createSceneGraph's default) or 'wasm' (the same pass in WebAssembly, src/engine/wasmKernels.ts, over a store
 * that lives in the module's memory; with a plugin, also its fused pass, and the plugin's default where
 * WebAssembly SIMD validates). Both give the same bits.
 */
export type SceneKernels = 'js' | 'wasm'

/**
 * Bytes of clip keys the fused pass can hold in a kernel memory (src/engine/wasmFused.ts): clips past it are
 * played by the fused pass's JavaScript form (the same bits, slower).
 */
export const FUSED_CLIP_BYTES = 32 * 1024 * 1024

/**
 * The WebAssembly store for `capacity` (and a pose pool of `poseSlots` slots with the fused pass's clip
 * arena, when `poseSlots` > 0), its failures worded for the plugin's option: 'capacity' when the engine
 * cannot give the memory (a RangeError), 'argument' when it cannot run WebAssembly at all (none, or a page's
 * Content Security Policy forbids compiling it).
 */
export function createKernel(capacity: number, poseSlots = 0): PropagationKernel {
  const clipBytes = poseSlots > 0 ? FUSED_CLIP_BYTES : 0
  try {
    // Every refused node listed (propagateTransforms marks each `kept`); the graph shows the first few.
    return createPropagationKernel(capacity, capacity, poseSlots, clipBytes)
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    if (e instanceof RangeError) {
      const bytes = kernelLayout(capacity, capacity, poseSlots, clipBytes).bytes
      throw new AnimationError(
        'capacity',
        `SceneNode store: kernels 'wasm' needs a WebAssembly memory of ${bytes} bytes for capacity ${capacity}: ${why}`,
        { cause: e },
      )
    }
    throw new AnimationError('argument', `SceneNode store: kernels 'wasm' cannot run here: ${why}`, {
      cause: e,
    })
  }
}
