// The timing of `npm run bench:ab` (scripts/ab.mjs), apart from the checkout and bundling so a test can run it
// on sides of its own. Plain JavaScript: the driver runs under plain node.

/**
 * Warms both sides up (`warmup` steps each, in two alternated halves), then runs `rounds` rounds of `steps`
 * steps on each side, timing each run by this process's CPU time (process.cpuUsage; all threads, as the
 * benchmark does). Ends with both sides' state hashes.
 *
 * A side is a list of instances of one version (`{ run(steps), hash() }`, as many on each side), made by the
 * caller in ABBA order (a0, b0, b1, a1): the instance made later in a process ran a few per cent faster in
 * same-code runs here (where its memory lands), which ABBA cancels. Each round runs every instance once, the
 * order palindromic and reversed round to round (a0 b0 b1 a1, then a1 b1 b0 a0), so no side always goes first;
 * a side's time for the round is the mean of its instances'.
 */
export function runAb(sides, { rounds, steps, warmup }) {
  const count = sides[0].length
  if (sides.length !== 2 || count < 1 || sides[1].length !== count) {
    throw new Error('runAb: two sides of the same number of instances')
  }
  const order = []
  for (let k = 0; k < count; k++) order.push(k % 2 === 0 ? [0, k] : [1, k], k % 2 === 0 ? [1, k] : [0, k])
  const half = Math.ceil(warmup / 2)
  for (let h = 0; h < 2; h++) for (const [i, k] of order) sides[i][k].run(half)
  const ms = sides.map(() => [])
  for (let r = 0; r < rounds; r++) {
    const sum = [0, 0]
    const runs = r % 2 === 0 ? order : [...order].reverse()
    for (const [i, k] of runs) {
      const t0 = process.cpuUsage()
      sides[i][k].run(steps)
      const t = process.cpuUsage(t0)
      sum[i] += (t.user + t.system) / 1000 / steps
    }
    for (let i = 0; i < 2; i++) ms[i].push(sum[i] / count)
  }
  const ratios = ms[0].map((a, r) => a / ms[1][r])
  return {
    ms,
    medians: ms.map(median),
    ratios,
    ratio: median(ratios),
    hashes: sides.map((instances) => {
      const h = instances.map((s) => s.hash())
      return h.every((x) => x === h[0]) ? h[0] : h.join('≠')
    }),
  }
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** The report: a line per side (median and rounds), the ratios, the hashes' verdict. */
export function formatAb(result, names, what, unit = 'step') {
  const f = (x) => x.toFixed(3)
  const lines = [`${what}: CPU ms per ${unit}, median of ${result.ms[0].length} alternated rounds`]
  names.forEach((name, i) => {
    lines.push(`  ${name}: ${f(result.medians[i])}   rounds ${result.ms[i].map(f).join(' ')}`)
  })
  const change = (1 / result.ratio - 1) * 100
  lines.push(
    `  base ÷ this checkout, per round: ${result.ratios.map((x) => x.toFixed(3)).join(' ')}; median ` +
      `${result.ratio.toFixed(3)} (${change <= 0 ? '' : '+'}${change.toFixed(1)} % ${unit} time)`,
  )
  const same = result.hashes[0] === result.hashes[1]
  lines.push(
    `  state hash after the same steps: ${same ? 'the same on both' : 'DIFFERENT'} (${result.hashes.join(', ')})`,
  )
  return `${lines.join('\n')}\n`
}
