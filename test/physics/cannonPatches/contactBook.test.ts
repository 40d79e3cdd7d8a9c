/**
 * The plugin's contact bookkeeping (src/physics/cannonPatches/contactBook.ts) against cannon-es's own: the same answers under
 * random use (the reference: cannon-es's ArrayCollisionMatrix and OverlapKeeper), and in a plugin, the same
 * state hash every step and the same world events as a plugin whose world keeps cannon-es's.
 */
import { createWorld } from 'bitecs'
import { ArrayCollisionMatrix, Body, Shape, World } from 'cannon-es'
import { beforeAll, describe, expect, it } from 'vitest'
import { LazyOverlapKeeper, PairSet } from '../../../src/physics/cannonPatches/contactBook.ts'
import { loadAsset } from '../../../src/gltf/load.ts'
import type { AnimationAsset } from '../../../src/gltf/asset.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../../entry/plugin.ts'

/** A small deterministic generator (the test's own; not the step's). */
function lcg(seed: number): () => number {
  let x = seed >>> 0
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x / 4294967296
  }
}

type Counter = { idCounter: number }

type Keeper = {
  set(i: number, j: number): void
  tick(): void
  getDiff(a: number[], r: number[]): void
}

describe('contact bookkeeping', () => {
  it('PairSet answers as ArrayCollisionMatrix does, across resets and growth', () => {
    const random = lcg(7)
    const bodies = Array.from({ length: 300 }, (_, i) => Object.assign(new Body(), { index: i }))
    const ours = new PairSet()
    const theirs = new ArrayCollisionMatrix()
    theirs.setNumObjects(bodies.length)
    let hits = 0
    for (let step = 0; step < 40; step++) {
      ours.reset()
      theirs.reset()
      const sets = Math.floor(random() * 400)
      for (let k = 0; k < sets; k++) {
        const a = bodies[Math.floor(random() * bodies.length)]!
        const b = bodies[Math.floor(random() * bodies.length)]!
        if (a === b) continue
        const value = random() < 0.95
        ours.set(a, b, value)
        theirs.set(a, b, value)
      }
      for (let k = 0; k < 600; k++) {
        const a = bodies[Math.floor(random() * 40)]!
        const b = bodies[Math.floor(random() * 40)]!
        if (a === b) continue
        const answer = theirs.get(a, b) === 1
        if (answer) hits++
        expect(ours.get(a, b)).toBe(answer)
        expect(ours.get(b, a)).toBe(answer)
      }
    }
    expect(hits, 'the queries met set pairs').toBeGreaterThan(100)
  })

  it('LazyOverlapKeeper reports the differences OverlapKeeper does, in its order', () => {
    const random = lcg(11)
    const ours: Keeper = new LazyOverlapKeeper()
    const theirs = new World().bodyOverlapKeeper as unknown as Keeper
    let reported = 0
    for (let step = 0; step < 60; step++) {
      ours.tick()
      theirs.tick()
      const sets = Math.floor(random() * 120)
      for (let k = 0; k < sets; k++) {
        const i = Math.floor(random() * 30)
        const j = Math.floor(random() * 30)
        ours.set(i, j)
        theirs.set(i, j)
      }
      if (step % 3 === 2) continue // a step nobody listens to
      const mine = { add: [] as number[], remove: [] as number[] }
      const ref = { add: [] as number[], remove: [] as number[] }
      ours.getDiff(mine.add, mine.remove)
      theirs.getDiff(ref.add, ref.remove)
      expect(mine).toEqual(ref)
      reported += ref.add.length + ref.remove.length
    }
    expect(reported, 'pairs began and ended').toBeGreaterThan(200)
  })

  describe('in a plugin', () => {
    let fox: AnimationAsset
    beforeAll(async () => {
      fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    })

    /** Four Foxes knocked into each other; the world's contact events listed as text. */
    function scene(cannonBook: boolean): { p: AnimationPlugin; events: string[]; foxes: number[] } {
      const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
      const w = p.physics
      if (cannonBook) {
        const fresh = new World()
        w.collisionMatrix = fresh.collisionMatrix
        w.collisionMatrixPrevious = fresh.collisionMatrixPrevious
        w.bodyOverlapKeeper = fresh.bodyOverlapKeeper
        w.shapeOverlapKeeper = fresh.shapeOverlapKeeper
      }
      const events: string[] = []
      const index = (b: Body | null) => (b ? `${w.bodies.indexOf(b)}#${b.id}` : 'none')
      w.addEventListener('beginContact', (e: { bodyA: Body; bodyB: Body }) =>
        events.push(`begin ${index(e.bodyA)} ${index(e.bodyB)}`),
      )
      w.addEventListener('endContact', (e: { bodyA: Body; bodyB: Body }) =>
        events.push(`end ${index(e.bodyA)} ${index(e.bodyB)}`),
      )
      w.addEventListener('beginShapeContact', (e: { bodyA: Body; bodyB: Body }) =>
        events.push(`shape ${index(e.bodyA)} ${index(e.bodyB)}`),
      )
      const foxes: number[] = []
      for (let i = 0; i < 4; i++) {
        const c = p.addCharacter(fox)
        foxes.push(c)
        p.setTransform(c, { position: [0.3 * i, 0.2 * i, 0], scale: [0.01, 0.01, 0.01] })
        p.play(c, 'Walk', { time: 0.1 * i })
      }
      return { p, events, foxes }
    }

    /** The scene stepped 150 times: each step's hash and the world's contact events. */
    function run(cannonBook: boolean): { hashes: string[]; events: string[] } {
      // cannon-es keeps the pairs its shape events read in module arrays and clears them only in the next step's
      // emitContactEvents, where the body events read them first: clear what the last run left there.
      new World().emitContactEvents()
      const s = scene(cannonBook)
      const hashes: string[] = []
      for (let k = 0; k < 150; k++) {
        if (k === 5) {
          s.foxes.forEach((c, i) =>
            s.p.ragdoll(c, { impulse: { joint: 'b_Spine02_03', impulse: [i + 1, 0, 1] } }),
          )
        }
        if (k === 100) s.p.applyImpulse(s.foxes[1]!, 'b_Head_05', [0, 4, 4])
        s.p.step()
        hashes.push(s.p.hash())
      }
      return { hashes, events: s.events }
    }

    it('keeps every step’s hash and the world’s contact events', () => {
      // cannon-es's events carry body and shape ids from global counters: both runs start from the same ids.
      const ids = () => [(Body as unknown as Counter).idCounter, (Shape as unknown as Counter).idCounter]
      const start = ids()
      const a = run(false)
      ;(Body as unknown as Counter).idCounter = start[0]!
      ;(Shape as unknown as Counter).idCounter = start[1]!
      const b = run(true)
      expect(a.hashes).toEqual(b.hashes)
      expect(a.events.length, 'contacts began and ended').toBeGreaterThan(100)
      expect(a.events.some((e) => e.startsWith('end'))).toBe(true)
      expect(a.events).toEqual(b.events)
    })
  })
})
