/**
 * Layers' exact properties, on the shipped rigs, bit for bit: a layer at weight 0 changes nothing; an
 * unmasked override at weight 1 shows exactly its clip; a mask leaves every joint outside it exactly as the
 * layers below. Plus the blend space's weights and sync, ramps and stopLayer, and the setters.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

const ROBOT = 'assets/RobotExpressive/RobotExpressive.glb'
const FOX = 'assets/Fox/glTF-Binary/Fox.glb'

const assets: Record<string, AnimationAsset> = {}
beforeAll(async () => {
  assets.robot = await loadAsset(ROBOT)
  assets.fox = await loadAsset(FOX)
})

function setup(asset: AnimationAsset): { plugin: AnimationPlugin; eid: number } {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 512, physics: { ground: false } })
  return { plugin, eid: plugin.addCharacter(asset) }
}

/** Local T/R/S of every joint of a character, as float32 bits. */
function locals(plugin: AnimationPlugin, eid: number): Float32Array {
  const nodes = plugin.stores.SceneNode
  const joints = plugin.joints(eid)
  const out = new Float32Array(joints.length * 10)
  joints.forEach((e, j) => {
    out.set(nodes.translation.subarray(e * 3, e * 3 + 3), j * 10)
    out.set(nodes.rotation.subarray(e * 4, e * 4 + 4), j * 10 + 3)
    out.set(nodes.scale.subarray(e * 3, e * 3 + 3), j * 10 + 7)
  })
  return out
}

function worlds(plugin: AnimationPlugin, eid: number): Float32Array {
  const out: number[] = []
  for (const e of plugin.joints(eid)) out.push(...plugin.stores.SceneNode.world.subarray(e * 16, e * 16 + 16))
  return Float32Array.from(out)
}

const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer.slice(0))

/** Joint indices of the subtree of `name` (its joint and every descendant), from the plugin's rig. */
function subtree(plugin: AnimationPlugin, eid: number, name: string): Set<number> {
  const rig = contextOf(plugin).assets[contextOf(plugin).stores.Pose.asset[eid]!]!
  const root = Array.from(plugin.joints(eid)).indexOf(plugin.jointEntity(eid, name))
  const inside = new Set<number>([root])
  for (let j = root + 1; j < rig.jointParents.length; j++) if (inside.has(rig.jointParents[j]!)) inside.add(j)
  return inside
}

const scenario = fc.record({
  rig: fc.constantFrom('robot', 'fox'),
  base: fc.nat(20),
  layerClip: fc.nat(20),
  time: fc.double({ min: 0, max: 2, noNaN: true }),
  speed: fc.double({ min: -2, max: 2, noNaN: true }),
  additive: fc.boolean(),
  steps: fc.integer({ min: 1, max: 40 }),
  fadeAt: fc.integer({ min: 0, max: 40 }),
})

const MASK_JOINT: Record<string, string> = { robot: 'Abdomen', fox: 'b_Spine02_03' }

describe('layers: exact properties', () => {
  it('a layer at weight 0 changes nothing, bit for bit (any clip, mode, mask)', () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), (s, masked) => {
        const asset = assets[s.rig]!
        const clips = asset.clips.map((c) => c.name)
        const a = setup(asset)
        const b = setup(asset)
        for (const { plugin, eid } of [a, b])
          plugin.play(eid, clips[s.base % clips.length]!, { time: s.time })
        b.plugin.setLayer(b.eid, 3, {
          weight: 0,
          mode: s.additive ? 'additive' : 'override',
          mask: masked ? [MASK_JOINT[s.rig]!] : null,
        })
        b.plugin.play(b.eid, clips[s.layerClip % clips.length]!, { layer: 3, speed: s.speed })
        for (let k = 0; k < s.steps; k++) {
          if (k === s.fadeAt) {
            for (const { plugin, eid } of [a, b])
              plugin.crossFade(eid, clips[(s.base + 1) % clips.length]!, 0.2)
          }
          a.plugin.step()
          b.plugin.step()
        }
        expect(bits(worlds(b.plugin, b.eid))).toEqual(bits(worlds(a.plugin, a.eid)))
      }),
      { numRuns: 25 },
    )
  })

  it('an unmasked override at weight 1 shows exactly its clip, bit for bit', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const asset = assets[s.rig]!
        const clips = asset.clips.map((c) => c.name)
        const shown = clips[s.layerClip % clips.length]!
        const a = setup(asset)
        const b = setup(asset)
        a.plugin.play(a.eid, shown, { time: s.time, speed: s.speed })
        b.plugin.play(b.eid, clips[s.base % clips.length]!)
        b.plugin.play(b.eid, shown, { layer: 2, time: s.time, speed: s.speed })
        for (let k = 0; k < s.steps; k++) {
          a.plugin.step()
          b.plugin.step()
        }
        expect(bits(locals(b.plugin, b.eid))).toEqual(bits(locals(a.plugin, a.eid)))
      }),
      { numRuns: 25 },
    )
  })

  it('a mask leaves every joint outside it exactly as the layers below', () => {
    fc.assert(
      fc.property(scenario, fc.double({ min: 0, max: 1, noNaN: true }), (s, weight) => {
        const asset = assets[s.rig]!
        const clips = asset.clips.map((c) => c.name)
        const a = setup(asset)
        const b = setup(asset)
        for (const { plugin, eid } of [a, b])
          plugin.play(eid, clips[s.base % clips.length]!, { time: s.time })
        b.plugin.setLayer(b.eid, 1, {
          weight,
          mode: s.additive ? 'additive' : 'override',
          mask: [MASK_JOINT[s.rig]!],
        })
        b.plugin.play(b.eid, clips[s.layerClip % clips.length]!, { layer: 1, speed: s.speed })
        for (let k = 0; k < s.steps; k++) {
          a.plugin.step()
          b.plugin.step()
        }
        const inside = subtree(b.plugin, b.eid, MASK_JOINT[s.rig]!)
        const la = locals(a.plugin, a.eid)
        const lb = locals(b.plugin, b.eid)
        for (let j = 0; j < la.length / 10; j++) {
          if (inside.has(j)) continue
          expect(bits(lb.slice(j * 10, j * 10 + 10)), `joint ${j}`).toEqual(
            bits(la.slice(j * 10, j * 10 + 10)),
          )
        }
      }),
      { numRuns: 25 },
    )
  })

  it('a masked layer samples only the joints inside its mask, which show what the whole-body layer shows', () => {
    fc.assert(
      fc.property(scenario, fc.double({ min: 0, max: 1, noNaN: true }), (s, weight) => {
        const asset = assets[s.rig]!
        const clips = asset.clips.map((c) => c.name)
        const whole = setup(asset)
        const masked = setup(asset)
        for (const { plugin, eid } of [whole, masked]) {
          plugin.play(eid, clips[s.base % clips.length]!, { time: s.time })
          const mode = s.additive ? 'additive' : 'override'
          const mask = plugin === masked.plugin ? [MASK_JOINT[s.rig]!] : null
          plugin.setLayer(eid, 1, { weight, mode, mask })
          plugin.play(eid, clips[s.layerClip % clips.length]!, { layer: 1, speed: s.speed })
          // A fade inside the layer half way through: its outgoing clip is sampled masked too.
          for (let k = 0; k < s.steps; k++) {
            if (k === s.steps >> 1) plugin.crossFade(eid, clips[s.base % clips.length]!, 0.3, { layer: 1 })
            plugin.step()
          }
        }
        const inside = subtree(masked.plugin, masked.eid, MASK_JOINT[s.rig]!)
        const lw = locals(whole.plugin, whole.eid)
        const lm = locals(masked.plugin, masked.eid)
        for (const j of inside) {
          expect(bits(lm.slice(j * 10, j * 10 + 10)), `joint ${j}`).toEqual(
            bits(lw.slice(j * 10, j * 10 + 10)),
          )
        }
        // What the layer holds outside its mask was never sampled: still the block's rest pose.
        const ctx = contextOf(masked.plugin)
        const layer = ctx.layers[masked.eid]!.layers[1]!
        const n = masked.plugin.joints(masked.eid).length
        const rest = ctx.assets[ctx.stores.Pose.asset[masked.eid]!]!.rest
        const out = ctx.pool.data.subarray(layer.base * 10, (layer.base + n) * 10)
        const outside = [...Array(n).keys()].filter((j) => !inside.has(j))
        if (s.additive) return // an additive layer's OUT is a difference from its reference
        for (const j of outside) {
          expect(bits(out.slice(j * 10, j * 10 + 10)), `joint ${j}`).toEqual(
            bits(rest.slice(j * 10, j * 10 + 10)),
          )
        }
      }),
      { numRuns: 25 },
    )
  })
})

describe('layers: weights, blend spaces and setters', () => {
  it('setLayer ramps the weight linearly over fadeSeconds; stopLayer fades out and empties the layer', () => {
    const { plugin, eid } = setup(assets.robot!)
    plugin.play(eid, 'Idle')
    plugin.setLayer(eid, 1, { weight: 0 })
    plugin.play(eid, 'Wave', { layer: 1 })
    plugin.setLayer(eid, 1, { weight: 1, fadeSeconds: 0.5 })
    const weights: number[] = []
    for (let k = 0; k < 30; k++) {
      plugin.step()
      weights.push(plugin.getLayer(eid, 1).weight)
    }
    expect(weights[14]).toBeCloseTo(0.5, 12)
    expect(weights[29]).toBe(1)
    plugin.stopLayer(eid, 1, 0.25)
    for (let k = 0; k < 15; k++) plugin.step()
    const info = plugin.getLayer(eid, 1)
    expect(info.source).toBe('none')
    expect(info.clip).toBeNull()
    // Empty again: the character shows only its base clip.
    const c = setup(assets.robot!)
    c.plugin.play(c.eid, 'Idle')
    for (let k = 0; k < 45; k++) c.plugin.step()
    plugin.step()
    c.plugin.step()
    expect(bits(locals(plugin, eid))).toEqual(bits(locals(c.plugin, c.eid)))
  })

  it('a 1D blend space weights its neighbours linearly and a parameter at a point shows exactly that clip', () => {
    const { plugin, eid } = setup(assets.robot!)
    plugin.playBlendSpace(
      eid,
      [
        { clip: 'Idle', at: 0 },
        { clip: 'Walking', at: 1 },
        { clip: 'Running', at: 3 },
      ],
      { parameter: 2 },
    )
    expect(plugin.getLayer(eid, 0).blendSpace!.weights).toEqual([0, 0.5, 0.5])
    plugin.setBlendParameter(eid, 1)
    expect(plugin.getLayer(eid, 0).blendSpace!.weights).toEqual([0, 1, 0])
    plugin.setBlendParameter(eid, -5)
    expect(plugin.getLayer(eid, 0).blendSpace!.weights).toEqual([1, 0, 0])
    plugin.setBlendParameter(eid, 1)
    const walk = setup(assets.robot!)
    walk.plugin.play(walk.eid, 'Walking')
    for (let k = 0; k < 20; k++) {
      plugin.step()
      walk.plugin.step()
    }
    expect(bits(locals(plugin, eid))).toEqual(bits(locals(walk.plugin, walk.eid)))
  })

  it('a 2D blend space gives weights that sum to 1 and are 1 at each point', () => {
    const { plugin, eid } = setup(assets.robot!)
    const points = [
      { clip: 'Idle', at: [0, 0] as [number, number] },
      { clip: 'Walking', at: [0, 1] as [number, number] },
      { clip: 'Running', at: [0, 2] as [number, number] },
      { clip: 'Dance', at: [1, 1] as [number, number] },
    ]
    plugin.playBlendSpace(eid, points, { parameter: [0.3, 0.7] })
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -3, max: 3, noNaN: true }),
        (x, y) => {
          plugin.setBlendParameter(eid, [x, y])
          const w = plugin.getLayer(eid, 0).blendSpace!.weights
          expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
          for (const v of w) expect(v).toBeGreaterThanOrEqual(0)
        },
      ),
    )
    points.forEach((p, i) => {
      plugin.setBlendParameter(eid, p.at)
      expect(plugin.getLayer(eid, 0).blendSpace!.weights[i]).toBe(1)
    })
  })

  it('sync keeps clips of different lengths phase-locked: one normalized time', () => {
    const { plugin, eid } = setup(assets.robot!)
    // Idle lasts 3.33 s, Walking 0.96 s: at parameter 0.5 the cycle lasts their mean.
    plugin.playBlendSpace(
      eid,
      [
        { clip: 'Idle', at: 0 },
        { clip: 'Walking', at: 1 },
      ],
      { parameter: 0.5 },
    )
    const idle = assets.robot!.clips.find((c) => c.name === 'Idle')!.duration
    const walking = assets.robot!.clips.find((c) => c.name === 'Walking')!.duration
    const steps = 40
    for (let k = 0; k < steps + 1; k++) plugin.step()
    expect(plugin.getLayer(eid, 0).time).toBeCloseTo((steps / 60 / ((idle + walking) / 2)) % 1, 9)
  })

  it('setSpeed keeps the time (no pop); pause holds it and resume goes on; setTime jumps', () => {
    const { plugin, eid } = setup(assets.robot!)
    plugin.play(eid, 'Walking')
    plugin.play(eid, 'Wave', { layer: 1 })
    for (let k = 0; k < 10; k++) plugin.step()
    const t0 = plugin.getLayer(eid, 0).time
    plugin.setSpeed(eid, 0.5)
    plugin.step()
    expect(plugin.getLayer(eid, 0).time).toBeCloseTo(t0 + 0.5 / 60, 12)
    plugin.pause(eid, { layer: 1 })
    const t1 = plugin.getLayer(eid, 1).time
    for (let k = 0; k < 5; k++) plugin.step()
    expect(plugin.getLayer(eid, 1).time).toBe(t1)
    expect(plugin.getLayer(eid, 1).paused).toBe(true)
    plugin.resume(eid, { layer: 1 })
    plugin.step()
    expect(plugin.getLayer(eid, 1).time).toBeCloseTo(t1 + 1 / 60, 12)
    plugin.setTime(eid, 0.25, { layer: 1 })
    plugin.step()
    expect(plugin.getLayer(eid, 1).time).toBe(0.25)
  })

  it('play and setLayer may come in either order', () => {
    const a = setup(assets.robot!)
    const b = setup(assets.robot!)
    for (const { plugin, eid } of [a, b]) plugin.play(eid, 'Idle')
    a.plugin.setLayer(a.eid, 1, { weight: 0.4, mode: 'additive', mask: ['Neck'] })
    a.plugin.play(a.eid, 'Yes', { layer: 1 })
    b.plugin.play(b.eid, 'Yes', { layer: 1 })
    b.plugin.setLayer(b.eid, 1, { weight: 0.4, mode: 'additive', mask: ['Neck'] })
    for (let k = 0; k < 30; k++) {
      a.plugin.step()
      b.plugin.step()
    }
    expect(bits(locals(b.plugin, b.eid))).toEqual(bits(locals(a.plugin, a.eid)))
    expect(a.plugin.hash()).toBe(b.plugin.hash())
  })

  it('bad values throw AnimationError and change nothing', () => {
    const { plugin, eid } = setup(assets.robot!)
    plugin.play(eid, 'Idle')
    plugin.step()
    const before = plugin.hash()
    const bad: (() => void)[] = [
      () => plugin.setLayer(eid, 8, {}),
      () => plugin.setLayer(eid, 1, { weight: 2 }),
      () => plugin.setLayer(eid, 1, { mode: 'multiply' as never }),
      () => plugin.setLayer(eid, 1, { mask: ['NoSuchJoint'] }),
      () => plugin.setLayer(eid, 1, { mask: [{ joint: 'Neck', weight: -1 }] }),
      () => plugin.setLayer(eid, 1, { fadeSeconds: -1, weight: 1 }),
      () => plugin.play(eid, 'Wave', { layer: 1.5 }),
      () => plugin.playBlendSpace(eid, [], { parameter: 0 }),
      () =>
        plugin.playBlendSpace(
          eid,
          [
            { clip: 'Idle', at: 0 },
            { clip: 'Walking', at: 0 },
          ],
          { parameter: 0 },
        ),
      () =>
        plugin.playBlendSpace(
          eid,
          [
            { clip: 'Idle', at: 0 },
            { clip: 'Walking', at: [1, 2] },
          ],
          { parameter: 0 },
        ),
      () => plugin.setBlendParameter(eid, 1),
      () => plugin.setSpeed(eid, NaN),
      () => plugin.pause(eid, { layer: 4 }),
      () => plugin.stopLayer(eid, 0),
    ]
    for (const call of bad) {
      expect(call).toThrowError(expect.objectContaining({ name: 'AnimationError' }))
      expect(plugin.hash()).toBe(before)
    }
  })
})

describe('layers: making the stack keeps the current pose', () => {
  it('a crossFade on layer 0 right after the first setLayer fades from the pose shown, not the rest pose', () => {
    const a = setup(assets.robot!)
    const b = setup(assets.robot!)
    for (const { plugin, eid } of [a, b]) {
      plugin.play(eid, 'Walking')
      for (let k = 0; k < 20; k++) plugin.step()
      plugin.crossFade(eid, 'Running', 0.5)
      for (let k = 0; k < 5; k++) plugin.step()
    }
    b.plugin.setLayer(b.eid, 1, { weight: 0 })
    // Mid-fade: the fade into Idle starts from the frozen blend of what is shown.
    for (const { plugin, eid } of [a, b]) {
      plugin.crossFade(eid, 'Idle', 0.3)
      for (let k = 0; k < 5; k++) plugin.step()
    }
    expect(bits(worlds(b.plugin, b.eid))).toEqual(bits(worlds(a.plugin, a.eid)))
  })
})

describe('layers: clip events', () => {
  it("a layer's clips report loops, 'finished' and markers with their layer and weight", () => {
    const { plugin, eid } = setup(assets.robot!)
    plugin.play(eid, 'Idle')
    plugin.addMarker(assets.robot!, 'Wave', 0.5, 'hand-up')
    plugin.setLayer(eid, 1, { weight: 0.5, mask: ['Abdomen'] })
    plugin.play(eid, 'Wave', { layer: 1, loop: 'once' })
    plugin.play(eid, 'Yes', { layer: 2 })
    const wave = assets.robot!.clips.find((c) => c.name === 'Wave')!.duration
    const yes = assets.robot!.clips.find((c) => c.name === 'Yes')!.duration
    const steps = Math.ceil((wave + 0.1) * 60)
    for (let k = 0; k < steps; k++) plugin.step()
    const layered = plugin.events.filter((e) => 'layer' in e && e.layer > 0) as {
      kind: string
      layer: number
      clip: string
      name: string
      weight: number
      step: number
    }[]
    const onWave = layered.filter((e) => e.layer === 1)
    expect(onWave.map((e) => [e.kind, e.name])).toEqual([
      ['marker', 'hand-up'],
      ['finished', ''],
    ])
    expect(onWave.every((e) => e.clip === 'Wave' && e.weight === 0.5)).toBe(true)
    // Yes repeats on layer 2: one 'loop' per full cycle.
    expect(layered.filter((e) => e.layer === 2 && e.kind === 'loop').length).toBe(
      Math.floor((steps - 1) / 60 / yes),
    )
    // The same after a snapshot: neither lost nor repeated ('finished' stays reported).
    const bytes = plugin.snapshot()
    const copy = createAnimationPlugin(createWorld(), { capacity: 512, physics: { ground: false } })
    copy.addAsset(assets.robot!)
    copy.addMarker(assets.robot!, 'Wave', 0.5, 'hand-up')
    copy.restore(bytes)
    plugin.events.length = 0
    copy.events.length = 0
    for (let k = 0; k < 120; k++) {
      plugin.step()
      copy.step()
    }
    expect(copy.events.map((e) => [e.kind, e.step])).toEqual(plugin.events.map((e) => [e.kind, e.step]))
    expect(plugin.events.some((e) => e.kind === 'finished')).toBe(false)
    expect(copy.hash()).toBe(plugin.hash())
  })
})
