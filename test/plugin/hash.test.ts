import { describe, expect, it } from 'vitest'
import type { AnimationPlugin } from '../../entry/plugin.ts'
import { createTestPlugin } from '../helpers/ecs.ts'
import { contextOf } from '../../entry/plugin.ts'
import { createWorld } from 'bitecs'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createHasher, type TypedArray } from '../../src/sim/hasher.ts'
import { characterIds } from '../../plugin/characters.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

type Schedule = (plugin: AnimationPlugin, step: number, chars: number[]) => void

/**
 * A busy 600-step schedule: four characters in different states (playing, fading, interrupted fades, paused,
 * once, ping-pong backwards), with characters added and removed mid-run when `churn` is set.
 */
function busySchedule(churn: boolean): Schedule {
  return (plugin, step, chars) => {
    const handle = plugin.addAsset(contextOf(plugin).assets[0]!.asset)
    if (step === 0) {
      for (let i = 0; i < 4; i++) chars.push(plugin.addCharacter(handle))
      plugin.play(chars[0]!, 'Turn')
      plugin.play(chars[1]!, 'Nod', { loop: 'pingpong', speed: -1.3 })
      plugin.play(chars[2]!, 'Wag', { time: 0.4, speed: 0 })
      plugin.play(chars[3]!, 'Nod', { loop: 'once', rotation: 'squad' })
    }
    if (step % 97 === 13) plugin.crossFade(chars[0]!, step % 2 ? 'Nod' : 'Wag', 0.35)
    if (step % 61 === 7) plugin.crossFade(chars[1]!, ['Turn', 'Wag', 'Nod'][step % 3]!, 0.2, { speed: 0.8 })
    if (step === 200) plugin.crossFade(chars[2]!, 'Turn', 0.5)
    if (step === 220) plugin.crossFade(chars[2]!, 'Nod', 0.25) // interrupts the fade above
    if (step === 400) plugin.play(chars[3]!, 'Wag', { loop: 'once', speed: -1, time: 2 })
    if (!churn) return
    if (step === 150 || step === 310) {
      const e = plugin.addCharacter(handle)
      chars.push(e)
      plugin.crossFade(e, 'Turn', 0.3, { time: 0.1 * step })
    }
    if (step === 250 || step === 450) plugin.removeCharacter(chars.splice(1, 1)[0]!)
    if (step === 500) {
      const e = plugin.addCharacter(handle) // reuses the ids freed at 450
      chars.push(e)
      plugin.play(e, 'Wag')
    }
  }
}

function run(schedule: Schedule, steps = 600): string[] {
  const { plugin } = createTestPlugin()
  const chars: number[] = []
  const hashes: string[] = []
  for (let s = 0; s < steps; s++) {
    schedule(plugin, s, chars)
    plugin.step()
    hashes.push(plugin.hash())
  }
  return hashes
}

describe('determinism', () => {
  it('600 steps in two fresh worlds give the same hash at every step', () => {
    const a = run(busySchedule(false))
    const b = run(busySchedule(false))
    expect(b).toEqual(a)
    expect(new Set(a).size).toBe(600) // the hash moves every step (the step counter alone guarantees that)
  })

  it('the same holds with characters added and removed mid-run', () => {
    const a = run(busySchedule(true))
    const b = run(busySchedule(true))
    expect(b).toEqual(a)
    // And churn really changes the state (else the test above would prove nothing new).
    expect(a[599]).not.toBe(run(busySchedule(false))[599])
  })

  it('two plugins on two worlds in one process do not interfere', () => {
    const lone = run(busySchedule(true), 300)
    const p1 = createTestPlugin()
    const p2 = createTestPlugin()
    const c1: number[] = []
    const c2: number[] = []
    const schedule = busySchedule(true)
    const other = busySchedule(false)
    for (let s = 0; s < 300; s++) {
      schedule(p1.plugin, s, c1)
      p1.plugin.step()
      // Stepping (and scheduling) the other plugin does not change this one's hash.
      const h1 = p1.plugin.hash()
      other(p2.plugin, s, c2)
      p2.plugin.step()
      if (s % 3 === 0) p2.plugin.step()
      expect(p1.plugin.hash()).toBe(h1)
      expect(h1).toBe(lone[s])
    }
  })

  it('is FNV-1a over the documented values in the documented order, value by value (ragdoll bodies too)', async () => {
    // plugin/hash.ts gathers nodes and bodies into scratch arrays and hashes them in one update; this hashes every
    // value on its own, as the hash was first written, so a faster gathering cannot change a hash value.
    const fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
    const a = plugin.addCharacter(fox)
    const b = plugin.addCharacter(fox)
    // The Fox is in centimetres: metres for its ragdoll.
    plugin.setTransform(b, { scale: [0.01, 0.01, 0.01] })
    plugin.play(a, 'Walk')
    plugin.play(b, 'Run')
    for (let k = 0; k < 20; k++) {
      if (k === 5) plugin.ragdoll(b, { impulse: { joint: 'b_Hip_01', impulse: [2, 1, 0] } })
      if (k === 8) plugin.crossFade(a, 'Survey', 0.5)
      plugin.step()
    }
    const ctx = contextOf(plugin)
    expect(ragdollInstance(ctx.ragdolls[b]!.instance)!.bodies.length).toBeGreaterThan(0)
    // The event queue's part of the hash (its records) is tested in test/systems/clipEvents.test.ts.
    plugin.events.length = 0
    const h = createHasher().updateNumber(ctx.step).updateNumber(ctx.timeScale)
    const nodes = ctx.sceneGraph.store
    const one = (arr: TypedArray, e: number, width = 1) => h.update(arr, e * width, e * width + width)
    // A store row: its fields in name order, CrossFade.from's fields where `from` sorts.
    const row = (store: object, eid: number): void => {
      for (const key of Object.keys(store).sort()) {
        const field = (store as Record<string, unknown>)[key]
        if (ArrayBuffer.isView(field)) one(field as TypedArray, eid)
        else row(field as object, eid)
      }
    }
    const { Sampler, CrossFade, AnimLayer, Ragdoll, Pose } = ctx.stores
    for (const eid of [...characterIds(ctx)].sort((x, y) => x - y)) {
      h.updateNumber(eid)
      for (const store of [Sampler, CrossFade, AnimLayer, Ragdoll, Pose]) row(store, eid)
      h.update(ctx.cursors[eid]!)
      const base = ctx.stores.Pose.base[eid]!
      const n = ctx.stores.Pose.count[eid]!
      h.update(ctx.pool.data, base * 10, (base + 5 * n) * 10)
      for (const e of [eid, ...ctx.pool.joints.subarray(base, base + n)]) {
        one(nodes.translation, e, 3)
        one(nodes.rotation, e, 4)
        one(nodes.scale, e, 3)
        one(nodes.parent, e)
        one(nodes.world, e, 16)
      }
      for (const body of ragdollInstance(ctx.ragdolls[eid]?.instance)?.bodies ?? []) {
        for (const v of [body.position, body.velocity, body.angularVelocity]) {
          h.updateNumber(v.x).updateNumber(v.y).updateNumber(v.z)
        }
        const q = body.quaternion
        h.updateNumber(q.x).updateNumber(q.y).updateNumber(q.z).updateNumber(q.w)
      }
    }
    // Problem reports already made (none here but the ragdoll flags), dropped events, the (empty) queue.
    for (const eid of [...characterIds(ctx)].sort((x, y) => x - y))
      h.updateNumber(ctx.ragdolls[eid]?.reported ? 1 : 0)
    h.updateNumber(ctx.droppedEvents).updateNumber(0)
    expect(plugin.hash()).toBe(h.digest())
  })

  it('the hash sees a one-bit change in any simulated float', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    plugin.step()
    const base = plugin.hash()
    const flip = (array: Float32Array | Float64Array | Uint32Array, i: number) => {
      const saved = array[i]!
      const bits = new Uint8Array(array.buffer, array.byteOffset + i * array.BYTES_PER_ELEMENT, 1)
      bits[0]! ^= 1
      const h = plugin.hash()
      array[i] = saved
      expect(plugin.hash()).toBe(base)
      return h
    }
    const joint = plugin.joints(a)[3]!
    const { Pose } = plugin.stores
    const lastFloat = (Pose.base[a]! + 5 * Pose.count[a]!) * 10 - 1
    for (const h of [
      flip(plugin.stores.Sampler.time, a),
      flip(plugin.stores.CrossFade.blend, a),
      flip(plugin.stores.SceneNode.world, joint * 16 + 13),
      flip(plugin.stores.SceneNode.rotation, joint * 4 + 2),
      flip(contextOf(plugin).pool.data, lastFloat), // the last float of the TO layer
      flip(contextOf(plugin).cursors[a]!, 1),
    ]) {
      expect(h).not.toBe(base)
    }
  })
})
