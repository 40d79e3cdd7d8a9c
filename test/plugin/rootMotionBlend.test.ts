/**
 * Root motion summed by weight (issue 16): across a cross-fade, over layers (override by weight × mask,
 * additive added by its weight) and blend spaces; paused while a ragdoll drives the body; and bit for bit
 * across snapshot and restore. Each sum is checked against characters playing each clip alone, whose deltas
 * (rootMotionDelta) are the parts.
 */
import { execFileSync } from 'node:child_process'
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { layoutsOf } from '../../snapshot/format.ts'
import { forge, mapSnapshot, type Edit } from '../helpers/forge.ts'
import { FOX_HIPS, travellingFox } from '../helpers/travel.ts'
import { HANG_MS } from '../helpers/hang.ts'
import { ALLOCATION_NODE_FLAGS } from '../helpers/heapWindows.ts'

let fox: AnimationAsset
beforeAll(async () => {
  fox = await travellingFox()
})

function foxPlugin(): AnimationPlugin {
  return createAnimationPlugin(createWorld(), { capacity: 1024 })
}

type Delta = ReturnType<AnimationPlugin['rootMotionDelta']>

/** Characters each with root motion reported only (apply: false). */
function reporters(plugin: AnimationPlugin, count: number): number[] {
  return Array.from({ length: count }, () => {
    const c = plugin.addCharacter(fox)
    plugin.setRootMotion(c, { mode: 'horizontal', apply: false })
    return c
  })
}

/** `a`'s translation and rotation within `tolerance` of the weighted mix of the parts (rotation: normalized sum). */
function expectMix(a: Delta, parts: readonly (readonly [number, Delta])[], tolerance: number): void {
  const t = [0, 0, 0]
  const q = [0, 0, 0, 0]
  for (const [w, d] of parts) {
    for (let k = 0; k < 3; k++) t[k]! += w * d.translation[k]!
    for (let k = 0; k < 4; k++) q[k]! += w * d.rotation[k]!
  }
  const length = Math.hypot(...q)
  for (let k = 0; k < 3; k++) expect(Math.abs(a.translation[k]! - t[k]!)).toBeLessThan(tolerance)
  for (let k = 0; k < 4; k++) expect(Math.abs(a.rotation[k]! - q[k]! / length)).toBeLessThan(1e-9)
}

describe('root motion blends by weight', () => {
  it('across a cross-fade: (1 − blend) × the clip faded out of + blend × the clip faded into', () => {
    const plugin = foxPlugin()
    const [walk, run, fade] = reporters(plugin, 3) as [number, number, number]
    plugin.play(walk, 'WalkForward')
    plugin.play(fade, 'WalkForward')
    for (let i = 0; i < 20; i++) plugin.step()
    plugin.play(run, 'RunForward')
    plugin.crossFade(fade, 'RunForward', 1)
    let checked = 0
    for (let i = 0; i < 70; i++) {
      plugin.step()
      const b = plugin.stores.CrossFade.active[fade] === 1 ? plugin.stores.CrossFade.blend[fade]! : 1
      const d = plugin.rootMotionDelta(fade)
      expectMix(
        d,
        [
          [1 - b, plugin.rootMotionDelta(walk)],
          [b, plugin.rootMotionDelta(run)],
        ],
        1e-9,
      )
      if (b > 0.2 && b < 0.8) checked++
    }
    expect(checked).toBeGreaterThan(30)
  })

  it('over layers: an override by its weight, none outside its mask, an additive one added by its weight', () => {
    const plugin = foxPlugin()
    const [walk, run, over, masked, added] = reporters(plugin, 5) as [number, number, number, number, number]
    plugin.play(walk, 'WalkForward')
    plugin.play(run, 'RunForward')
    for (const c of [over, masked, added]) plugin.play(c, 'WalkForward')
    plugin.setLayer(over, 1, { weight: 0.3 })
    plugin.play(over, 'RunForward', { layer: 1 })
    // The mask covers the spine, not the hips: the layer moves the upper body, not the character.
    plugin.setLayer(masked, 1, { mask: ['b_Spine01_02'] })
    plugin.play(masked, 'RunForward', { layer: 1 })
    plugin.setLayer(added, 2, { mode: 'additive', weight: 0.5 })
    plugin.play(added, 'RunForward', { layer: 2 })
    for (let i = 0; i < 100; i++) {
      plugin.step()
      const w = plugin.rootMotionDelta(walk)
      const r = plugin.rootMotionDelta(run)
      expectMix(
        plugin.rootMotionDelta(over),
        [
          [0.7, w],
          [0.3, r],
        ],
        1e-9,
      )
      expect(plugin.rootMotionDelta(masked)).toEqual(w)
      const a = plugin.rootMotionDelta(added)
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(a.translation[k]! - w.translation[k]! - 0.5 * r.translation[k]!)).toBeLessThan(1e-9)
      }
    }
  })

  it('over a blend space: each point by its weight, in step (walk and run of other durations)', () => {
    const plugin = foxPlugin()
    const c = plugin.addCharacter(fox)
    plugin.setRootMotion(c, { mode: 'horizontal' })
    plugin.playBlendSpace(
      c,
      [
        { clip: 'WalkForward', at: 0 },
        { clip: 'RunForward', at: 1 },
      ],
      { parameter: 0.5 },
    )
    const walk = fox.clips.find((k) => k.name === 'Walk')!.duration
    const runD = fox.clips.find((k) => k.name === 'Run')!.duration
    // One synchronized cycle lasts 0.5·walk + 0.5·run seconds and moves 0.5·70 + 0.5·150 cm.
    const cycle = 0.5 * walk + 0.5 * runD
    const hips = plugin.jointEntity(c, FOX_HIPS)
    const world = plugin.stores.SceneNode.world
    const path: number[] = []
    const steps = 300
    for (let i = 0; i < steps; i++) {
      plugin.step()
      path.push(world[hips * 16 + 14]!)
    }
    const speed = (path[steps - 1]! - path[0]!) / ((steps - 2) / 60)
    expect(Math.abs(speed / (110 / cycle) - 1)).toBeLessThan(0.01)
    const lengths = path.slice(1).map((z, i) => Math.abs(z - path[i]!))
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length
    expect(Math.max(...lengths)).toBeLessThanOrEqual(3 * mean)
  })
})

describe('root motion and ragdolls', () => {
  it('pauses while a ragdoll drives the body and resumes after the get-up', () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 1024 })
    const c = plugin.addCharacter(fox)
    plugin.setTransform(c, { scale: [0.01, 0.01, 0.01] }) // metres, for the physics
    plugin.play(c, 'WalkForward')
    plugin.setRootMotion(c, { mode: 'horizontal' })
    for (let i = 0; i < 60; i++) plugin.step()
    const walked = plugin.getTransform(c).position[2]
    expect(walked).toBeGreaterThan(0.5) // ~70 cm a loop
    plugin.ragdoll(c)
    const { Ragdoll } = plugin.stores
    for (let i = 0; i < 90; i++) {
      plugin.step()
      expect(plugin.getTransform(c).position[2]).toBe(walked)
      expect(plugin.rootMotionDelta(c)).toEqual({ translation: [0, 0, 0], rotation: [0, 0, 0, 1] })
    }
    plugin.getUp(c, { clip: 'WalkForward', play: { loop: 'repeat' } })
    const placed = plugin.getTransform(c).position
    let steps = 0
    while (Ragdoll.active[c] !== 0 && steps < 600) {
      plugin.step()
      steps++
      expect(plugin.getTransform(c).position).toEqual(placed)
    }
    expect(Ragdoll.active[c]).toBe(0)
    for (let i = 0; i < 30; i++) plugin.step()
    const moved = plugin.getTransform(c).position
    expect(Math.hypot(moved[0] - placed[0], moved[2] - placed[2])).toBeGreaterThan(0.2)
  })
})

describe('root motion across snapshot and restore', () => {
  it('a restored plugin continues bit for bit: same hashes, same entity, same deltas, across wraps', () => {
    const make = (): { plugin: AnimationPlugin; ids: number[] } => {
      const plugin = foxPlugin()
      plugin.addAsset(fox)
      return { plugin, ids: [] }
    }
    const { plugin } = make()
    const a = plugin.addCharacter(fox)
    const b = plugin.addCharacter(fox)
    plugin.play(a, 'WalkForward', { loop: 'pingpong' })
    plugin.play(b, 'WalkTurning')
    plugin.setRootMotion(a, { mode: 'full' })
    plugin.setRootMotion(b, { mode: 'horizontal', apply: false })
    for (let i = 0; i < 30; i++) plugin.step()
    plugin.crossFade(b, 'RunForward', 0.5)
    for (let i = 0; i < 7; i++) plugin.step()
    const copy = make().plugin
    copy.restore(plugin.snapshot())
    expect(copy.hash()).toBe(plugin.hash())
    expect(copy.rootMotionDelta(b)).toEqual(plugin.rootMotionDelta(b))
    for (let i = 0; i < 100; i++) {
      plugin.step()
      copy.step()
      expect(copy.hash()).toBe(plugin.hash())
      expect(copy.getTransform(a)).toEqual(plugin.getTransform(a))
      expect(copy.rootMotionDelta(b)).toEqual(plugin.rootMotionDelta(b))
    }
    // A forged root motion record is refused, naming what is wrong; the good one restores after.
    const bytes = plugin.snapshot()
    const at = mapSnapshot(bytes, layoutsOf(contextOf(plugin))).rootMotion.get(a)!
    const forged: [Edit, RegExp][] = [
      [
        { offset: at.mode, kind: 'u8', value: 3 },
        /rootMotion.*character \d+: mode is 3; must be one of 1, 2/,
      ],
      [{ offset: at.joint, kind: 'u32', value: 26 }, /rootMotion.*joint 26 is not one of its 26 joints/],
      [{ offset: at.apply, kind: 'u8', value: 2 }, /rootMotion.*apply is 2/],
      [{ offset: at.numbers + 8 * 3, kind: 'f64', value: NaN }, /rootMotion.*numbers\[3\] is NaN/],
      [{ offset: at.numbers + 8 * 3, kind: 'f64', value: 2 }, /rootMotion.*delta rotation/],
    ]
    for (const [edit, message] of forged) {
      const target = make().plugin
      expect(() => target.restore(forge(bytes, [edit]))).toThrow(AnimationError)
      expect(() => target.restore(forge(bytes, [edit]))).toThrow(message)
      target.restore(bytes)
      expect(target.hash()).toBe(plugin.hash())
    }
    // The hash covers root motion: the same plugin with b's root motion off differs.
    const other = make().plugin
    other.restore(plugin.snapshot())
    other.setRootMotion(b, { mode: 'off' })
    expect(other.hash()).not.toBe(plugin.hash())
  })
})

describe('root motion: memory', () => {
  it('a step allocates nothing, wraps, fades, layers and blend spaces included', () => {
    // Measured in a process of its own (test/helpers/rootMotionAllocation.ts says why and how).
    const out = execFileSync(
      process.execPath,
      [...ALLOCATION_NODE_FLAGS, '--import', 'tsx', 'test/helpers/rootMotionAllocation.ts'],
      { encoding: 'utf8', timeout: HANG_MS },
    )
    const { steps, sources } = JSON.parse(out) as { steps: number[]; sources: number[] }
    for (const windows of [steps, sources]) {
      const clean = windows.filter((b) => b >= 0).sort((x, y) => x - y)
      expect(clean.length, `windows ${windows.join(', ')}`).toBeGreaterThanOrEqual(3)
      // Zero bytes in a window: anything allocated per step (a boxed float, a closure) shows in every window.
      expect(clean[0], `windows ${windows.join(', ')}`).toBe(0)
      expect(clean[clean.length >> 1], `windows ${windows.join(', ')}`).toBe(0)
    }
  })
})
