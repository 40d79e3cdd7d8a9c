/**
 * Fading into a blend space (playBlendSpace's fadeSeconds), on RobotExpressive: from a clip on layer 0, on an
 * override layer and on an additive layer. The pose leaves the old one smoothly, ends bit for bit on what a cut
 * at the same step shows, reports the fade, weighs the points' events by it, and survives a snapshot.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError } from '../../src/errors.ts'
import type { ClipEvent } from '../../systems/state.ts'

const DT = 1 / 60
const POINTS = [
  { clip: 'Walking', at: 0 },
  { clip: 'Running', at: 1 },
]
let robot: AnimationAsset
beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

function plugin(): AnimationPlugin {
  return createAnimationPlugin(createWorld(), { capacity: 1024, dt: DT, physics: { ground: false } })
}

/** Local rotations of every joint (x, y, z, w per joint). */
function rotations(p: AnimationPlugin, eid: number): Float32Array {
  const r = p.stores.SceneNode.rotation
  const joints = p.joints(eid)
  const out = new Float32Array(joints.length * 4)
  joints.forEach((e, j) => out.set(r.subarray(e * 4, e * 4 + 4), j * 4))
  return out
}

/** Largest angle (radians) between two poses' joint rotations. */
function angle(a: Float32Array, b: Float32Array): number {
  let worst = 0
  for (let j = 0; j < a.length; j += 4) {
    const dot = Math.abs(
      a[j]! * b[j]! + a[j + 1]! * b[j + 1]! + a[j + 2]! * b[j + 2]! + a[j + 3]! * b[j + 3]!,
    )
    worst = Math.max(worst, 2 * Math.acos(Math.min(1, dot)))
  }
  return worst
}

type Layout = 'base' | 'override' | 'additive'

/**
 * Three characters on one plugin, the same clips; after 20 steps one cuts to the blend space, one fades into
 * it over 0.5 s, one stays.
 */
function pair(layout: Layout) {
  const p = plugin()
  const [cut, fade, stay] = [p.addCharacter(robot), p.addCharacter(robot), p.addCharacter(robot)]
  const layer = layout === 'base' ? 0 : 1
  for (const c of [cut, fade, stay]) {
    p.play(c, 'Idle')
    if (layout !== 'base') {
      p.setLayer(c, 1, { mode: layout, weight: 1 })
      p.play(c, layout === 'additive' ? 'Yes' : 'Dance', { layer: 1 })
    }
  }
  for (let s = 0; s < 20; s++) p.step()
  p.playBlendSpace(cut, POINTS, { parameter: 0.3, layer })
  p.playBlendSpace(fade, POINTS, { parameter: 0.3, layer, fadeSeconds: 0.5 })
  return { p, cut, fade, stay, layer }
}

describe('playBlendSpace fadeSeconds', () => {
  for (const layout of ['base', 'override', 'additive'] as const) {
    it(`${layout}: leaves the old pose smoothly and ends exactly on the cut`, () => {
      const { p, cut, fade, stay } = pair(layout)
      p.step()
      // The cut jumps away from what the old clips show; the fade's first step (blend 1/30) barely leaves it.
      const jump = angle(rotations(p, stay), rotations(p, cut))
      expect(jump).toBeGreaterThan(0.1)
      expect(angle(rotations(p, stay), rotations(p, fade))).toBeLessThan(jump / 10)
      // No step of the fade moves much more than the clips themselves do in a step.
      let last = [fade, stay, cut].map((c) => rotations(p, c))
      for (let s = 1; s < 30; s++) {
        p.step()
        const now = [fade, stay, cut].map((c) => rotations(p, c))
        const own = Math.max(angle(last[1]!, now[1]!), angle(last[2]!, now[2]!))
        expect(angle(last[0]!, now[0]!)).toBeLessThan(own + jump / 10)
        last = now
      }
      // 0.5 s = 30 steps: from now on both show the blend space alone, bit for bit.
      for (let s = 0; s < 5; s++) {
        p.step()
        expect(rotations(p, fade)).toEqual(rotations(p, cut))
      }
    })
  }

  it('getLayer reports the fade from a frozen pose; playing a clip ends it', () => {
    const { p, fade, layer } = pair('base')
    for (let s = 0; s < 15; s++) p.step()
    const info = p.getLayer(fade, layer)
    expect(info.source).toBe('blend-space')
    expect(info.fade).toEqual({ from: null, blend: 0.5 })
    p.play(fade, 'Idle')
    p.step()
    expect(p.getLayer(fade, layer).fade).toBeNull()
  })

  it("weighs the points' events by the fade", () => {
    const { p, fade } = pair('override')
    p.addMarker(robot, 'Walking', 0.05, 'step')
    p.addMarker(robot, 'Running', 0.05, 'step')
    p.events.length = 0
    for (let s = 0; s < 6; s++) p.step()
    const marks = p.events.filter((e): e is ClipEvent => e.character === fade && e.kind === 'marker')
    expect(marks.length).toBeGreaterThan(0)
    for (const e of marks) {
      const share = e.clip === 'Walking' ? 0.7 : 0.3
      expect(e.weight).toBeCloseTo((share * ((e.step - 19) * DT)) / 0.5, 6)
    }
  })

  it('a snapshot mid-fade restores to the same continuation', () => {
    const { p, fade } = pair('additive')
    for (let s = 0; s < 10; s++) p.step()
    const copy = plugin()
    copy.addAsset(robot)
    copy.restore(p.snapshot())
    for (let s = 0; s < 30; s++) {
      p.step()
      copy.step()
    }
    expect(copy.hash()).toBe(p.hash())
    expect(rotations(copy, fade)).toEqual(rotations(p, fade))
  })

  it('refuses a bad fadeSeconds and changes nothing', () => {
    const { p, fade } = pair('base')
    for (const bad of [-1, Number.NaN, Infinity, '1', {}]) {
      const hash = p.hash()
      expect(() =>
        p.playBlendSpace(fade, POINTS, { parameter: 0, fadeSeconds: bad as unknown as number }),
      ).toThrow(AnimationError)
      expect(p.hash()).toBe(hash)
    }
  })
})
