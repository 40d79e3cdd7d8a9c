/**
 * README's "Layers" and "Ragdolls" sections, run as written: each ```ts block (plain JavaScript apart from the
 * top-level await) runs with the `anim` and `loadAsset` of the snippet at the top, and does what its comments say.
 */
import { readFileSync } from 'node:fs'
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { RAGDOLL_GETTING_UP } from '../../components/Ragdoll.ts'
import { loadAsset } from '../../src/gltf/load.ts'

function block(heading: string): string {
  const section = readFileSync('README.md', 'utf8')
    .split(/^## /m)
    .find((s) => s.startsWith(`${heading}\n`))
  const code = section?.match(/```ts\n([\s\S]*?)```/)?.[1]
  if (!code) throw new Error(`README has no \`\`\`ts block under "## ${heading}"`)
  return code
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...args: string[]
) => (...values: unknown[]) => Promise<Record<string, unknown>>

describe('README, Layers', () => {
  it('runs as written and shows what it says', async () => {
    const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
    const code = block('Layers')
    const run = new AsyncFunction('anim', 'loadAsset', `${code}\nreturn { robot, wave, face }`)
    const { robot, wave, face } = (await run(anim, loadAsset)) as {
      robot: number
      wave: { clip: string; weight: number }
      face: number[]
    }
    expect(wave.clip).toBe('Wave')
    expect(anim.getLayer(robot, 1).weight).toBe(1)
    expect(anim.getLayer(robot, 0).source).toBe('blend-space')
    expect(anim.getLayer(robot, 0).blendSpace!.weights).toEqual([0.19999999999999996, 0.8])
    expect(anim.getLayer(robot, 2).mode).toBe('additive')
    expect(face).toEqual([Math.fround(0.7), 0, 0])
  })
})

describe('README, Ragdolls', () => {
  it('runs as written and shows what it says', async () => {
    const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
    const code = block('Ragdolls')
    const run = new AsyncFunction('anim', 'loadAsset', `${code}\nreturn { robot, getUp }`)
    const { robot, getUp } = (await run(anim, loadAsset)) as {
      robot: number
      getUp: { kind: string; facing: string; clip: string } | undefined
    }
    const ctx = contextOf(anim)
    // Knocked over, powered, the neck softer: a whole-body ragdoll with motors and joint weights, getting up.
    const rt = ctx.ragdolls[robot]!
    expect(rt.subtrees).toEqual([])
    expect(rt.motors!.active).toBe(true)
    expect(rt.jointWeights).not.toBeNull()
    expect(anim.stores.Ragdoll.active[robot]).toBe(RAGDOLL_GETTING_UP)
    expect(getUp!.kind).toBe('ragdoll-get-up')
    expect(getUp!.clip).toBe(getUp!.facing === 'prone' ? 'Standing' : 'Sitting')
    expect(anim.events.filter((e) => e.kind === 'ragdoll-exploded')).toEqual([])
  })
})
