import type { SceneGraph } from '../components/SceneNode.ts'
import { refreshSceneOrder } from '../components/SceneNode.ts'
import type { PropagationKernel } from '../src/engine/wasmKernels.ts'
import { POSE_ANIM, poseOffset } from '../components/Pose.ts'
import type { Clip } from '../src/clip/clip.ts'
import { createFusedPass, fusedPlan, type FusedPlan } from '../src/engine/fused.ts'
import { locate } from '../src/engine/sample.ts'
import { reg, TIME } from '../src/engine/sampleScratch.ts'
import { createClipArena, jointByte, placeFusedPlan, poseByte } from '../src/engine/wasmFused.ts'
import { propagationKernel } from '../components/SceneNode.ts'
import { v8Measures } from '../src/engine/v8.ts'
import { createPropagationPass } from '../src/engine/propagate.ts'
import type { StepState, AnimationStores } from './state.ts'

/**
 * The fused pass's bookkeeping (src/engine/fused.ts): which characters this step's sampleTracks left to it, and
 * where each character sits in the scene order, so propagateTransforms runs the pass when its walk reaches the
 * character's node and steps over its joints.
 *
 * A character is fused in a step when its layer 0 plays one clip the pass takes (fusedPlan), with no fade,
 * layers, reset, squad, root motion, ragdoll, levels-of-detail hold or workers, and its joints follow its node
 * in the scene order (no node of the game's between them). Everything else takes the three-system path; both
 * give the same bits (test/systems/fusedCharacters.test.ts).
 */
export interface FusedCharacters {
  /** 1 for a character whose layer 0 this step's sampleTracks left to the fused pass (0 for all others). */
  readonly flag: Uint8Array
  /** 1 for a character whose joints follow its node in the scene order (as of `version`). */
  readonly contiguous: Uint8Array
  /** Characters with contiguous joints, in scene order: their entity ids and positions in the order. */
  eids: Int32Array
  positions: Int32Array
  count: number
  /** The scene graph's `orderVersion` the runs were found for (-1: never). */
  version: number
  /** Plans by clip binding (a binding is one clip on one asset: plugin/assets.ts bindClip). */
  readonly plans: WeakMap<Int32Array, FusedPlan>
  /**
   * blendPoses's repair of a character whose pose had `joints` joints that were not finite (set when that system
   * is made): the fused pass's write-out reports as the write-out does.
   */
  repair: ((eid: number, joints: number) => void) | null
}

export function createFusedCharacters(capacity: number): FusedCharacters {
  return {
    flag: new Uint8Array(capacity),
    contiguous: new Uint8Array(capacity),
    eids: new Int32Array(0),
    positions: new Int32Array(0),
    count: 0,
    version: -1,
    plans: new WeakMap(),
    repair: null,
  }
}

type FusedInput = Pick<StepState, 'sceneGraph' | 'pool' | 'clips' | 'binding' | 'cursors' | 'fused'> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler'>
}

/** What propagateTransforms needs of the plugin's state for the fused characters. */
export type FusedSystemInput = FusedInput & Pick<StepState, 'world'>

/**
 * Brings the scene order and the runs up to date (after a hierarchy change: allocates then, outside a crowd's
 * steady state). `characters` are the plugin's characters (any order).
 */
export function refreshFusedRuns(ctx: FusedInput, characters: ArrayLike<number>): void {
  const graph = ctx.sceneGraph
  const n = refreshSceneOrder(graph)
  if (ctx.fused.version === graph.orderVersion) return
  findFusedRuns(ctx, characters, n)
}

/**
 * refreshFusedRuns's work after a hierarchy change. A function of its own: its closures capture its locals,
 * which makes V8 allocate a context at every entry, and refreshFusedRuns is entered twice a step.
 */
function findFusedRuns(ctx: FusedInput, characters: ArrayLike<number>, n: number): void {
  const graph = ctx.sceneGraph
  const fused = ctx.fused
  const { Pose } = ctx.stores
  const joints = ctx.pool.joints
  const order = graph.order
  const position = new Int32Array(graph.capacity).fill(-1)
  for (let i = 0; i < n; i++) position[order[i]!] = i
  const found: number[] = []
  for (let c = 0; c < characters.length; c++) {
    const eid = characters[c]!
    const at = position[eid]!
    const count = Pose.count[eid]!
    const base = Pose.base[eid]!
    let run = at >= 0 && at + count < n
    for (let j = 0; run && j < count; j++) run = order[at + 1 + j] === joints[base + j]
    fused.contiguous[eid] = run ? 1 : 0
    if (run) found.push(at, eid)
  }
  const runs = found.length >> 1
  const pairs = Array.from({ length: runs }, (_, r) => [found[2 * r]!, found[2 * r + 1]!] as const)
  pairs.sort((a, b) => a[0] - b[0])
  fused.positions = Int32Array.from(pairs, (p) => p[0])
  fused.eids = Int32Array.from(pairs, (p) => p[1])
  fused.count = runs
  fused.version = graph.orderVersion
}

/** The plan of `clip` under `binding` (made on first use: one allocation per clip and asset). */
export function planOf(fused: FusedCharacters, clip: Clip, binding: Int32Array, joints: number): FusedPlan {
  let plan = fused.plans.get(binding)
  if (plan === undefined) {
    plan = fusedPlan(clip, binding, joints)
    fused.plans.set(binding, plan)
  }
  return plan
}

/**
 * Whether sampleTracks leaves the plain playing characters to the fused pass (and propagateTransforms runs it):
 * without workers, with the WebAssembly form (kernels 'wasm' where SIMD validates) or the engine measure
 * `fusedPass` (the JavaScript form, off by default: slower than the three systems).
 */
export function fusedPassOn(ctx: Pick<StepState, 'sceneGraph' | 'parallel'>): boolean {
  if (ctx.parallel !== null) return false
  return v8Measures().fusedPass || (propagationKernel(ctx.sceneGraph)?.fused ?? null) !== null
}

/** The propagation of `graph` over order[0, n), as choosePropagation's (src/engine/propagate.ts) gives it. */
export type FusedPropagate = (n: number) => void

/**
 * propagateTransforms with the fused characters: the walk over the scene order (the JavaScript or WebAssembly
 * pass) up to and including a fused character's node, then that character's fused pass, then on past its
 * joints. `kernel`: the WebAssembly walk's (kernels 'wasm'), or null for the JavaScript walk; with a kernel that
 * has the fused pass, characters run its WebAssembly form (fusedSimd.wat), else the JavaScript one (fused.ts).
 */
export function createFusedPropagation(
  ctx: FusedInput,
  characters: { readonly dense: ArrayLike<number> },
  kernel: PropagationKernel | null,
): FusedPropagate {
  const graph: SceneGraph = ctx.sceneGraph
  const { Pose, Sampler } = ctx.stores
  const fused = ctx.fused
  const refusedCount = kernel?.refusedCount ?? new Int32Array(1)
  const refusedNodes = kernel?.refusedNodes ?? graph.refusedNodes
  const walk =
    kernel?.pass ??
    createPropagationPass(graph.store, graph.order, refusedNodes, graph.kept, refusedCount).pass
  const fusedCharacter = createFusedPass(graph.store, refusedNodes, refusedCount, graph.kept)
  const nonFinite = new Uint32Array(1)
  const wasm = kernel?.fused ?? null
  const arena = wasm !== null ? createClipArena(kernel!) : null
  // Per time track (by leading channel index): its key k, the position u in [k, k+1), whether between keys;
  // the JavaScript form's own, grown for a clip of more channels (the WebAssembly form's are in its memory).
  let jsK = new Int32Array(64)
  let jsU = new Float64Array(64)
  let jsOn = new Int32Array(64)

  return function propagateFused(n: number): void {
    refreshFusedRuns(ctx, characters.dense)
    refusedCount[0] = 0
    const flag = fused.flag
    const data = ctx.pool.data
    const joints = ctx.pool.joints
    let recomputed = 0
    let start = 0
    for (let r = 0; r < fused.count; r++) {
      const eid = fused.eids[r]!
      if (flag[eid] !== 1) continue
      // Once: a restore's propagation after this step must not run the pass again.
      flag[eid] = 0
      const at = fused.positions[r]!
      if (at >= start) recomputed += walk(start, at + 1)
      const count = Pose.count[eid]!
      const base = Pose.base[eid]!
      const clip = ctx.clips[Sampler.clip[eid]!]!.clip
      const binding = ctx.binding[eid]!
      const plan = planOf(fused, clip, binding, count)
      const anim = poseOffset(base, count, POSE_ANIM)
      const cursors = ctx.cursors[eid]!
      const inWasm = wasm !== null && placeFusedPlan(arena!, clip, plan) >= 0
      const channels = clip.frameChannels
      if (!inWasm && channels.length > jsK.length) {
        jsK = new Int32Array(channels.length)
        jsU = new Float64Array(channels.length)
        jsOn = new Int32Array(channels.length)
      }
      const trackK = inWasm ? wasm.trackK : jsK
      const trackU = inWasm ? wasm.trackU : jsU
      const trackOn = inWasm ? wasm.trackOn : jsOn
      // Each of the plan's time tracks located at the character's time, its key cursor moved, as sampleList
      // does per track. Written out here, not called: a double crossing a call V8 does not inline is boxed, and
      // this loop runs optimized with the walk (src/engine/v8.ts).
      const time = Sampler.local[eid]!
      reg[TIME] = time
      const tracks = plan.tracks
      for (let i = 0; i < tracks.length; i++) {
        const t = tracks[i]!
        const times = channels[t]!.times
        const last = times.length - 1
        trackOn[t] = 0
        trackK[t] = 0
        if (!(time > times[0]!) || last === 0) continue
        if (time >= times[last]!) {
          trackK[t] = last
          continue
        }
        const k = locate(times, cursors[t]! | 0)
        cursors[t] = k
        trackK[t] = k
        const t0 = times[k]!
        if (time !== t0) {
          trackOn[t] = 1
          trackU[t] = (time - t0) / (times[k + 1]! - t0)
        }
      }
      if (inWasm) {
        recomputed += wasm.character(plan.wasmTable, count, poseByte(kernel!, anim), jointByte(kernel!, base))
        const rejected = wasm.out[0]!
        if (rejected !== 0 && fused.repair !== null) fused.repair(eid, rejected)
        start = at + 1 + count
        continue
      }
      recomputed += fusedCharacter(
        data,
        anim,
        clip,
        plan,
        trackK,
        trackU,
        trackOn,
        joints,
        base,
        count,
        nonFinite,
      )
      if (nonFinite[0] !== 0 && fused.repair !== null) fused.repair(eid, nonFinite[0]!)
      start = at + 1 + count
    }
    if (start < n) recomputed += walk(start, n)
    graph.stats.recomputed = recomputed
    const refused = refusedCount[0]!
    graph.stats.refused = refused
    if (kernel !== null) {
      for (let i = 0; i < refused && i < refusedNodes.length; i++) graph.kept[refusedNodes[i]!] = 1
    }
  }
}
