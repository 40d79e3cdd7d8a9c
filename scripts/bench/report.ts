/** Plain-text (Markdown) tables of a benchmark result, for the terminal and the README. */
import type { BenchResult, SideResult } from './options.ts'
import { formatSnapshots } from './snapshots.ts'
import { formatRetargetCrowd } from './retargetCrowd.ts'
import { formatIK } from './ik.ts'

export function formatReport(r: BenchResult): string {
  const m = r.machine
  const lines: string[] = []
  lines.push(
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.platform}, Node ${m.node} (V8 ${m.v8}), three r${m.three}, ` +
      `load average ${m.load.map((x) => x.toFixed(2)).join(' ')} at start`,
  )
  lines.push(
    `Step: dt ${fmt(r.settings.dt, 5)} s; median of ${r.settings.rounds} interleaved rounds after warm-up; ` +
      `allocation over ${r.settings.allocSteps} steps per window (~: sampled estimate over fewer steps, see JSON); ` +
      (r.settings.isolate
        ? 'each scenario in a fresh process (one plugin, as in a game) running the bundled bench, not tsx'
        : 'every scenario in this one process (--shared-process, under tsx: typed arrays ~17% slower)') +
      `; kernels '${r.settings.kernels}'`,
  )
  lines.push('')
  lines.push(
    row([
      'asset',
      'crowd',
      'chars',
      'joints',
      'ours ms/step',
      'three ms/step',
      '× three',
      'ours ns/joint',
      'three ns/joint',
      'ours chars/frame',
      'three chars/frame',
      'ours B/step',
      'three B/step',
      'GCs ours/three',
      'nodes recomputed',
      'max error',
      'ours wall ms',
      'three wall ms',
    ]),
  )
  lines.push(row(Array(18).fill('---')))
  for (const s of r.scenarios) {
    const o = s.ours
    const t = s.three
    lines.push(
      row([
        s.asset,
        s.crowd,
        String(s.characters),
        String(s.joints),
        o ? fmt(o.msPerStep, 4) : '—',
        t ? fmt(t.msPerStep, 4) : '—',
        s.speedup != null ? `${s.speedup.toFixed(1)}×` : 'CHECK FAILED',
        o ? o.nsPerJointStep.toFixed(1) : '—',
        t ? t.nsPerJointStep.toFixed(1) : '—',
        o ? String(o.charactersPerFrame) : '—',
        t ? String(t.charactersPerFrame) : '—',
        bytes(o),
        bytes(t),
        o && t ? `${o.gcCount}/${t.gcCount}` : '—',
        String(s.recomputedNodes),
        s.check.maxError.toExponential(1),
        o ? fmt(o.wallMsPerStep, 4) : '—',
        t ? fmt(t.wallMsPerStep, 4) : '—',
      ]),
    )
  }
  if (r.settings.peers.length > 0) lines.push('', ...formatPeers(r))
  if (r.fadeChecks.length > 0) {
    lines.push('')
    lines.push(
      'Short-fade check (0.25 s cross-fade, every step compared): ' +
        r.fadeChecks
          .map((f) => `${f.asset} ${f.maxError.toExponential(1)} ${f.ok ? 'ok' : 'FAILED'}`)
          .join(', '),
    )
  }
  for (const sp of r.splits) {
    lines.push('')
    lines.push(`Project step split, ${sp.asset} ${sp.crowd} ${sp.characters} characters:`)
    lines.push(row(['system', 'ms/step', 'share']))
    lines.push(row(['---', '---', '---']))
    for (const s of sp.systems)
      lines.push(row([s.name, fmt(s.msPerStep, 4), `${(s.share * 100).toFixed(1)}%`]))
  }
  if (r.squad) {
    const q = r.squad
    lines.push('')
    lines.push(
      `Squad vs slerp (rig-linear, moving, ${q.characters} × ${q.joints}): step ${fmt(q.slerpMsPerStep, 4)} → ` +
        `${fmt(q.squadMsPerStep, 4)} ms (${q.ratio.toFixed(2)}×); sampleTracks ${fmt(q.slerpSampleMs, 4)} → ` +
        `${fmt(q.squadSampleMs, 4)} ms (${q.sampleRatio.toFixed(2)}×)`,
    )
  }
  if (r.snapshots.length > 0) lines.push('', ...formatSnapshots(r.snapshots, r.settings.rounds))
  if (r.retarget) lines.push('', ...formatRetargetCrowd(r.retarget, r.settings.rounds))
  if (r.ik !== null) lines.push('', ...formatIK(r.ik, r.settings.rounds))
  lines.push('')
  lines.push(row(['target', 'goal', 'measured', 'met']))
  lines.push(row(['---', '---', '---', '---']))
  for (const t of r.targets)
    lines.push(row([t.name, t.goal, t.measured, t.met === null ? '—' : t.met ? 'yes' : 'NO']))
  lines.push('')
  lines.push(
    "ms/step is the median round of this process's CPU time per step (process.cpuUsage: all its threads, so " +
      'GC helpers count); per-joint costs, frame budgets and ratios derive from it. Wall-clock medians are in ' +
      'the last columns and, with every round, in the JSON: on a machine shared with other work, wall time ' +
      'also counts the time other processes held the core.',
  )
  lines.push(r.ok ? 'Correctness: every check passed.' : 'Correctness: SOME CHECKS FAILED (see max error).')
  return lines.join('\n')
}

/**
 * The peers beside ours and three.js, per scenario: CPU ms per step, ns per joint, ratio to ours, and their check
 * (the largest error against ours and its tolerance), or why a peer did not run the crowd.
 */
function formatPeers(r: BenchResult): string[] {
  const names = r.settings.peers
  const head = ['asset', 'crowd', 'chars', 'ours ms/step', 'three ms/step']
  for (const n of names) head.push(`${n} ms/step`, `${n} × ours`, `${n} max error / tolerance`)
  const lines = ['Peers (same file and crowd, the same interleaved rounds; × ours: their CPU time / ours):']
  lines.push(row(head), row(head.map(() => '---')))
  for (const s of r.scenarios) {
    const cells = [s.asset, s.crowd, String(s.characters)]
    cells.push(s.ours ? fmt(s.ours.msPerStep, 4) : '—', s.three ? fmt(s.three.msPerStep, 4) : '—')
    for (const n of names) {
      const p = s.peers.find((q) => q.name === n)
      if (!p || p.skipped !== null) cells.push('not expressed', '—', '—')
      else {
        const c = p.check!
        cells.push(
          p.side ? fmt(p.side.msPerStep, 4) : '—',
          p.slowdown != null ? `${p.slowdown.toFixed(1)}×` : '—',
        )
        cells.push(`${c.maxError.toExponential(1)} / ${c.tolerance.toExponential(1)}${c.ok ? '' : ' FAILED'}`)
      }
    }
    lines.push(row(cells))
  }
  const reasons = new Map<string, string>()
  for (const s of r.scenarios)
    for (const p of s.peers) if (p.skipped !== null) reasons.set(`${p.name} ${s.crowd}`, p.skipped)
  for (const [what, why] of reasons) lines.push(`${what}: not expressed: ${why}.`)
  return lines
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`
}

function fmt(x: number, digits: number): string {
  return x.toFixed(digits)
}

function bytes(s: SideResult | null): string {
  const a = s?.allocation
  if (!a) return '—'
  const v = a.bytesPerStep
  const text =
    v >= 10240
      ? `${(v / 1024).toFixed(0)} KiB`
      : v >= 1024
        ? `${(v / 1024).toFixed(1)} KiB`
        : `${v.toFixed(0)}`
  return a.method === 'sampled' ? `~${text}` : text
}
