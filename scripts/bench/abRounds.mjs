// The timing of `npm run bench:ab` (scripts/ab.mjs), apart from the checkout and bundling so a test can run it
// on sides of its own. Plain JavaScript: the driver runs under plain node.

/**
 * Warms both sides up (`warmup` steps each, in two alternated halves), then runs `rounds` rounds of `steps`
 * steps on each side, the order alternating round to round, timing each side's steps by this process's CPU time
 * (process.cpuUsage; all threads, as the benchmark does). Ends with both sides' state hashes. Sides are
 * `{ run(steps), hash() }`.
 */
export function runAb(sides, { rounds, steps, warmup }) {
  const half = Math.ceil(warmup / 2)
  for (let k = 0; k < 2; k++) for (const s of sides) s.run(half)
  const ms = sides.map(() => [])
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0]
    for (const i of order) {
      const t0 = process.cpuUsage()
      sides[i].run(steps)
      const t = process.cpuUsage(t0)
      ms[i].push((t.user + t.system) / 1000 / steps)
    }
  }
  const ratios = ms[0].map((a, r) => a / ms[1][r])
  return {
    ms,
    medians: ms.map(median),
    ratios,
    ratio: median(ratios),
    hashes: sides.map((s) => s.hash()),
  }
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** The report: a line per side (median and rounds), the ratios, the hashes' verdict. */
export function formatAb(result, names, what) {
  const f = (x) => x.toFixed(3)
  const lines = [`${what}: CPU ms per step, median of ${result.ms[0].length} alternated rounds`]
  names.forEach((name, i) => {
    lines.push(`  ${name}: ${f(result.medians[i])}   rounds ${result.ms[i].map(f).join(' ')}`)
  })
  const change = (1 / result.ratio - 1) * 100
  lines.push(
    `  base ÷ this checkout, per round: ${result.ratios.map((x) => x.toFixed(3)).join(' ')}; median ` +
      `${result.ratio.toFixed(3)} (${change <= 0 ? '' : '+'}${change.toFixed(1)} % step time)`,
  )
  const same = result.hashes[0] === result.hashes[1]
  lines.push(
    `  state hash after the same steps: ${same ? 'the same on both' : 'DIFFERENT'} (${result.hashes.join(', ')})`,
  )
  return `${lines.join('\n')}\n`
}
