import type { World } from 'bitecs'
import { $internal } from 'bitecs'
import { AnimationError, showValue } from '../src/errors.ts'
import { optionsObject, type OptionNames } from './checks.ts'
import { createRagdollPhysics, isPhysicsWorld, type PhysicsWorld } from '../src/physics/api.ts'
import { kernelForm } from '../src/engine/wasmKernels.ts'
import { createPosePool, createPoseStore, JOINT_STRIDE, type PosePool } from '../components/Pose.ts'
import { createSamplerStore } from '../components/Sampler.ts'
import { createCrossFadeStore } from '../components/CrossFade.ts'
import { createAnimLayerStore } from '../components/AnimLayer.ts'
import { createLayerSlots } from '../systems/layerState.ts'
import { createRagdollStore } from '../components/Ragdoll.ts'
import {
  createSceneGraph,
  poseRegion,
  MAX_SCENE_CAPACITY,
  type SceneGraph,
  type SceneKernels,
} from '../components/SceneNode.ts'
import { sharedCopy, shareFields, sharedMemoryAvailable } from '../src/engine/shared.ts'
import { createParallel, MAX_WORKERS, workerSpawner, type Parallel } from '../systems/workers/pool.ts'
import type { AnimationContext } from './context.ts'
import type { CharacterDatum } from './characterData.ts'
import { createClipEventPool, createEventPool } from '../systems/clipEvents.ts'
import { GraphEventRecord } from '../systems/graphEvents.ts'
import { createLodState } from '../systems/scheduleLod.ts'
import { createPoseEditState } from '../systems/poseEdits.ts'
import { createFusedCharacters } from '../systems/fusedCharacters.ts'

/**
 * Options of createAnimationPlugin; every field is optional. All are checked before anything registers with the
 * world: AnimationError 'argument' for a capacity that is not an integer in [2, 2^24], a dt that is not finite
 * and > 0, a maxPoseSlots that is not an integer in [1, 2^26], a maxLayers that is not an integer in
 * [0, 2^24], a physics.world that is not a cannon-es World, a
 * gravity that is not three finite numbers, a ground that is neither finite nor false, kernels other than 'js'
 * or 'wasm' (or 'wasm' in an engine that cannot run WebAssembly), workers that is not an integer in [0, 64]
 * (or above 0 with kernels 'wasm', without SharedArrayBuffer, or where no worker can start); AnimationError
 * 'capacity' when kernels 'wasm' cannot have its memory.
 */
export interface AnimationPluginOptions {
  /**
   * Length of every store: all entity ids in the world that the plugin touches (characters, joints, nodes the
   * game attaches) must be below it. Default 16384. Ids are used directly as indices, so worlds with
   * versioned entity ids need a capacity above the versioned values, or no versioning.
   */
  capacity?: number
  /** Fixed step in seconds. Default 1/60. */
  dt?: number
  /**
   * Upper bound of the shared pose pool, in joint slots (a character uses 5 per joint, and 6 more per joint for
   * each layer it uses, plus one per blend-space point). Default 16·capacity: every joint is an entity, so the
   * pool runs out before the entity ids do only for characters using more than one extra layer. It grows on
   * demand up to this.
   */
  maxPoseSlots?: number
  /**
   * How many layers other than layer 0 all characters together may use at once (a character's layer 0 is its
   * own). Each takes a row of the Sampler, CrossFade and AnimLayer stores past the capacity. Default capacity / 4
   * (at least 64): a Fox-sized rig (25 entities) may use six layers per character.
   */
  maxLayers?: number
  /**
   * Which code runs the per-joint work: 'js' (the reference) or 'wasm': a playing character's keys to its world
   * matrices in one WebAssembly pass (src/engine/fusedSimd.wat; where the engine has WebAssembly SIMD) and the
   * world-matrix propagation in WebAssembly (f64x2 SIMD, else scalar), over the scene-node store and the pose
   * pool laid out in one WebAssembly memory reserved for the capacity and maxPoseSlots (their arrays are views
   * into it, fixed for the plugin's life), with a 32 MiB arena for the clips' keys. All give the same bits,
   * hashes and snapshots. Default: 'wasm' where WebAssembly SIMD validates and `workers` is 0 (if its memory
   * cannot be had, or the page forbids compiling WebAssembly, 'js'); else 'js'. 'wasm' asked for needs an
   * engine with WebAssembly (Node 20, any current browser; a page's Content Security Policy must allow
   * 'wasm-unsafe-eval').
   */
  kernels?: SceneKernels
  /**
   * Worker threads that share the step's per-character work with the calling thread: sampling the clips of
   * characters without layers (cross-fades included), writing their poses into the scene graph, and the
   * world-matrix propagation (subtrees split among the threads). Default 0: everything on the calling thread,
   * as without this option. Any number gives the same bits, hashes, events and snapshots as 0; the stores
   * live on SharedArrayBuffers. An integer in [0, 64]; 'wasm' kernels take none. Needs shared memory (a page
   * must be cross-origin isolated: COOP and COEP headers) and a way to start workers: a browser's Worker or Node
   * ≥ 20.16's worker_threads. The workers start in the background; until
   * they have, the calling thread does their shares. dispose() stops them.
   */
  workers?: number
  /** Ragdoll physics. */
  physics?: {
    /**
     * The game's own cannon-es world, so ragdolls collide with its bodies. The plugin steps it with
     * `world.step(dt)` once per fixed step; do not step it elsewhere. Default: a world of the plugin's own.
     */
    world?: PhysicsWorld
    /** Gravity of the plugin's own world, world units per s² (ignored with `world`). Default [0, -9.82, 0]. */
    gravity?: readonly [number, number, number]
    /**
     * Height of a static ground plane (normal +y) in the plugin's own world, or false for none (ignored with
     * `world`). Default 0.
     */
    ground?: number | false
  }
}

const PLUGIN_OPTIONS: OptionNames<AnimationPluginOptions> = {
  capacity: true,
  dt: true,
  maxPoseSlots: true,
  maxLayers: true,
  kernels: true,
  workers: true,
  physics: true,
}

const DEFAULT_CAPACITY = 16384
/** Default maxPoseSlots per unit of capacity: a character's five layers and a little over one animation layer. */
const DEFAULT_SLOTS_PER_ENTITY = 16

/**
 * Most pose slots a plugin may hold (10 floats each): 2^26 slots are 2.5 GiB of pose data, past what a
 * JavaScript engine gives one typed array on most machines.
 */
export const MAX_POSE_SLOTS = 2 ** 26

/**
 * Checks the options and makes the plugin's context: its stores, pose pool, scene graph and physics world.
 * Everything that can throw comes before anything that registers with the world.
 */
export function createContext(
  world: World,
  options: AnimationPluginOptions | undefined,
  characterData: readonly CharacterDatum[] = [],
): AnimationContext {
  const what = 'createAnimationPlugin'
  if (typeof world !== 'object' || world === null || !($internal in world)) {
    throw new AnimationError('argument', `${what}: ${showValue(world)} is not a bitecs world (createWorld())`)
  }
  const o = optionsObject<AnimationPluginOptions>(options, what, PLUGIN_OPTIONS)
  const capacity = o.capacity ?? DEFAULT_CAPACITY
  const dt = o.dt ?? 1 / 60
  if (!Number.isInteger(capacity) || (capacity as number) < 2 || (capacity as number) > MAX_SCENE_CAPACITY) {
    throw new AnimationError(
      'argument',
      `${what}: capacity ${showValue(capacity)} must be an integer in [2, ${MAX_SCENE_CAPACITY}]`,
    )
  }
  if (!(typeof dt === 'number' && Number.isFinite(dt) && dt > 0)) {
    throw new AnimationError('argument', `${what}: dt ${showValue(dt)} s must be a finite number > 0`)
  }
  const maxPoseSlots = o.maxPoseSlots ?? Math.min(capacity * DEFAULT_SLOTS_PER_ENTITY, MAX_POSE_SLOTS)
  if (!Number.isInteger(maxPoseSlots) || maxPoseSlots < 1 || maxPoseSlots > MAX_POSE_SLOTS) {
    throw new AnimationError(
      'argument',
      `${what}: maxPoseSlots ${showValue(maxPoseSlots)} must be an integer in [1, ${MAX_POSE_SLOTS}]`,
    )
  }
  const maxLayers = o.maxLayers ?? Math.max(64, capacity >>> 2)
  if (!Number.isInteger(maxLayers) || maxLayers < 0 || maxLayers > MAX_SCENE_CAPACITY) {
    throw new AnimationError(
      'argument',
      `${what}: maxLayers ${showValue(maxLayers)} must be an integer in [0, ${MAX_SCENE_CAPACITY}]`,
    )
  }
  const workers = o.workers ?? 0
  if (!Number.isInteger(workers) || (workers as number) < 0 || (workers as number) > MAX_WORKERS) {
    throw new AnimationError(
      'argument',
      `${what}: workers ${showValue(workers)} must be an integer in [0, ${MAX_WORKERS}]`,
    )
  }
  const kernels = o.kernels ?? defaultKernels(workers)
  if (kernels !== 'js' && kernels !== 'wasm') {
    throw new AnimationError('argument', `${what}: kernels ${showValue(kernels)} must be 'js' or 'wasm'`)
  }
  if (workers > 0) checkWorkers(what, kernels)
  const physicsOptions = optionsObject<NonNullable<AnimationPluginOptions['physics']>>(
    o.physics,
    what,
    { world: true, gravity: true, ground: true },
    'physics',
  )
  if (physicsOptions.world !== undefined && !isPhysicsWorld(physicsOptions.world)) {
    throw new AnimationError(
      'argument',
      `${what}: physics.world ${showValue(physicsOptions.world)} is not a cannon-es World`,
    )
  }
  // Layer rows: a character's layer 0 at its id, the other layers' past the capacity.
  const rows = capacity + maxLayers
  const stores = {
    Pose: createPoseStore(capacity),
    Sampler: createSamplerStore(rows),
    CrossFade: createCrossFadeStore(rows),
    AnimLayer: createAnimLayerStore(rows),
    Ragdoll: createRagdollStore(capacity),
  }
  const physics = createRagdollPhysics(physicsOptions)
  // Last: it registers with the world once its memory is had (kernels 'wasm' can fail for lack of it).
  const sceneGraph = sceneGraphFor(world, capacity, kernels, maxPoseSlots, o.kernels === undefined)
  const pool = createPosePool(Math.min(maxPoseSlots, 1024), maxPoseSlots, poseRegion(sceneGraph))
  if (workers > 0) shareStores(stores, pool, sceneGraph)
  const ctx: AnimationContext = {
    world,
    dt,
    timeScale: 1,
    capacity,
    stores,
    sceneGraph,
    pool,
    assets: [],
    clips: [],
    cursors: [],
    binding: [],
    fromBinding: [],
    layerSlots: createLayerSlots(capacity, maxLayers),
    fadePaths: [],
    posesUsed: new Uint8Array(capacity),
    layers: [],
    morphs: [],
    morphed: {},
    rootMotion: [],
    poseEdits: createPoseEditState(capacity),
    graphs: [],
    uses: { layers: false, rootMotion: false, graphs: false },
    morphCursors: new Uint32Array(1),
    step: 0,
    physics,
    ragdolls: [],
    events: [],
    droppedEvents: 0,
    eventPool: createClipEventPool(),
    characterData,
    graphEventPool: createEventPool(GraphEventRecord),
    handles: new Map(),
    ragdollDescriptions: [],
    palettes: [],
    removals: { count: 0, last: 0 },
    graphPlans: new Map(),
    jointOwner: new Int32Array(capacity),
    poseReported: new Uint8Array(capacity),
    worldReported: new Uint8Array(capacity),
    lod: createLodState(capacity),
    blendScratch: new Float32Array(64 * JOINT_STRIDE),
    parallel: null,
    fused: createFusedCharacters(capacity),
    disposed: false,
  }
  if (workers > 0) (ctx as { parallel: Parallel | null }).parallel = createParallel(ctx, workers)
  return ctx
}

/**
 * The `kernels` a plugin gets when its options do not say: 'wasm' where the engine validates WebAssembly SIMD
 * (its fused pass and propagation are faster than JavaScript in every crowd of the benchmark, with the same
 * bits), else 'js'; 'js' with workers, which 'wasm' does not take.
 */
export function defaultKernels(workers = 0): SceneKernels {
  return workers === 0 && kernelForm() === 'simd' ? 'wasm' : 'js'
}

/**
 * The plugin's scene graph; with kernels 'wasm' its memory holds the pose pool too, where the fused pass reads
 * and writes it. A default 'wasm' (`fallback`) that cannot have its memory, or cannot compile here (a page's
 * Content Security Policy), falls back to 'js': the same bits, only slower.
 */
function sceneGraphFor(
  world: World,
  capacity: number,
  kernels: SceneKernels,
  maxPoseSlots: number,
  fallback: boolean,
): SceneGraph {
  if (kernels === 'js') return createSceneGraph(world, capacity, 'js')
  try {
    return createSceneGraph(world, capacity, 'wasm', maxPoseSlots)
  } catch (e) {
    if (!fallback || !(e instanceof AnimationError)) throw e
    return createSceneGraph(world, capacity, 'js')
  }
}

/** Throws when workers cannot run here (before anything registers with the world). */
function checkWorkers(what: string, kernels: SceneKernels): void {
  if (kernels !== 'js') throw new AnimationError('argument', `${what}: workers need kernels 'js'`)
  if (!sharedMemoryAvailable()) {
    throw new AnimationError(
      'argument',
      `${what}: workers need SharedArrayBuffer (a page must be cross-origin isolated: COOP and COEP headers)`,
    )
  }
  if (workerSpawner() === null) {
    throw new AnimationError(
      'argument',
      `${what}: workers cannot start here (no Web Worker, nor Node ≥ 20.16's worker_threads)`,
    )
  }
}

/** Moves the arrays worker threads read or write to shared memory (before any system holds them). */
function shareStores(stores: AnimationContext['stores'], pool: PosePool, graph: SceneGraph): void {
  for (const store of Object.values(stores)) shareFields(store)
  shareFields(stores.CrossFade.from)
  shareFields(pool)
  shareFields(graph.store)
  const g = graph as { order: Int32Array; kept: Uint8Array }
  g.order = sharedCopy(graph.order)
  g.kept = sharedCopy(graph.kept)
}

/** Throws when the plugin was disposed: every public call starts with it. */
export function checkLive(ctx: AnimationContext, what: string): void {
  if (ctx.disposed) throw new AnimationError('argument', `${what}: the animation plugin was disposed`)
}
