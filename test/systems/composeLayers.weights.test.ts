/**
 * Layers (systems/advanceTracks.ts, sampleTracks.ts, composeLayers.ts) on the shipped rigs: the blend space's weights and sync, ramps and stopLayer, the
 * setters, and a layer's clip events.
 * Setup: test/helpers/layers.ts.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { assets, setup, locals, bits, loadAssets } from '../helpers/layers.ts'

beforeAll(loadAssets)

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
