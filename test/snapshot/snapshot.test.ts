/**
 * Snapshot and restore (snapshot/) on real Fox characters: a snapshot taken mid-simulation and
 * restored into a fresh world and plugin must step on bit-identically (equal `hash()` after every step) with the
 * same entity ids, round-trip to the same bytes, stay compact, and be refused — changing nothing — when it
 * cannot be restored.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import {
  $internal,
  addEntity,
  createWorld,
  entityExists,
  removeEntity,
  type InternalWorld,
  type World,
} from 'bitecs'
import { Body, Plane, Sphere, Vec3, World as PhysicsWorld } from 'cannon-es'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import {
  createAnimationPlugin,
  type AnimationPlugin,
  type AnimationPluginOptions,
} from '../../entry/plugin.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { layoutsOf, SNAPSHOT_VERSION } from '../../snapshot/format.ts'
import { generateRagdollDescription } from '../../src/physics/generate.ts'
import { buildClip } from '../../src/clip/clip.ts'
import { contextOf } from '../../entry/plugin.ts'
import { problems } from '../helpers/ecs.ts'
import { reseal } from '../helpers/forge.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const FOX_GLTF = 'assets/Fox/glTF/Fox.gltf'
const OTHER = 'assets/RiggedFigure/glTF-Binary/RiggedFigure.glb'
const OPTIONS: AnimationPluginOptions = { capacity: 1024 }

let fox: AnimationAsset
let foxGltf: AnimationAsset
let other: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset(FOX)
  foxGltf = await loadAsset(FOX_GLTF)
  other = await loadAsset(OTHER)
})

interface Scene {
  world: World
  plugin: AnimationPlugin
  /** Walks, then cross-fades (mid-fade at step 300). */
  a: number
  /** Ragdolls at step 60 (lying on the ground at 300), gets up at 420, falls again at 520. */
  b: number
  /** Runs, ragdolls at 340 (after the snapshot), is hit again at 500. */
  c: number
  /** Ragdolls in the same step as c (so their spawn order, the systems' query order, matters). */
  d: number
  /** A game entity with a SceneNode hanging on a's head joint. */
  hat: number
}

/** Fox is in centimetres: scale the character root to metres for the ragdolls (scripts_ragdoll_try.ts). */
function place(plugin: AnimationPlugin, eid: number, scale: number, x: number): void {
  const nodes = plugin.stores.SceneNode
  nodes.scale.fill(scale, eid * 3, eid * 3 + 3)
  nodes.translation[eid * 3] = x
  nodes.dirty[eid] = 1
}

function build(): Scene {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, OPTIONS)
  plugin.addAsset(fox)
  addEntity(world) // a game entity of its own, alive, not the plugin's
  const a = plugin.addCharacter(fox)
  const temporary = addEntity(world)
  const b = plugin.addCharacter(fox)
  const c = plugin.addCharacter(fox)
  const d = plugin.addCharacter(fox)
  // A game node hanging on a joint (a hat), and a free id in the entity index.
  const hat = addEntity(world)
  addSceneNode(plugin.sceneGraph, hat, plugin.jointEntity(a, 'b_Head_05'))
  plugin.stores.SceneNode.translation[hat * 3 + 1] = 12
  removeEntity(world, temporary)
  place(plugin, a, 1, -300)
  place(plugin, b, 0.01, 0)
  place(plugin, c, 0.01, 0.35)
  place(plugin, d, 0.01, -0.45)
  return { world, plugin, a, b, c, d, hat }
}

/** What the game does before fixed step `k` (k steps already run). The same calls in both worlds. */
function script(s: Scene, k: number): void {
  const p = s.plugin
  if (k === 0) {
    p.play(s.a, 'Walk')
    p.play(s.b, 'Survey')
    p.play(s.c, 'Run')
    p.play(s.d, 'Walk')
  }
  if (k === 60) p.ragdoll(s.b, { impulse: { joint: 'b_Spine02_03', impulse: [5, 0, 0] } })
  if (k === 250) p.crossFade(s.a, 'Run', 1)
  // Right after a snapshot at 300: a hit on a lying ragdoll (uses its last read-back joint positions).
  if (k === 300) p.applyImpulse(s.b, 'b_Head_05', [0, 2, 1])
  if (k === 340) {
    p.ragdoll(s.c, { impulse: { joint: 'b_Spine02_03', impulse: [-4, 1, 0] } })
    p.ragdoll(s.d, { impulse: { joint: 'b_Spine02_03', impulse: [4, 1, 0] } })
  }
  if (k === 410) p.crossFade(s.a, 'Survey', 0.5)
  if (k === 420) p.getUp(s.b, { clip: 'Walk', fadeSeconds: 0.4 })
  if (k === 500) p.applyImpulse(s.c, 'b_Hip_01', [0, 3, 1])
  // b falls again: its new bodies come after c's and d's in the physics world.
  if (k === 520) p.ragdoll(s.b)
}

function run(s: Scene, from: number, to: number): void {
  for (let k = from; k < to; k++) {
    script(s, k)
    s.plugin.step()
  }
}

function fresh(options: AnimationPluginOptions = OPTIONS, assets: AnimationAsset[] = [fox]) {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, options)
  for (const asset of assets) plugin.addAsset(asset)
  return { world, plugin }
}

/** Restores `bytes` into a fresh world and plugin with the scene's character ids. */
function restored(bytes: Uint8Array, like: Scene): Scene {
  const { world, plugin } = fresh()
  plugin.restore(bytes)
  return { world, plugin, a: like.a, b: like.b, c: like.c, d: like.d, hat: like.hat }
}

/** Steps both from step `from` to `to` under the script; returns the first step whose hashes differ, or -1. */
function firstDivergence(x: Scene, y: Scene, from: number, to: number): number {
  for (let k = from; k < to; k++) {
    script(x, k)
    script(y, k)
    x.plugin.step()
    y.plugin.step()
    if (x.plugin.hash() !== y.plugin.hash()) return k + 1
  }
  return -1
}

function entityIndex(world: World) {
  return (world as InternalWorld)[$internal].entityIndex
}

function rejects(f: () => void, pattern: RegExp): void {
  let error: unknown
  try {
    f()
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(AnimationError)
  expect((error as AnimationError).kind).toBe('snapshot')
  expect((error as Error).message).toMatch(pattern)
}

/** Rewrites the header's length and checksum after editing a snapshot, so deeper checks are reached. */
const resealed = reseal

/** Where the body of the section tagged `tag` starts (sections: u32 tag, u32 length, body; from byte 48). */
function sectionBody(bytes: Uint8Array, tag: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset)
  for (let at = 48; at < bytes.length; at += 8 + view.getUint32(at + 4, true)) {
    if (String.fromCharCode(...bytes.subarray(at, at + 4)) === tag) return at + 8
  }
  throw new Error(`no section ${tag}`)
}

function groundContacts(plugin: AnimationPlugin, bodies: readonly Body[]): number {
  const ground = plugin.physics.bodies.find((b) => b.type === Body.STATIC)!
  return plugin.physics.contacts.filter(
    (c) => (c.bi === ground && bodies.includes(c.bj)) || (c.bj === ground && bodies.includes(c.bi)),
  ).length
}

describe('snapshot and restore', () => {
  it('restores into a fresh world that then steps bit-identically for 300 steps, ragdolls on the ground', () => {
    const original = build()
    run(original, 0, 300)
    const { plugin, a, b, c, d } = original

    // The snapshot moment is the hard case: a mid-fade, a ragdoll lying on the ground in contact.
    expect(plugin.stores.CrossFade.active[a]).toBe(1)
    expect(plugin.stores.CrossFade.blend[a]).toBeGreaterThan(0.7)
    expect(plugin.stores.CrossFade.blend[a]).toBeLessThan(1)
    expect(plugin.stores.Ragdoll.weight[b]).toBe(1)
    const bodiesB = contextOf(plugin).ragdolls[b]!.instance!.bodies
    expect(groundContacts(plugin, bodiesB)).toBeGreaterThan(3)
    // Settling: its fastest body still moves at about half a metre per second (0.56 m/s measured).
    expect(
      Math.max(...bodiesB.map((x) => Math.hypot(x.velocity.x, x.velocity.y, x.velocity.z))),
    ).toBeLessThan(0.75)

    const bytes = plugin.snapshot()
    const copy = restored(bytes, original)
    expect(copy.plugin.hash()).toBe(plugin.hash())
    expect(copy.plugin.joints(b)).toEqual(plugin.joints(b))
    // The scene graph as it was, child lists in the same order, the game's hat included.
    for (const key of ['firstChild', 'nextSibling', 'prevSibling'] as const) {
      expect(copy.plugin.sceneGraph[key]).toEqual(plugin.sceneGraph[key])
    }
    expect(entityIndex(copy.world).dense).toEqual(entityIndex(original.world).dense)
    expect(copy.plugin.physics.bodies.length).toBe(plugin.physics.bodies.length)

    const hashes = new Set<string>()
    let diverged = -1
    let gotUp: (number | undefined)[] = []
    for (let k = 300; k < 600 && diverged < 0; k++) {
      script(original, k)
      script(copy, k)
      original.plugin.step()
      copy.plugin.step()
      hashes.add(original.plugin.hash())
      if (original.plugin.hash() !== copy.plugin.hash()) diverged = k + 1
      if (k === 450) gotUp = [original, copy].map((s) => s.plugin.stores.Ragdoll.weight[b])
    }
    expect(diverged).toBe(-1)
    expect(hashes.size).toBe(300) // the scene kept moving: every step's state differs

    // What happened after the snapshot happened in both: b got up and fell again, c and d fell, a faded.
    expect(gotUp).toEqual([0, 0])
    const hat = (s: Scene) =>
      Array.from(s.plugin.stores.SceneNode.world.subarray(s.hat * 16, s.hat * 16 + 16))
    expect(hat(copy)).toEqual(hat(original))
    expect(hat(original)).not.toEqual(Array.from({ length: 16 }, (_, i) => (i % 5 === 0 ? 1 : 0)))
    for (const s of [original, copy]) {
      expect(s.plugin.stores.Ragdoll.weight[b]).toBe(1)
      expect(s.plugin.stores.Ragdoll.weight[c]).toBe(1)
      expect(s.plugin.stores.Ragdoll.weight[d]).toBe(1)
      expect(s.plugin.stores.Sampler.clip[a]).toBe(s.plugin.clipId(a, 'Survey'))
    }
    // The entity index came back as it was: the next id (the recycled one) is the same in both worlds.
    expect(addEntity(copy.world)).toBe(addEntity(original.world))
    expect(addEntity(copy.world)).toBe(addEntity(original.world))
  })

  it('restores a snapshot taken mid-get-up and mid-fade, with a fresh ragdoll falling onto the one getting up', () => {
    const original = build()
    run(original, 0, 425)
    const { plugin, a, b, c } = original
    expect(plugin.stores.Ragdoll.active[b]).toBe(2) // RAGDOLL_GETTING_UP
    expect(plugin.stores.Ragdoll.weight[b]).toBeGreaterThan(0)
    expect(plugin.stores.Ragdoll.weight[b]).toBeLessThan(1)
    expect(plugin.stores.CrossFade.active[b]).toBe(1)
    expect(plugin.stores.CrossFade.active[a]).toBe(1)
    expect(plugin.stores.Ragdoll.weight[c]).toBe(1)

    const copy = restored(plugin.snapshot(), original)
    expect(copy.plugin.hash()).toBe(plugin.hash())
    expect(firstDivergence(original, copy, 425, 560)).toBe(-1)
  })

  it('restores the moment a ragdoll was requested (bodies not spawned yet, its hit still queued)', () => {
    const original = build()
    run(original, 0, 60)
    script(original, 60) // ragdoll(b) with a hit: spawns on the next step
    expect(contextOf(original.plugin).ragdolls[original.b]!.instance).toBeNull()
    expect(contextOf(original.plugin).ragdolls[original.b]!.impulses).toHaveLength(1)
    const copy = restored(original.plugin.snapshot(), original)
    expect(contextOf(copy.plugin).ragdolls[original.b]!.impulses).toEqual(
      contextOf(original.plugin).ragdolls[original.b]!.impulses,
    )
    original.plugin.step()
    copy.plugin.step()
    expect(copy.plugin.hash()).toBe(original.plugin.hash())
    expect(firstDivergence(original, copy, 61, 200)).toBe(-1)
  })

  it('restores the float64 values past float32’s range that public calls give (bodies 1e40 away, 1e300 speeds)', () => {
    // Each state is made with public calls only, so the plugin holds it and its snapshot must restore; a
    // float32 bound on these float64 values refused every one (npm run fuzz found the first: a node scaled 1e20
    // under one scaled 1e20 put the ragdoll's bodies 1e40 from the origin).
    const states: [string, (plugin: AnimationPlugin, world: World) => number][] = [
      [
        'a character under scales 1e20 · 1e20 (its ragdoll, bodies 1e40 away, is refused since)',
        (plugin, world) => {
          const huge = addEntity(world)
          addSceneNode(plugin.sceneGraph, huge, 0)
          plugin.stores.SceneNode.scale.fill(1e20, huge * 3, huge * 3 + 3)
          const c = plugin.addCharacter(fox, { parent: huge })
          plugin.setTransform(c, { scale: [1e20, 1e20, 1e20] })
          plugin.step()
          // Bodies past RAGDOLL_MAX_EXTENT cannot be built (src/physics/ragdoll.ts unbuildableBody).
          expect(() => plugin.ragdoll(c)).toThrow(AnimationError)
          plugin.step()
          plugin.step()
          return c
        },
      ],
      [
        'a queued hit of 1e39 N·s',
        (plugin) => {
          const c = plugin.addCharacter(fox)
          plugin.ragdoll(c, { impulse: { joint: 'b_Hip_01', impulse: [1e39, 0, 0] } })
          return c
        },
      ],
      [
        'a hit of 1e300 N·s on live bodies',
        (plugin) => {
          const c = plugin.addCharacter(fox)
          plugin.ragdoll(c)
          plugin.step()
          plugin.step()
          plugin.applyImpulse(c, 'b_Hip_01', [1e300, 0, 0])
          return c
        },
      ],
      [
        // Not a float64 bound, the same kind of refusal: the reader held capsules to 255 spheres, but ragdoll()
        // takes any length and spawning builds at most 128 spheres of one.
        'a described capsule of 2,000,000 spheres',
        (plugin) => {
          const c = plugin.addCharacter(fox)
          const bodies = generateRagdollDescription(fox).bodies.map((b, i) =>
            i === 0 ? { ...b, length: 1e6, radius: 1 } : b,
          )
          plugin.ragdoll(c, { description: { bodies } })
          return c
        },
      ],
      [
        'a fade of 1e300 s, a speed of 1e300, a ramp rate of 1e300',
        (plugin) => {
          const c = plugin.addCharacter(fox)
          plugin.play(c, 'Walk', { speed: 1e300 })
          plugin.step()
          plugin.crossFade(c, 'Run', 1e300)
          plugin.step()
          plugin.ragdoll(c, { rate: 1e300 })
          return c
        },
      ],
    ]
    for (const [name, make] of states) {
      const { world, plugin } = fresh()
      make(plugin, world)
      const bytes = plugin.snapshot()
      const copy = fresh()
      let error: unknown = null
      try {
        copy.plugin.restore(bytes)
      } catch (e) {
        error = e
      }
      expect(error === null ? null : String(error), name).toBeNull()
      expect(copy.plugin.snapshot(), name).toEqual(bytes)
      for (let k = 0; k < 5; k++) {
        plugin.step()
        copy.plugin.step()
        expect(copy.plugin.hash(), `${name}, step ${k + 1}`).toBe(plugin.hash())
      }
      expect(
        copy.plugin.stores.SceneNode.world.every((x) => Number.isFinite(x)),
        name,
      ).toBe(true)
    }
  })

  it('round-trips: snapshot → restore → snapshot gives the same bytes', () => {
    for (const steps of [0, 1, 300, 425, 560]) {
      const original = build()
      run(original, 0, steps)
      const bytes = original.plugin.snapshot()
      const copy = restored(bytes, original)
      expect(copy.plugin.snapshot()).toEqual(bytes)
    }
    // An empty plugin round-trips too.
    const empty = fresh()
    const bytes = empty.plugin.snapshot()
    const copy = fresh()
    copy.plugin.restore(bytes)
    expect(copy.plugin.snapshot()).toEqual(bytes)
    expect(copy.plugin.hash()).toBe(empty.plugin.hash())
  })

  it('keeps a pose layer that differs from the rest pose only by the sign of a zero', () => {
    // A layer equal to the rest pose is left out of the snapshot; the comparison goes two floats at a time,
    // where +0 and -0 compare equal: -0 beside a 0 must still count as a difference.
    const original = fresh()
    const c = original.plugin.addCharacter(fox)
    original.plugin.step()
    const ctx = contextOf(original.plugin)
    const rest = ctx.assets[ctx.stores.Pose.asset[c]!]!.rest
    const n = ctx.stores.Pose.count[c]!
    const phys = (ctx.stores.Pose.base[c]! + 2 * n) * 10 // LAYER_PHYS: still the rest pose
    let k = 1
    while (!(Object.is(rest[k], 0) && Object.is(rest[k - 1], 0))) k += 2
    ctx.pool.data[phys + k] = -0
    ctx.poseLayersUsed[c] = ctx.poseLayersUsed[c]! | 4 // written, as every writer of a layer marks it
    const bytes = original.plugin.snapshot()
    const copy = fresh()
    copy.plugin.restore(bytes)
    expect(Object.is(contextOf(copy.plugin).pool.data[phys + k], -0)).toBe(true)
    expect(copy.plugin.hash()).toBe(original.plugin.hash())
  })

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
        let columns = 4 + 4 * 10
        for (const layout of layoutsOf(contextOf(plugin)).character) {
          for (const f of layout.fields) {
            columns = pad(columns, f.data.BYTES_PER_ELEMENT) + 10 * f.stride * f.data.BYTES_PER_ELEMENT
          }
        }
        const cursors = contextOf(plugin).cursors[ids[0]!]!.length
        const nodes = 10 * (n + 1) // characters and joints: ids 1..N, one run
        const pool = contextOf(plugin).pool
        const expected =
          48 + // header
          section(2 + 20) + // one asset
          section(12 + 8) + // the entity index: one run of ids
          section(12 + 4 * pool.free.length) + // pose pool
          // Scene nodes: one run of ids, parents, flags, no link order; the 10 character nodes' locals (each a
          // run of its own: the joints' locals are their ANIM layers), no world matrix.
          section(pad(8 + 8 + 4 * nodes + nodes, 4) + 4 + (4 + 10 * 8 + 10 * 40) + 4) +
          // Characters: ids, store columns, then per character its clips, flags, cursors and the ANIM layer (its
          // joints are a run of ids after its own; the other layers hold the rest pose).
          section(pad(columns, 4) + 10 * (16 + 4 * cursors + 40 * n)) +
          section(4) + // no layers
          section(4) + // no morph weights
          section(4) + // no root motion
          section(4) + // no ragdoll runtimes
          section(40 + 4 + (4 + 2 + 1 + 56) + 4 + 1 + 4 + 4) + // physics: the ground, its broadphase list
          section(12) + // no dropped clip events, no problem reported, no events (30 steps: neither clip has looped)
          section(8 + 40) // levels of detail: never set, off; camera, near, far
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

describe('restore rejects, changing nothing', () => {
  let bytes: Uint8Array
  beforeAll(() => {
    const s = build()
    run(s, 0, 100)
    bytes = s.plugin.snapshot()
  })

  /** A fresh target; after `f` throws, it must be exactly as fresh as before, and still accept the snapshot. */
  function rejectsUnchanged(f: (plugin: AnimationPlugin) => void, pattern: RegExp) {
    const target = fresh()
    const pristine = fresh().plugin.hash()
    rejects(() => f(target.plugin), pattern)
    expect(target.plugin.hash()).toBe(pristine)
    expect(entityIndex(target.world).maxId).toBe(0)
    expect(target.plugin.physics.bodies).toHaveLength(1)
    expect(contextOf(target.plugin).ragdolls.filter(Boolean)).toHaveLength(0)
    target.plugin.restore(bytes)
  }

  it('a snapshot of another format version', () => {
    const other = bytes.slice()
    new DataView(other.buffer).setUint16(4, SNAPSHOT_VERSION + 1, true)
    rejectsUnchanged(
      (p) => p.restore(other),
      new RegExp(`format version ${SNAPSHOT_VERSION + 1}; this build reads version ${SNAPSHOT_VERSION} only`),
    )
  })

  it('something that is not a snapshot', () => {
    const json = new TextEncoder().encode(JSON.stringify({ hello: 'world', padding: 'x'.repeat(64) }))
    rejectsUnchanged(
      (p) => p.restore(json),
      /does not start with "EASN" \(45 41 53 4e\) but with 7b 22 68 65/,
    )
    rejectsUnchanged(
      (p) => p.restore([1, 2, 3] as unknown as Uint8Array),
      /expected the Uint8Array of a snapshot, got \[1,2,3\]/,
    )
  })

  it('a truncated snapshot', () => {
    rejectsUnchanged(
      (p) => p.restore(bytes.subarray(0, bytes.length - 1)),
      new RegExp(`truncated: ${bytes.length - 1} of its ${bytes.length} bytes`),
    )
    rejectsUnchanged(
      (p) => p.restore(bytes.subarray(0, 20)),
      /truncated: 20 bytes, shorter than the 48-byte header/,
    )
    // Cut inside a section, with a header that agrees: the section reader notices.
    rejectsUnchanged(
      (p) => p.restore(resealed(bytes.subarray(0, 304))),
      /section "nodes": length \d+ runs past the snapshot's end/,
    )
    // A free-range count as large as the pool allows: its ranges run past the section's end.
    const long = bytes.slice()
    const view = new DataView(long.buffer)
    const pool = sectionBody(long, 'POOL')
    view.setUint32(pool + 8, view.getUint32(pool, true), true)
    rejectsUnchanged(
      (p) => p.restore(resealed(long)),
      /truncated in section "pool": \d+ bytes needed at offset \d+, the section has \d+/,
    )
    const longer = new Uint8Array(bytes.length + 3)
    longer.set(bytes)
    rejectsUnchanged(
      (p) => p.restore(longer),
      new RegExp(`is ${bytes.length} bytes, but ${bytes.length + 3} were given`),
    )
  })

  it('a corrupt snapshot (one bit flipped)', () => {
    const flipped = bytes.slice()
    flipped[Math.floor(bytes.length / 2)]! ^= 0x10
    rejectsUnchanged(
      (p) => p.restore(flipped),
      /is corrupt: checksum [0-9a-f]{16} of its contents differs from the recorded [0-9a-f]{16}/,
    )
  })

  it('a plugin with another capacity, dt or pose pool size', () => {
    rejects(() => fresh({ capacity: 2048 }).plugin.restore(bytes), /has capacity 1024, this plugin 2048/)
    rejects(
      () => fresh({ ...OPTIONS, dt: 1 / 30 }).plugin.restore(bytes),
      /has dt 0.016666666666666666 s, this plugin 0.03333333333333333 s/,
    )
    rejects(
      () => fresh({ ...OPTIONS, maxPoseSlots: 999 }).plugin.restore(bytes),
      /has maxPoseSlots 16384, this plugin 999/,
    )
  })

  it('a plugin with other physics: no ground, another ground height, other gravity', () => {
    rejects(
      () => fresh({ ...OPTIONS, physics: { ground: false } }).plugin.restore(bytes),
      /non-ragdoll static body at physics index 0; this plugin's physics world has only 0 bodies there/,
    )
    rejects(
      () => fresh({ ...OPTIONS, physics: { ground: 1 } }).plugin.restore(bytes),
      /static body 0 is at \(0, 0, 0\), this plugin's at \(0, 1, 0\)/,
    )
    rejects(
      () => fresh({ ...OPTIONS, physics: { gravity: [0, -1.62, 0] } }).plugin.restore(bytes),
      /has gravity \(0, -9.82, 0\), this plugin's physics world \(0, -1.62, 0\)/,
    )
  })

  it('a different asset set: none, another asset, Fox twice, Fox with one key changed', () => {
    rejects(
      () => fresh(OPTIONS, []).plugin.restore(bytes),
      /has 1 assets, this plugin 0: add the same assets in the same order/,
    )
    rejects(
      () => fresh(OPTIONS, [other]).plugin.restore(bytes),
      /asset 0 \(26 joints, 3 clips, fingerprint [0-9a-f]{16}\) differs from this plugin's asset 0, .*RiggedFigure.glb \(\d+ joints, 1 clips, fingerprint [0-9a-f]{16}\)/,
    )
    rejects(() => fresh(OPTIONS, [fox, foxGltf]).plugin.restore(bytes), /has 1 assets, this plugin 2/)
    // The same Fox with one key of one channel moved by 1e-3 (rebuilt with buildClip, as a loader would).
    const walk = fox.clips[1]!
    const rebuilt = buildClip({
      name: walk.name,
      channels: walk.channels.map((ch, i) => {
        const values = Float32Array.from(ch.values)
        if (i === 3) values[5] = values[5]! + 1e-3
        return { node: ch.node, path: ch.path, interpolation: ch.interpolation, times: ch.times, values }
      }),
    })
    const changed: AnimationAsset = { ...fox, clips: fox.clips.map((c, i) => (i === 1 ? rebuilt : c)) }
    rejects(
      () => fresh(OPTIONS, [changed]).plugin.restore(bytes),
      /asset 0 \(26 joints, 3 clips, fingerprint [0-9a-f]{16}\) differs/,
    )
  })

  it('a world where a game entity holds an id the snapshot’s plugin needs (and one where none does)', () => {
    // The snapshot's world: game entity 1, character a at 2 and its joints after it.
    const used = fresh()
    const game = [addEntity(used.world), addEntity(used.world), addEntity(used.world)]
    const before = { hash: used.plugin.hash(), bytes: used.plugin.snapshot() }
    rejects(() => used.plugin.restore(bytes), /needs entity 2 for its character 2, and it is the game's now/)
    expect(used.plugin.hash()).toBe(before.hash)
    expect(used.plugin.snapshot()).toEqual(before.bytes)
    expect(entityIndex(used.world).maxId).toBe(3)
    expect(game.every((e) => entityExists(used.world, e))).toBe(true)
    // A world whose game entity is the snapshot's own (id 1): restored around it.
    const ok = fresh()
    const one = addEntity(ok.world)
    ok.plugin.restore(bytes)
    const original = build()
    run(original, 0, 100)
    expect(ok.plugin.hash()).toBe(original.plugin.hash())
    expect(entityExists(ok.world, one)).toBe(true)
  })

  it('a disposed plugin', () => {
    const gone = fresh()
    gone.plugin.dispose()
    expect(() => gone.plugin.restore(bytes)).toThrow(/restore: the animation plugin was disposed/)
    expect(() => gone.plugin.snapshot()).toThrow(/snapshot: the animation plugin was disposed/)
  })
})
