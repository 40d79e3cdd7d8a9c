/**
 * The CLI's --compress (with --tolerance, --distance) on inspect, sample and simulate: compact clips, their
 * report, and the refusals of bad numbers.
 */
import { describe, expect, it } from 'vitest'
import { main } from '../../cli/main.ts'
import { clipBytes } from '../../src/clip/compactClip.ts'
import { loadAsset } from '../../src/gltf/load.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'

async function run(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const status = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) })
  return { status, stdout, stderr }
}

describe('--compress', () => {
  it('inspect reports each compact clip as loadAsset makes it', async () => {
    const { status, stdout } = await run('inspect', FOX, '--json', '--tolerance', '0.01', '--distance', '100')
    expect(status).toBe(0)
    const asset = await loadAsset(FOX, { compress: { tolerance: 0.01, distance: 100 } })
    const clips = JSON.parse(stdout).clips as { compression: Record<string, number> }[]
    clips.forEach((clip, c) => {
      expect(clip.compression).toEqual({ ...asset.clips[c]!.compression, bytes: clipBytes(asset.clips[c]!) })
    })
    const text = await run('inspect', FOX, '--compress')
    expect(text.stdout).toMatch(
      /^clip 1 "Walk": 0\.708 s, 21 channels, compact: 378 keys → \d+, [\d.]+ bytes a key, error [\d.e-]+ \(tolerance 0\.0001 at 1\)$/m,
    )
    expect((await run('inspect', FOX)).stdout).not.toContain('compact')
  })

  it('sample and simulate use the compact clips', async () => {
    const exact = await run('sample', FOX, '--clip', 'Walk', '--time', '0.3', '--json')
    const compact = await run('sample', FOX, '--clip', 'Walk', '--time', '0.3', '--json', '--compress')
    expect(compact.status).toBe(0)
    expect(compact.stdout).not.toBe(exact.stdout)
    const a = await run('simulate', FOX, '--steps', '30', '--json')
    const b = await run('simulate', FOX, '--steps', '30', '--json', '--compress')
    expect(JSON.parse(b.stdout).hash).not.toBe(JSON.parse(a.stdout).hash)
  })

  it('refuses a tolerance or distance that is not a number in range', async () => {
    for (const [option, value, message] of [
      ['--tolerance', '0', 'anim: inspect: --tolerance 0 is not a number > 0\n'],
      ['--tolerance', 'x', 'anim: inspect: --tolerance x is not a number > 0\n'],
      ['--distance', '-1', 'anim: inspect: --distance -1 is not a number ≥ 0\n'],
    ] as const) {
      expect(await run('inspect', FOX, option, value)).toEqual({ status: 2, stdout: '', stderr: message })
    }
  })
})
