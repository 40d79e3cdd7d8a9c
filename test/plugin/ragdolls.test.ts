/**
 * getUp where the ragdoll lies (plugin/ragdolls.ts): the character entity moves under the fallen pelvis with the
 * body's heading, the hips do not slide over the whole get-up, the face-down or face-up clip is chosen and
 * reported. On the Fox (a quadruped, in centimetres), RobotExpressive (a humanoid whose feet hang from its
 * root bone) and a humanoid made in code, two characters per world, each pushed a different way.
 *
 * The independent side: joint positions are read from the scene graph's world matrices (the entity's placement
 * included); heading and facing are judged from the pushes and from the spine's direction on the ground, with
 * Math.* here.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { GetUpEvent } from '../../systems/state.ts'
import { RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { makeHumanoidAsset } from '../helpers/humanoid.ts'
import { characterSize, worldPosition as position } from '../helpers/ragdollLimits.ts'

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

interface Rig {
  asset: () => AnimationAsset
  /** Root scale that puts the character in metres. */
  scale: number
  pelvis: string | number
  chest: string | number
  clip: string
  /** Where to push (pushes go along or against the character's front, +z). */
  hit: string | number
  /**
   * The push, N·s per metre of character size: enough that the fall carries the hips farther than the slide
   * limit (else a get-up in place would pass too). How far depends on how the body lands.
   */
  push: number
}

const humanoid = makeHumanoidAsset()

const RIGS: Record<string, Rig> = {
  humanoid: {
    asset: () => humanoid,
    scale: 1,
    pelvis: 'pelvis',
    chest: 'chest',
    clip: 'Idle',
    hit: 'chest',
    push: 20,
  },
  Fox: {
    asset: () => fox,
    scale: 0.01,
    pelvis: 'b_Hip_01',
    chest: 'b_Spine02_03',
    clip: 'Survey',
    hit: 'b_Spine02_03',
    push: 22,
  },
}

function newPlugin(): AnimationPlugin {
  return createAnimationPlugin(createWorld(), { capacity: 4096 })
}

function ground(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(a[0]! - b[0]!, a[2]! - b[2]!)
}

/** Yaw of the entity (its +z on the ground), radians. */
function entityYaw(p: AnimationPlugin, c: number): number {
  const w = p.stores.SceneNode.world
  return Math.atan2(w[c * 16 + 8]!, w[c * 16 + 10]!)
}

function angleBetween(a: number, b: number): number {
  const d = Math.abs(a - b) % (2 * Math.PI)
  return d > Math.PI ? 2 * Math.PI - d : d
}

for (const [name, rig] of Object.entries(RIGS)) {
  describe(`getUp on ${name}`, () => {
    /**
     * Two characters, placed apart and turned, walking or idle; one pushed on its back, one on its front, from
     * behind. Returns what the test needs at getUp and over the get-up.
     */
    function fallAndGetUp() {
      const asset = rig.asset()
      const p = newPlugin()
      const clips = asset.clips.map((c) => c.name)
      const walk = clips.includes('Walk') ? 'Walk' : 'Walking'
      const place = (at: [number, number, number], yaw: number): number => {
        const c = p.addCharacter(asset)
        p.setTransform(c, {
          position: at,
          rotation: [0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2)],
          scale: [rig.scale, rig.scale, rig.scale],
        })
        p.play(c, walk)
        return c
      }
      const chars = [place([0, 0, 0], 0.5), place([4, 0, -2], -2)]
      for (let s = 0; s < 20; s++) p.step()
      const size = characterSize(p, chars[0]!, asset)
      const tolerance = (0.3 * size) / 1.8
      // Front pushes go along the character's +z (falls backwards, on its back), back pushes against it.
      const push = (c: number, sign: number) => {
        const w = p.stores.SceneNode.world
        const f = [w[c * 16 + 8]!, 0, w[c * 16 + 10]!]
        const l = Math.hypot(f[0]!, f[2]!)
        const k = (sign * rig.push * size) / l
        p.ragdoll(c, { impulse: { joint: rig.hit, impulse: [-f[0]! * k, 0.5 * size, -f[2]! * k] } })
      }
      const before = chars.map((c) => position(p, p.jointEntity(c, rig.pelvis)))
      push(chars[0]!, 1)
      push(chars[1]!, -1)
      for (let s = 0; s < 180; s++) p.step()
      const hips = chars.map((c) => position(p, p.jointEntity(c, rig.pelvis)))
      const chestDir = chars.map((c) => {
        const a = position(p, p.jointEntity(c, rig.pelvis))
        const b = position(p, p.jointEntity(c, rig.chest))
        return Math.atan2(b[0]! - a[0]!, b[2]! - a[2]!)
      })
      p.events.length = 0
      for (const c of chars) p.getUp(c, { prone: rig.clip, supine: 0, play: { loop: 'repeat' } })
      const events = p.events.filter((e): e is GetUpEvent => e.kind === 'ragdoll-get-up')
      let slide = 0
      for (let s = 0; s < 150; s++) {
        p.step()
        chars.forEach((c, i) => {
          slide = Math.max(slide, ground(position(p, p.jointEntity(c, rig.pelvis)), hips[i]!))
        })
      }
      return { p, chars, hips, before, size, tolerance, slide, events, chestDir, clips }
    }

    it('moves the entity under the fallen pelvis and the hips never slide more than 0.3 m (1.8 m scaled)', () => {
      const { p, chars, hips, before, tolerance, slide } = fallAndGetUp()
      // The fall took the hips away from where they stood: a get-up in place would slide them back there.
      chars.forEach((c, i) => expect(ground(before[i]!, hips[i]!)).toBeGreaterThan(tolerance))
      expect(slide).toBeLessThanOrEqual(tolerance)
      chars.forEach((c, i) => {
        expect(ground(position(p, c), hips[i]!)).toBeLessThanOrEqual(tolerance)
        expect(p.stores.Ragdoll.active[c]).toBe(RAGDOLL_OFF)
        // On the ground (the plugin's plane at 0).
        expect(Math.abs(position(p, c)[1])).toBeLessThan(1e-6)
      })
    })

    it('turns the entity to the body heading: the spine on the ground points where it faces (face-up: away)', () => {
      const { p, chars, events, chestDir } = fallAndGetUp()
      chars.forEach((c, i) => {
        const facing = events[i]!.facing
        // A quadruped's spine runs along its front; a biped's along its up, which lying face-down points where
        // it faced before it tipped over, and face-up the other way.
        const spine = name === 'Fox' || facing === 'prone' ? chestDir[i]! : chestDir[i]! + Math.PI
        expect(angleBetween(entityYaw(p, c), spine)).toBeLessThan(0.6)
      })
    })

    it('reads how it lies, chooses the face-down or face-up clip and reports the choice', () => {
      const { p, chars, events, clips } = fallAndGetUp()
      expect(events.map((e) => [e.kind, e.entity])).toEqual(chars.map((c) => ['ragdoll-get-up', c]))
      for (const e of events) {
        const expected = e.facing === 'prone' ? p.clipId(e.entity, rig.clip) : p.clipId(e.entity, 0)
        expect(e.clipId).toBe(expected)
        expect(p.stores.Sampler.clip[e.entity]).toBe(expected)
        expect(e.message).toContain(e.facing === 'prone' ? 'face-down' : 'face-up')
        expect(e.message).toContain(`"${e.facing === 'prone' ? rig.clip : clips[0]}"`)
      }
      if (name !== 'Fox') {
        // Pushed from the front it lies on its back; from behind, on its face.
        expect(events.map((e) => e.facing)).toEqual(['supine', 'prone'])
      }
    })
  })
}

describe('getUp: checks', () => {
  it('refuses a bad prone or supine clip, changing nothing, and a getUp before any bodies stays put', async () => {
    const p = newPlugin()
    const c = p.addCharacter(fox)
    const d = p.addCharacter(fox)
    // Apart (a Fox at scale 1 is ~100 units long): ragdolls spawned inside each other would report it.
    p.setTransform(d, { position: [300, 0, 100] })
    p.play(c, 'Walk')
    p.step()
    p.ragdoll(c)
    p.ragdoll(d)
    p.step()
    const before = p.hash()
    const snap = p.snapshot()
    expect(() => p.getUp(c, { prone: 'Nope' })).toThrow(AnimationError)
    expect(() => p.getUp(c, { supine: 7, clip: 'Survey' })).toThrow(/getUp\(\d+\): supine: clip index 7/)
    expect(() => p.getUp(c, { clip: 'Walk', play: { loop: 'sideways' as never } })).toThrow(/loop/)
    expect(() => p.getUp(c, { fadeSeconds: -1 })).toThrow(/fadeSeconds -1/)
    expect(p.hash()).toBe(before)
    expect(p.snapshot()).toEqual(snap)
    expect(p.events).toEqual([])
    // Ragdolled this frame (no bodies yet): the entity keeps its place, the event still reports a choice.
    p.ragdoll(c)
    const e = p.addCharacter(fox)
    p.setTransform(e, { position: [-3, 0, 0] })
    p.ragdoll(e)
    p.getUp(e, { clip: 'Survey' })
    expect(p.getTransform(e).position).toEqual([-3, 0, 0])
    expect(p.events.map((x) => [x.kind, x.entity, 'clipId' in x ? x.clipId : null])).toEqual([
      ['ragdoll-get-up', e, p.clipId(e, 'Survey')],
    ])
    // A snapshot carries the event's fields.
    const copy = createAnimationPlugin(createWorld(), { capacity: 4096 })
    copy.addAsset(fox)
    copy.restore(p.snapshot())
    expect(copy.events).toEqual(p.events)
  })
})
