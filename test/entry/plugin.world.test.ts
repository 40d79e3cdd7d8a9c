/**
 * createAnimationPlugin (entry/plugin.ts): the plugin in a game's existing world, its joint and node lookups,
 * and steps that retain no memory.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { addComponent, addEntity, createWorld, entityExists, getAllEntities, query } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { JOINT_STRIDE, POSE_BUFFERS } from '../../components/Pose.ts'
import { createAnimationPlugin, contextOf } from '../../entry/plugin.ts'
import {
  animLayer,
  createTestPlugin,
  DT,
  expectedLocal,
  expectSameBits,
  expectWorldMatchesThree,
  HEAD,
  localOf,
  makeTestAsset,
  NOD,
  SPINE,
  stepN,
  TAIL,
  TURN,
  vecDistance,
} from '../helpers/ecs.ts'
import { expectQuatClose } from '../helpers/quat.ts'
import { NODES, expectError } from '../helpers/pluginCalls.ts'

describe('the plugin in an existing world', () => {
  it('shares the world with the game’s own components, entities and system; both keep working', () => {
    const world = createWorld({ tick: 0 })
    const Position = { x: new Float32Array(256), y: new Float32Array(256) }
    const Velocity = { x: new Float32Array(256) }
    const spawn = (x: number, vx: number) => {
      const e = addEntity(world)
      addComponent(world, e, Position)
      addComponent(world, e, Velocity)
      Position.x[e] = x
      Velocity.x[e] = vx
      return e
    }
    const move = (w: typeof world) => {
      for (const e of query(w, [Position, Velocity])) Position.x[e] = Position.x[e]! + Velocity.x[e]! * DT
      w.tick++
    }
    const g1 = spawn(0, 1)
    const g2 = spawn(10, -2)
    move(world)

    const plugin = createAnimationPlugin(world, { capacity: 256, physics: { ground: false } })
    const handle = plugin.addAsset(makeTestAsset())
    const c1 = plugin.addCharacter(handle)
    const g3 = spawn(5, 3) // ids interleaved: g1 g2 | c1 + joints | g3 | c2 + joints
    const c2 = plugin.addCharacter(handle)
    expect(g1 < c1 && c1 < g3 && g3 < c2).toBe(true)
    expect(plugin.joints(c1).every((j) => j > c1 && j < g3)).toBe(true)
    plugin.play(c1, 'Turn')
    plugin.play(c2, 'Nod', { time: 0.1 })
    for (let n = 1; n <= 30; n++) {
      move(world)
      plugin.step()
    }
    // The game's entities moved 31 (g1, g2) and 30 (g3) steps and have no plugin components.
    expect(Position.x[g1]).toBeCloseTo(31 * DT, 4)
    expect(Position.x[g2]).toBeCloseTo(10 - 62 * DT, 4)
    expect(Position.x[g3]).toBeCloseTo(5 + 90 * DT, 4)
    expect(world.tick).toBe(31)
    expect(
      query(world, [plugin.stores.Pose])
        .slice()
        .sort((a, b) => a - b),
    ).toEqual([c1, c2])
    expect(
      query(world, [Position])
        .slice()
        .sort((a, b) => a - b),
    ).toEqual([g1, g2, g3])
    // The characters animate as expected.
    expectQuatClose(
      localOf(plugin, plugin.jointEntity(c1, 'spine')).r,
      expectedLocal(TURN, SPINE, 29 * DT).r,
      2e-6,
    )
    const head = localOf(plugin, plugin.jointEntity(c2, HEAD)).t
    expect(vecDistance(head, expectedLocal(NOD, HEAD, (0.1 + 29 * DT) % 0.5).t)).toBeLessThan(2e-6)
    expectWorldMatchesThree(plugin)
    // The game's components do not enter the hash; the plugin's do.
    const h = plugin.hash()
    Position.x[g1] = 123
    expect(plugin.hash()).toBe(h)
  })

  it('removes characters: joint entities and pose slots are freed, other entities untouched', () => {
    const { world, plugin, handle } = createTestPlugin()
    const game = addEntity(world)
    const used0 = contextOf(plugin).pool.used
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    expect(contextOf(plugin).pool.used).toBe(used0 + 2 * POSE_BUFFERS * NODES)
    plugin.play(a, 'Wag')
    plugin.play(b, 'Turn')
    stepN(plugin, 5)
    const aJoints = Array.from(plugin.joints(a))
    const twin = createTestPlugin()
    const tb = twin.plugin.addCharacter(twin.handle)
    twin.plugin.play(tb, 'Turn')
    stepN(twin.plugin, 5)

    plugin.removeCharacter(a)
    expect(contextOf(plugin).pool.used).toBe(used0 + POSE_BUFFERS * NODES)
    for (const e of [a, ...aJoints]) expect(entityExists(world, e)).toBe(false)
    expect(entityExists(world, game)).toBe(true)
    expect(query(world, [plugin.stores.SceneNode]).length).toBe(1 + NODES)
    expectError(
      () => plugin.play(a, 'Turn'),
      'argument',
      `play: entity ${a} is not a character of this plugin`,
    )
    // b carries on exactly as it would alone.
    for (let n = 0; n < 10; n++) {
      plugin.step()
      twin.plugin.step()
      expectSameBits(animLayer(plugin, b), animLayer(twin.plugin, tb))
    }
    expectWorldMatchesThree(plugin)
    plugin.removeCharacter(b)
    expect(contextOf(plugin).pool.used).toBe(used0)
    expect(contextOf(plugin).pool.free).toEqual([0, contextOf(plugin).pool.slots])
    expect(getAllEntities(world)).toEqual([game])
  })

  it('recycled entity ids start clean: a character re-made on them equals a fresh one', () => {
    const { world, plugin, handle } = createTestPlugin()
    const old = plugin.addCharacter(handle)
    const oldJoints = Array.from(plugin.joints(old))
    const fresh = plugin.addCharacter(handle)
    plugin.play(old, 'Wag', { speed: -2, loop: 'pingpong', rotation: 'squad' })
    stepN(plugin, 20)
    plugin.crossFade(old, 'Nod', 1)
    stepN(plugin, 3)
    plugin.stores.Ragdoll.weight[old] = 0.25
    plugin.step()
    plugin.removeCharacter(old)
    const again = plugin.addCharacter(handle)
    // bitecs recycles ids last-in first-out: the same ids in the same roles.
    expect(again).toBe(old)
    expect(Array.from(plugin.joints(again))).toEqual(oldJoints)
    const { Sampler, CrossFade, Ragdoll, Pose } = plugin.stores
    for (const store of [Sampler, CrossFade, Ragdoll] as unknown as Record<string, ArrayLike<number>>[]) {
      for (const [field, column] of Object.entries(store)) {
        expect(Object.is(column[again], column[fresh]), field).toBe(true)
      }
    }
    expect([Pose.count[again], Pose.asset[again], Pose.changed[again]]).toEqual([NODES, 0, 0])
    expect(Array.from(contextOf(plugin).cursors[again]!).every((c) => c === 0)).toBe(true)
    const block = (e: number) => {
      const o = Pose.base[e]! * JOINT_STRIDE
      return contextOf(plugin).pool.data.slice(o, o + POSE_BUFFERS * NODES * JOINT_STRIDE)
    }
    expectSameBits(block(again), block(fresh), 'pose block')
    const nodes = plugin.stores.SceneNode
    const freshJoints = plugin.joints(fresh)
    plugin.joints(again).forEach((e, j) => {
      expect(localOf(plugin, e)).toEqual(localOf(plugin, freshJoints[j]!))
      const p = nodes.parent[e]!
      expect(p === again ? -1 : plugin.joints(again).indexOf(p)).toBe(
        nodes.parent[freshJoints[j]!] === fresh
          ? -1
          : Array.from(freshJoints).indexOf(nodes.parent[freshJoints[j]!]!),
      )
    })
    // And from here both behave identically.
    plugin.play(again, 'Turn')
    plugin.play(fresh, 'Turn')
    for (let n = 0; n < 5; n++) {
      plugin.step()
      expectSameBits(animLayer(plugin, again), animLayer(plugin, fresh))
    }
    expectWorldMatchesThree(plugin)
    expect(world).toBe(plugin.world)
  })

  it('dispose removes every character and refuses further calls; the game’s entities stay', () => {
    const { world, plugin, handle } = createTestPlugin()
    const game = addEntity(world)
    const a = plugin.addCharacter(handle)
    plugin.addCharacter(handle)
    plugin.dispose()
    expect(getAllEntities(world)).toEqual([game])
    expect(contextOf(plugin).pool.used).toBe(0)
    expectError(() => plugin.step(), 'argument', 'step: the animation plugin was disposed')
    expectError(() => plugin.play(a, 'Turn'), 'argument', 'play: the animation plugin was disposed')
    plugin.dispose() // twice is fine
  })
})

describe('lookups', () => {
  it('joints, jointEntity and clipId resolve names and indices, across assets too', () => {
    const { plugin, handle } = createTestPlugin()
    const second = plugin.addAsset(makeTestAsset('second-rig'))
    expect(plugin.addAsset(second.asset)).toBe(second) // registering again returns the same handle
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(second)
    const joints = plugin.joints(a)
    expect(joints.length).toBe(NODES)
    expect(joints.every((e, j) => e === plugin.jointEntity(a, j))).toBe(true)
    expect(plugin.jointEntity(a, 'tail')).toBe(joints[TAIL])
    // Parents before children: each joint's parent is the character or an earlier joint.
    const parent = plugin.stores.SceneNode.parent
    joints.forEach((e, j) => expect(parent[e] === a || joints.indexOf(parent[e]!) < j).toBe(true))
    expect(handle.clips.map((id) => plugin.clipId(handle, id - handle.clips[0]!))).toEqual(handle.clips)
    expect(plugin.clipId(a, 'Nod')).toBe(handle.clips[NOD])
    expect(plugin.clipId(b, 'Nod')).toBe(second.clips[NOD])
    expect(plugin.clipId(b, 1)).toBe(second.clips[1])
    expect(second.clips[0]).toBe(handle.clips.length) // ids are global, indices per asset
  })

  it('cross-fades with duration 0 and plays by index on a character of a second asset', () => {
    // crossFade(·, 0) used to forward the global clip id to play(), which reads a number as the asset's clip
    // index: on the second asset that picked the wrong clip or threw.
    const { plugin, handle } = createTestPlugin()
    const second = plugin.addAsset(makeTestAsset('second-rig'))
    const a = plugin.addCharacter(second)
    const twin = plugin.addCharacter(handle)
    plugin.crossFade(a, 'Nod', 0)
    plugin.play(twin, 'Nod')
    plugin.step()
    expect(plugin.stores.Sampler.clip[a]).toBe(second.clips[NOD])
    plugin.crossFade(a, 'Turn', 0, { time: 0.25 })
    plugin.play(twin, TURN, { time: 0.25 })
    stepN(plugin, 3)
    expect(plugin.stores.Sampler.clip[a]).toBe(second.clips[TURN])
    expectSameBits(animLayer(plugin, a), animLayer(plugin, twin))
  })
})

describe('memory', () => {
  it('steps without retaining memory: 2000 steps of 20 characters grow the heap by less than 256 KB', () => {
    // Retained growth after full GCs, not allocation: per-step garbage (V8 boxes doubles passed between
    // functions it did not inline) is invisible here, but anything kept per step (a leak) is not.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const { plugin, handle } = createTestPlugin()
    const chars = Array.from({ length: 20 }, () => plugin.addCharacter(handle))
    chars.forEach((c, i) => {
      if (i % 4 === 0) plugin.play(c, 'Turn')
      if (i % 4 === 1) plugin.play(c, 'Nod', { speed: 0 })
      if (i % 4 === 2) plugin.play(c, 'Wag', { loop: 'pingpong', rotation: 'squad' })
      if (i % 4 === 3) plugin.play(c, 'Nod', { speed: -1 })
    })
    stepN(plugin, 300)
    chars.forEach((c, i) => i % 4 === 3 && plugin.crossFade(c, 'Turn', 100)) // fading throughout
    stepN(plugin, 300)
    // Two windows of 2000 steps, as a game does them (reading and clearing the events every step): a leak grows
    // the heap in both; what the worker process does once (code V8 compiles, the test runner's own state) in
    // one only, so the smaller growth is the one judged.
    const window = (): { heap: number; buffers: number } => {
      gc()
      gc()
      const before = process.memoryUsage()
      for (let i = 0; i < 2000; i++) {
        plugin.step()
        plugin.events.length = 0
      }
      gc()
      gc()
      const after = process.memoryUsage()
      return { heap: after.heapUsed - before.heapUsed, buffers: after.arrayBuffers - before.arrayBuffers }
    }
    const [a, b] = [window(), window()]
    expect(Math.min(a.heap, b.heap), JSON.stringify([a, b])).toBeLessThan(256 * 1024)
    expect(Math.min(a.buffers, b.buffers), JSON.stringify([a, b])).toBeLessThan(64 * 1024)
    expect(plugin.stores.CrossFade.active[chars[3]!]).toBe(1)
  })
})
