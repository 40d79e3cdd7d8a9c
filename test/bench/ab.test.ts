/**
 * `npm run bench:ab` (scripts/ab.mjs): its rounds on sides of the test's own (one spinning twice as long per
 * step as the other), and the whole driver once on a tiny crowd against this checkout's own HEAD.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { formatAb, median, runAb } from '../../scripts/bench/abRounds.mjs'
import { checkAbSideOptions } from '../../scripts/bench/abSide.ts'

/** A side that spins `msPerStep` of this process's CPU time per step and records the order of its runs. */
function spinning(msPerStep: number, log: string[], name: string, hash: string) {
  return {
    steps: 0,
    run(n: number) {
      this.steps += n
      log.push(name)
      const start = process.cpuUsage()
      for (;;) {
        const used = process.cpuUsage(start)
        if ((used.user + used.system) / 1000 >= n * msPerStep) break
      }
    },
    hash: () => hash,
  }
}

describe('bench:ab rounds', () => {
  it('alternates the order, times each side, and gives the per-round ratios and their median', () => {
    const log: string[] = []
    const slow = spinning(0.4, log, 'slow', 'h1')
    const fast = spinning(0.2, log, 'fast', 'h1')
    const result = runAb([[slow], [fast]], { rounds: 4, steps: 5, warmup: 4 })
    // Warm-up: two halves of 2 steps each, then rounds in the order slow-fast, fast-slow, ...
    expect(log).toEqual([
      'slow',
      'fast',
      'slow',
      'fast',
      'slow',
      'fast',
      'fast',
      'slow',
      'slow',
      'fast',
      'fast',
      'slow',
    ])
    expect(slow.steps).toBe(fast.steps)
    expect(result.ms.map((m) => m.length)).toEqual([4, 4])
    // A spin never undershoots; the ratio is about 2 (a loaded machine can stretch either side's spin).
    for (const m of result.ms[0]!) expect(m).toBeGreaterThanOrEqual(0.4)
    expect(result.ratio).toBe(median(result.ratios))
    expect(result.ratio).toBeGreaterThan(1.2)
    const text = formatAb(result, ['a', 'b'], 'test')
    expect(text).toContain('the same on both')
    const other = runAb([[spinning(0.01, [], 'x', 'h1')], [spinning(0.01, [], 'y', 'h2')]], {
      rounds: 1,
      steps: 1,
      warmup: 1,
    })
    expect(formatAb(other, ['a', 'b'], 'test')).toContain('DIFFERENT')
  })

  it('with two instances a side, runs them in ABBA order, reversed round to round, and averages them', () => {
    const log: string[] = []
    const a0 = spinning(0.3, log, 'a0', 'h')
    const a1 = spinning(0.3, log, 'a1', 'h')
    const b0 = spinning(0.1, log, 'b0', 'h')
    const b1 = spinning(0.1, log, 'b1', 'h')
    const result = runAb(
      [
        [a0, a1],
        [b0, b1],
      ],
      { rounds: 2, steps: 4, warmup: 2 },
    )
    const abba = ['a0', 'b0', 'b1', 'a1']
    expect(log).toEqual([...abba, ...abba, ...abba, ...[...abba].reverse()])
    expect(result.ms.map((m) => m.length)).toEqual([2, 2])
    for (const m of result.ms[0]!) expect(m).toBeGreaterThanOrEqual(0.3)
    expect(result.ratio).toBeGreaterThan(1.5)
    expect(formatAb(result, ['a', 'b'], 'test')).toContain('the same on both')
    // An instance that ends elsewhere than its twin is a difference too.
    const split = runAb(
      [
        [spinning(0.01, [], 'x', 'h1'), spinning(0.01, [], 'x', 'h2')],
        [spinning(0.01, [], 'y', 'h1'), spinning(0.01, [], 'y', 'h1')],
      ],
      { rounds: 1, steps: 1, warmup: 1 },
    )
    expect(split.hashes[0]).toBe('h1≠h2')
    expect(formatAb(split, ['a', 'b'], 'test')).toContain('DIFFERENT')
    expect(() => runAb([[a0], [b0, b1]], { rounds: 1, steps: 1, warmup: 1 })).toThrow(/same number/)
  })

  it('refuses an asset or crowd the benchmark does not have, naming the choices', () => {
    expect(() => checkAbSideOptions({ asset: 'rig-linear', crowd: 'layered' })).not.toThrow()
    expect(() => checkAbSideOptions({ asset: 'rig', crowd: 'layered' })).toThrow(
      '--asset rig: one of fox, rig-linear, rig-cubic, rig-all',
    )
    expect(() => checkAbSideOptions({ asset: 'fox', crowd: 'layered', measure: 'restore' })).not.toThrow()
    expect(() => checkAbSideOptions({ asset: 'fox', crowd: 'layered', measure: 'snapshot' })).toThrow(
      '--measure snapshot: one of step, snapshotInto, restore, propagate',
    )
    expect(() => checkAbSideOptions({ asset: 'fox', crowd: 'playing', kernels: 'wasm' })).not.toThrow()
    expect(() => checkAbSideOptions({ asset: 'fox', crowd: 'playing', kernels: 'simd' })).toThrow(
      '--kernels simd: js or wasm',
    )
    expect(() => checkAbSideOptions({ asset: 'fox', crowd: 'walking' })).toThrow(
      /--crowd walking: one of playing, /,
    )
  })

  it('median takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
  })

  it('runs two checkouts of the code in one process: HEAD against this tree, the crowd with IK', () => {
    const out = execFileSync(
      process.execPath,
      [
        'scripts/ab.mjs',
        '--base',
        'HEAD',
        '--asset',
        'rig-linear',
        '--crowd',
        'moving',
        '--characters',
        '8',
        '--rounds',
        '2',
        '--steps',
        '3',
        '--warmup',
        '4',
        '--ik',
      ],
      { encoding: 'utf8' },
    )
    expect(out).toMatch(
      /rig-linear moving × 8 with feet \+ aim: CPU ms per step, median of 2 alternated rounds/,
    )
    expect(out).toMatch(/base HEAD \([0-9a-f]{7}\): [0-9.]+/)
    // Same bits unless this tree has changes of its own (a developer's edits; a CI clone has none).
    const clean = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim() === ''
    if (clean) expect(out).toContain('state hash after the same steps: the same on both')
    else expect(out).toMatch(/state hash after the same steps: (the same on both|DIFFERENT)/)
  })

  /** scripts/ab.mjs against HEAD on 4 Foxes playing, one round of 2 steps, with `extra` options. */
  const tinyFox = (...extra: string[]) =>
    execFileSync(
      process.execPath,
      [
        'scripts/ab.mjs',
        '--base',
        'HEAD',
        ...['--asset', 'fox', '--crowd', 'playing', '--characters', '4'],
        ...['--rounds', '1', '--steps', '2', '--warmup', '1'],
        ...extra,
      ],
      { encoding: 'utf8' },
    )

  it('times the propagation system alone with kernels wasm on both sides', () => {
    const out = tinyFox('--kernels', 'wasm', '--measure', 'propagate')
    expect(out).toMatch(/fox playing × 4, propagate, kernels wasm: CPU ms per call/)
  })

  it('samples compact clips on both sides with --compress (another state than exact clips give)', () => {
    // The base side's hash (the tree's may differ where this tree has edits of its own).
    const hashes = (out: string) =>
      /state hash after the same steps: [^(]*\(([0-9a-f]+), ([0-9a-f]+)\)/.exec(out)?.slice(1) ?? []
    const compact = tinyFox('--compress')
    expect(compact).toMatch(/fox compact playing × 4: CPU ms per step/)
    const exact = tinyFox()
    expect(hashes(compact)).toHaveLength(2)
    expect(hashes(exact)).toHaveLength(2)
    expect(hashes(compact)[0]).not.toBe(hashes(exact)[0])
  })
})
