/**
 * README's "Loading files", "Layers", "Events", "Root motion", "Placing characters", "Ragdolls" and "Rollback" sections, run as written: each ```ts
 * block (plain JavaScript apart from the top-level await) runs with the `anim` and `loadAsset` of the section
 * that introduces them, and does what its comments say.
 */
import { readFileSync } from 'node:fs'
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { RAGDOLL_GETTING_UP } from '../../components/Ragdoll.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { isClipEvent, type AnimationAsset } from '../../entry/index.ts'
import * as THREE from 'three'
import { clipFromThree } from '../../adapters/three.ts'

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

describe('README, Loading files', () => {
  it('runs as written: a compact Fox runs, and a three.js clip added to it nods on a layer', async () => {
    const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
    const run = new AsyncFunction(
      'anim',
      'loadAsset',
      'THREE',
      'clipFromThree',
      `${block('Loading files')}\nreturn { compact, runner }`,
    )
    const { compact, runner } = (await run(anim, loadAsset, THREE, clipFromThree)) as {
      compact: AnimationAsset
      runner: number
    }
    expect(compact.clips.every((c) => c.compression !== null)).toBe(true)
    anim.step()
    expect(anim.getLayer(runner, 0).clip).toBe('Run')
    expect(anim.getLayer(runner, 1)).toMatchObject({ clip: 'Nod', channels: { bound: 1, total: 1 } })
  })
})

describe('README, Root motion', () => {
  it('runs as written: the entity moves with the hips; apply: false reports the step instead', async () => {
    const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
    const run = new AsyncFunction(
      'anim',
      'loadAsset',
      `${block('Root motion')}\nreturn { walker, walked, delta }`,
    )
    const { walker, walked, delta } = (await run(anim, loadAsset)) as {
      walker: number
      walked: ReturnType<AnimationPlugin['getTransform']>
      delta: ReturnType<AnimationPlugin['rootMotionDelta']>
    }
    // The shipped Walk walks in place: the entity only sways with the hips, a few centimetres.
    expect(walked.position).not.toEqual([0, 0, 0])
    expect(Math.hypot(...walked.position)).toBeLessThan(10)
    // With apply: false the entity stayed, and the step's motion is reported.
    expect(anim.getTransform(walker)).toEqual(walked)
    expect(delta.translation.some((x) => x !== 0)).toBe(true)
    expect(Math.hypot(...delta.rotation)).toBeCloseTo(1, 12)
  })
})

describe('README, Placing characters', () => {
  it('runs as written: placed, read back, moved again with the rest kept', async () => {
    const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
    const code = `${block('Placing characters')}\nreturn { guard, placed }`
    const { guard, placed } = (await new AsyncFunction('anim', 'loadAsset', code)(anim, loadAsset)) as {
      guard: number
      placed: ReturnType<AnimationPlugin['getTransform']>
    }
    expect(placed.position).toEqual([3, 0, -2])
    expect(placed.rotation[1]).toBeCloseTo(Math.SQRT1_2, 6)
    const now = anim.getTransform(guard)
    expect(now.position).toEqual([4, 0, -2])
    expect(now.rotation).toEqual(placed.rotation)
    expect(now.scale).toEqual(placed.scale)
    // The skeleton followed: the hips are 27 cm behind the entity at x = 4 m (the Fox faces +x).
    anim.step()
    const hips = anim.jointEntity(guard, 'b_Hip_01')
    expect(anim.stores.SceneNode.world[hips * 16 + 12]).toBeGreaterThan(3.5)
  })
})

describe('README, Events', () => {
  it('plays the emote, then walks with footsteps', async () => {
    const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
    // Its import line is the entry's name for what is passed in here.
    const code = block('Events').replace("import { isClipEvent } from 'ecs-anim'\n", '')
    const steps = 'for (let i = 0; i < 600; i++) { anim.step(); afterSteps() }'
    const run = new AsyncFunction(
      'anim',
      'loadAsset',
      'isClipEvent',
      `${code}\n${steps}\nreturn { walker, footsteps }`,
    )
    const { walker, footsteps } = (await run(anim, loadAsset, isClipEvent)) as {
      walker: number
      footsteps: number
    }
    expect(anim.stores.Sampler.clip[walker]).toBe(anim.clipId(walker, 'Walk'))
    expect(footsteps).toBeGreaterThan(8)
    expect(anim.events.length).toBe(0)
  })
})

describe('README, Rollback', () => {
  it('rolls back to a late input and ends where a run that had it in time does', async () => {
    const fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
    const run = new AsyncFunction('anim', 'loadAsset', `${block('Rollback')}\nreturn { hero, rewound, now }`)
    const { hero, rewound, now } = (await run(anim, async () => fox)) as {
      hero: number
      rewound: string
      now: number
    }
    expect(now).toBe(20)
    // The same 20 steps with the cross-fade before step 14, no rollback.
    const straight = createAnimationPlugin(createWorld(), { capacity: 65536 })
    const again = straight.addCharacter(fox)
    expect(again).toBe(hero)
    straight.play(again, 'Walk')
    for (let k = 0; k < 20; k++) {
      if (k === 14) straight.crossFade(again, 'Run', 0.3)
      straight.step()
    }
    expect(rewound).toBe(straight.hash())
    expect(anim.stores.Sampler.clip[hero]).toBe(anim.clipId(hero, 'Run'))
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
    // The partial ragdoll's getUp reported standing, before the whole body's.
    const facings = anim.events.flatMap((e) => (e.kind === 'ragdoll-get-up' ? [e.facing] : []))
    expect(facings).toEqual(['standing', getUp!.facing])
    expect(getUp!.clip).toBe(getUp!.facing === 'prone' ? 'Standing' : 'Sitting')
    expect(anim.events.filter((e) => e.kind === 'ragdoll-exploded')).toEqual([])
  })
})
