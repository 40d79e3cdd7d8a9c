/**
 * Snapshot and restore (snapshot/) on real Fox characters: a snapshot taken mid-simulation and restored into a fresh
 * world and plugin steps on bit-identically (equal `hash()` after every step) with the same entity ids, and
 * keeps values exactly: float64 values past float32's range, the same bytes after a round trip, the sign of a
 * zero.
 * Setup: test/helpers/snapshot.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { addEntity, type World } from 'bitecs'
import { Body } from 'cannon-es'
import { AnimationError } from '../../src/errors.ts'
import { type AnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { generateRagdollDescription } from '../../src/physics/generate.ts'
import {
  fox,
  loadAssets,
  type Scene,
  build,
  script,
  run,
  fresh,
  restored,
  firstDivergence,
  entityIndex,
  groundContacts,
} from '../helpers/snapshot.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

beforeAll(loadAssets)

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
    const bodiesB = ragdollInstance(contextOf(plugin).ragdolls[b]!.instance)!.bodies
    // Awake (it slept from ~220 until the script's push at 280): a sleeping ragdoll has no contacts.
    expect(bodiesB.filter((x) => x.sleepState === Body.SLEEPING)).toHaveLength(0)
    expect(groundContacts(plugin, bodiesB)).toBeGreaterThan(3)
    // Lying: its fastest body has about one step of gravity's speed against the projection (0.69 m/s measured).
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
    const phys = (ctx.stores.Pose.base[c]! + 2 * n) * 10 // POSE_PHYS: still the rest pose
    let k = 1
    while (!(Object.is(rest[k], 0) && Object.is(rest[k - 1], 0))) k += 2
    ctx.pool.data[phys + k] = -0
    ctx.posesUsed[c] = ctx.posesUsed[c]! | 4 // written, as every writer of a layer marks it
    const bytes = original.plugin.snapshot()
    const copy = fresh()
    copy.plugin.restore(bytes)
    expect(Object.is(contextOf(copy.plugin).pool.data[phys + k], -0)).toBe(true)
    expect(copy.plugin.hash()).toBe(original.plugin.hash())
  })
})
