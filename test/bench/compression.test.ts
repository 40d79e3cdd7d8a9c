/**
 * `npm run bench -- --compare-compression` (scripts/bench/compression.ts): one child's measurement, in this
 * process, on a tiny crowd of each kind of clip.
 */
import { describe, expect, it } from 'vitest'
import { compressionAsset, measureCompression } from '../../scripts/bench/compression.ts'
import { DEFAULT_FOX } from '../../scripts/bench/options.ts'

describe('the compression comparison', () => {
  it.each([false, true])('times the sampling system of a playing crowd (compact: %s)', async (compact) => {
    const asset = await compressionAsset('fox', compact, DEFAULT_FOX)
    const run = measureCompression(asset, 'fox', 2, compact, { rounds: 1, dt: 1 / 60 })
    // A step's sampling takes some CPU time: a system the bench no longer finds by name was once timed as 0.
    expect(run.sampleNsPerJoint).toBeGreaterThan(0)
    expect(Number.isFinite(run.sampleNsPerJoint)).toBe(true)
    expect(run.compact).toBe(compact)
    expect(run.keys).toBeGreaterThan(0)
    if (compact) {
      expect(run.keptKeys).toBeGreaterThan(0)
      expect(run.error).toBeGreaterThan(0)
      expect(run.error).toBeLessThanOrEqual(0.01)
    } else expect(run.error).toBe(0)
  })
})
