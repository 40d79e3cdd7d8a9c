/**
 * Keeps the benchmark (scripts/bench) from rotting: runs it for a few steps on tiny sizes and checks that the
 * correctness check passes, that it can fail, and the shape of the output. No timing is asserted.
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { makeCrowdPlan, crowdRoles } from '../../scripts/bench/crowd.ts'
import { createOurCrowd } from '../../scripts/bench/ours.ts'
import { formatReport } from '../../scripts/bench/report.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import { runBenchmark } from '../../scripts/bench/run.ts'
import { benchSettings } from '../../scripts/bench/options.ts'
import { compareWorlds } from '../../scripts/bench/scenarioJob.ts'
import { formatKernelComparisons, runKernelComparisons } from '../../scripts/bench/kernels.ts'
import {
  formatWorkersComparisons,
  runWorkersComparisons,
  workersScenarios,
} from '../../scripts/bench/workers.ts'
import { createBlendReference, createThreeCrowd, restSize } from '../../scripts/bench/three.ts'
import { contextOf } from '../../entry/plugin.ts'
import { lodPhases } from '../../systems/scheduleLod.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'

describe('benchmark', () => {
  it('runs every scenario on tiny sizes with both sides agreeing, and reports every column', async () => {
    const result = await runBenchmark({
      sections: ['crowds'],
      characters: [1, 3],
      rigJoints: 8,
      rounds: 2,
      roundSteps: 10,
      warmupSteps: 3,
      allocSteps: 5,
      foxPath: FOX,
    })
    expect(result.ok).toBe(true)
    expect(result.fadeChecks.map((f) => [f.asset, f.ok])).toEqual([
      ['fox', true],
      ['rig-linear', true],
      ['rig-cubic', true],
    ])
    expect(result.scenarios).toHaveLength(3 * 6 * 2)
    for (const s of result.scenarios) {
      expect(s.check.errors).toHaveLength(3)
      if (s.crowd === 'blend-space') {
        // Against three's slerp: the stated tolerance (a fraction of the character's size); against the nlerp
        // reference: the bench's own 1e-4.
        expect(s.check.tolerance).toBeGreaterThan(1e-4)
        expect(s.check.maxError).toBeLessThanOrEqual(s.check.tolerance)
        expect(s.check.reference!.characters).toBe(s.characters)
        expect(s.check.reference!.maxError).toBeLessThanOrEqual(1e-4)
      } else {
        expect(s.check.maxError).toBeLessThanOrEqual(1e-4)
        expect(s.check.reference).toBeNull()
      }
      expect(s.joints).toBe(s.asset === 'fox' ? 26 : 8)
      for (const side of [s.ours!, s.three!]) {
        expect(side.rounds).toHaveLength(2)
        expect(side.msPerStep).toBeGreaterThanOrEqual(0)
        expect(side.wallMsPerStep).toBeGreaterThan(0)
        expect(side.bestWallMsPerStep).toBeLessThanOrEqual(side.wallMsPerStep)
        expect(side.wallRounds).toHaveLength(2)
        expect(side.nsPerJointStep).toBeCloseTo((side.msPerStep * 1e6) / (s.characters * s.joints), 6)
        expect(['exact', 'sampled']).toContain(side.allocation!.method)
        expect(side.allocation!.bytesPerStep).toBeGreaterThanOrEqual(0)
      }
      expect(typeof s.speedup).toBe('number')
      expect(s.wallSpeedup).toBeCloseTo(s.three!.wallMsPerStep / s.ours!.wallMsPerStep, 9)
    }
    expect(result.scenarios.find((s) => s.asset === 'rig-cubic')!.interpolation).toBe('CUBICSPLINE')
    expect(result.splits).toHaveLength(18)
    const systems = createAnimationPlugin(createWorld()).systems.map((f) => f.name)
    expect(systems).toHaveLength(13)
    for (const split of result.splits) expect(split.systems.map((s) => s.name)).toEqual(systems)
    expect(result.squad!.ratio).toBeCloseTo(result.squad!.squadMsPerStep / result.squad!.slerpMsPerStep, 9)
    expect(result.targets.map((t) => t.name)).toEqual([
      'speed rig-linear playing 3×8',
      'speed rig-linear moving 3×8',
      'speed rig-cubic playing 3×8',
      'speed rig-cubic moving 3×8',
      'speed fox layered 3×26',
      'speed fox blend-space 3×26',
      'speed rig-linear layered 3×8',
      'speed rig-linear blend-space 3×8',
      'speed rig-cubic layered 3×8',
      'speed rig-cubic blend-space 3×8',
      'allocation',
      'squad cost',
      'lod fox 3',
      'lod rig-linear 3',
      'lod rig-cubic 3',
      'mostly idle fox 3',
      'mostly idle rig-linear 3',
      'mostly idle rig-cubic 3',
    ])

    const table = formatReport(result)
    expect(table).toContain('| asset | crowd | chars | joints | ours ms/step | three ms/step | × three |')
    expect(
      table
        .split('\n')
        .filter((l) =>
          /^\| (fox|rig-linear|rig-cubic) \| (playing|moving|idle|layered|blend-space|lod) \|/.test(l),
        ),
    ).toHaveLength(36)
    expect(JSON.parse(JSON.stringify(result))).toEqual(result)
  })

  it('runs a scenario and the squad comparison in child processes (isolate, as npm run bench does)', async () => {
    const result = await runBenchmark({
      characters: [2],
      assets: ['rig-linear'],
      crowds: ['moving'],
      rigJoints: 8,
      rounds: 2,
      roundSteps: 5,
      warmupSteps: 2,
      allocSteps: 5,
      isolate: true,
      sections: ['crowds'],
      foxPath: FOX,
    })
    expect(result.ok).toBe(true)
    expect(result.settings.isolate).toBe(true)
    expect(result.snapshots).toEqual([])
    expect(result.scenarios).toHaveLength(1)
    const s = result.scenarios[0]!
    expect([s.asset, s.crowd, s.characters, s.joints]).toEqual(['rig-linear', 'moving', 2, 8])
    expect(s.check.ok).toBe(true)
    expect(s.ours!.rounds).toHaveLength(2)
    expect(result.splits.map((x) => x.systems.length)).toEqual([13])
    // The squad comparison ran in a child too (two crowds of 2 characters).
    expect(result.squad!.characters).toBe(2)
    expect(result.squad!.ratio).toBeGreaterThan(0)
    expect(result.squad!.ratio).toBeCloseTo(result.squad!.squadMsPerStep / result.squad!.slerpMsPerStep, 9)
    expect(formatReport(result)).toContain('each scenario in a fresh process')
  })

  it('runs the snapshot / restore section alone, in a child process, and reports it', async () => {
    const result = await runBenchmark({
      sections: ['snapshots'],
      rounds: 2,
      roundSteps: 2,
      allocSteps: 5,
      isolate: true,
    })
    expect(result.scenarios).toEqual([])
    expect(result.squad).toBeNull()
    expect(result.snapshots.map((r) => [r.crowd, r.characters, r.joints, r.ragdolls])).toEqual([
      ['playing and cross-fading', 100, 67, 0],
      ['with 10 ragdolling', 100, 67, 10],
    ])
    for (const r of result.snapshots) {
      expect(r.bytes).toBeGreaterThan(0)
      for (const side of ['snapshot', 'snapshotInto', 'restore', 'step', 'rollback'] as const) {
        expect(r.rounds[side]).toHaveLength(2)
      }
      expect(r.rollbacksPerSecond).toBeCloseTo(1000 / r.rollbackMs, 9)
      expect(r.allocation.bytesPerStep).toBeGreaterThanOrEqual(0)
    }
    // Ragdolls add their bodies' state.
    expect(result.snapshots[1]!.bytes).toBeGreaterThan(result.snapshots[0]!.bytes)
    expect(result.targets.map((t) => t.name)).toEqual(
      ['100×67 playing and cross-fading', '100×67 with 10 ragdolling'].flatMap((n) => [
        `snapshot size ${n}`,
        `snapshot ${n}`,
        `restore ${n}`,
        `snapshotInto allocation ${n}`,
      ]),
    )
    const table = formatReport(result)
    expect(table).toContain('| crowd | bytes | snapshot() | snapshotInto | restore | step | rollback of 8 |')
    expect(
      table.split('\n').filter((l) => /^\| (playing and cross-fading|with 10 ragdolling) \|/.test(l)),
    ).toHaveLength(2)
  })

  it('runs the retargeted crowd section alone and reports a native and a retargeted walk', async () => {
    const result = await runBenchmark({ sections: ['retarget'], characters: [3], rounds: 2, roundSteps: 2 })
    const r = result.retarget!
    expect([r.characters, r.joints]).toEqual([3, 66])
    // The retargeted Walk drives the joints the auto map matched (no finger tips or end joints), same keys.
    expect(r.native.channels).toBe(66)
    expect(r.retargeted.channels).toBeGreaterThan(40)
    expect(r.retargeted.channels).toBeLessThan(66)
    expect(r.retargeted.keys).toBe(r.native.keys)
    expect(r.native.rounds).toHaveLength(2)
    expect(r.ratio).toBeCloseTo(r.retargeted.msPerStep / r.native.msPerStep, 9)
    expect(result.targets.map((t) => t.name)).toEqual(['retargeted crowd 3×66'])
    expect(formatReport(result)).toContain('| retargeted Walk | ')
  })

  it('runs the IK section alone, in a child process: the crowd with and without feet + aim', async () => {
    const result = await runBenchmark({
      sections: ['ik'],
      characters: [3],
      rounds: 2,
      roundSteps: 2,
      allocSteps: 5,
      isolate: true,
    })
    expect(result.scenarios).toEqual([])
    const r = result.ik!
    expect([r.characters, r.joints, r.rounds.with.length, r.rounds.without.length]).toEqual([3, 64, 2, 2])
    expect(r.overhead).toBeCloseTo(r.withMs / r.withoutMs - 1, 9)
    expect(r.usPerCharacter).toBeCloseTo(((r.withMs - r.withoutMs) * 1000) / 3, 9)
    expect(result.targets.map((t) => t.name)).toEqual([
      'ik: 3×64 with feet + aim',
      'ik: 3×64 with feet + aim: allocation',
    ])
    expect(formatReport(result)).toContain('| with feet + aim |')
  }, 120_000)

  it('--kernels wasm passes the checks; --compare-kernels measures both kernels in alternating children', async () => {
    const result = await runBenchmark({
      characters: [2],
      assets: ['fox'],
      crowds: ['moving'],
      rounds: 2,
      roundSteps: 5,
      warmupSteps: 2,
      allocSteps: 5,
      squad: false,
      kernels: 'wasm',
      foxPath: FOX,
    })
    expect(result.ok).toBe(true)
    expect(result.settings.kernels).toBe('wasm')
    expect(formatReport(result)).toContain("kernels 'wasm'")
    const settings = benchSettings({ rounds: 2, rigJoints: 8 })
    const [cmp] = await runKernelComparisons(['rig-linear'], 3, 2, settings, () => {})
    expect(cmp!.runs.map((r) => r.kernels)).toEqual(['js', 'wasm', 'wasm', 'js'])
    expect(cmp!.sameBits).toBe(true)
    expect([cmp!.joints, cmp!.runs[0]!.recomputed]).toEqual([8, 3 * 8])
    expect(cmp!.propagateRatio).toBeCloseTo(cmp!.js.nsPerNode / cmp!.wasm.nsPerNode, 9)
    expect(cmp!.wasm.nsPerNode).toBeGreaterThan(0)
    expect(formatKernelComparisons([cmp!])).toContain('| rig-linear | 3 × 8 | 24 |')
  })

  it('--compare-workers measures each worker count in alternating children, the same hash, workers taking part', async () => {
    expect(
      workersScenarios(['rig-linear', 'fox'], ['playing', 'idle']).map(
        (s) => `${s.asset} ${s.crowd} ${s.characters}`,
      ),
    ).toEqual([
      'rig-linear playing 10000',
      'rig-linear playing 1000',
      'rig-linear idle 1000',
      'fox playing 1000',
      'fox idle 1000',
    ])
    // --characters: those counts for every crowd, and no 10,000 of its own.
    expect(
      workersScenarios(['fox'], ['playing'], [100, 500]).map((s) => `${s.asset} ${s.crowd} ${s.characters}`),
    ).toEqual(['fox playing 100', 'fox playing 500'])
    const settings = benchSettings({ rounds: 2, rigJoints: 8 })
    const scenario = { asset: 'rig-linear', crowd: 'moving', characters: 6 } as const
    // The calling thread leaves every chunk to the workers (6 characters are one chunk: it would take it first).
    const [cmp] = await runWorkersComparisons([scenario], [0, 2], 2, settings, () => {}, true)
    expect(cmp!.runs.map((r) => r.workers)).toEqual([0, 2, 2, 0])
    expect(cmp!.sameBits).toBe(true)
    for (const run of cmp!.runs) expect(run.workerItems > 0).toBe(run.workers > 0)
    expect(cmp!.counts[1]!.speedup).toBeCloseTo(cmp!.counts[0]!.wallMs / cmp!.counts[1]!.wallMs, 9)
    expect(formatWorkersComparisons([cmp!])).toMatch(/^\| rig-linear moving \| 6 × 8 \| .* \| yes \|$/m)
  })

  it('the correctness check sees a pose that differs', () => {
    const asset = createBenchRig({ joints: 8, interpolation: 'CUBICSPLINE' })
    const plan = makeCrowdPlan(asset, 3, 'moving', { clipA: 0, clipB: 1, fadeSeconds: 1 })
    const ours = createOurCrowd(plan)
    const three = createThreeCrowd(plan)
    ours.run(5)
    three.run(5)
    expect(compareWorlds(plan, ours, three)).toBeLessThan(1e-5)
    ours.run(1)
    // One step apart: the animation moves more than the tolerance in one step.
    expect(compareWorlds(plan, ours, three)).toBeGreaterThan(1e-3)
    three.run(1)
    expect(compareWorlds(plan, ours, three)).toBeLessThan(1e-5)
    // A bone turned on the three side only (a tiny rotation about x of a spine joint's local transform).
    const spine = three.scene.children[2]!.getObjectByName('n1')!
    spine.rotateX(1e-3)
    three.scene.updateMatrixWorld()
    expect(compareWorlds(plan, ours, three)).toBeGreaterThan(1e-4)
  })

  it('the layered and blend-space checks see a wrong layer weight, clip or blend weight', () => {
    const asset = createBenchRig({ joints: 8 })
    const options = { clipA: 0, clipB: 1, clipC: 2, mask: ['chest'], blendClips: [2, 0, 1] }
    const layered = makeCrowdPlan(asset, 3, 'layered', options)
    const ours = createOurCrowd(layered)
    const three = createThreeCrowd(layered)
    ours.run(5)
    three.run(5)
    expect(compareWorlds(layered, ours, three)).toBeLessThan(1e-5)
    // The additive layer's weight a little off on our side only.
    ours.plugin.setLayer(ours.characters[1]!, 2, { weight: 0.45 })
    ours.run(1)
    three.run(1)
    expect(compareWorlds(layered, ours, three)).toBeGreaterThan(1e-3)

    const blend = makeCrowdPlan(asset, 3, 'blend-space', options)
    const oursB = createOurCrowd(blend)
    const threeB = createThreeCrowd(blend)
    const reference = createBlendReference(blend, 3)
    oursB.run(5)
    threeB.run(5)
    reference.run(5)
    expect(compareWorlds(blend, oursB, reference)).toBeLessThan(1e-5)
    const slerpGap = compareWorlds(blend, oursB, threeB)
    expect(slerpGap).toBeGreaterThan(1e-6)
    expect(slerpGap).toBeLessThan(3e-2 * restSize(asset))
    // A parameter moved on our side: the reference sees it at once.
    oursB.plugin.setBlendParameter(oursB.characters[0]!, blend.blend!.parameter[0]! + 0.05)
    oursB.run(1)
    reference.run(1)
    expect(compareWorlds(blend, oursB, reference)).toBeGreaterThan(1e-4)
  })

  it('the lod check sees three.js on another schedule', () => {
    const asset = createBenchRig({ joints: 8 })
    const plan = makeCrowdPlan(asset, 40, 'lod', { clipA: 0, clipB: 1 })
    const lod = plan.lod!
    expect(Array.from(new Set(lod.rate)).sort()).toEqual([1, 2, 4])
    // At least 10 % of 40, ties kept together: the centre and its four neighbours.
    expect(lod.rate.filter((r) => r === 1).length).toBe(5)
    const ours = createOurCrowd(plan)
    const step = contextOf(ours.plugin).step
    const right = createThreeCrowd(plan, { phase: lodPhases(lod.rate), step })
    const wrong = createThreeCrowd(plan, { phase: lodPhases(lod.rate).map((p) => p + 1), step })
    let worstRight = 0
    let worstWrong = 0
    for (let k = 0; k < 8; k++) {
      ours.run(1)
      right.run(1)
      wrong.run(1)
      worstRight = Math.max(worstRight, compareWorlds(plan, ours, right))
      worstWrong = Math.max(worstWrong, compareWorlds(plan, ours, wrong))
    }
    expect(worstRight).toBeLessThan(1e-5)
    expect(worstWrong).toBeGreaterThan(1e-3)
    expect(() => createThreeCrowd(plan)).toThrow()
  })

  it('builds the rig and crowds as documented', () => {
    const rig = createBenchRig()
    expect(rig.nodes).toHaveLength(64)
    expect(rig.clips.map((c) => c.name)).toEqual(['Walk', 'Run', 'Idle'])
    for (const clip of rig.clips) {
      expect(clip.duration).toBeCloseTo(2, 6)
      expect(clip.channels).toHaveLength(65)
      for (const ch of clip.channels) expect(ch.times).toHaveLength(61)
    }
    const idle = crowdRoles(1000, 'idle')
    expect(idle.filter((r) => r === 'paused' || r === 'finished')).toHaveLength(900)
    expect(crowdRoles(4, 'moving')).toEqual(['play', 'fade', 'play', 'fade'])
    expect(crowdRoles(3, 'playing')).toEqual(['play', 'play', 'play'])
    // The upper body: the chest's subtree, joints 4..7 and 16..63.
    const layered = makeCrowdPlan(rig, 2, 'layered', { clipA: 0, clipB: 1, clipC: 2, mask: ['chest'] })
    const inside = layered.layered!.inMask.flatMap((x, i) => (x ? [i] : []))
    expect(inside).toEqual([4, 5, 6, 7, ...Array.from({ length: 48 }, (_, i) => 16 + i)])
    // A Mixamo-sized rig of 67: the 64 above (the same nodes, bit for bit), then three more under the head.
    const mixamo = createBenchRig({ joints: 67 })
    expect(mixamo.nodes.slice(0, 64)).toEqual(
      rig.nodes.map((n) => ({ ...n, children: mixamo.nodes[n.index]!.children })),
    )
    expect(mixamo.nodes.slice(64).map((n) => [n.name, n.parent])).toEqual([
      ['headTop', 6],
      ['eyeL', 6],
      ['eyeR', 6],
    ])
    expect(mixamo.clips[0]!.channels).toHaveLength(68)
    expect(() => createBenchRig({ joints: 68 })).toThrow(/1\.\.67/)
    // The blend space: each character between two neighbouring points, weights summing to 1.
    const blend = makeCrowdPlan(rig, 100, 'blend-space', { clipA: 0, clipB: 1, blendClips: [2, 0, 1] })
    for (let i = 0; i < 100; i++) {
      const w = Array.from(blend.blend!.weights.subarray(3 * i, 3 * i + 3))
      expect(w.filter((x) => x > 0).length).toBe(2)
      expect(w[0]! * w[2]!).toBe(0)
      expect(w[0]! + w[1]! + w[2]!).toBeCloseTo(1, 12)
    }
  })
})
