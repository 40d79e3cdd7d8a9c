/**
 * Issue 33 #1: a file whose animations are N copies of one clip took time growing faster than the file (Fox's
 * clip 1000 times: 5.5 s). Now a copy (animationCopies.ts) gets the first one's channels, so what the loader
 * builds (the distinct channels of the asset and their keys, counted here: each is a buildClip channel) and what
 * a snapshot hashes do not grow with N; the per-copy work left is the copy's own JSON. The limits on animations
 * and channels refuse a file before any per-animation work (their checks come before the checks that would
 * name a malformed animation).
 */
import { readFileSync } from 'node:fs'
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import type { GLTF } from '@gltf-transform/core'
import { animationCopies } from '../../src/gltf/animationCopies.ts'
import { MAX_CHANNELS, MAX_CLIPS } from '../../src/gltf/limits.ts'
import { readAsset } from '../../src/gltf/read.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError } from '../../src/errors.ts'
import { assetPath, joinGlb, splitGlb, type Json } from '../helpers/gltfFiles.ts'

const fox = splitGlb(new Uint8Array(readFileSync(assetPath('Fox/glTF-Binary/Fox.glb'))))

/** Fox with its animations replaced by `n` copies of its first ("Survey": 21 channels of 83 keys). */
function copies(n: number, edit: (animation: Json, k: number) => void = () => {}): Uint8Array {
  const json = structuredClone(fox.json)
  json.animations = Array.from({ length: n }, (_, k) => {
    const animation = { ...structuredClone(json.animations[0]), name: `copy ${k}` }
    edit(animation, k)
    return animation
  })
  return joinGlb(json, fox.bin)
}

/** The channels an asset's clips hold between them (each built by buildClip once), and their keys. */
function built(asset: Awaited<ReturnType<typeof readAsset>>): { channels: number; keys: number } {
  const channels = new Set(asset.clips.flatMap((clip) => clip.channels))
  return { channels: channels.size, keys: [...channels].reduce((n, ch) => n + ch.times.length, 0) }
}

describe('animationCopies', () => {
  it('finds the first animation with the same channels: nodes, paths, accessors and interpolations in order', () => {
    const channel = (node: number, path: string, sampler = 0) => ({ sampler, target: { node, path } })
    const sampler = (input: number, output: number, interpolation?: string) => ({
      input,
      output,
      interpolation,
    })
    const animations = [
      { samplers: [sampler(0, 1)], channels: [channel(0, 'rotation')] },
      { samplers: [sampler(0, 1, 'LINEAR')], channels: [channel(0, 'rotation')] }, // LINEAR is the default
      { samplers: [sampler(0, 1, 'STEP')], channels: [channel(0, 'rotation')] },
      { samplers: [sampler(0, 2)], channels: [channel(0, 'rotation')] },
      { samplers: [sampler(0, 1)], channels: [channel(1, 'rotation')] },
      { samplers: [sampler(0, 1)], channels: [channel(0, 'rotation'), channel(1, 'rotation')] },
      { samplers: [sampler(0, 1)], channels: [channel(1, 'rotation'), channel(0, 'rotation')] },
      {
        samplers: [sampler(0, 1)],
        channels: [channel(0, 'rotation'), { sampler: 0, target: { path: 'x' } }],
      },
      { samplers: [sampler(0, 1)], channels: [channel(0, 'rotation 0 1 0 0;0')] },
    ]
    expect(Array.from(animationCopies({ asset: { version: '2.0' }, animations } as GLTF.IGLTF))).toEqual([
      0, 0, 2, 3, 4, 5, 6, 0, 8,
    ])
  })
})

describe('a file of N copies of one clip', () => {
  it('builds one clip whatever N is; the copies share its channels under their own names', async () => {
    const few = built(await readAsset(copies(10), 'few.glb'))
    const asset = await readAsset(copies(1000), 'many.glb')
    expect(few).toEqual({ channels: 21, keys: 21 * 83 })
    expect(built(asset)).toEqual(few)
    expect(asset.clips).toHaveLength(1000)
    expect(asset.clips[999]!.name).toBe('copy 999')
    for (const clip of asset.clips) expect(clip.channels).toBe(asset.clips[0]!.channels)
  })

  it('builds each animation that differs in anything, and gives each copy its own markers', async () => {
    const file = copies(4, (animation, k) => {
      if (k === 2) animation.samplers[0].interpolation = 'STEP'
      if (k === 3) animation.extras = { markers: [{ name: 'step', time: 0.5 }] }
    })
    const asset = await readAsset(file, 'four.glb')
    expect(built(asset)).toEqual({ channels: 2 * 21, keys: 2 * 21 * 83 })
    expect(asset.clips.map((c) => c.markers.map((m) => m.name))).toEqual([[], [], [], ['step']])
    expect(asset.clips[3]!.channels).toBe(asset.clips[0]!.channels)
    expect(asset.clips[2]!.channels).not.toBe(asset.clips[0]!.channels)
    // A copy's marker past the clip's end is refused as the first's would be.
    const late = copies(2, (animation, k) => {
      if (k === 1) animation.extras = { markers: [{ name: 'late', time: 99 }] }
    })
    await expect(readAsset(late, 'late.glb')).rejects.toThrow(
      /^late\.glb: animation 1 "copy 1": clip "copy 1" marker 0 "late": time 99 s is not a number in \[0, /,
    )
  })

  it('plays, snapshots and restores a character of MAX_CLIPS copies, which hold one clip’s arrays between them', async () => {
    const asset = await readAsset(copies(MAX_CLIPS), 'max.glb')
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
    const c = plugin.addCharacter(asset)
    plugin.play(c, MAX_CLIPS - 1)
    // A message names the first clips, not all of them.
    expect(() => plugin.play(c, 'nope')).toThrow(
      /^play: no clip named "nope" \(max\.glb has "copy 0", "copy 1", .*"copy 15", … \(4096 clips\)\)$/,
    )
    for (let i = 0; i < 5; i++) plugin.step()
    const bytes = plugin.snapshot()
    const other = createAnimationPlugin(createWorld(), { capacity: 256 })
    other.addAsset(asset)
    other.restore(bytes)
    expect(other.hash()).toBe(plugin.hash())
    // The clips hold 21 value arrays and one times array between them (Fox's channels share their times).
    const arrays = new Set(
      asset.clips.flatMap((clip) => clip.channels.flatMap((ch) => [ch.times, ch.values])),
    )
    expect(arrays.size).toBe(22)
  })
})

describe('the limits on animations and channels', () => {
  const rejection = async (json: Json): Promise<string> => {
    const error = await readAsset(new TextEncoder().encode(JSON.stringify(json)), 'big.gltf').then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(AnimationError)
    return (error as AnimationError).message
  }
  const base = { asset: { version: '2.0' }, nodes: [{}] }

  it(`refuses more than MAX_CLIPS (${MAX_CLIPS}) animations before looking at any`, async () => {
    // Animations with no channels or samplers: each would be refused on its own, were it looked at.
    const animations = Array.from({ length: MAX_CLIPS + 1 }, () => ({}))
    expect(await rejection({ ...base, animations })).toBe(
      `big.gltf: the file has ${MAX_CLIPS + 1} animations, more than the limit of ${MAX_CLIPS}`,
    )
    expect(await rejection({ ...base, animations: animations.slice(1) })).toBe(
      'big.gltf: animation 0: samplers or channels is missing or not an array',
    )
  })

  it(`refuses more than MAX_CHANNELS (${MAX_CHANNELS}) channels before looking at any`, async () => {
    const channels = new Array<number>(MAX_CHANNELS / 2).fill(0)
    const animations = [
      { samplers: [], channels },
      { samplers: [], channels: [...channels, 0] },
    ]
    expect(await rejection({ ...base, animations })).toBe(
      `big.gltf: the file's animations have ${MAX_CHANNELS + 1} channels, more than the limit of ${MAX_CHANNELS}`,
    )
    expect(await rejection({ ...base, animations: [animations[0]] })).toBe(
      'big.gltf: animation 0 channel 0: has no target object',
    )
  })
})
