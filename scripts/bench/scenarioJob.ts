/**
 * One scenario of the crowd section: both crowds built from one plan and checked to agree, warmed up, timed in
 * interleaved rounds, their allocation measured (see run.ts for the method).
 */
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { lodPhases } from '../../systems/scheduleLod.ts'
import { contextOf } from '../../entry/plugin.ts'
import { makeCrowdPlan, type CrowdKind, type CrowdPlan, type PlanOptions } from './crowd.ts'
import { createOurCrowd, type OurCrowd } from './ours.ts'
import {
  createBlendReference,
  createThreeCrowd,
  restSize,
  type LodSchedule,
  type ThreeCrowd,
} from './three.ts'
import { createBenchRig, RIG_UPPER_BODY } from './rig.ts'
import {
  arrayRegrowthBytes,
  clamp,
  collectGarbage,
  gcInWindows,
  measureAllocation,
  median,
  runRounds,
  warmUp,
  type GcTracker,
  type Side,
} from './measure.ts'
import {
  DT,
  FADE_SECONDS,
  FRAME_MS,
  REFERENCE_CHARACTERS,
  REFERENCE_STEPS,
  type AssetName,
  type CheckResult,
  type ScenarioResult,
  type Settings,
  type SideResult,
  type SplitResult,
} from './options.ts'
import { splitSystems } from './systemSplit.ts'
import { checkPeers, createPeerSides, peerCheck, type PeerResult } from './peers.ts'

export async function loadBenchAsset(
  name: AssetName,
  rigJoints: number,
  foxPath: string,
): Promise<AnimationAsset> {
  if (name === 'fox') return loadAsset(foxPath)
  return createBenchRig({ joints: rigJoints, interpolation: name === 'rig-cubic' ? 'CUBICSPLINE' : 'LINEAR' })
}

/** Clip A and B: Fox walks then runs (clips 1, 2: Walk, Run); the rig's clips are Walk, Run (0, 1). */
export function clipPair(name: AssetName): { clipA: number; clipB: number } {
  return name === 'fox' ? { clipA: 1, clipB: 2 } : { clipA: 0, clipB: 1 }
}

/**
 * Every crowd's clips. Layered: the Fox walks (base), with Survey over its upper body (b_Spine01_02's subtree:
 * spine, neck, head, front legs; 10 of 26 nodes) and Run additive; the rig walks, with Run over its upper body
 * (RIG_UPPER_BODY, the chest's subtree: 52 of 64 joints) and Idle additive. Blend space: Survey, Walk, Run
 * (Fox: 3.29, 0.71 and 0.58 s) and the rig's Idle, Walk, Run (2 s each) at 0, 1, 2.
 */
export function planOptions(name: AssetName, crowd: CrowdKind): PlanOptions {
  return name === 'fox'
    ? {
        clipA: 1,
        clipB: crowd === 'layered' ? 0 : 2,
        clipC: 2,
        mask: ['b_Spine01_02'],
        blendClips: [0, 1, 2],
      }
    : { clipA: 0, clipB: 1, clipC: 2, mask: [RIG_UPPER_BODY], blendClips: [2, 0, 1] }
}

/**
 * Largest |difference| between the two sides' world matrices, over every joint of the first `count` characters
 * (the other side: three.js's crowd, or a peer's).
 */
export function compareWorlds(
  plan: CrowdPlan,
  ours: OurCrowd,
  three: Pick<ThreeCrowd, 'worldMatrix'>,
  count = plan.roles.length,
): number {
  const a = new Float64Array(16)
  const b = new Float64Array(16)
  let worst = 0
  for (let c = 0; c < count; c++) {
    for (let j = 0; j < ours.joints; j++) {
      ours.worldMatrix(c, j, a, 0)
      three.worldMatrix(c, ours.jointNodes[j]!, b, 0)
      for (let k = 0; k < 16; k++) {
        const d = Math.abs(a[k]! - b[k]!)
        // NaN on either side is a failure, never a pass.
        worst = Number.isNaN(d) ? Infinity : Math.max(worst, d)
      }
    }
  }
  return worst
}

/** Four characters (two of them cross-fading over 0.25 s) compared after every step through the whole fade. */
export function fadeCheck(
  asset: AnimationAsset,
  clips: { clipA: number; clipB: number },
  tolerance: number,
): { steps: number; maxError: number; ok: boolean } {
  const plan = makeCrowdPlan(asset, 4, 'moving', { ...clips, fadeSeconds: 0.25, dt: DT })
  const ours = createOurCrowd(plan)
  const three = createThreeCrowd(plan)
  const steps = Math.ceil(0.25 / DT) + 10
  let maxError = compareWorlds(plan, ours, three)
  for (let s = 0; s < steps; s++) {
    ours.run(1)
    three.run(1)
    maxError = Math.max(maxError, compareWorlds(plan, ours, three))
  }
  return { steps, maxError, ok: maxError <= tolerance }
}

/** One scenario, as handed to a child process (scenario.ts) or run in this one. */
export interface ScenarioJob {
  asset: AssetName
  crowd: CrowdKind
  count: number
  /** Also time the project's systems one by one (splitSystems) after the timed rounds. */
  split: boolean
  foxPath: string
}

export interface ScenarioDone {
  result: ScenarioResult
  split: SplitResult | null
}

/**
 * Runs one scenario in this process: the crowd the project times is the first plugin the job makes (in a
 * fresh child process, the only one until timing and split are done).
 */
export async function runScenarioJob(
  job: ScenarioJob,
  settings: Settings,
  tracker: GcTracker,
  log: (line: string) => void,
  loaded?: AnimationAsset,
): Promise<ScenarioDone> {
  const asset = loaded ?? (await loadBenchAsset(job.asset, settings.rigJoints, job.foxPath))
  const plan = makeCrowdPlan(asset, job.count, job.crowd, {
    ...planOptions(job.asset, job.crowd),
    fadeSeconds: FADE_SECONDS,
    dt: DT,
  })
  const scenario = await runScenario(job.asset, plan, job.crowd, settings, tracker, log, job.foxPath)
  let split: SplitResult | null = null
  if (job.split && scenario.result.check.ok) {
    const [systems] = splitSystems([scenario.ours], settings)
    split = { asset: job.asset, crowd: job.crowd, characters: job.count, systems: systems! }
  }
  return { result: scenario.result, split }
}

async function runScenario(
  name: AssetName,
  plan: CrowdPlan,
  crowd: CrowdKind,
  settings: Settings,
  tracker: GcTracker,
  log: (line: string) => void,
  foxPath: string,
): Promise<{ result: ScenarioResult; ours: OurCrowd }> {
  const count = plan.roles.length
  collectGarbage()
  const ours = createOurCrowd(plan, settings.kernels)
  const three = createThreeCrowd(plan, lodSchedule(plan, ours))
  const interpolation =
    plan.asset.clips[plan.clipA]!.channels[0]!.interpolation === 'CUBICSPLINE' ? 'CUBICSPLINE' : 'LINEAR'
  const errors = [compareWorlds(plan, ours, three)]
  const size = restSize(plan.asset)
  const tolerance = plan.blend !== null ? settings.blendTolerance * size : settings.tolerance
  const peers = await createPeerSides(plan, name, settings, foxPath, tolerance, size)
  const comparePeer = (crowd: Pick<ThreeCrowd, 'worldMatrix'>): number => compareWorlds(plan, ours, crowd)
  checkPeers(peers, ours, comparePeer)
  let reference: CheckResult['reference'] = null
  if (plan.blend !== null) {
    // Before the warm-up, step by step: the project against the nlerp reference (and three, as every check).
    const refCount = Math.min(count, REFERENCE_CHARACTERS)
    const ref = createBlendReference(plan, refCount)
    let worst = compareWorlds(plan, ours, ref, refCount)
    for (let s = 0; s < REFERENCE_STEPS; s++) {
      ours.run(1)
      three.run(1)
      ref.run(1)
      for (const p of peers) p.crowd?.run(1)
      worst = Math.max(worst, compareWorlds(plan, ours, ref, refCount))
      errors[0] = Math.max(errors[0]!, compareWorlds(plan, ours, three))
    }
    reference = {
      characters: refCount,
      steps: REFERENCE_STEPS,
      maxError: worst,
      tolerance: settings.tolerance,
    }
  }
  if (plan.blend !== null) checkPeers(peers, ours, comparePeer)
  const sides: Side[] = [
    { name: 'ours', run: (n) => ours.run(n) },
    { name: 'three', run: (n) => three.run(n) },
  ]
  for (const p of peers) if (p.crowd !== null) sides.push({ name: p.name, run: (n) => p.crowd!.run(n) })

  warmUp(sides, settings.warmupMs, settings.warmupSteps)
  const warm = runRounds(sides, 3, 1)
  errors.push(compareWorlds(plan, ours, three))
  checkPeers(peers, ours, comparePeer)
  const oursEstimate = median(warm.msPerStep[0]!)
  const stepsPerRound = settings.roundSteps || clamp(Math.ceil(settings.roundMs / oursEstimate), 3, 20000)

  const base = {
    asset: name,
    source: plan.asset.source,
    interpolation,
    crowd,
    characters: count,
    joints: ours.joints,
    stepsPerRound,
    lodShare: plan.lod?.share ?? null,
  } as const
  const check = (): CheckResult => {
    const maxError = Math.max(...errors)
    const refOk = reference === null || reference.maxError <= reference.tolerance
    return { errors, maxError, tolerance, reference, ok: maxError <= tolerance && refOk }
  }
  if (!check().ok) {
    const ref = reference === null ? '' : `, reference ${reference.maxError}`
    log(`${name} ${crowd} ${count}: CHECK FAILED (max error ${check().maxError}${ref}), not timed`)
    return {
      result: {
        ...base,
        check: check(),
        ours: null,
        three: null,
        speedup: null,
        wallSpeedup: null,
        recomputedNodes: 0,
        peers: peers.map((p) => ({
          name: p.name,
          skipped: p.skipped,
          check: peerCheck(p),
          side: null,
          slowdown: null,
        })),
      },
      ours,
    }
  }
  // A peer whose check failed is not timed (every side runs the same steps, so it runs on unchecked).
  const timedSides = sides.filter((s, i) => i < 2 || peerCheck(peers.find((p) => p.name === s.name)!)!.ok)

  await tracker.flush()
  const timed = runRounds(timedSides, stepsPerRound, settings.rounds)
  errors.push(compareWorlds(plan, ours, three))
  checkPeers(
    peers.filter((p) => timedSides.some((s) => s.name === p.name)),
    ours,
    comparePeer,
  )
  const recomputedNodes = ours.plugin.sceneGraph.stats.recomputed
  await tracker.flush()

  const side = async (i: number): Promise<SideResult> => {
    const ms = median(timed.cpuMsPerStep[i]!)
    const gc = gcInWindows(tracker.events, timed.windows[i]!)
    return {
      msPerStep: ms,
      rounds: timed.cpuMsPerStep[i]!,
      wallMsPerStep: median(timed.msPerStep[i]!),
      bestWallMsPerStep: Math.min(...timed.msPerStep[i]!),
      wallRounds: timed.msPerStep[i]!,
      nsPerJointStep: (ms * 1e6) / (count * ours.joints),
      charactersPerFrame: Math.floor(FRAME_MS / (ms / count)),
      allocation:
        settings.allocSteps > 0
          ? await measureAllocation(timedSides[i]!, settings.allocSteps, tracker)
          : null,
      gcCount: gc.count,
      gcPauseMs: gc.ms,
    }
  }
  const maxPerStep = ours.maxEventsPerStep()
  const oursResult = {
    ...(await side(0)),
    events: { maxPerStep, queueBytes: arrayRegrowthBytes(maxPerStep) },
  }
  const threeResult = await side(1)
  const peerResults: PeerResult[] = []
  for (const p of peers) {
    const i = timedSides.findIndex((s) => s.name === p.name)
    const own = i < 0 ? null : await side(i)
    const slowdown = own === null ? null : own.msPerStep / oursResult.msPerStep
    peerResults.push({ name: p.name, skipped: p.skipped, check: peerCheck(p), side: own, slowdown })
  }
  const result: ScenarioResult = {
    ...base,
    check: check(),
    ours: oursResult,
    three: threeResult,
    speedup: threeResult.msPerStep / oursResult.msPerStep,
    wallSpeedup: threeResult.wallMsPerStep / oursResult.wallMsPerStep,
    recomputedNodes,
    peers: peerResults,
  }
  log(
    `${name} ${crowd} ${count}: ours ${oursResult.msPerStep.toFixed(4)} ms, three ${threeResult.msPerStep.toFixed(4)} ms, ` +
      `${result.speedup!.toFixed(1)}×, max error ${result.check.maxError.toExponential(2)}` +
      (reference === null ? '' : `, nlerp reference ${reference.maxError.toExponential(2)}`) +
      peerResults
        .map((p) =>
          p.skipped !== null
            ? `; ${p.name} skipped`
            : `; ${p.name} ${p.side ? `${p.side.msPerStep.toFixed(4)} ms (${p.slowdown!.toFixed(1)}× ours)` : 'CHECK FAILED'}, ` +
              `max error ${p.check!.maxError.toExponential(2)}`,
        )
        .join(''),
  )
  return { result, ours }
}

/** The lod crowd's schedule on the project's side, for three's (createThreeCrowd); null for other crowds. */
function lodSchedule(plan: CrowdPlan, ours: OurCrowd): LodSchedule | null {
  if (plan.lod === null) return null
  // The characters were added in plan order, which is the plugin's character order.
  return { phase: lodPhases(plan.lod.rate), step: contextOf(ours.plugin).step }
}
