/**
 * The behaviour lock of the playback model's restructuring (issue 32): fixed scenarios through the public API on
 * the shipped Fox and RobotExpressive — cross-fades (mid-fade too), speed, pause, setTime, loop modes, squad;
 * ragdoll, hit reactions and get-up; layers (masked emote with crossFade and stopLayer, additive with a
 * reference, per-joint mask weights), 1D and 2D blend spaces with fades, morph weights, root motion, levels of
 * detail — recorded every few steps as digests of every character's world matrices (float32 bits), morph
 * weights, placement and the events of the step. The digests in behaviour.digests.json were recorded before the
 * restructuring began; every commit keeps them bit-identical. `hash()` is left out on purpose: its bytes may
 * change where the state it covers changes shape.
 *
 * Re-record (only for an intended behaviour change, said in the commit): UPDATE_DIGESTS=1 npx vitest run
 * test/entry/behaviour.digest.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { createHasher, type Hasher } from '../../src/sim/hasher.ts'
import { createAnimationPlugin, isClipEvent, type AnimationPlugin } from '../../entry/index.ts'
import { withTravel } from '../../demo/travel.ts'

const FILE = new URL('./behaviour.digests.json', import.meta.url)
const STEPS = 360
const EVERY = 12

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  const shipped = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  fox = withTravel(shipped, { name: 'WalkTravel', from: 'Walk', node: 'b_Hip_01', move: [0, 0, 40] })
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

type Actions = Record<number, (p: AnimationPlugin, c: readonly number[]) => void>

interface Scenario {
  readonly make: (p: AnimationPlugin) => number[]
  readonly actions: Actions
  readonly options?: Parameters<typeof createAnimationPlugin>[1]
}

const SCENARIOS: Record<string, Scenario> = {
  /** Layer 0 alone: plays, cross-fades (one mid-fade, one from a paused clip), speed, pause, setTime, loops. */
  fades: {
    make: (p) => [p.addCharacter(fox), p.addCharacter(fox), p.addCharacter(robot), p.addCharacter(robot)],
    actions: {
      0: (p, [a, b, c, d]) => {
        p.play(a!, 'Walk')
        p.play(b!, 'Run', { speed: -0.7, loop: 'pingpong', rotation: 'squad' })
        p.play(c!, 'Walking', { time: 0.3 })
        p.play(d!, 'Wave', { loop: 'once', speed: 1.5 })
      },
      20: (p, [a, , c]) => {
        p.crossFade(a!, 'Run', 0.3)
        p.crossFade(c!, 'Running', 0.5, { rotation: 'squad' })
      },
      30: (p, [a, b]) => {
        p.crossFade(a!, 'Survey', 0.25, { loop: 'once' })
        p.pause(b!)
      },
      50: (p, [, b, , d]) => {
        p.crossFade(b!, 'Walk', 0.4)
        p.crossFade(d!, 'Yes', 0.2)
      },
      70: (p, [a, b, c]) => {
        p.resume(b!)
        p.setSpeed(c!, 0.5)
        p.setTime(a!, 1.1)
      },
      110: (p, [a, , c, d]) => {
        p.crossFade(a!, 'Survey', 0.3) // a finished once clip: replays from its start
        p.play(c!, 'Idle')
        p.crossFade(d!, 'Dance', 0)
      },
      200: (p, [a, b]) => {
        p.crossFade(a!, 'Walk', 1.85, { loop: 'repeat' })
        p.setTime(b!, 0.05)
      },
    },
  },
  /** Ragdolls from the animated pose, a hit reaction mid-fade, powered motors, per-joint weights, get-ups. */
  ragdolls: {
    make: (p) => [p.addCharacter(fox), p.addCharacter(fox), p.addCharacter(robot), p.addCharacter(fox)],
    actions: {
      0: (p, [a, b, c, d]) => {
        p.play(a!, 'Walk')
        p.play(b!, 'Run')
        p.play(c!, 'Running')
        p.play(d!, 'Survey')
        p.setTransform(b!, { position: [1.5, 0, 0] })
        p.setTransform(c!, { position: [-1.5, 0, 0] })
        p.setTransform(d!, { position: [0, 0, 2] })
      },
      30: (p, [a, b]) => {
        p.ragdoll(a!, { impulse: { joint: 'b_Spine02_03', impulse: [3, 1, 0.5] } })
        p.crossFade(b!, 'Walk', 0.5)
      },
      40: (p, [, b, c]) => {
        p.hit(b!, 'b_Head_05', [-2, 0, 1])
        p.ragdoll(c!, { rate: 3 })
      },
      60: (p, [, , , d]) => {
        p.ragdoll(d!, { motors: { strength: 1, holdRoot: true } })
      },
      90: (p, [, , c, d]) => {
        p.applyImpulse(c!, 'Head', [0, 0, 2])
        p.setRagdollWeight(d!, { weight: 0.3, joints: 'b_Neck_04' })
      },
      150: (p, [a, , c]) => {
        p.getUp(a!, { clip: 'Survey' })
        p.getUp(c!, { clip: 'Idle' })
      },
    },
  },
  /** Layers, blend spaces, additive, masks, morph weights and root motion on one stack. */
  layers: {
    make: (p) => [p.addCharacter(robot), p.addCharacter(robot), p.addCharacter(fox), p.addCharacter(robot)],
    actions: {
      0: (p, [a, b, c, d]) => {
        p.play(a!, 'Walking')
        p.setLayer(a!, 1, { mask: ['Abdomen'] })
        p.playBlendSpace(
          b!,
          [
            { clip: 'Walking', at: 0 },
            { clip: 'Running', at: 1 },
          ],
          { parameter: 0.3 },
        )
        p.play(c!, 'WalkTravel')
        p.setRootMotion(c!, { mode: 'horizontal' })
        p.play(d!, 'Idle')
        p.setLayer(d!, 2, { mode: 'additive', weight: 0.6, reference: { clip: 'Idle', time: 0.5 } })
        p.play(d!, 'Yes', { layer: 2 })
        p.setMorphWeights(d!, 'Head', [0.7, 0, 0.2])
      },
      10: (p, [a, b]) => {
        p.crossFade(a!, 'Wave', 0.2, { layer: 1, loop: 'once' })
        p.setLayer(a!, 2, { mode: 'additive', weight: 0.6 })
        p.play(a!, 'Yes', { layer: 2 })
        p.setBlendParameter(b!, 0.8)
      },
      25: (p, [a, b, c]) => {
        p.setLayer(a!, 3, {
          mask: [
            { joint: 'Shoulder.L', weight: 1 },
            { joint: 'Neck', weight: 0.5 },
          ],
        })
        p.play(a!, 'ThumbsUp', { layer: 3 })
        p.playBlendSpace(
          b!,
          [
            { clip: 'Idle', at: [0, 0] },
            { clip: 'Walking', at: [0, 1] },
            { clip: 'Running', at: [1, 1] },
            { clip: 'Dance', at: [1, 0] },
          ],
          { parameter: [0.4, 0.6], fadeSeconds: 0.3, layer: 1 },
        )
        p.crossFade(c!, 'Run', 0.3)
      },
      45: (p, [a, b, c, d]) => {
        p.stopLayer(a!, 1, 0.3)
        p.setBlendParameter(b!, [0.9, 0.2], { layer: 1 })
        p.setRootMotion(c!, { mode: 'full', apply: false })
        p.crossFade(d!, 'Walking', 0.4)
        p.setSpeed(d!, -0.5, { layer: 2 })
      },
      70: (p, [a, b, c, d]) => {
        p.setLayer(a!, 2, { weight: 0.2, fadeSeconds: 0.25 })
        p.pause(b!, { layer: 1 })
        p.crossFade(c!, 'WalkTravel', 0.2)
        p.setRootMotion(c!, { mode: 'horizontal' })
        p.setMorphWeights(d!, 'Head', null)
        p.crossFade(d!, 'Jump', 0.3, { layer: 2 })
      },
      100: (p, [a, b, , d]) => {
        p.crossFade(a!, 'Wave', 0.2, { layer: 1, loop: 'once' })
        p.resume(b!, { layer: 1 })
        p.setTime(b!, 0.25, { layer: 1 })
        p.setLayer(d!, 1, { mask: ['Neck'], weight: 0.8 })
        p.playBlendSpace(
          d!,
          [
            { clip: 'Yes', at: 0 },
            { clip: 'No', at: 1 },
          ],
          { parameter: 0.5, layer: 1, fadeSeconds: 0.2 },
        )
      },
      150: (p, [a, b, c]) => {
        p.stopLayer(a!, 3, 0.2)
        p.stopLayer(b!, 1, 0.5)
        p.ragdoll(c!, { impulse: { joint: 'b_Spine02_03', impulse: [2, 0, 0] } })
      },
      240: (p, [, , c]) => p.getUp(c!, { clip: 'Walk' }),
    },
  },
  /** Levels of detail: characters at three distances sampled every 1, 2 and 4 steps, through fades. */
  lod: {
    make: (p) => [p.addCharacter(fox), p.addCharacter(fox), p.addCharacter(robot)],
    actions: {
      0: (p, [a, b, c]) => {
        p.setLod({ near: 2, far: 6, camera: [0, 1, 0] })
        p.setTransform(b!, { position: [4, 0, 0] })
        p.setTransform(c!, { position: [0, 0, 9] })
        p.play(a!, 'Walk')
        p.play(b!, 'Run')
        p.play(c!, 'Running')
      },
      33: (p, [a, b, c]) => {
        p.crossFade(a!, 'Survey', 0.3)
        p.crossFade(b!, 'Walk', 0.5)
        p.crossFade(c!, 'Walking', 0.25)
      },
      90: (p, [, , c]) => {
        p.setLayer(c!, 1, { mask: ['Abdomen'] })
        p.crossFade(c!, 'Wave', 0.2, { layer: 1 })
      },
    },
  },
}

function characterDigest(h: Hasher, p: AnimationPlugin, eid: number): void {
  const nodes = p.stores.SceneNode
  for (const e of p.joints(eid)) h.update(nodes.world.subarray(e * 16, e * 16 + 16))
  const t = p.getTransform(eid)
  h.update(Float64Array.from([...t.position, ...t.rotation, ...t.scale]))
  const morphs = p.morphWeights(eid)
  if (morphs !== null) h.update(Float32Array.from(morphs.weights))
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s)

function eventsDigest(h: Hasher, p: AnimationPlugin): void {
  for (const e of p.events) {
    h.update(text(`${e.kind}|${e.step}|${e.character}|${e.message}`))
    if (isClipEvent(e)) {
      h.update(text(`${e.layer}|${e.clip}|${e.name}|${e.fading}`)).update(Float64Array.of(e.time, e.weight))
    }
  }
  p.events.length = 0
}

function run(scenario: Scenario): string[] {
  const p = createAnimationPlugin(createWorld(), { capacity: 2048, ...scenario.options })
  p.addMarker(p.addAsset(fox), 'Walk', 0.25, 'footstep')
  p.addMarker(p.addAsset(fox), 'Run', 0.1, 'footstep')
  p.addMarker(p.addAsset(robot), 'Walking', 0.3, 'step')
  p.addMarker(p.addAsset(robot), 'Running', 0.2, 'step')
  p.addMarker(p.addAsset(robot), 'Wave', 0.5, 'wave')
  const characters = scenario.make(p)
  const out: string[] = []
  let h = createHasher()
  for (let s = 0; s < STEPS; s++) {
    scenario.actions[s]?.(p, characters)
    p.step()
    eventsDigest(h, p)
    if ((s + 1) % EVERY === 0) {
      for (const c of characters) characterDigest(h, p, c)
      out.push(h.digest())
      h = createHasher()
    }
  }
  p.dispose()
  return out
}

describe('behaviour lock: world matrices, morph weights, placement and events of fixed scenarios', () => {
  const update = process.env.UPDATE_DIGESTS === '1'
  const recorded: Record<string, string[]> = update ? {} : JSON.parse(readFileSync(FILE, 'utf8'))
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    it(`${name}: every checkpoint as recorded`, () => {
      const digests = run(scenario)
      if (update) {
        recorded[name] = digests
        writeFileSync(FILE, JSON.stringify(recorded, null, 2) + '\n')
        return
      }
      const expected = recorded[name]!
      const first = digests.findIndex((d, i) => d !== expected[i])
      expect(first === -1 ? 'same' : `first differs after step ${(first + 1) * EVERY}`).toBe('same')
    })
  }
})
