/**
 * The benchmark's "retargeted crowd" section (issue 35): a retargeted clip costs the step what a native one
 * does, since `retarget` bakes it into an ordinary clip of the target. One plugin holds a crowd of a Mixamo-named
 * humanoid (65 joints, scripts/humanoid) walking at spread phases; in interleaved rounds every character plays
 * either the humanoid's own Walk (native: a rotation on every joint and the hips' translation, as Mixamo
 * exports) or the Walk of a VRM-named humanoid of other proportions, rest pose and a two-joint spine,
 * retargeted onto it (its channels carried through constant products or solved at the keys). Between rounds,
 * untimed, every character is played again with the other clip at its phase. CPU ms per step, median.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { contextOf } from '../../entry/plugin.ts'
import { createHumanoid } from '../humanoid/asset.ts'
import { median } from './measure.ts'

export interface RetargetClipCost {
  /** The clip's channels, and its key count (the most of any channel). */
  channels: number
  keys: number
  /** Median CPU ms per step of the crowd playing it, and every round's. */
  msPerStep: number
  rounds: number[]
}

export interface RetargetCrowdResult {
  characters: number
  joints: number
  native: RetargetClipCost
  retargeted: RetargetClipCost
  /** retargeted / native ms per step. */
  ratio: number
  /** ms the retarget call took (both clips of the source baked: Walk and Run). */
  bakeMs: number
}

export interface RetargetSettings {
  characters: readonly number[]
  rounds: number
  roundMs: number
  roundSteps: number
}

export function measureRetargetCrowd(
  settings: RetargetSettings,
  log: (line: string) => void,
): RetargetCrowdResult {
  const count = Math.max(...settings.characters)
  const target = createHumanoid({ naming: 'mixamo', armature: 'mixamo', seed: 2 }, ['Walk'])
  const source = createHumanoid(
    { naming: 'vrm', spine: 2, legs: 1.1, armDown: 0.6, axes: 'random', seed: 3 },
    ['Walk', 'Run'],
  )
  const plugin = createAnimationPlugin(createWorld(), {
    capacity: count * (target.nodes.length + 1) + 16,
    maxPoseSlots: Math.max(1024, count * target.nodes.length * 6),
  })
  plugin.addAsset(source)
  const handle = plugin.addAsset(target)
  const started = performance.now()
  plugin.retarget(source, target, { prefix: 'rt ' })
  const bakeMs = performance.now() - started
  const characters = Array.from({ length: count }, () => plugin.addCharacter(handle))
  const clips = ['Walk', 'rt Walk'].map((name) => contextOf(plugin).clips[plugin.clipId(handle, name)]!.clip)
  const playAll = (k: number): void => {
    const clip = clips[k]!
    characters.forEach((eid, i) => plugin.play(eid, clip.name, { time: (i * 0.37) % clip.duration }))
    plugin.step()
  }
  const timed = (k: number, steps: number): number => {
    playAll(k)
    const cpu = process.cpuUsage()
    for (let s = 0; s < steps; s++) {
      plugin.step()
      plugin.events.length = 0
    }
    const used = process.cpuUsage(cpu)
    return (used.user + used.system) / 1000 / steps
  }
  // Warm-up: both clips until each has run ~3 rounds' worth, then rounds of ~roundMs, alternating which first.
  const warm = [timed(0, 30), timed(1, 30)]
  const steps = settings.roundSteps || Math.max(10, Math.ceil(settings.roundMs / Math.max(...warm)))
  for (let w = 0; w < 3; w++) for (const k of [0, 1]) timed(k, steps)
  const rounds: number[][] = [[], []]
  for (let r = 0; r < settings.rounds; r++)
    for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) rounds[k]!.push(timed(k, steps))
  const cost = (k: number): RetargetClipCost => ({
    channels: clips[k]!.channels.length,
    keys: Math.max(...clips[k]!.channels.map((c) => c.times.length)),
    msPerStep: median(rounds[k]!),
    rounds: rounds[k]!,
  })
  const result = {
    characters: count,
    joints: contextOf(plugin).assets[handle.id]!.jointNodes.length,
    native: cost(0),
    retargeted: cost(1),
    ratio: median(rounds[1]!) / median(rounds[0]!),
    bakeMs,
  }
  log(
    `retargeted crowd, ${count} × ${result.joints}: native ${result.native.msPerStep.toFixed(3)} ms, retargeted ` +
      `${result.retargeted.msPerStep.toFixed(3)} ms (${result.ratio.toFixed(3)}×)`,
  )
  return result
}

/** The issue's claim: a retargeted crowd costs what a native one does (within the rounds' spread). */
export function retargetTargets(r: RetargetCrowdResult | null) {
  if (r === null) return []
  return [
    {
      name: `retargeted crowd ${r.characters}×${r.joints}`,
      goal: '≤ 1.1 × a native crowd (per step)',
      measured: `${r.ratio.toFixed(3)}× (${r.retargeted.msPerStep.toFixed(3)} / ${r.native.msPerStep.toFixed(3)} ms)`,
      met: r.ratio <= 1.1,
    },
  ]
}

/** The section's lines (report.ts adds them after the snapshots'). */
export function formatRetargetCrowd(r: RetargetCrowdResult | null, rounds: number): string[] {
  if (r === null) return []
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`
  const line = (name: string, c: RetargetClipCost): string =>
    row([name, String(c.channels), String(c.keys), c.msPerStep.toFixed(3), spread(c)])
  const spread = (c: RetargetClipCost): string =>
    `${Math.min(...c.rounds).toFixed(3)}–${Math.max(...c.rounds).toFixed(3)}`
  return [
    `Retargeted crowd (${r.characters} characters of a ${r.joints}-joint Mixamo-named humanoid walking; CPU ms per ` +
      `step, median of ${rounds} interleaved rounds in one plugin; the retarget call baked 2 clips in ` +
      `${r.bakeMs.toFixed(1)} ms):`,
    '',
    row(['clip', 'channels', 'keys', 'ms/step', 'rounds']),
    row(Array(5).fill('---')),
    line('native Walk', r.native),
    line('retargeted Walk', r.retargeted),
  ]
}
