/**
 * Snapshot and restore (snapshot/) on real Fox characters: restoring into other setups (the assets loaded from another
 * file, a joint entity the game removed, squad data to rebuild, a game's own physics world), and the size of
 * a snapshot.
 * Setup: test/helpers/snapshot.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld, removeEntity } from 'bitecs'
import { Body, Plane, Sphere, Vec3, World as PhysicsWorld } from 'cannon-es'
import { createAnimationPlugin, type AnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { layoutsOf } from '../../snapshot/format.ts'
import { generateRagdollDescription } from '../../src/physics/generate.ts'
import { problems } from '../helpers/ecs.ts'
import { mapSnapshot } from '../helpers/snapshotMap.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import {
  fox,
  foxGltf,
  loadAssets,
  OPTIONS,
  type Scene,
  place,
  build,
  run,
  fresh,
  firstDivergence,
} from '../helpers/snapshot.ts'

beforeAll(loadAssets)

describe('snapshot and restore', () => {
  it('restores into a plugin with the same assets loaded from another file (fingerprints ignore the path)', () => {
    const original = build()
    run(original, 0, 120)
    const { world, plugin } = fresh(OPTIONS, [foxGltf])
    plugin.restore(original.plugin.snapshot())
    const copy: Scene = { ...original, world, plugin }
    expect(plugin.hash()).toBe(original.plugin.hash())
    expect(firstDivergence(original, copy, 120, 180)).toBe(-1)
  })

  it('restores a character whose joint entity the game removed (its slot names entity 0)', () => {
    const { world, plugin } = fresh()
    const a = plugin.addCharacter(fox)
    plugin.play(a, 'Walk')
    for (let k = 0; k < 5; k++) plugin.step()
    removeEntity(world, plugin.jointEntity(a, 'b_Tail03_014'))
    for (let k = 0; k < 5; k++) plugin.step()
    expect(Array.from(plugin.joints(a))).toContain(0)
    const bytes = plugin.snapshot()
    const copy = fresh()
    copy.plugin.restore(bytes)
    expect(copy.plugin.hash()).toBe(plugin.hash())
    for (let k = 0; k < 20; k++) {
      plugin.step()
      copy.plugin.step()
    }
    expect(copy.plugin.hash()).toBe(plugin.hash())
    expect(copy.plugin.snapshot()).toEqual(plugin.snapshot())
  })

  it('builds the squad data of restored characters’ clips (playing and fading out in squad mode) before a step', () => {
    const { plugin } = fresh(OPTIONS, [fox])
    const a = plugin.addCharacter(fox)
    const b = plugin.addCharacter(fox)
    plugin.play(a, 'Walk', { rotation: 'squad' })
    plugin.play(b, 'Run', { rotation: 'squad' })
    plugin.step()
    plugin.crossFade(b, 'Survey', 1)
    plugin.step()
    // A separately loaded Fox: its clips have not been sampled by squad in this process.
    const target = fresh(OPTIONS, [foxGltf])
    const built = (name: string) =>
      foxGltf.clips.find((c) => c.name === name)!.channels.find((ch) => ch.squad)!.squad!.segments !== null
    expect([built('Walk'), built('Run'), built('Survey')]).toEqual([false, false, false])
    target.plugin.restore(plugin.snapshot())
    // Walk (a's clip) and Run (b's fading-out clip) are in squad mode; Survey (b's incoming one) is not.
    expect([built('Walk'), built('Run'), built('Survey')]).toEqual([true, true, false])
    plugin.step()
    target.plugin.step()
    expect(target.plugin.hash()).toBe(plugin.hash())
  })

  it("restores into a game's own physics world (its bodies among the ragdolls'), a custom description, events", () => {
    /** The game's world, made the same way on both sides; the ball is the game's own dynamic body. */
    const game = () => {
      const physics = new PhysicsWorld({ gravity: new Vec3(0, -9.82, 0) })
      const ground = new Body({ mass: 0, shape: new Plane() })
      ground.quaternion.set(-Math.SQRT1_2, 0, 0, Math.SQRT1_2)
      physics.addBody(ground)
      const ball = new Body({ mass: 2, shape: new Sphere(0.12), position: new Vec3(0.15, 1.2, 0) })
      return { physics, ball }
    }
    const description = generateRagdollDescription(
      { source: fox.source, nodes: fox.nodes, skinJoints: fox.skeletons[0]!.joints },
      { totalMass: 20, coneAngle: 0.5, twistAngle: 0.2 },
    )
    const a = game()
    const world = createWorld()
    const plugin = createAnimationPlugin(world, { ...OPTIONS, physics: { world: a.physics } })
    plugin.addAsset(fox)
    const f1 = plugin.addCharacter(fox)
    const f2 = plugin.addCharacter(fox)
    place(plugin, f1, 0.01, 0)
    place(plugin, f2, 0.01, 3)
    plugin.play(f1, 'Run')
    plugin.play(f2, 'Walk')
    const script2 = (p: AnimationPlugin, ball: Body, k: number) => {
      if (k === 30) p.ragdoll(f1, { description })
      if (k === 40) p.physics.addBody(ball) // after f1's bodies: the world interleaves game and ragdoll bodies
      if (k === 50) p.ragdoll(f2, { impulse: { joint: 'b_Hip_01', impulse: [0, 1e5, 0] } }) // explodes
    }
    for (let k = 0; k < 100; k++) {
      script2(plugin, a.ball, k)
      plugin.step()
    }
    expect(problems(plugin).map((e) => [e.kind, e.entity])).toEqual([['ragdoll-exploded', f2]])
    expect(plugin.physics.bodies.indexOf(a.ball)).toBe(1 + description.bodies.length)
    const bytes = plugin.snapshot()

    // The other side: the game rebuilds its world and its ball's state, then the plugin restores.
    const b = game()
    b.physics.addBody(b.ball)
    for (const key of ['position', 'velocity', 'angularVelocity'] as const) b.ball[key].copy(a.ball[key])
    b.ball.quaternion.copy(a.ball.quaternion)
    const copy = fresh({ ...OPTIONS, physics: { world: b.physics } })
    copy.plugin.restore(bytes)
    expect(copy.plugin.physics.bodies.indexOf(b.ball)).toBe(1 + description.bodies.length)
    expect(copy.plugin.events).toEqual(plugin.events)
    expect(contextOf(copy.plugin).ragdolls[f1]!.bodies).toEqual(contextOf(plugin).ragdolls[f1]!.bodies)
    expect(copy.plugin.snapshot()).toEqual(bytes)
    for (let k = 100; k < 200; k++) {
      plugin.step()
      copy.plugin.step()
      expect(copy.plugin.hash()).toBe(plugin.hash())
      expect(b.ball.position.toArray()).toEqual(a.ball.position.toArray())
    }
  })

  it('stores key cursors in 1, 2 or 4 bytes, as the registered clips need, and restores them whole', () => {
    // Keys a channel: 61, 381 and 66,001; the clips play near their ends, so their cursors need every byte.
    for (const [keysPerSecond, bytes] of [
      [30, 1],
      [190, 2],
      [33_000, 4],
    ] as const) {
      const asset = createBenchRig({ joints: 4, keysPerSecond })
      const make = () => {
        const world = createWorld()
        const plugin = createAnimationPlugin(world, OPTIONS)
        plugin.addAsset(asset)
        return plugin
      }
      const plugin = make()
      const a = plugin.addCharacter(asset)
      const b = plugin.addCharacter(asset)
      // a's clip at 1.97 + dt: key 65,560 of 66,001 (a cursor per time track: the rig's channels share one).
      plugin.play(a, 0, { time: 1.97 })
      plugin.play(b, 1, { time: 1.9 })
      plugin.step()
      plugin.crossFade(b, 2, 0.5, { time: 1.95 })
      plugin.step()
      const cursors = contextOf(plugin).cursors[a]!
      expect(Math.max(...cursors)).toBeGreaterThan(bytes === 1 ? 50 : bytes === 2 ? 255 : 65_535)
      const snapshot = plugin.snapshot()
      const map = mapSnapshot(snapshot, layoutsOf(contextOf(plugin)))
      expect(map.characters.get(a)!.cursorBytes).toBe(bytes)
      const copy = make()
      copy.restore(snapshot)
      expect(Array.from(contextOf(copy).cursors[a]!)).toEqual(Array.from(cursors))
      expect(Array.from(contextOf(copy).cursors[b]!)).toEqual(Array.from(contextOf(plugin).cursors[b]!))
      expect(copy.hash()).toBe(plugin.hash())
      for (let k = 0; k < 5; k++) {
        plugin.step()
        copy.step()
      }
      expect(copy.hash()).toBe(plugin.hash())
      expect(copy.snapshot()).toEqual(plugin.snapshot())
    }
  })

  it('is compact binary: 10 Fox characters, playing and ragdolling', () => {
    const sizes: Record<string, number> = {}
    for (const mode of ['playing', 'ragdolling'] as const) {
      const { plugin } = fresh()
      const ids: number[] = []
      for (let i = 0; i < 10; i++) {
        const e = plugin.addCharacter(fox)
        place(plugin, e, 0.01, i * 1.5)
        plugin.play(e, i % 2 === 0 ? 'Walk' : 'Run')
        ids.push(e)
      }
      for (let k = 0; k < 30; k++) plugin.step()
      if (mode === 'ragdolling') {
        for (const e of ids) plugin.ragdoll(e)
        for (let k = 0; k < 30; k++) plugin.step()
      }
      const bytes = plugin.snapshot()
      sizes[mode] = bytes.length
      expect(bytes[0]).toBe(0x45) // "EASN", not JSON
      expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('EASN')

      if (mode === 'playing') {
        // Every byte accounted for, from the layout in snapshot/format.ts and its sections' files: sections
        // are a tag and a length, then their body padded to 8 bytes.
        const n = fox.nodes.length
        const pad = (x: number, to: number) => x + (-x & (to - 1))
        const section = (body: number) => 8 + pad(body, 8)
        let columns = 4 + 4 * 10 + 4 // count, ids, the bytes of a key cursor
        for (const layout of layoutsOf(contextOf(plugin)).character) {
          for (const f of layout.fields) {
            columns = pad(columns, f.data.BYTES_PER_ELEMENT) + 10 * f.stride * f.data.BYTES_PER_ELEMENT
          }
        }
        const cursors = contextOf(plugin).cursors[ids[0]!]!.length
        // The Fox's clips have fewer than 256 keys a channel: a byte a cursor.
        const cursorBytes = pad(cursors, 4)
        // Per character, its ANIM layer: a byte a joint, then the floats of each translation, rotation and scale
        // that differs from the rest pose in some bit (counted here from the pose pool itself).
        const ctx = contextOf(plugin)
        const words = new Int32Array(ctx.pool.data.buffer, ctx.pool.data.byteOffset, ctx.pool.data.length)
        const rest = new Int32Array(ctx.assets[0]!.rest.buffer, ctx.assets[0]!.rest.byteOffset, 10 * n)
        let anims = 0
        for (const e of ids) {
          const at = 10 * ctx.stores.Pose.base[e]!
          let floats = 0
          for (const [from, to] of [
            [0, 3],
            [3, 7],
            [7, 10],
          ] as const) {
            for (let j = 0; j < n; j++) {
              let same = true
              for (let k = from; k < to; k++) same &&= words[at + 10 * j + k] === rest[10 * j + k]
              if (!same) floats += to - from
            }
          }
          expect(floats).toBeLessThan(10 * n)
          anims += pad(n, 4) + 4 * floats
        }
        const nodes = 10 * (n + 1) // characters and joints: ids 1..N, one run
        const pool = contextOf(plugin).pool
        const expected =
          48 + // header
          section(2 + 28) + // one asset
          section(12 + 8) + // the entity index: one run of ids
          section(12 + 4 * pool.free.length) + // pose pool
          // Scene nodes: one run of ids, parents, flags, no link order; the 10 character nodes' locals (each a
          // run of its own: the joints' locals are their ANIM layers), no world matrix.
          section(pad(8 + 8 + 4 * nodes + nodes, 4) + 4 + (4 + 10 * 8 + 10 * 40) + 4) +
          // Characters: ids, store columns, then per character its clips, flags, cursors and the ANIM layer's
          // paths that are not the rest pose's (its joints are a run of ids after its own; the other layers hold
          // the rest pose).
          section(pad(columns, 4) + 10 * (16 + cursorBytes) + anims) +
          section(4) + // no layers
          section(4) + // no morph weights
          section(4) + // no root motion
          section(4) + // no pose edits or IK solvers
          section(8) + // no state machines
          section(4) + // no ragdoll runtimes
          section(40 + 4 + (4 + 2 + 1 + 56) + 4 + 1 + 4 + 4) + // physics: the ground, its broadphase list
          section(12) + // no dropped clip events, no problem reported, no events (30 steps: neither clip has looped)
          section(8 + 40) + // levels of detail: never set, off; camera, near, far
          section(8) // the clock: the time scale
        expect(bytes.length).toBe(expected)
      }
    }
    console.log(
      `snapshot of 10 Fox characters: ${sizes.playing} bytes playing, ${sizes.ragdolling} bytes ragdolling ` +
        `(${(sizes.playing! / 10).toFixed(0)} and ${(sizes.ragdolling! / 10).toFixed(0)} per character)`,
    )
    expect(sizes.playing).toBeLessThan(10 * 1_600)
    expect(sizes.ragdolling).toBeLessThan(10 * 20_000)
  })
})
