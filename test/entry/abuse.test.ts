/**
 * Runtime abuse: what a game can do to a running plugin besides calling it correctly — odd frame times, odd
 * speeds and clip shapes, removing entities behind the plugin's back, running out of capacity, and NaN forced
 * into poses, stores, bodies and scene nodes. The rule everywhere: the step keeps going, nothing non-finite
 * reaches the scene graph through the plugin, each problem is reported once per character, and other
 * characters are unaffected (compared bit for bit with a twin that never saw the problem).
 *
 * Bad public calls (play, crossFade, … with bad arguments) are in plugin.test.ts.
 */
import {
  addEntity,
  createWorld,
  entityExists,
  getAllEntities,
  query,
  removeComponent,
  removeEntity,
  type World,
} from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { createFixedStepper } from '../../src/sim/fixedStep.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import {
  JOINT_STRIDE,
  LAYER_ANIM,
  LAYER_FROM,
  LAYER_PHYS,
  POSE_LAYERS,
  layerOffset,
} from '../../components/Pose.ts'
import { RAGDOLL_FALLING, RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import {
  animLayer,
  animOffset,
  createTestPlugin,
  DT,
  expectedLocal,
  expectSameBits,
  expectWorldMatchesThree,
  HEAD,
  HIPS,
  localOf,
  makeTestAsset,
  NOD,
  PROP,
  REST,
  SPINE,
  stepN,
  STILL,
  TURN,
  vecDistance,
  WAG,
  problems,
} from '../helpers/ecs.ts'
import { expectQuatClose, refSlerp } from '../helpers/quat.ts'
import { contextOf } from '../../entry/plugin.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
let fox: AnimationAsset
beforeAll(async () => {
  fox = await loadAsset(FOX)
})

/** Entities of every SceneNode whose local or world transform holds a non-finite value. */
function nonFiniteNodes(plugin: AnimationPlugin): number[] {
  const { translation, rotation, scale, world } = plugin.stores.SceneNode
  const bad: number[] = []
  for (const e of query(plugin.world, [plugin.stores.SceneNode])) {
    let sum = 0
    for (let k = 0; k < 3; k++) sum += translation[e * 3 + k]! + scale[e * 3 + k]!
    for (let k = 0; k < 4; k++) sum += rotation[e * 4 + k]!
    for (let k = 0; k < 16; k++) sum += world[e * 16 + k]!
    if (!Number.isFinite(sum)) bad.push(e)
  }
  return bad
}

/** Characters of the plugin (entities with its Pose), ascending. */
function characters(plugin: AnimationPlugin): number[] {
  return Array.from(query(plugin.world, [plugin.stores.Pose])).sort((a, b) => a - b)
}

/** The invariants that say nothing leaked: pool slots, SceneNodes and physics bodies match the live characters. */
function expectNoLeaks(plugin: AnimationPlugin, gameNodes = 0): void {
  const { Pose, Ragdoll } = plugin.stores
  const live = characters(plugin)
  let slots = 0
  let joints = 0
  let bodies = 0
  for (const c of live) {
    slots += POSE_LAYERS * Pose.count[c]!
    joints += Pose.count[c]!
    const instance = contextOf(plugin).ragdolls[c]?.instance
    if (instance) {
      expect(Ragdoll.active[c], `character ${c} has bodies`).not.toBe(RAGDOLL_OFF)
      bodies += instance.bodies.length
    }
  }
  expect(contextOf(plugin).pool.used, 'pose slots in use').toBe(slots)
  expect(query(plugin.world, [plugin.stores.SceneNode]).length, 'SceneNodes').toBe(
    live.length + joints + gameNodes,
  )
  const ground = plugin.physics.bodies.filter((b) => b.mass === 0).length
  expect(plugin.physics.bodies.length - ground, 'physics bodies').toBe(bodies)
  expect(plugin.physics.constraints.length, 'constraints').toBe(
    live.reduce((n, c) => n + (contextOf(plugin).ragdolls[c]?.instance?.constraints.length ?? 0), 0),
  )
}

/** A plugin for Fox ragdolls: gravity and a ground at 0; characters at 0.01 scale (Fox is in centimetres). */
function foxPlugin(world: World = createWorld()) {
  const plugin = createAnimationPlugin(world, { capacity: 2048 })
  const nodes = plugin.stores.SceneNode
  const add = (x: number): number => {
    const c = plugin.addCharacter(fox)
    nodes.scale.fill(0.01, c * 3, c * 3 + 3)
    nodes.translation[c * 3] = x
    nodes.dirty[c] = 1
    return c
  }
  return { world, plugin, add }
}

/** Copy of a ragdoll's body states (position, orientation, velocities), for bitwise comparison. */
function bodyState(plugin: AnimationPlugin, c: number): Float64Array {
  const bodies = contextOf(plugin).ragdolls[c]!.instance!.bodies
  const out = new Float64Array(bodies.length * 13)
  bodies.forEach((b, i) => {
    const { position: p, quaternion: q, velocity: v, angularVelocity: w } = b
    out.set([p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z], i * 13)
  })
  return out
}

function worldOf(plugin: AnimationPlugin, e: number): Float32Array {
  return plugin.stores.SceneNode.world.slice(e * 16, e * 16 + 16)
}

describe('frame times: the stepper in a game loop', () => {
  it('0 runs nothing, negative/NaN/±∞ are refused before anything runs, 10 s runs the step budget only', () => {
    const { plugin, handle } = createTestPlugin()
    const twin = createTestPlugin()
    const chars = [plugin.addCharacter(handle), plugin.addCharacter(handle)]
    const twins = [twin.plugin.addCharacter(twin.handle), twin.plugin.addCharacter(twin.handle)]
    for (const [p, [a, b]] of [
      [plugin, chars],
      [twin.plugin, twins],
    ] as const) {
      p.play(a!, 'Turn', { speed: -1 })
      p.play(b!, 'Wag', { loop: 'pingpong' })
      p.crossFade(b!, 'Nod', 0.25)
    }
    const stepper = createFixedStepper({ dt: plugin.dt, maxStepsPerFrame: 5 })
    // [frame seconds, steps expected, refused]
    const frames: [number, number, boolean][] = [
      [DT, 1, false],
      [0, 0, false],
      [-DT, 0, true],
      [Number.NaN, 0, true],
      [Infinity, 0, true],
      [-Infinity, 0, true],
      [DT / 2, 0, false],
      [DT / 2, 1, false],
      [10, 5, false],
      [DT, 1, false],
      [-0, 0, false],
      [DT, 1, false],
    ]
    let total = 0
    for (const [seconds, steps, refused] of frames) {
      const alpha = stepper.alpha
      let ran = -1
      try {
        ran = stepper.advance(seconds, () => plugin.step())
      } catch (error) {
        // A game loop that catches and carries on.
        expect(refused, `frame ${seconds} threw`).toBe(true)
        expect(error).toBeInstanceOf(AnimationError)
        expect((error as AnimationError).message).toBe(
          `FixedStepper.advance: frame time ${seconds} s must be a finite number >= 0`,
        )
        expect(stepper.alpha).toBe(alpha)
        ran = 0
      }
      if (!refused) expect(ran, `frame ${seconds}`).toBe(steps)
      expect(stepper.alpha).toBeGreaterThanOrEqual(0)
      expect(stepper.alpha).toBeLessThan(1)
      total += ran
      expect(contextOf(plugin).step).toBe(total)
      expect(stepper.steps).toBe(total)
    }
    // The plugin saw exactly the steps the stepper ran and nothing else: equal to a twin stepped directly.
    stepN(twin.plugin, total)
    expect(plugin.hash()).toBe(twin.plugin.hash())
    expect(nonFiniteNodes(plugin)).toEqual([])
    expect(problems(plugin)).toEqual([])
  })

  it('a plugin refuses a negative or infinite fixed step; a legal but huge one (10 s) keeps everything finite', () => {
    const world = createWorld()
    for (const dt of [-DT, Infinity, -Infinity]) {
      expect(() => createAnimationPlugin(world, { dt })).toThrow(
        `createAnimationPlugin: dt ${dt} s must be a finite number > 0`,
      )
    }
    expect(getAllEntities(world)).toEqual([])
    const huge = createAnimationPlugin(world, { dt: 10, capacity: 1024 })
    const nodes = huge.stores.SceneNode
    const [a, b, c] = [0, 3, 6].map((x) => {
      const e = huge.addCharacter(fox)
      nodes.scale.fill(0.01, e * 3, e * 3 + 3)
      nodes.translation[e * 3] = x
      return e
    }) as [number, number, number]
    huge.play(a, 'Walk', { speed: 3 })
    huge.play(b, 'Run', { loop: 'pingpong', speed: -7 })
    huge.play(c, 'Survey', { loop: 'once' })
    huge.step()
    huge.crossFade(b, 'Walk', 0.5)
    huge.ragdoll(c, { impulse: { joint: 'b_Hip_01', impulse: [0, 50, 0] } })
    for (let k = 0; k < 6; k++) {
      huge.step()
      expect(nonFiniteNodes(huge), `step ${k}`).toEqual([])
      expectNoLeaks(huge)
    }
    // A 0.5 s fade is over after one 10 s step; clip times stay wrapped into their clips.
    expect(huge.stores.CrossFade.active[b]).toBe(0)
    const { Sampler } = huge.stores
    for (const e of [a, b]) {
      const clip = contextOf(huge).clips[Sampler.clip[e]!]!.clip
      expect(Sampler.time[e]).toBeGreaterThanOrEqual(0)
      expect(Sampler.time[e]).toBeLessThan(2 * clip.duration)
    }
    // A body falls 98 m/s faster per 10 s step, but the ground stops it and its joints are projected back
    // together (src/physics/ragdoll.ts): it lies there, finite, and nothing diverged to report.
    expect(huge.stores.Ragdoll.active[c]).toBe(RAGDOLL_FALLING)
    expect(problems(huge)).toEqual([])
  })
})

describe('speeds and clip shapes', () => {
  it('a fade from a clip playing backwards into a paused one follows the closed forms', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const other = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { speed: -1, time: 0.3 })
    plugin.play(other, 'Wag', { speed: -0.5 })
    stepN(plugin, 3) // Turn at 0.3, 0.3 − dt, 0.3 − 2dt
    plugin.crossFade(a, 'Nod', 0.5, { speed: 0, time: 0.1 })
    for (let k = 1; k <= 40; k++) {
      plugin.step()
      const w = Math.min(1, (k * DT) / 0.5)
      const turnT = (((0.3 - (2 + k) * DT) % 1) + 1) % 1
      const from = expectedLocal(TURN, HIPS, turnT).t
      const to = expectedLocal(NOD, HIPS, 0.1).t
      const pose = animLayer(plugin, a)
      const want = k < 30 ? from.map((x, i) => x + (to[i]! - x) * w) : to
      expect(vecDistance(pose.subarray(0, 3), want), `step ${k}`).toBeLessThan(2e-6)
      const fromR = expectedLocal(TURN, SPINE, turnT).r
      const toR = expectedLocal(NOD, SPINE, 0.1).r
      expectQuatClose(pose, k < 30 ? refSlerp(fromR, toR, w) : toR, 2e-6, SPINE * JOINT_STRIDE + 3)
    }
    expect(plugin.stores.Sampler.time[a]).toBe(0.1)
    // Wag backwards at half speed: 43 steps back from 0, wrapped into [0, 2).
    expect(plugin.stores.Sampler.time[other]).toBeCloseTo(2 - 42 * DT * 0.5, 12)
    expect(nonFiniteNodes(plugin)).toEqual([])
  })

  it('zero-duration and one-key clips play and fade in and out, in every loop mode and speed, without NaN', () => {
    // "Late": one key at 0.4 s (duration 0.4); "Still": one key at 0 (duration 0).
    const late = {
      name: 'Late',
      channels: [
        {
          node: HEAD,
          nodeName: 'head',
          path: 'translation' as const,
          interpolation: 'LINEAR' as const,
          times: [0.4],
          values: [0.25, 0.5, 0.75],
        },
      ],
    }
    const { plugin } = createTestPlugin()
    const handle = plugin.addAsset(makeTestAsset('with-late', [late]))
    const cases = [
      ['Still', 'once', 0],
      ['Still', 'repeat', -2],
      ['Still', 'pingpong', 3],
      ['Late', 'once', -1],
      ['Late', 'repeat', 0],
      ['Late', 'pingpong', 5],
    ] as const
    const chars = cases.map(() => plugin.addCharacter(handle))
    chars.forEach((c) => plugin.play(c, 'Turn', { time: 0.5 }))
    plugin.step()
    cases.forEach(([clip, loop, speed], i) =>
      plugin.crossFade(chars[i]!, clip, 0.1, { loop, speed, time: 0.2 }),
    )
    for (let k = 1; k <= 10; k++) {
      plugin.step()
      for (const c of chars) expect(animLayer(plugin, c).every(Number.isFinite), `step ${k}`).toBe(true)
    }
    // After the fade: the single key's value (or rest where the clip does not reach).
    cases.forEach(([clip], i) => {
      const pose = animLayer(plugin, chars[i]!)
      if (clip === 'Still')
        expectQuatClose(pose, expectedLocal(STILL, SPINE, 0).r, 2e-6, SPINE * JOINT_STRIDE + 3)
      else
        expectSameBits(
          pose.subarray(HEAD * JOINT_STRIDE, HEAD * JOINT_STRIDE + 3),
          new Float32Array([0.25, 0.5, 0.75]),
        )
      expect(Array.from(pose.subarray(0, 3)), 'hips back to rest').toEqual(REST[HIPS]!.t)
      const time = plugin.stores.Sampler.time[chars[i]!]!
      expect(time).toBeGreaterThanOrEqual(0)
      expect(time).toBeLessThanOrEqual(clip === 'Still' ? 0 : 0.8)
    })
    // …and fade out of them again.
    chars.forEach((c) => plugin.crossFade(c, 'Nod', 0.1))
    stepN(plugin, 7)
    for (const c of chars) {
      expect(plugin.stores.CrossFade.active[c]).toBe(0)
      expect(
        vecDistance(animLayer(plugin, c).subarray(0, 3), expectedLocal(NOD, HIPS, 6 * DT).t),
      ).toBeLessThan(2e-6)
    }
    expect(nonFiniteNodes(plugin)).toEqual([])
    expectWorldMatchesThree(plugin)
  })

  it('a cross-fade to the clip a fade is already heading to changes nothing, even with duration 0', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    stepN(plugin, 3)
    plugin.crossFade(a, 'Nod', 0.5)
    stepN(plugin, 4)
    const hash = plugin.hash()
    plugin.crossFade(a, 'Nod', 0.1, { speed: -1 })
    plugin.crossFade(a, NOD, 0)
    expect(plugin.hash()).toBe(hash)
    // After the fade, too: a game may ask for the clip its state wants every frame, with a cut.
    stepN(plugin, 30)
    const after = plugin.hash()
    plugin.crossFade(a, 'Nod', 0)
    expect(plugin.hash()).toBe(after)
  })
})

describe('characters removed behind the plugin’s back', () => {
  for (const how of ['removeCharacter', 'removeEntity', 'removeComponent'] as const) {
    it(`${how} mid-fade and mid-ragdoll frees joints, pose slots and bodies; the others carry on`, () => {
      const { world, plugin, add } = foxPlugin()
      const game = addEntity(world)
      const fading = add(0)
      const falling = add(4)
      const walker = add(8)
      plugin.play(fading, 'Walk')
      plugin.play(falling, 'Run')
      plugin.play(walker, 'Walk', { speed: -1 })
      stepN(plugin, 10)
      plugin.crossFade(fading, 'Survey', 1)
      plugin.ragdoll(falling, { impulse: { joint: 'b_Spine02_03', impulse: [0.5, 0, 0] } })
      stepN(plugin, 10)
      expect(plugin.stores.CrossFade.active[fading]).toBe(1)
      expect(plugin.stores.Ragdoll.weight[falling]).toBeGreaterThan(0)
      expect(plugin.physics.bodies.length).toBeGreaterThan(1)
      const goneJoints = [fading, falling].flatMap((c) => Array.from(plugin.joints(c)))

      // The same walker alone in another world, for a bitwise comparison afterwards.
      const twin = foxPlugin()
      const twinWalker = twin.add(8)
      twin.plugin.play(twinWalker, 'Walk', { speed: -1 })
      stepN(twin.plugin, 20)

      for (const c of [fading, falling]) {
        if (how === 'removeCharacter') plugin.removeCharacter(c)
        else if (how === 'removeEntity') removeEntity(world, c)
        else removeComponent(world, c, plugin.stores.Pose)
      }
      expect(characters(plugin)).toEqual([walker])
      expectNoLeaks(plugin, how === 'removeComponent' ? 2 : 0)
      // The entity itself stays only when the game removed just the component; its joints go either way.
      for (const c of [fading, falling]) {
        expect(entityExists(world, c)).toBe(how === 'removeComponent')
        expect(() => plugin.play(c, 'Walk')).toThrow(`play: entity ${c} is not a character of this plugin`)
      }
      for (const j of goneJoints) expect(entityExists(world, j)).toBe(false)
      expect(entityExists(world, game)).toBe(true)
      for (let k = 0; k < 30; k++) {
        plugin.step()
        twin.plugin.step()
        expectSameBits(animLayer(plugin, walker), animLayer(twin.plugin, twinWalker), `walker, step ${k}`)
      }
      expect(nonFiniteNodes(plugin)).toEqual([])
      expect(problems(plugin)).toEqual([])
      expectNoLeaks(plugin, how === 'removeComponent' ? 2 : 0)
    })
  }

  it('recycled ids after removeEntity mid-ragdoll start clean and ragdoll exactly like a fresh character', () => {
    const { world, plugin, add } = foxPlugin()
    const a = add(0)
    const joints = Array.from(plugin.joints(a))
    plugin.play(a, 'Run')
    stepN(plugin, 5)
    plugin.ragdoll(a)
    stepN(plugin, 5)
    const reference = foxPlugin()
    const fresh = reference.add(0)
    removeEntity(world, a)
    expectNoLeaks(plugin)
    const again = add(0)
    // bitecs recycles last-in first-out: the removal order (joints children first, then the character) gives
    // the same ids in the same roles.
    expect(again).toBe(a)
    expect(Array.from(plugin.joints(again))).toEqual(joints)
    expect(fresh).toBe(a)
    // The same entity data as a character made on a never-used id in a fresh world…
    const mine = plugin.stores as unknown as Record<string, Record<string, ArrayLike<number>>>
    const theirs = reference.plugin.stores as unknown as Record<string, Record<string, ArrayLike<number>>>
    for (const store of ['Sampler', 'CrossFade', 'Ragdoll', 'Pose']) {
      for (const [field, column] of Object.entries(mine[store]!)) {
        if (field === 'base') continue // where in the pool differs
        expect(Object.is(column[again], theirs[store]![field]![fresh]), `${store}.${field}`).toBe(true)
      }
    }
    const { Sampler, Ragdoll } = plugin.stores
    expect(contextOf(plugin).ragdolls[again]).toBeUndefined()
    expect(Ragdoll.active[again]).toBe(RAGDOLL_OFF)
    expect(Sampler.clip[again]).toBe(-1)
    // …and the same future, bit for bit.
    for (const p of [plugin, reference.plugin]) {
      p.play(again, 'Walk')
      stepN(p, 5)
      p.ragdoll(again, { impulse: { joint: 'b_Hip_01', impulse: [0, 0, 1] } })
      stepN(p, 20)
    }
    expectSameBits(animLayer(plugin, again), animLayer(reference.plugin, again), 'ANIM')
    expectSameBits(bodyState(plugin, again), bodyState(reference.plugin, again), 'bodies')
    expectNoLeaks(plugin)
  })

  it('a removal between the plugin’s systems, by a game system in its own pipeline, is picked up at once', () => {
    const { world, plugin, add } = foxPlugin()
    const a = add(0)
    const b = add(4)
    plugin.play(a, 'Walk')
    plugin.play(b, 'Survey')
    stepN(plugin, 3)
    plugin.ragdoll(a)
    plugin.crossFade(b, 'Run', 0.5)
    stepN(plugin, 3)
    const [advance, sample, ragdolls, blend, propagate] = plugin.systems
    const pipelines = [
      [advance, sample, () => removeEntity(world, a), ragdolls, blend, propagate],
      [advance, sample, ragdolls, () => removeEntity(world, b), blend, propagate],
    ]
    for (const pipeline of pipelines) for (const system of pipeline) system!(world)
    expect(characters(plugin)).toEqual([])
    expectNoLeaks(plugin)
    stepN(plugin, 2)
    expect(nonFiniteNodes(plugin)).toEqual([])
  })

  it('a joint entity the game removes is no longer written; its recycled id is left alone', () => {
    const { world, plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const twin = plugin.addCharacter(handle)
    for (const c of [a, twin]) plugin.play(c, 'Nod')
    plugin.step()
    const head = plugin.jointEntity(a, 'head')
    removeEntity(world, head)
    expect(() => plugin.jointEntity(a, 'head')).toThrow(
      `jointEntity(${a}): joint "head" was removed from the world`,
    )
    expect(plugin.joints(a)[HEAD]).toBe(0)
    // The game reuses the id for a node of its own, and moves it.
    const mine = addEntity(world)
    expect(mine).toBe(head)
    addSceneNode(plugin.sceneGraph, mine)
    plugin.stores.SceneNode.translation.set([7, 8, 9], mine * 3)
    stepN(plugin, 10)
    expect(localOf(plugin, mine).t).toEqual([7, 8, 9])
    // The character's other joints animate exactly like its twin's.
    for (const node of [HIPS, SPINE]) {
      expect(localOf(plugin, plugin.joints(a)[node]!)).toEqual(localOf(plugin, plugin.joints(twin)[node]!))
    }
    // Removing the character leaves the game's node alone.
    plugin.removeCharacter(a)
    expect(entityExists(world, mine)).toBe(true)
    expect(localOf(plugin, mine).t).toEqual([7, 8, 9])
    expectNoLeaks(plugin, 1)
    expectWorldMatchesThree(plugin)
  })
})

describe('capacity', () => {
  it('ids and pose slots freed by removeEntity are reused; when exhausted, adding throws and changes nothing', () => {
    // Capacity 13: ids 1..12, two characters of 6 entities; the pool holds exactly two (2 × 25 slots).
    const { world, plugin, handle } = createTestPlugin({ capacity: 13, maxPoseSlots: 50 })
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    plugin.play(b, 'Wag')
    for (let round = 0; round < 5; round++) {
      const hash = plugin.hash()
      expect(() => plugin.addCharacter(handle)).toThrow(AnimationError)
      expect(plugin.hash()).toBe(hash)
      // The game frees one character its own way; the next one takes its place, in ids and slots.
      const victim = round % 2 === 0 ? a : b
      removeEntity(world, victim)
      const next = plugin.addCharacter(handle)
      expect(next).toBe(victim)
      plugin.play(next, round % 2 === 0 ? 'Turn' : 'Wag')
      stepN(plugin, 3)
      expectNoLeaks(plugin)
    }
    expect(getAllEntities(world).length).toBe(12)
    expectWorldMatchesThree(plugin)
  })
})

describe('non-finite values forced in', () => {
  it('NaN in a pose layer: the joints keep their last transform, one event, repaired next step, others unaffected', () => {
    const { plugin, handle } = createTestPlugin()
    const twin = createTestPlugin()
    const [a, b] = [plugin.addCharacter(handle), plugin.addCharacter(handle)]
    const tb = twin.plugin.addCharacter(twin.handle)
    for (const [p, c] of [
      [plugin, a],
      [plugin, b],
      [twin.plugin, tb],
    ] as const) {
      p.play(c, 'Turn')
    }
    stepN(plugin, 5)
    stepN(twin.plugin, 5)
    const data = contextOf(plugin).pool.data
    const spine = plugin.joints(a)[SPINE]!
    const prop = plugin.joints(a)[PROP]!
    const before = [localOf(plugin, spine), localOf(plugin, prop)]
    // Turn drives hips.translation and spine.rotation: spine.translation and prop are not resampled.
    data[animOffset(plugin, a, SPINE)] = Number.NaN
    data[animOffset(plugin, a, PROP) + 8] = Infinity
    const check = () => {
      expectSameBits(animLayer(plugin, b), animLayer(twin.plugin, tb), 'b vs twin')
      expect(localOf(plugin, plugin.joints(b)[SPINE]!)).toEqual(
        localOf(twin.plugin, twin.plugin.joints(tb)[SPINE]!),
      )
      expect(nonFiniteNodes(plugin)).toEqual([])
    }
    plugin.step()
    twin.plugin.step()
    expect([localOf(plugin, spine), localOf(plugin, prop)]).toEqual(before)
    expect(localOf(plugin, plugin.joints(a)[HIPS]!).t[0]).toBeCloseTo(
      expectedLocal(TURN, HIPS, 5 * DT).t[0],
      6,
    )
    expect(problems(plugin)).toEqual([
      {
        step: 5,
        character: a,
        entity: a,
        kind: 'pose-non-finite',
        message:
          `character ${a}: 2 joint(s) with non-finite pose values were not written (first: joint 1 "spine" in the ` +
          'animation pose); they keep their last transform and were reset to rest for the next step',
      },
    ])
    check()
    // Next step: resampled from the repaired layer, exactly the clip again (spine.translation back to rest).
    plugin.step()
    twin.plugin.step()
    expectSameBits(animLayer(plugin, a), animLayer(plugin, b), 'a repaired')
    expect(localOf(plugin, spine)).toEqual(localOf(plugin, plugin.joints(b)[SPINE]!))
    check()
    // Again: the joints are refused again, but the character was reported already.
    data[animOffset(plugin, a, HEAD) + 3] = Number.NaN
    stepN(plugin, 2)
    stepN(twin.plugin, 2)
    expect(problems(plugin).length).toBe(1)
    check()
    // A character made later on the same id is reported afresh.
    plugin.removeCharacter(a)
    const again = plugin.addCharacter(handle)
    expect(again).toBe(a)
    plugin.play(again, 'Nod')
    plugin.step()
    contextOf(plugin).pool.data[animOffset(plugin, again, PROP)] = Number.NaN
    plugin.step()
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([
      [a, 'pose-non-finite'],
      [again, 'pose-non-finite'],
    ])
    expect(nonFiniteNodes(plugin)).toEqual([])
  })

  it('NaN in the frozen pose a fade starts from is repaired at once, not shown for the rest of the fade', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    stepN(plugin, 3)
    plugin.crossFade(a, 'Nod', 0.5)
    stepN(plugin, 3)
    plugin.crossFade(a, 'Wag', 0.5) // mid-fade: fades from the frozen blend
    expect(plugin.stores.CrossFade.fromClip[a]).toBe(-1)
    const { Pose } = plugin.stores
    const from = layerOffset(Pose.base[a]!, Pose.count[a]!, LAYER_FROM)
    contextOf(plugin).pool.data[from + HIPS * JOINT_STRIDE + 1] = Number.NaN
    const hips = plugin.joints(a)[HIPS]!
    const shown = localOf(plugin, hips)
    plugin.step()
    expect(localOf(plugin, hips)).toEqual(shown)
    expect(problems(plugin).map((e) => e.kind)).toEqual(['pose-non-finite'])
    plugin.step()
    // Wag does not drive the hips: from the rest hips (the repair) to the rest hips is the rest hips.
    expect(localOf(plugin, hips).t).toEqual(REST[HIPS]!.t)
    expect(plugin.stores.CrossFade.active[a]).toBe(1)
    stepN(plugin, 40)
    expect(nonFiniteNodes(plugin)).toEqual([])
    expect(problems(plugin).length).toBe(1)
  })

  it('NaN and ∞ written into Sampler and CrossFade stores: times restart at 0, bad fade durations cut', () => {
    const { plugin, handle } = createTestPlugin()
    const { Sampler, CrossFade } = plugin.stores
    const chars = Array.from({ length: 7 }, () => plugin.addCharacter(handle))
    const [nanTime, infSpeed, ...fading] = chars as [number, number, ...number[]]
    plugin.play(nanTime, 'Turn', { time: 0.5 })
    plugin.play(infSpeed, 'Wag', { loop: 'pingpong' })
    for (const c of fading) plugin.play(c, 'Turn')
    stepN(plugin, 2)
    for (const c of fading) plugin.crossFade(c, 'Nod', 1)
    stepN(plugin, 2)
    Sampler.time[nanTime] = Number.NaN
    Sampler.speed[infSpeed] = Infinity
    const durations = [Number.NaN, Infinity, -1, 0, 1]
    fading.forEach((c, i) => (CrossFade.duration[c] = durations[i]!))
    CrossFade.fromTime[fading[4]!] = Number.NaN
    plugin.step()
    expect(Sampler.time[nanTime]).toBe(0)
    expect(Sampler.time[infSpeed]).toBe(0)
    // Each bad duration ended its fade: the incoming clip alone, as after a cut.
    fading.slice(0, 4).forEach((c) => {
      expect([CrossFade.active[c], CrossFade.blend[c]]).toEqual([0, 1])
      expect(
        vecDistance(animLayer(plugin, c).subarray(0, 3), expectedLocal(NOD, HIPS, 2 * DT).t),
      ).toBeLessThan(2e-6)
    })
    // The outgoing clip's NaN time restarts it: Turn at 0 faded toward Nod.
    expect(CrossFade.fromTime[fading[4]!]).toBe(0)
    expect(CrossFade.active[fading[4]!]).toBe(1)
    stepN(plugin, 3)
    expect(Sampler.time[nanTime]).toBeCloseTo(3 * DT, 12)
    expect(nonFiniteNodes(plugin)).toEqual([])
    for (const c of chars) expect(animLayer(plugin, c).every(Number.isFinite)).toBe(true)
    expect(problems(plugin)).toEqual([])
  })

  it('NaN in a ragdoll body: that ragdoll ends before the physics step; one lying on the same ground is unaffected', () => {
    // Two worlds: in one, a's body gets a NaN; in the other, a is removed at the same point. b must not tell.
    const run = (poison: boolean) => {
      const { plugin, add } = foxPlugin()
      const a = add(0)
      const b = add(5)
      plugin.play(a, 'Walk')
      plugin.play(b, 'Run')
      stepN(plugin, 10)
      plugin.ragdoll(a)
      plugin.ragdoll(b, { impulse: { joint: 'b_Hip_01', impulse: [0, 0, 2] } })
      stepN(plugin, 90) // both down on the ground
      if (poison) contextOf(plugin).ragdolls[a]!.instance!.bodies[2]!.velocity.y = Number.NaN
      else plugin.removeCharacter(a)
      stepN(plugin, 30)
      return { plugin, a, b }
    }
    const poisoned = run(true)
    const clean = run(false)
    const { plugin, a, b } = poisoned
    expect(plugin.stores.Ragdoll.active[a]).toBe(RAGDOLL_OFF)
    expect(plugin.stores.Ragdoll.active[b]).toBe(RAGDOLL_FALLING)
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([[a, 'ragdoll-exploded']])
    expect(problems(plugin)[0]!.message).toContain('non-finite state before the physics step')
    expectSameBits(bodyState(plugin, b), bodyState(clean.plugin, b), 'b bodies')
    expectSameBits(animLayer(plugin, b), animLayer(clean.plugin, b), 'b ANIM')
    for (const e of plugin.joints(b))
      expectSameBits(worldOf(plugin, e), worldOf(clean.plugin, e), `joint ${e}`)
    expect(nonFiniteNodes(plugin)).toEqual([])
    expectNoLeaks(plugin)
  })

  it('a degenerate body orientation gives a non-finite physics pose: not shown, the ragdoll ends, one event', () => {
    const { world, plugin, add } = foxPlugin()
    const a = add(0)
    const b = add(5)
    for (const c of [a, b]) plugin.play(c, 'Walk')
    stepN(plugin, 5)
    for (const c of [a, b]) plugin.ragdoll(c)
    stepN(plugin, 20)
    const joints = Array.from(plugin.joints(a))
    const before = joints.map((e) => localOf(plugin, e))
    // cannon-es keeps a zero quaternion zero (finite), but a joint frame cannot be read from it.
    contextOf(plugin).ragdolls[a]!.instance!.bodies[3]!.quaternion.set(0, 0, 0, 0)
    const { Pose } = plugin.stores
    const phys = layerOffset(Pose.base[a]!, Pose.count[a]!, LAYER_PHYS)
    const data = contextOf(plugin).pool.data
    const nonFinite = () =>
      joints.flatMap((_, j) =>
        data.subarray(phys + j * JOINT_STRIDE, phys + (j + 1) * JOINT_STRIDE).every(Number.isFinite)
          ? []
          : [j],
      )
    // The step's systems one by one (what step() runs), to see the physics pose as stepRagdolls read it back.
    let bad: number[] = []
    for (const system of plugin.systems) {
      system(world)
      if (system.name === 'stepRagdolls') bad = nonFinite()
    }
    // The joints whose physics pose went non-finite keep their transform, and the physics pose is repaired.
    expect(bad.length).toBeGreaterThan(0)
    for (const j of bad) expect(localOf(plugin, joints[j]!), `joint ${j}`).toEqual(before[j])
    expect(nonFinite()).toEqual([])
    // So the plugin's own snapshot restores (a non-finite PHYS value in it would be refused).
    const copy = createAnimationPlugin(createWorld(), { capacity: 2048 })
    copy.addAsset(fox)
    copy.restore(plugin.snapshot())
    expect(copy.hash()).toBe(plugin.hash())
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([[a, 'pose-non-finite']])
    expect(problems(plugin)[0]!.message).toContain('in the physics pose); the ragdoll was ended')
    expect(plugin.stores.Ragdoll.weight[a]).toBe(0)
    plugin.step()
    expect(plugin.stores.Ragdoll.active[a]).toBe(RAGDOLL_OFF)
    expect(plugin.stores.Ragdoll.active[b]).toBe(RAGDOLL_FALLING)
    stepN(plugin, 5)
    expect(nonFiniteNodes(plugin)).toEqual([])
    expectNoLeaks(plugin)
    expect(problems(plugin).length).toBe(1)
  })

  it('NaN a game writes into scene-node locals: joints are rewritten by the next pose, a root is the game’s', () => {
    const { plugin, add } = foxPlugin()
    const a = add(0)
    const b = add(5)
    plugin.play(a, 'Walk')
    plugin.play(b, 'Run')
    stepN(plugin, 3)
    const nodes = plugin.stores.SceneNode
    // A joint: its local is the plugin's and is rewritten from the pose (NaN never equals the pose value).
    const neck = plugin.jointEntity(a, 'b_Neck_04')
    nodes.rotation[neck * 4] = Number.NaN
    nodes.dirty[neck] = 1
    plugin.step()
    expect(nonFiniteNodes(plugin)).toEqual([])
    const { Pose } = plugin.stores
    const j = Array.from(plugin.joints(a)).indexOf(neck)
    const o = layerOffset(Pose.base[a]!, Pose.count[a]!, LAYER_ANIM) + j * JOINT_STRIDE
    expect(Array.from(nodes.rotation.subarray(neck * 4, neck * 4 + 4))).toEqual(
      Array.from(contextOf(plugin).pool.data.subarray(o + 3, o + 7)),
    )
    // The character's root: the game's node. Its NaN reaches no world matrix (the node keeps its last one, one
    // event); a ragdoll under it is not started (there is no finite pose to hand over) and is reported once.
    nodes.translation[a * 3 + 1] = Number.NaN
    nodes.dirty[a] = 1
    plugin.ragdoll(a)
    plugin.ragdoll(b)
    stepN(plugin, 3)
    // Only the game's own local is NaN; no world matrix is.
    expect(nonFiniteNodes(plugin)).toEqual([a])
    expect(plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
    expect(plugin.stores.Ragdoll.active[a]).toBe(RAGDOLL_OFF)
    expect(plugin.stores.Ragdoll.active[b]).toBe(RAGDOLL_FALLING)
    // The ragdoll never starts: its root (the game's) has no finite pose to hand over.
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([
      [a, 'ragdoll-exploded'],
      [a, 'world-non-finite'],
    ])
    expect(problems(plugin)[0]!.message).toContain(
      'root transform is not finite; the ragdoll was not started',
    )
    expectNoLeaks(plugin)
    // Once the game repairs its node, everything is finite again.
    nodes.translation[a * 3 + 1] = 0
    nodes.dirty[a] = 1
    plugin.step()
    expect(nonFiniteNodes(plugin)).toEqual([])
  })
})
