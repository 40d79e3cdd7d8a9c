import type { SceneGraph } from '../components/SceneNode.ts'
import { refreshSceneOrder } from '../components/SceneNode.ts'
import type { PropagationKernel } from '../src/engine/wasmKernels.ts'
import { POSE_ANIM, poseOffset } from '../components/Pose.ts'
import type { Clip } from '../src/clip/clip.ts'
import { fusedPlan, type FusedPlan } from '../src/engine/fused.ts'
import { locate } from '../src/engine/sample.ts'
import { reg, TIME } from '../src/engine/sampleScratch.ts'
import {
  createClipArena,
  jointByte,
  placeFusedPlan,
  poseByte,
  type ClipArena,
} from '../src/engine/wasmFused.ts'
import { seriesCoefficients } from '../src/engine/blend.ts'
import { POSE_FROM, POSE_TO } from '../components/Pose.ts'
import { propagationKernel } from '../components/SceneNode.ts'
import { createPropagationPass } from '../src/engine/propagate.ts'
import type { StepState, AnimationStores } from './state.ts'

/**
 * The fused pass's bookkeeping (src/engine/fusedSimd.wat): which characters this step's sampleTracks left to it, and
 * where each character sits in the scene order, so propagateTransforms runs the pass when its walk reaches the
 * character's node and steps over its joints.
 *
 * A character is fused in a step when its layer 0 plays one clip the pass takes (fusedPlan), or cross-fades
 * between two such clips (the WebAssembly form only), with no layers, reset, squad, root motion, ragdoll,
 * levels-of-detail hold or workers, and its joints follow its node in the scene order (no node of the game's
 * between them). Everything else takes the three-system path; all give the same bits
 * (test/systems/fusedCharacters.test.ts, test/engine/wasmFused.test.ts).
 */
export interface FusedCharacters {
  /** 1 (2: a cross-fade) for a character whose layer 0 this step's sampleTracks left to the fused pass. */
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
  /** The clip arena of the plugin's kernel memory (made on first use). */
  arena: ClipArena | null
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
    arena: null,
  }
}

type FusedInput = Pick<
  StepState,
  'sceneGraph' | 'pool' | 'clips' | 'binding' | 'fromBinding' | 'fadePaths' | 'cursors' | 'fused'
> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'CrossFade'>
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

/** The clip arena of `kernel`'s memory (made on first use). */
export function fusedArena(fused: FusedCharacters, kernel: PropagationKernel): ClipArena {
  return (fused.arena ??= createClipArena(kernel))
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
 * Whether sampleTracks may leave characters to the fused pass (and propagateTransforms runs it): without
 * workers, over a WebAssembly kernel with a pose pool where SIMD validates (kernels 'wasm'). The module may be
 * compiled in the background: sampleTracks asks each step whether it is there.
 */
export function fusedPassOn(ctx: Pick<StepState, 'sceneGraph' | 'parallel'>): boolean {
  if (ctx.parallel !== null) return false
  const kernel = propagationKernel(ctx.sceneGraph)
  return kernel !== null && kernel.form === 'simd' && kernel.layout.poseSlots > 0
}

/** The propagation of `graph` over order[0, n), as choosePropagation's (src/engine/propagate.ts) gives it. */
export type FusedPropagate = (n: number) => void

/**
 * propagateTransforms with the fused characters: the walk over the scene order (the JavaScript or WebAssembly
 * pass) up to and including a fused character's node, then that character's fused pass, then on past its
 * joints. `kernel`: the WebAssembly walk's (kernels 'wasm'), or null for the JavaScript walk; with a kernel that
 * has the fused pass, flagged characters run it (fusedSimd.wat).
 */
export function createFusedPropagation(
  ctx: FusedInput,
  characters: { readonly dense: ArrayLike<number> },
  kernel: PropagationKernel | null,
): FusedPropagate {
  const graph: SceneGraph = ctx.sceneGraph
  const { Pose, Sampler, CrossFade } = ctx.stores
  const fused = ctx.fused
  // The graph's kernel (fusedPassOn: there is one) holds the fused pass and the refusal list, whichever walk runs
  // (`kernel`: the WebAssembly walk's, or null for the JavaScript walk over the same store).
  const fk = propagationKernel(graph)!
  const { refusedCount, refusedNodes } = fk
  const walk =
    kernel?.pass ??
    createPropagationPass(graph.store, graph.order, refusedNodes, graph.kept, refusedCount).pass

  return function propagateFused(n: number): void {
    refreshFusedRuns(ctx, characters.dense)
    refusedCount[0] = 0
    const flag = fused.flag
    // sampleTracks flags characters only once the module is there, their plans placed in its arena.
    const form = fk.fused
    let recomputed = 0
    let start = 0
    for (let r = 0; form !== null && r < fused.count; r++) {
      const eid = fused.eids[r]!
      const kind = flag[eid]!
      if (kind === 0) continue
      // Once: a restore's propagation after this step must not run the pass again.
      flag[eid] = 0
      const at = fused.positions[r]!
      if (at >= start) recomputed += walk(start, at + 1)
      const count = Pose.count[eid]!
      const base = Pose.base[eid]!
      const clip = ctx.clips[Sampler.clip[eid]!]!.clip
      const plan = planOf(fused, clip, ctx.binding[eid]!, count)
      const anim = poseOffset(base, count, POSE_ANIM)
      const cursors = ctx.cursors[eid]!
      // A cross-fade (kind 2) samples its FROM clip too.
      const fade = kind === 2
      const fromClip = fade ? ctx.clips[CrossFade.from.clip[eid]!]!.clip : clip
      const fromPlan = fade ? planOf(fused, fromClip, ctx.fromBinding[eid]!, count) : plan
      // Each of the plan's time tracks located at the clip's time, its key cursor moved, as sampleList does per
      // track (the FROM clip's cursors in the second half). Written out here, not called: a double crossing a call
      // V8 does not inline is boxed, and this loop runs optimized with the walk (src/engine/v8.ts).
      for (let side = fade ? 1 : 0; side >= 0; side--) {
        const from = side === 1
        const trackK = from ? form.trackK2 : form.trackK
        const trackU = from ? form.trackU2 : form.trackU
        const trackOn = from ? form.trackOn2 : form.trackOn
        const channels = from ? fromClip.frameChannels : clip.frameChannels
        const tracks = from ? fromPlan.tracks : plan.tracks
        const offset = from ? cursors.length >>> 1 : 0
        const time = from ? CrossFade.from.local[eid]! : Sampler.local[eid]!
        reg[TIME] = time
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
          const k = locate(times, cursors[offset + t]! | 0)
          cursors[offset + t] = k
          trackK[t] = k
          const t0 = times[k]!
          if (time !== t0) {
            trackOn[t] = 1
            trackU[t] = (time - t0) / (times[k + 1]! - t0)
          }
        }
      }
      if (fade) {
        form.fadeWeight[0] = CrossFade.blend[eid]!
        seriesCoefficients(form.fadeSeries, CrossFade.blend, eid, 2)
        const paths = ctx.fadePaths[eid] ?? null
        if (paths !== null) for (let j = 0; j < count; j++) form.fadePaths[j] = paths[j]!
        recomputed += form.fade(
          plan.wasmTable,
          fromPlan.wasmTable,
          count,
          poseByte(fk, anim),
          poseByte(fk, poseOffset(base, count, POSE_FROM)),
          poseByte(fk, poseOffset(base, count, POSE_TO)),
          jointByte(fk, base),
          paths !== null ? 1 : 0,
        )
      } else {
        recomputed += form.character(plan.wasmTable, count, poseByte(fk, anim), jointByte(fk, base))
      }
      const rejected = form.out[0]!
      if (rejected !== 0 && fused.repair !== null) fused.repair(eid, rejected)
      start = at + 1 + count
    }
    if (start < n) recomputed += walk(start, n)
    graph.stats.recomputed = recomputed
    const refused = refusedCount[0]!
    graph.stats.refused = refused
    for (let i = 0; i < refused && i < refusedNodes.length; i++) graph.kept[refusedNodes[i]!] = 1
  }
}
