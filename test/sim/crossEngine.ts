import { createWorld } from 'bitecs'
import type { Body } from 'cannon-es'
import { readAsset } from '../../entry/index.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { type RagdollDescription } from '../../src/physics/description.ts'
import { generateRagdollDescription } from '../../src/physics/generate.ts'
import { createHasher } from '../../src/sim/hasher.ts'
import type { SceneKernels } from '../../components/SceneNode.ts'
import { createAnimationPlugin, type AnimationPlugin, type PlayOptions } from '../../entry/plugin.ts'
import { hashAnimationState } from '../../plugin/hash.ts'
import { contextOf } from '../../entry/plugin.ts'
import { withTravel } from '../../demo/travel.ts'
import { CTL_DONE } from '../../systems/workers/pool.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

/**
 * The cross-engine determinism scenario (issue 7): one simulation that runs the same in Node (vitest) and in a
 * headless Chromium page (e2e/determinism/main.ts), so e2e/determinism.e2e.test.ts can compare the two runs'
 * state hashes step by step. Browser-safe: no Node imports; the caller supplies the Fox.glb bytes.
 *
 * Six Foxes (root scale 0.01: the file is in centimetres) play different clips with slerp and squad rotation
 * curves, at different speeds and loop modes, one of them turned by a root rotation; cross-fades start at set
 * steps (one mid-fade, so a fade starts from a frozen blend); two of them go ragdoll with hits at different
 * steps (the second with joint limits whose Math.cos differs between the engines, see LIMITS), one takes a
 * second hit while down, both get up into a clip, and one falls again. The fifth goes partial (its neck, hit at
 * the head), grows a foreleg and gets up; the sixth is powered with its root held, then let go at a lower
 * strength and hit, and gets per-joint weights; the first takes a hit reaction mid-fade. Root motion: the turned
 * Fox walks a Walk made to travel 70 cm a loop ('horizontal', paused while it ragdolls), and the last one
 * reports 'full' root motion from step 100 (apply: false) through two fades. 600 fixed steps of 1/60 s; every
 * 10th step records the plugin's hash plus, to find where two runs part, a hash per character and per live
 * ragdoll body.
 *
 * The scenario itself is literals and + - * / (the root rotation is written out, not computed with Math.sin);
 * mathProbe, at the end, is the deliberate exception and is not part of it.
 */

export const CROSS_ENGINE_STEPS = 600
export const CROSS_ENGINE_EVERY = 10

export interface CrossEngineCheckpoint {
  /** Steps run so far (10, 20, …, 600). */
  readonly step: number
  /** `plugin.hash()`: everything the plugin simulates. */
  readonly hash: string
  /** hashAnimationState of each character alone, in the order they were added. */
  readonly characters: readonly string[]
  /** Per character, a hash of each live ragdoll body (position, orientation, velocities); [] without one. */
  readonly bodies: readonly (readonly string[])[]
  /** Per character: ragdoll state (0 off, 1 falling, 2 getting up) and whether a cross-fade is under way. */
  readonly ragdoll: readonly number[]
  readonly fading: readonly number[]
  /** Per character: its entity's ground position (x, z), which root motion moves. */
  readonly placed: readonly (readonly [number, number])[]
}

export interface CrossEngineRun {
  /** FNV-1a 64 (createHasher) of the Fox.glb bytes the run read, so both sides can show they read the same file. */
  readonly assetHash: string
  readonly checkpoints: readonly CrossEngineCheckpoint[]
  /** What the step reported (an exploding ragdoll would show here); expected empty. */
  readonly events: readonly string[]
  /** With the `workers` option: items the worker threads did (0 when they never took part). */
  readonly workerItems?: number
}

/** What happens at which step (after that many steps have run, before the next). */
type Action = (p: AnimationPlugin, c: readonly number[], limits: RagdollDescription) => void
const ACTIONS: Readonly<Record<number, Action>> = {
  0: (p, c) => p.setRootMotion(c[1]!, { mode: 'horizontal' }),
  60: (p, c) => p.crossFade(c[0]!, 'Walk', 0.5, { rotation: 'squad' }),
  90: (p, c) => p.ragdoll(c[1]!, { impulse: { joint: 'b_Spine02_03', impulse: [3, 1, 0.5] } }),
  120: (p, c) => p.crossFade(c[2]!, 'Survey', 0.25),
  150: (p, c) => p.crossFade(c[3]!, 'Run', 0.4),
  // Mid-fade: the new fade starts from the frozen blend of Walk and Run.
  170: (p, c) => p.crossFade(c[3]!, 'Survey', 0.3, { rotation: 'squad', speed: 1.2 }),
  200: (p, c, limits) =>
    p.ragdoll(c[2]!, {
      description: limits,
      rate: 3,
      impulse: { joint: 'b_Head_05', impulse: [-2, 0, 1.5] },
    }),
  260: (p, c) => p.applyImpulse(c[1]!, 'b_Head_05', [0, 2, -1]),
  330: (p, c) => p.getUp(c[1]!, { clip: 'Survey', fadeSeconds: 0.4 }),
  420: (p, c) => p.getUp(c[2]!, { clip: 'Walk', rate: 2, play: { loop: 'repeat', rotation: 'squad' } }),
  480: (p, c) => p.play(c[0]!, 'Run', { rotation: 'squad', time: 0.25 }),
  520: (p, c) => p.ragdoll(c[1]!, { impulse: { joint: 'b_Tail01_012', impulse: [0, 0, -2.5] } }),
  // A partial ragdoll: the neck, hit at the head; a foreleg joins it; it gets up in place. And 'full' root
  // motion reported (apply: false) for the fourth from the same step.
  100: (p, c) => {
    p.setRootMotion(c[3]!, { mode: 'full', apply: false })
    p.ragdoll(c[4]!, { root: 'b_Neck_04', impulse: { joint: 'b_Head_05', impulse: [0, 1, -2] } })
  },
  300: (p, c) => p.ragdoll(c[4]!, { root: 'b_LeftUpperArm_09' }),
  400: (p, c) => p.getUp(c[4]!, { rate: 2 }),
  // A powered ragdoll: held by its root, then let go at a lower strength and hit; per-joint weights.
  140: (p, c) => p.ragdoll(c[5]!, { motors: { strength: 1, holdRoot: true } }),
  240: (p, c) => {
    p.setRagdollMotors(c[5]!, { strength: 0.6, holdRoot: false })
    p.applyImpulse(c[5]!, 'b_Spine02_03', [4, 0, 2])
  },
  350: (p, c) => p.setRagdollWeight(c[5]!, { weight: 0.5, joints: 'b_Neck_04' }),
  // A hit reaction on a character cross-fading (Survey into Walk).
  75: (p, c) => p.hit(c[0]!, 'b_RightForeArm_07', [1, 0.5, 0], { recoverSeconds: 0.5 }),
}

/** Root placement (metres), rotation (unit quaternion x y z w) and first clip of each character. */
const CAST: readonly {
  at: readonly [number, number, number]
  rotation: readonly [number, number, number, number]
  clip: string
  play: PlayOptions
}[] = [
  { at: [-3, 0, 0], rotation: [0, 0, 0, 1], clip: 'Survey', play: {} },
  // 45° about y (sin and cos of 22.5° written out).
  { at: [-1, 0, 0.5], rotation: [0, 0.3826834323650898, 0, 0.9238795325112867], clip: 'Travel', play: {} },
  { at: [0.2, 0, -0.3], rotation: [0, 0, 0, 1], clip: 'Run', play: { speed: 0.8, loop: 'pingpong' } },
  { at: [3, 0, 0], rotation: [0, 0, 0, 1], clip: 'Walk', play: { rotation: 'squad', time: 0.4, speed: 1.3 } },
  { at: [5, 0, 0.5], rotation: [0, 0, 0, 1], clip: 'Walk', play: { speed: 0.9 } },
  { at: [7, 0, -0.5], rotation: [0, 0, 0, 1], clip: 'Run', play: { rotation: 'squad' } },
]

/**
 * Joint limits of the second ragdoll (the first uses the default 0.7 / 0.35 rad): angles whose Math.cos differs
 * in the last bit between Node 20 and Chromium 156 (measured: cos 0.77 and cos 0.44 both differ by one ulp),
 * so a limit equation that calls Math.cos in the step parts the two runs.
 */
const LIMITS = { coneAngle: 0.77, twistAngle: 0.44 }

function skeletonView(asset: AnimationAsset) {
  return { source: asset.source, nodes: asset.nodes, skinJoints: asset.skeletons[0]?.joints }
}

/**
 * Reads the Fox from `foxBytes` and runs the scenario on it (with the plugin's `kernels` and `workers` options;
 * with workers, once they have started, a browser starting them only when the page's thread is idle, and doing
 * every chunk of work themselves).
 */
export async function runCrossEngineScenario(
  foxBytes: Uint8Array,
  kernels: SceneKernels = 'js',
  workers = 0,
): Promise<CrossEngineRun> {
  const asset = await readAsset(foxBytes, 'Fox.glb')
  const plugin = createAnimationPlugin(createWorld(), { capacity: 1024, kernels, workers })
  const parallel = contextOf(plugin).parallel
  await parallel?.ready()
  // The workers do every chunk (six Foxes are one chunk a phase, which the calling thread would mostly take).
  if (parallel) parallel.mainWorks = false
  return simulateCrossEngine(asset, createHasher().update(foxBytes).digest(), kernels, workers, plugin)
}

/**
 * The scenario on an asset already read (synchronous: the steps and nothing else); `assetHash` is passed through.
 * `kernels` is the plugin's option: the hashes are the same with either.
 */
export function simulateCrossEngine(
  file: AnimationAsset,
  assetHash: string,
  kernels: SceneKernels = 'js',
  workers = 0,
  made: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 1024, kernels, workers }),
): CrossEngineRun {
  // The Fox's Walk with 70 cm of forward travel a loop on its hips (demo/travel.ts), for root motion.
  const asset = withTravel(file, { name: 'Travel', from: 'Walk', node: 'b_Hip_01', move: [0, -70, 0] })
  const plugin = made
  const nodes = plugin.stores.SceneNode
  const characters = CAST.map((cast) => {
    const c = plugin.addCharacter(asset)
    nodes.translation.set(cast.at, c * 3)
    nodes.rotation.set(cast.rotation, c * 4)
    nodes.scale.fill(0.01, c * 3, c * 3 + 3)
    nodes.dirty[c] = 1
    plugin.play(c, cast.clip, cast.play)
    return c
  })
  const limits = generateRagdollDescription(skeletonView(asset), LIMITS)
  const checkpoints: CrossEngineCheckpoint[] = []
  for (let step = 0; step < CROSS_ENGINE_STEPS; step++) {
    ACTIONS[step]?.(plugin, characters, limits)
    plugin.step()
    if ((step + 1) % CROSS_ENGINE_EVERY === 0) checkpoints.push(checkpoint(plugin, characters, step + 1))
  }
  const events = plugin.events.map((e) => `step ${e.step} ${e.kind}: ${e.message}`)
  const parallel = contextOf(plugin).parallel
  let workerItems = 0
  for (let w = 0; w < workers; w++) workerItems += parallel!.control[CTL_DONE + w]!
  plugin.dispose()
  return { assetHash, checkpoints, events, workerItems }
}

function checkpoint(p: AnimationPlugin, characters: readonly number[], step: number): CrossEngineCheckpoint {
  const ctx = contextOf(p)
  return {
    step,
    hash: p.hash(),
    characters: characters.map((c) => hashAnimationState(ctx, [c])),
    bodies: characters.map((c) => (ragdollInstance(ctx.ragdolls[c]?.instance)?.bodies ?? []).map(bodyHash)),
    ragdoll: characters.map((c) => p.stores.Ragdoll.active[c]!),
    fading: characters.map((c) => p.stores.CrossFade.active[c]!),
    placed: characters.map((c) => {
      const { position } = p.getTransform(c)
      return [position[0], position[2]] as const
    }),
  }
}

function bodyHash(b: Body): string {
  const h = createHasher()
  for (const v of [b.position, b.velocity, b.angularVelocity])
    h.updateNumber(v.x).updateNumber(v.y).updateNumber(v.z)
  const q = b.quaternion
  return h.updateNumber(q.x).updateNumber(q.y).updateNumber(q.z).updateNumber(q.w).digest()
}

/**
 * Where two runs part: the first checkpoint whose plugin hash differs, with the characters and bodies that
 * differ there; null when every checkpoint agrees. Also reports runs of different lengths or assets.
 */
export function firstDifference(a: CrossEngineRun, b: CrossEngineRun): string | null {
  if (a.assetHash !== b.assetHash)
    return `the runs read different Fox.glb bytes (${a.assetHash} vs ${b.assetHash})`
  const n = Math.min(a.checkpoints.length, b.checkpoints.length)
  for (let i = 0; i < n; i++) {
    const x = a.checkpoints[i]!
    const y = b.checkpoints[i]!
    if (x.hash === y.hash) continue
    const where: string[] = []
    x.characters.forEach((h, c) => {
      if (h !== y.characters[c]) where.push(`character ${c}`)
      const bx = x.bodies[c] ?? []
      const by = y.bodies[c] ?? []
      const bodies = bx.flatMap((hb, k) => (hb === by[k] ? [] : [k]))
      if (bx.length !== by.length) where.push(`character ${c}: ${bx.length} vs ${by.length} bodies`)
      else if (bodies.length > 0) where.push(`character ${c} bodies [${bodies.join(', ')}] of ${bx.length}`)
    })
    return `first difference at step ${x.step} (checkpoint ${i}): ${x.hash} vs ${y.hash}; ${where.join('; ')}`
  }
  if (a.checkpoints.length !== b.checkpoints.length)
    return `${a.checkpoints.length} vs ${b.checkpoints.length} checkpoints, equal up to step ${n * CROSS_ENGINE_EVERY}`
  return null
}

/** Names of the functions mathProbe calls, in the order of its output blocks. */
export const MATH_PROBE_FUNCTIONS = ['sin', 'cos', 'acos', 'exp', 'pow', 'atan2'] as const
export const MATH_PROBE_INPUTS = 2000

/**
 * The engine's own Math.sin, cos, acos, exp, pow (non-integer exponent) and atan2 on MATH_PROBE_INPUTS seeded
 * inputs each, in blocks of MATH_PROBE_INPUTS. Not part of the simulation: the test compares these across
 * engines to show the engines do disagree on Math, so equal simulation hashes mean something.
 */
export function mathProbe(): number[] {
  let seed = 0x9e3779b9
  const next = (): number => {
    // xorshift32: integer operations only, the same sequence everywhere.
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) / 4294967296
  }
  const out: number[] = []
  const run = (f: (u: number, v: number) => number): void => {
    for (let i = 0; i < MATH_PROBE_INPUTS; i++) out.push(f(next(), next()))
  }
  run((u) => Math.sin((u - 0.5) * 200))
  run((u) => Math.cos((u - 0.5) * 200))
  run((u) => Math.acos(u * 2 - 1))
  run((u) => Math.exp((u - 0.5) * 40))
  run((u, v) => Math.pow(u * 10, v * 4 - 2))
  run((u, v) => Math.atan2(u - 0.5, v - 0.5))
  return out
}
