/**
 * The targets the benchmark reports met or not, from a finished run's results.
 */
import type { CrowdKind } from './crowd.ts'
import type { AssetName, BenchResult, SideResult, Target } from './options.ts'

export function targets(result: BenchResult, largest: number, rigJoints: number): Target[] {
  const out: Target[] = []
  const find = (asset: AssetName, crowd: CrowdKind, n: number) =>
    result.scenarios.find((s) => s.asset === asset && s.crowd === crowd && s.characters === n)
  for (const asset of ['rig-linear', 'rig-cubic'] as const) {
    for (const crowd of ['playing', 'moving'] as const) {
      const s = find(asset, crowd, largest)
      out.push({
        name: `speed ${asset} ${crowd} ${largest}×${rigJoints}`,
        goal: '≥ 10× three.js',
        measured: s?.speedup != null ? `${s.speedup.toFixed(1)}×` : 'not measured',
        met: s?.speedup != null ? s.speedup >= 10 : null,
      })
    }
  }
  for (const asset of result.settings.assets) {
    for (const crowd of ['layered', 'blend-space'] as const) {
      const s = find(asset, crowd, largest)
      const joints = s?.joints ?? (asset === 'fox' ? 26 : rigJoints)
      out.push({
        name: `speed ${asset} ${crowd} ${largest}×${joints}`,
        goal: '≥ 8× three.js',
        measured: s?.speedup != null ? `${s.speedup.toFixed(1)}×` : 'not measured',
        met: s?.speedup != null ? s.speedup >= 8 : null,
      })
    }
  }
  // Beyond the step's own work: the game empties the event queue every step, and V8 allocates the array's storage
  // again for the next step's events (pooled records cost nothing): at most arrayRegrowthBytes of them.
  const allocs = result.scenarios.flatMap((s) => (s.ours?.allocation ? [s.ours] : []))
  const over = (o: SideResult) => o.allocation!.bytesPerStep - (o.events?.queueBytes ?? 0)
  const worst = allocs.length > 0 ? allocs.reduce((a, b) => (over(b) > over(a) ? b : a)) : null
  out.push({
    name: 'allocation',
    goal: '0 bytes per step (steady state), every scenario, but the event queue array the game empties',
    measured:
      worst === null
        ? 'not measured'
        : `max ${worst.allocation!.bytesPerStep.toFixed(1)} B/step over ${allocs.length} scenarios ` +
          `(its queue: ${worst.events?.maxPerStep ?? 0} events, ≤ ${worst.events?.queueBytes ?? 0} B)`,
    met: worst === null ? null : over(worst) <= 0,
  })
  const sq = result.squad
  out.push({
    name: 'squad cost',
    goal: '≤ 2× the slerp path',
    measured: sq
      ? `step ${sq.ratio.toFixed(2)}×, sampleTracks ${sq.sampleRatio.toFixed(2)}×`
      : 'not measured',
    met: sq ? sq.ratio <= 2 : null,
  })
  for (const asset of result.settings.assets) {
    // Levels of detail: the lod crowd's step against the playing crowd's (the same clip at full rate).
    const lod = find(asset, 'lod', largest)
    const playing = find(asset, 'playing', largest)
    const share = lod?.ours && playing?.ours ? lod.ours.msPerStep / playing.ours.msPerStep : null
    const want = lod?.lodShare ?? null
    if (lod === undefined) continue
    out.push({
      name: `lod ${asset} ${largest}`,
      goal: `≤ 1.33 × the schedule's share (${want === null ? '?' : (want * 100).toFixed(1)}%) of playing`,
      measured: share === null ? 'not measured (needs the playing crowd)' : `${(share * 100).toFixed(1)}%`,
      met: share === null || want === null ? null : share <= 1.33 * want,
    })
  }
  for (const asset of result.settings.assets) {
    const idle = find(asset, 'idle', largest)
    const moving = find(asset, 'moving', largest)
    const share = idle?.ours && moving?.ours ? idle.ours.msPerStep / moving.ours.msPerStep : null
    out.push({
      name: `mostly idle ${asset} ${largest}`,
      goal: '≤ 20% of the all-moving crowd',
      measured: share === null ? 'not measured' : `${(share * 100).toFixed(1)}%`,
      met: share === null ? null : share <= 0.2,
    })
  }
  return out
}
