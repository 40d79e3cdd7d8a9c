/**
 * The sampler's sines (src/clip/arcKernels.ts) against detmath.ts; the samplers use no built-in transcendental.
 * Tests use Math.* freely: they are the independent side of the comparison, not the deterministic path.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { arcSin, SHORT_ARC, shortArcSin } from '../../src/clip/arcKernels.ts'
import { detSinArc } from '../../src/math/detmath.ts'
import { ulpDistance } from '../helpers/ulp.ts'
import { mulberry32 } from '../../scripts/random.ts'

describe('the sampler’s arc sines', () => {
  it('the long arc sine equals detSinArc bit for bit on (SHORT_ARC, π]', () => {
    const rnd = mulberry32(1)
    const xs = [SHORT_ARC + 2 ** -54, Math.PI / 2, 1.5707963267948968, Math.PI, 2, 3]
    for (let i = 0; i < 20_000; i++) xs.push(SHORT_ARC + (Math.PI - SHORT_ARC) * rnd())
    for (const x of xs) if (x > SHORT_ARC) expect(Object.is(arcSin(x), detSinArc(x)), `x = ${x}`).toBe(true)
  })

  it('the short arc sine is within 1 ulp of detSinArc and 2 ulps of Math.sin on [0, SHORT_ARC]', () => {
    const rnd = mulberry32(2)
    const xs = [0, 1e-300, 1e-12, 3e-8, 1e-4, 0.03, 0.1, SHORT_ARC]
    for (let i = 0; i < 20_000; i++) xs.push(i < 10_000 ? SHORT_ARC * rnd() : SHORT_ARC * 2 ** (-30 * rnd()))
    let worstDet = 0
    let worstMath = 0
    for (const x of xs) {
      expect(arcSin(x)).toBe(shortArcSin(x))
      worstDet = Math.max(worstDet, ulpDistance(shortArcSin(x), detSinArc(x)))
      worstMath = Math.max(worstMath, ulpDistance(shortArcSin(x), Math.sin(x)))
    }
    expect(worstDet).toBeLessThanOrEqual(1)
    expect(worstMath).toBeLessThanOrEqual(2)
    expect(shortArcSin(0)).toBe(0)
  })

  it.each(['src/clip/sample.ts', 'src/clip/squad.ts', 'src/engine/sample.ts', 'src/engine/squad.ts'])(
    '%s uses no built-in transcendental (deterministic across engines)',
    (file) => {
      const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
      const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
      expect(code).not.toMatch(
        /Math\.(sin|cos|tan|asin|acos|atan|atan2|exp|log|pow|cbrt|hypot|sinh|cosh|tanh)\b/,
      )
    },
  )
})
