/**
 * The README's feature sections and the guides' long examples (docs/guides/*.md), run as written: each ```ts
 * block (plain JavaScript apart from the top-level await) runs with an `anim` and `loadAsset` as the README's
 * quick start makes them, and does what its comments say. The last describe checks that every ```ts block of
 * the README and the guides is run here or checked elsewhere, so none can rot unseen.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import {
  contextOf,
  createAnimationPlugin,
  type AnimationPlugin,
  type AssetHandle,
} from '../../entry/plugin.ts'
import { RAGDOLL_GETTING_UP } from '../../components/Ragdoll.ts'
import { loadAsset as loadFile } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { isClipEvent } from '../../entry/index.ts'
import { codeBlock, codeBlocks, guide, README, sections } from '../helpers/markdown.ts'
import * as THREE from 'three'
import { clipFromThree } from '../../adapters/three.ts'

/** loadAsset for the blocks: each file read once per options for the whole file of tests (assets are immutable). */
const loaded = new Map<string, Promise<AnimationAsset>>()
function loadAsset(path: string, options?: Parameters<typeof loadFile>[1]): Promise<AnimationAsset> {
  const key = `${path} ${JSON.stringify(options ?? {})}`
  if (!loaded.has(key)) loaded.set(key, loadFile(path, options))
  return loaded.get(key)!
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...args: string[]
) => (...values: unknown[]) => Promise<Record<string, unknown>>

/** Runs a block with a fresh plugin as `anim`; returns the plugin and the block's named results. */
async function runBlock<T>(code: string, results: string): Promise<{ anim: AnimationPlugin } & T> {
  const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
  const run = new AsyncFunction('anim', 'loadAsset', 'isClipEvent', `${code}\nreturn { ${results} }`)
  return { anim, ...((await run(anim, loadAsset, isClipEvent)) as T) }
}

describe('README, Layers', () => {
  it('runs as written: a blend space, a masked wave, an additive nod and the face', async () => {
    const { anim, robot, layers } = await runBlock<{
      robot: number
      layers: ReturnType<AnimationPlugin['getLayers']>
    }>(codeBlock(README, 'Layers'), 'robot, layers')
    expect(layers.map((l) => l.source)).toEqual(['blend-space', 'clip', 'clip'])
    expect(layers[0]!.blendSpace!.weights).toEqual([0.19999999999999996, 0.8])
    expect([layers[1]!.clip, layers[1]!.masked, layers[1]!.weight]).toEqual(['Wave', true, 1])
    expect([layers[2]!.clip, layers[2]!.mode, layers[2]!.weight]).toEqual(['Yes', 'additive', 0.6])
    expect(anim.getMorphWeights(robot, 'Head')).toEqual([Math.fround(0.7), 0, 0])
  })
})

describe('guide layers.md, Every layer call', () => {
  it('runs as written and shows what it says', async () => {
    const { anim, robot, wave, face } = await runBlock<{
      robot: number
      wave: { clip: string; weight: number }
      face: number[]
    }>(codeBlock(guide('layers'), 'Every layer call'), 'robot, wave, face')
    expect(wave.clip).toBe('Wave')
    expect(anim.getLayer(robot, 1).weight).toBe(1)
    expect(anim.getLayer(robot, 0).source).toBe('blend-space')
    expect(anim.getLayer(robot, 0).blendSpace!.weights).toEqual([0.19999999999999996, 0.8])
    expect(anim.getLayer(robot, 2).mode).toBe('additive')
    expect(face).toEqual([Math.fround(0.7), 0, 0])
  })
})

describe('README, State machines', () => {
  it('runs as written: the graph moves the robot into its blend space and waves on the upper body', async () => {
    const { anim, hero, base } = await runBlock<{
      hero: number
      base: ReturnType<AnimationPlugin['getState']>
    }>(codeBlock(README, 'State machines'), 'hero, base')
    expect(base).toMatchObject({ state: 'move', transition: null })
    expect(anim.getLayer(hero, 0).blendSpace!.parameter).toEqual([2.5])
    expect(anim.getState(hero, 'emotes')).toMatchObject({ state: 'wave' })
    expect(anim.getLayer(hero, 1)).toMatchObject({ clip: 'Wave', masked: true })
  })
})

describe('guide state-machines.md, The graph', () => {
  it('is a graph setGraph takes on RobotExpressive', async () => {
    const graph = JSON.parse(codeBlocks(sections(guide('state-machines')).get('The graph')!, 'json')[0]!)
    const { anim, hero } = await runBlock<{ hero: number }>(
      "const hero = anim.addCharacter(await loadAsset('assets/RobotExpressive/RobotExpressive.glb'))",
      'hero',
    )
    anim.setGraph(hero, graph)
    expect(anim.getState(hero, 'emotes').state).toBe('none')
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
      `${codeBlock(README, 'Loading files')}\nreturn { compact, runner }`,
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
    const { anim, walker, walked, delta } = await runBlock<{
      walker: number
      walked: ReturnType<AnimationPlugin['getTransform']>
      delta: ReturnType<AnimationPlugin['rootMotionDelta']>
    }>(codeBlock(README, 'Root motion'), 'walker, walked, delta')
    // The shipped Walk walks in place: the entity only sways with the hips, a few centimetres.
    expect(walked.position).not.toEqual([0, 0, 0])
    expect(Math.hypot(...walked.position)).toBeLessThan(10)
    // With apply: false the entity stayed, and the step's motion is reported.
    expect(anim.getTransform(walker)).toEqual(walked)
    expect(delta.translation.some((x) => x !== 0)).toBe(true)
    expect(Math.hypot(...delta.rotation)).toBeCloseTo(1, 12)
  })
})

describe('README, Retargeting', () => {
  it("runs as written: the Mannequin's clips play on the robot, and the map names its hips", async () => {
    const { anim, names, bot, map } = await runBlock<{
      names: string[]
      bot: number
      map: Record<string, string>
    }>(codeBlock(README, 'Retargeting'), 'names, bot, map')
    expect(names).toEqual(['mixamo Walk', 'mixamo Run', 'mixamo Idle', 'mixamo Wave'])
    expect(map.Body).toBe('mixamorig:Hips')
    for (let i = 0; i < 30; i++) anim.step()
    expect(anim.stores.Sampler.clip[bot]).toBe(anim.clipId(bot, 'mixamo Run'))
  })
})

describe('guide retargeting.md, The call', () => {
  it('runs as written: two clips, named by the prefix, clips of the robot', async () => {
    const { anim, names, robot } = await runBlock<{ names: string[]; robot: AssetHandle }>(
      codeBlock(guide('retargeting'), 'The call'),
      'names, robot',
    )
    expect(names).toEqual(['mixamo Walk', 'mixamo Run'])
    expect(robot.clips.slice(-2)).toEqual(names.map((n) => anim.clipId(robot, n)))
    anim.step()
  })
})

describe('README, IK', () => {
  it('runs as written: every solver and the stage change the pose; the stage is removable', async () => {
    const { anim, figure, removeLean } = await runBlock<{ figure: number; removeLean: () => void }>(
      codeBlock(README, 'IK'),
      'figure, removeLean',
    )
    const world = (joint: string): number[] => {
      const e = anim.jointEntity(figure, joint)
      return Array.from(anim.stores.SceneNode.world.subarray(16 * e, 16 * e + 16))
    }
    const hand = world('arm_joint_L_3')
    expect(Math.hypot(hand[12]! - 0.3, hand[13]! - 1, hand[14]! - 0.25)).toBeLessThan(1e-4)
    const arm = world('arm_joint_R_3')
    expect(Math.hypot(arm[12]! + 0.3, arm[13]! - 0.9, arm[14]! - 0.3)).toBeLessThan(1e-3)
    // The same character without IK and stage, for what they changed.
    const plain: AnimationPlugin = createAnimationPlugin(createWorld(), { capacity: 65536 })
    const other = plain.addCharacter(await loadAsset('assets/RiggedFigure/glTF-Binary/RiggedFigure.glb'))
    plain.play(other, 'animation0')
    for (let i = 0; i < 30; i++) plain.step()
    const plainWorld = (joint: string): number[] => {
      const e = plain.jointEntity(other, joint)
      return Array.from(plain.stores.SceneNode.world.subarray(16 * e, 16 * e + 16))
    }
    for (const j of ['neck_joint_2', 'leg_joint_L_3', 'torso_joint_2'])
      expect(world(j)).not.toEqual(plainWorld(j))
    removeLean()
    anim.setIK(figure, 'look', null)
    anim.step()
    expect(anim.events.filter((e) => e.kind === 'pose-stage-error')).toEqual([])
  })
})

describe('README, Placing characters', () => {
  it('runs as written: placed, read back, moved again with the rest kept', async () => {
    const { anim, guard, placed } = await runBlock<{
      guard: number
      placed: ReturnType<AnimationPlugin['getTransform']>
    }>(codeBlock(README, 'Placing characters'), 'guard, placed')
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
    // Its import line is the entry's name for what runBlock passes in.
    const code = codeBlock(README, 'Events').replace("import { isClipEvent } from 'ecs-anim'\n", '')
    const steps = 'for (let i = 0; i < 600; i++) { anim.step(); afterSteps() }'
    const { anim, walker, footsteps } = await runBlock<{ walker: number; footsteps: number }>(
      `${code}\n${steps}`,
      'walker, footsteps',
    )
    expect(anim.stores.Sampler.clip[walker]).toBe(anim.clipId(walker, 'Walk'))
    expect(footsteps).toBeGreaterThan(8)
    expect(anim.events.length).toBe(0)
  })
})

/** The same steps as a rollback block with `input` run before step `at`, no rollback: its hash. */
async function straightRun(hero: number, steps: number, at: number): Promise<string> {
  const straight = createAnimationPlugin(createWorld(), { capacity: 65536 })
  const again = straight.addCharacter(await loadAsset('assets/Fox/glTF-Binary/Fox.glb'))
  expect(again).toBe(hero)
  straight.play(again, 'Walk')
  for (let k = 0; k < steps; k++) {
    if (k === at) straight.crossFade(again, 'Run', 0.3)
    straight.step()
  }
  return straight.hash()
}

describe('README, Rollback', () => {
  it('rewinds for a late input and ends where a run that had it in time does', async () => {
    const { anim, hero, rewound } = await runBlock<{ hero: number; rewound: string }>(
      codeBlock(README, 'Rollback'),
      'hero, rewound',
    )
    expect(rewound).toBe(await straightRun(hero, 6, 0))
    expect(anim.stores.Sampler.clip[hero]).toBe(anim.clipId(hero, 'Run'))
  })
})

describe('guide rollback.md, A rollback ring', () => {
  it('rolls back to a late input and ends where a run that had it in time does', async () => {
    const { anim, hero, rewound, now } = await runBlock<{ hero: number; rewound: string; now: number }>(
      codeBlock(guide('rollback'), 'A rollback ring'),
      'hero, rewound, now',
    )
    expect(now).toBe(20)
    expect(rewound).toBe(await straightRun(hero, 20, 14))
    expect(anim.stores.Sampler.clip[hero]).toBe(anim.clipId(hero, 'Run'))
  })
})

describe('README, Ragdolls', () => {
  it('runs as written: a hit that recovers, a knock-over, a get-up by the way it lies', async () => {
    const { anim, robot, getUp } = await runBlock<{
      robot: number
      getUp: { kind: string; facing: string; clip: string } | undefined
    }>(codeBlock(README, 'Ragdolls'), 'robot, getUp')
    expect(anim.stores.Ragdoll.active[robot]).toBe(RAGDOLL_GETTING_UP)
    expect(contextOf(anim).ragdolls[robot]!.subtrees).toEqual([])
    expect(getUp!.facing).toMatch(/^(prone|supine)$/)
    expect(getUp!.clip).toBe(getUp!.facing === 'prone' ? 'Standing' : 'Sitting')
    expect(anim.events.filter((e) => e.kind === 'ragdoll-exploded')).toEqual([])
  })
})

describe('guide ragdolls.md, Every ragdoll call', () => {
  it('runs as written and shows what it says', async () => {
    const { anim, robot, getUp } = await runBlock<{
      robot: number
      getUp: { kind: string; facing: string; clip: string } | undefined
    }>(codeBlock(guide('ragdolls'), 'Every ragdoll call'), 'robot, getUp')
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

describe('README, three.js', () => {
  it('shows lines of examples/three-page/main.ts, in its order (the page e2e runs)', () => {
    const [excerpt] = codeBlocks(sections(README).get('three.js')!)
    // Its lines, less the comments added at their ends.
    const lines = excerpt!
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.replace(/ \/\/ (after every|once a frame).*$/, ''))
    expect(lines[0]).toBe('// from examples/three-page/main.ts')
    const page = readFileSync('examples/three-page/main.ts', 'utf8').split('\n')
    let at = 0
    for (const line of lines.slice(1)) {
      at = page.indexOf(line, at) + 1
      expect(at, `"${line}" after line ${at} of main.ts`).toBeGreaterThan(0)
    }
  })
})

/** Each ```ts block of the README and the guides, and what runs or checks it. */
const CHECKED: Record<string, string> = {
  'README.md: Add it to an existing bitecs game':
    'test/package/pack.test.ts (compiled and run in a new project)',
  'README.md: Loading files': 'above',
  'README.md: State machines': 'above',
  'README.md: Layers': 'above',
  'README.md: Events': 'above',
  'README.md: Root motion': 'above',
  'README.md: Retargeting': 'above',
  'README.md: IK': 'above',
  'README.md: Placing characters': 'above',
  'README.md: three.js': 'above',
  'README.md: Ragdolls': 'above',
  'README.md: Rollback': 'above',
  'docs/guides/layers.md: Every layer call': 'above',
  'docs/guides/loading.md: The three.js side of an optimized file':
    'test/adapters/three.optimized.test.ts (the same loader set-up on the optimized Fox)',
  'docs/guides/ragdolls.md: Every ragdoll call': 'above',
  'docs/guides/rollback.md: A rollback ring': 'above',
  'docs/guides/retargeting.md: The call': 'above',
  'docs/guides/three.md: A complete page': 'examples/three-page/example.test.ts (the file, whole)',
}

describe('code blocks of the README and the guides', () => {
  it('are each run or checked by a test', () => {
    const files = [README, ...readdirSync('docs/guides').map((f) => `docs/guides/${f}`)]
    const found = files.flatMap((file) =>
      [...sections(file)].flatMap(([heading, text]) => codeBlocks(text).map(() => `${file}: ${heading}`)),
    )
    expect(found.sort()).toEqual(Object.keys(CHECKED).sort())
  })
})
