/**
 * Clip markers from a glTF animation's `extras` (src/gltf/clips.ts's convention):
 * `"extras": { "markers": [{ "name": "footstep", "time": 0.25 }] }`.
 */
import { readFileSync } from 'node:fs'
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { readAsset } from '../../src/gltf/read.ts'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { isClipEvent } from '../../systems/state.ts'
import { assetPath, joinGlb, splitGlb, type Json } from '../helpers/gltfFiles.ts'

const FOX = new Uint8Array(readFileSync(assetPath('Fox/glTF-Binary/Fox.glb')))

/** Fox.glb with `extras` set on its animation named `clip` (Survey, Walk, Run). */
function foxWith(clip: string, extras: unknown): Uint8Array {
  const { json, bin } = splitGlb(FOX)
  const animation = (json.animations as Json[]).find((a) => a.name === clip)
  animation.extras = extras
  return joinGlb(json, bin)
}

async function refusal(bytes: Uint8Array): Promise<AnimationError> {
  return readAsset(bytes, 'Fox.glb').then(
    () => expect.fail('read'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(AnimationError)
      return error as AnimationError
    },
  )
}

describe('markers from glTF extras', () => {
  it('reads them sorted by time, keeps other extras keys out, and a plugin reports them', async () => {
    const asset = await readAsset(
      foxWith('Walk', {
        author: 'someone',
        markers: [
          { name: 'right foot', time: 0.5, colour: 'ignored' },
          { name: 'left foot', time: 0.125 },
        ],
      }),
      'Fox.glb',
    )
    const walk = asset.clips.find((c) => c.name === 'Walk')!
    expect(walk.markers).toEqual([
      { name: 'left foot', time: 0.125 },
      { name: 'right foot', time: 0.5 },
    ])
    expect(Object.isFrozen(walk.markers)).toBe(true)
    expect(asset.clips.find((c) => c.name === 'Run')!.markers).toEqual([])

    const plugin = createAnimationPlugin(createWorld(), { dt: 1 / 64 })
    const fox = plugin.addCharacter(asset)
    plugin.play(fox, 'Walk')
    for (let i = 0; i < 40; i++) plugin.step()
    const marks = plugin.events.filter(isClipEvent).filter((e) => e.kind === 'marker')
    expect(marks.map((e) => [e.step, e.name])).toEqual([
      [8, 'left foot'],
      [32, 'right foot'],
    ])
    // markers(): the file's and addMarker's, in time order, the file's first at an equal time.
    plugin.addMarker(asset, 'Walk', 0.125, 'added')
    expect(plugin.markers(asset, 'Walk')).toEqual([
      { name: 'left foot', time: 0.125 },
      { name: 'added', time: 0.125 },
      { name: 'right foot', time: 0.5 },
    ])
  })

  it('takes a time a float32 rounding past the duration as the duration', async () => {
    const { json } = splitGlb(FOX)
    const walk = (json.animations as Json[]).find((a) => a.name === 'Walk')
    expect(walk).toBeDefined()
    const asset = await readAsset(FOX, 'Fox.glb')
    const duration = asset.clips.find((c) => c.name === 'Walk')!.duration
    const past = duration + duration * 2 ** -30 // rounds to the same float32
    expect(Math.fround(past)).toBe(duration)
    const read = await readAsset(foxWith('Walk', { markers: [{ name: 'end', time: past }] }), 'Fox.glb')
    expect(read.clips.find((c) => c.name === 'Walk')!.markers).toEqual([{ name: 'end', time: duration }])
  })

  it('refuses markers that are not an array of { name, time } on the clip, naming the animation', async () => {
    const cases: [unknown, RegExp][] = [
      [{ markers: 5 }, /Fox\.glb: animation \d+ "Walk": extras\.markers is 5, not an array/],
      [{ markers: [null] }, /extras\.markers\[0\] is null, not an object \{ name, time \}/],
      [{ markers: [[0.5]] }, /extras\.markers\[0\] is \[0\.5\], not an object/],
      [{ markers: [{ time: 0.5 }] }, /clip "Walk" marker 0: name undefined is not a non-empty string/],
      [{ markers: [{ name: '', time: 0.5 }] }, /marker 0: name "" is not a non-empty string/],
      [{ markers: [{ name: 'x', time: -1 }] }, /marker 0 "x": time -1 s is not a number in \[0, 0\.7/],
      [{ markers: [{ name: 'x', time: 99 }] }, /marker 0 "x": time 99 s is not a number in \[0/],
      [{ markers: [{ name: 'x', time: '0.5' }] }, /marker 0 "x": time "0\.5" s is not a number/],
    ]
    for (const [extras, message] of cases) {
      const error = await refusal(foxWith('Walk', extras))
      expect(error.message).toMatch(message)
    }
    // Extras without markers, or not an object at all, are some other tool's business.
    for (const extras of [{ markers: undefined, other: [1] }, 'text', 7, [1, 2]]) {
      const asset = await readAsset(foxWith('Walk', extras), 'Fox.glb')
      expect(asset.clips.every((c) => c.markers.length === 0)).toBe(true)
    }
  })
})
