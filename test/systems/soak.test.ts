/**
 * The soak test, CI form: scripts/soak.ts with 20 Fox characters for a few simulated minutes (the long form is
 * `npm run soak`: 100 characters for a simulated hour). The director changes clips, fades, ragdolls, get-ups and
 * characters every simulated second; runSoak throws on the first failed check (a non-finite SceneNode, bodies
 * or constraints that do not match the live ragdolls, pose slots that do not match the live characters, a
 * 'pose-non-finite' event). The heap check here is coarse: a few MB over the run.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { createRandom, runSoak } from '../../scripts/soak.ts'
import { formatSoak, heapVerdict } from '../../scripts/soakReport.ts'

describe('soak (short form)', () => {
  it('20 characters, 3 simulated minutes of random direction: every check passes and the heap stays flat', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const report = await runSoak({
      characters: 20,
      seconds: 180,
      seed: 7,
      checkEvery: 30,
      heapEvery: 1800,
      gc,
    })
    console.log(formatSoak(report))
    expect(report.steps).toBe(10800)
    expect(report.checks).toBe(360)
    // Everything the director does happened, many times.
    for (const action of [
      'crossFade',
      'play',
      'ragdoll',
      'getUp+clip',
      'hit',
      'removeCharacter',
      'removeEntity',
    ]) {
      expect(report.actions[action] ?? 0, action).toBeGreaterThan(3)
    }
    expect(report.maxRagdolls).toBeGreaterThan(0)
    expect(report.events['pose-non-finite'] ?? 0).toBe(0)
    expect(report.heap.samples.length).toBe(7)
    expect(heapVerdict(report, 4 * 1048576).flat, `heap ${JSON.stringify(report.heap)}`).toBe(true)
  })

  it('the director’s PRNG: one seed, one sequence; another seed, another; uniform in [0, 1)', () => {
    const a = createRandom(1)
    const b = createRandom(1)
    const seq = Array.from({ length: 10000 }, () => a())
    expect(Array.from({ length: 10000 }, () => b())).toEqual(seq)
    expect(createRandom(2)()).not.toBe(seq[0])
    expect(seq.every((x) => x >= 0 && x < 1)).toBe(true)
    // Ten equal bins of 10000 draws: each within 1000 ± 100 (about 3.3 standard deviations).
    const bins = new Array<number>(10).fill(0)
    for (const x of seq) bins[Math.floor(x * 10)]!++
    for (const n of bins) expect(Math.abs(n - 1000)).toBeLessThan(100)
  })
})
