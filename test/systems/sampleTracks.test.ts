import { describe, expect, it } from 'vitest'
import { JOINT_STRIDE, POSE_FROM, POSE_PREV, poseOffset } from '../../components/Pose.ts'
import { sampleNodeTransforms } from '../../src/skeleton/nodeTransforms.ts'
import type { LoopMode } from '../../components/Sampler.ts'
import type { AnimationPlugin } from '../../entry/plugin.ts'
import {
  animLayer,
  createTestPlugin,
  DT,
  expectedLocal,
  expectSameBits,
  HEAD,
  HIPS,
  makeTestAsset,
  NOD,
  PROP,
  SPINE,
  stepN,
  STILL,
  TAIL,
  TURN,
  vecDistance,
  WAG,
  type RawClipInput,
} from '../helpers/ecs.ts'
import { expectQuatClose, quatFromAxisAngle, refMultiply } from '../helpers/quat.ts'
import { contextOf } from '../../entry/plugin.ts'

const mod = (x: number, m: number) => ((x % m) + m) % m

/** Asserts every joint of a character's ANIM layer shows `clip` at clip-local time t (closed forms). */
function expectPoseAt(plugin: AnimationPlugin, character: number, clip: number, t: number, tol = 2e-6): void {
  const pose = animLayer(plugin, character)
  for (const node of [HIPS, SPINE, HEAD, TAIL, PROP]) {
    const e = expectedLocal(clip, node, t)
    const o = node * JOINT_STRIDE
    expect(vecDistance(pose.subarray(o, o + 3), e.t), `joint ${node} translation at t=${t}`).toBeLessThan(tol)
    expectQuatClose(pose, e.r, tol, o + 3)
    expect(vecDistance(pose.subarray(o + 7, o + 10), e.s), `joint ${node} scale at t=${t}`).toBeLessThan(tol)
  }
}

describe('sampleTracks: loop modes and speeds through the plugin', () => {
  it('gives each character the clip time its loop mode, speed and start time imply after N steps', () => {
    // Start times avoid landing exactly on a repeat wrap at a checkpoint (Turn jumps from x=2 to x=0 there).
    const cases: { loop: LoopMode; speed: number; time: number }[] = [
      { loop: 'once', speed: 1, time: 0 },
      { loop: 'once', speed: -1, time: 0.8 },
      { loop: 'once', speed: 1, time: 5 }, // starts clamped at the end
      { loop: 'repeat', speed: 1.5, time: 0.2513 },
      { loop: 'repeat', speed: -0.7, time: 0.3071 },
      { loop: 'repeat', speed: 1, time: -0.2487 }, // starts at 0.7513
      { loop: 'pingpong', speed: 1, time: 0 },
      { loop: 'pingpong', speed: -1.3, time: 0.4123 },
      { loop: 'pingpong', speed: 2.5, time: 1.5 }, // starts on the way back, at 0.5
      { loop: 'repeat', speed: 0, time: 0.6 }, // paused
    ]
    const { plugin, handle } = createTestPlugin()
    const { Sampler } = plugin.stores
    const chars = cases.map((c) => {
      const e = plugin.addCharacter(handle)
      plugin.play(e, 'Turn', c)
      return e
    })
    const checkpoints = new Set([1, 2, 13, 30, 45, 59, 60, 61, 62, 90, 119, 120, 121, 200, 333])
    for (let n = 1; n <= 333; n++) {
      plugin.step()
      if (!checkpoints.has(n)) continue
      cases.forEach((c, i) => {
        // The first step after play shows the start time; time advances from the second.
        const p = c.time + c.speed * DT * (n - 1)
        let t: number
        if (c.loop === 'once')
          t = Math.min(1, Math.max(0, Math.min(1, Math.max(0, c.time)) + c.speed * DT * (n - 1)))
        else if (c.loop === 'repeat') t = mod(p, 1)
        else {
          const m = mod(p, 2)
          t = m <= 1 ? m : 2 - m
        }
        const phase = Sampler.time[chars[i]!]!
        const local = c.loop === 'pingpong' && phase > 1 ? 2 - phase : phase
        expect(Math.abs(local - t), `case ${i} (${c.loop} ${c.speed}) after ${n} steps`).toBeLessThan(1e-9)
        expectPoseAt(plugin, chars[i]!, TURN, t)
      })
    }
  })

  it('wraps a start time a hair below 0 to 0, not to the clip’s end', () => {
    // −1e-17 + 1 rounds to 1: a start phase equal to the period showed Turn's last key (rotY(π)) first.
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { time: -1e-17 })
    plugin.play(b, 'Turn', { time: -1e-17, loop: 'pingpong' })
    plugin.step()
    expect([plugin.stores.Sampler.time[a], plugin.stores.Sampler.time[b]]).toEqual([0, 0])
    expectPoseAt(plugin, a, TURN, 0)
    expectPoseAt(plugin, b, TURN, 0)
  })

  it('samples zero-length clips and clips shorter than a step in every loop mode without NaN', () => {
    const { plugin, handle } = createTestPlugin()
    const chars = (['once', 'repeat', 'pingpong'] as const).map((loop) => {
      const e = plugin.addCharacter(handle)
      plugin.play(e, 'Still', { loop, speed: -3, time: 7 })
      return e
    })
    stepN(plugin, 5)
    for (const e of chars) {
      expect(plugin.stores.Sampler.time[e]).toBe(0)
      expectPoseAt(plugin, e, STILL, 0)
    }
  })
})

describe('sampleTracks: every character samples its own clip at its own time', () => {
  const schedule = (plugin: AnimationPlugin, e: number, which: number): void => {
    if (which === 0) plugin.play(e, 'Turn', { time: 0.1 })
    if (which === 1) plugin.play(e, 'Nod', { speed: -1, loop: 'pingpong' })
    if (which === 2) plugin.play(e, 'Wag', { time: 0.951, speed: 0.5 }) // not exactly on the STEP key at 1
    if (which === 3) plugin.play(e, 'Nod', { time: 0.2, speed: 0 })
  }

  it('matches the closed forms per character and equals the same character simulated alone, bit for bit', () => {
    const { plugin, handle } = createTestPlugin()
    const chars = [0, 1, 2, 3].map((which) => {
      const e = plugin.addCharacter(handle)
      schedule(plugin, e, which)
      return e
    })
    const alone = [0, 1, 2, 3].map((which) => {
      const solo = createTestPlugin()
      const e = solo.plugin.addCharacter(solo.handle)
      schedule(solo.plugin, e, which)
      return { plugin: solo.plugin, e }
    })
    for (let n = 1; n <= 50; n++) {
      plugin.step()
      for (const s of alone) s.plugin.step()
      expectPoseAt(plugin, chars[0]!, TURN, 0.1 + (n - 1) * DT)
      const m = mod(-(n - 1) * DT, 1)
      expectPoseAt(plugin, chars[1]!, NOD, m <= 0.5 ? m : 1 - m)
      expectPoseAt(plugin, chars[2]!, WAG, 0.951 + 0.5 * (n - 1) * DT)
      expectPoseAt(plugin, chars[3]!, NOD, 0.2)
      chars.forEach((e, i) => expectSameBits(animLayer(plugin, e), animLayer(alone[i]!.plugin, alone[i]!.e)))
    }
  })

  it('skips a paused character and a finished once-clip: Pose.changed stays 0; PREV is kept only at a ragdoll hand-off', () => {
    const { plugin, handle } = createTestPlugin()
    const { Pose } = plugin.stores
    const paused = plugin.addCharacter(handle)
    const once = plugin.addCharacter(handle)
    const moving = plugin.addCharacter(handle)
    plugin.play(paused, 'Turn', { time: 0.4, speed: 0 })
    plugin.play(once, 'Nod', { loop: 'once', time: 0.45 })
    plugin.play(moving, 'Turn')
    const prevOf = (e: number) => {
      const o = poseOffset(Pose.base[e]!, Pose.count[e]!, POSE_PREV)
      return contextOf(plugin).pool.data.slice(o, o + Pose.count[e]! * JOINT_STRIDE)
    }
    plugin.step()
    expect([Pose.changed[paused], Pose.changed[once], Pose.changed[moving]]).toEqual([1, 1, 1])
    const pausedPrev = prevOf(paused)
    const movingPrev = prevOf(moving)
    for (let n = 2; n <= 10; n++) {
      plugin.step()
      // Nod (0.5 s) from 0.45 reaches its end on step 4 and holds.
      expect(Pose.changed[once], `once-clip, step ${n}`).toBe(n <= 4 ? 1 : 0)
      expect(Pose.changed[paused]).toBe(0)
      expect(Pose.changed[moving]).toBe(1)
      expectSameBits(prevOf(paused), pausedPrev)
      // No ragdoll waiting: the crowd's PREV layers are not copied every step.
      expectSameBits(prevOf(moving), movingPrev, 'PREV untouched without a hand-off')
    }
    // A ragdoll waiting for its bodies: this step keeps the ANIM of the step before in PREV.
    const movingAnim = animLayer(plugin, moving)
    plugin.ragdoll(moving)
    plugin.step()
    expectSameBits(prevOf(moving), movingAnim, 'PREV = the ANIM of the step before, at the hand-off')
    expect(Pose.changed[moving]).toBe(1)
    expect(Pose.changedStep[once]).toBe(3)
    expectPoseAt(plugin, once, NOD, 0.5)
  })
})

const BIG_TIMES = [0, 0.25, 0.5, 0.75, 1]
/**
 * g(t) = t² at the keys, linear in between: the piecewise-linear curve Big's channels follow. Not a straight
 * line, so sampling the wrong segment (extrapolating it) gives a wrong value.
 */
function bigCurve(t: number): number {
  const k = Math.min(3, Math.floor(t / 0.25))
  const [a, b] = [BIG_TIMES[k]!, BIG_TIMES[k + 1]!]
  return a * a + ((t - a) / (b - a)) * (b * b - a * a)
}

/** A clip of another rig with more channels than any clip of the synthetic asset (8 vs 3). */
function bigClip(): RawClipInput {
  const times = BIG_TIMES
  const lin = (k: number[]) => times.flatMap((t) => k.map((c) => c * t * t))
  const rot = (axis: number[]) => times.flatMap((t) => quatFromAxisAngle(axis, t * t * 2))
  const ch = (node: number, name: string, path: string, values: number[]) => ({
    node,
    nodeName: name,
    path,
    times,
    values,
  })
  return {
    name: 'Big',
    channels: [
      ch(HIPS, 'hips', 'translation', lin([1, 2, 3])),
      ch(HIPS, 'hips', 'rotation', rot([0, 1, 0])),
      ch(
        HIPS,
        'hips',
        'scale',
        times.flatMap((t) => [1 + t * t, 1 + t * t, 1 + t * t]),
      ),
      ch(SPINE, 'spine', 'translation', lin([0, 1, 0])),
      ch(SPINE, 'spine', 'rotation', rot([1, 0, 0])),
      ch(
        SPINE,
        'spine',
        'scale',
        times.flatMap(() => [1, 1, 1]),
      ),
      ch(HEAD, 'head', 'translation', lin([3, 0, 1])),
      ch(HEAD, 'head', 'rotation', rot([0, 0, 1])),
    ],
  }
}

describe('sampleTracks: clips of another asset', () => {
  it('plays a clip with more channels than the character’s own clips (by node name), alone and in fades', () => {
    const { plugin, handle } = createTestPlugin()
    plugin.addAsset(makeTestAsset('big-rig', [bigClip()]))
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    plugin.play(a, 'Big', { time: 0.31 }) // never exactly on the wrap at 1
    plugin.play(b, 'Turn', { time: 0.4 })
    const expectBig = (e: number, t: number, tol = 2e-6) => {
      const pose = animLayer(plugin, e)
      const g = bigCurve(t)
      expect(vecDistance(pose.subarray(HEAD * 10, HEAD * 10 + 3), [3 * g, 0, g])).toBeLessThan(tol)
      expectQuatClose(pose, quatFromAxisAngle([0, 0, 1], 2 * g), tol, HEAD * 10 + 3)
      expectQuatClose(pose, quatFromAxisAngle([1, 0, 0], 2 * g), tol, SPINE * 10 + 3)
      expect(vecDistance(pose.subarray(0, 3), [g, 2 * g, 3 * g])).toBeLessThan(tol)
    }
    for (let n = 1; n <= 30; n++) {
      plugin.step()
      expectBig(a, 0.31 + (n - 1) * DT)
    }
    // Fade Turn → Big on b (Big's cursors in the current half) and Big → Turn on a (in the outgoing half).
    plugin.crossFade(b, 'Big', 1)
    plugin.crossFade(a, 'Turn', 1)
    const { Pose } = plugin.stores
    for (let k = 1; k <= 20; k++) {
      plugin.step()
      const from = poseOffset(Pose.base[a]!, Pose.count[a]!, POSE_FROM)
      const fromPose = contextOf(plugin).pool.data.subarray(from, from + 5 * JOINT_STRIDE)
      const g = bigCurve(mod(0.31 + (29 + k) * DT, 1))
      expect(vecDistance(fromPose.subarray(HEAD * 10, HEAD * 10 + 3), [3 * g, 0, g])).toBeLessThan(2e-6)
      expectQuatClose(fromPose, quatFromAxisAngle([0, 0, 1], 2 * g), 2e-6, HEAD * 10 + 3)
    }
    stepN(plugin, 45)
    expectBig(b, mod(64 * DT, 1)) // Big started at 0 on the first fade step and wrapped once
  })
})

describe('sampleTracks: rotation modes', () => {
  // Spine keys about three different axes: squad and slerp differ between keys.
  const wobble: RawClipInput = {
    name: 'Wobble',
    channels: [
      {
        node: SPINE,
        path: 'rotation',
        times: [0, 0.5, 1, 1.5],
        values: [
          ...quatFromAxisAngle([1, 0, 0], 0.1),
          ...quatFromAxisAngle([1, 0, 0], 1),
          ...refMultiply(quatFromAxisAngle([0, 1, 0], 1), quatFromAxisAngle([1, 0, 0], 1)),
          ...quatFromAxisAngle([0, 0, 1], 1.2),
        ],
      },
    ],
  }

  it('builds a clip’s squad data when a character starts it in squad mode, not for slerp-only clips', () => {
    const asset = makeTestAsset('wobble-rig', [wobble])
    const { plugin } = createTestPlugin()
    const handle = plugin.addAsset(asset)
    const a = plugin.addCharacter(handle)
    const squadData = (clip: number) => asset.clips[clip]!.channels.find((ch) => ch.squad)!.squad!.segments
    plugin.play(a, 'Turn')
    stepN(plugin, 3)
    expect(squadData(TURN)).toBeNull()
    plugin.play(a, 'Wobble', { rotation: 'squad' })
    // Built by play(), outside the step.
    expect(squadData(4)).not.toBeNull()
    expect(squadData(TURN)).toBeNull()
  })

  it('samples each character in its own mode, and a fading-out clip keeps its mode', () => {
    const asset = makeTestAsset('wobble-rig', [wobble])
    const { plugin } = createTestPlugin()
    const handle = plugin.addAsset(asset)
    const squad = plugin.addCharacter(handle)
    const slerp = plugin.addCharacter(handle)
    plugin.play(squad, 'Wobble', { rotation: 'squad', time: 0.3 })
    plugin.play(slerp, 'Wobble', { time: 0.3 })
    const spineOf = (pose: Float32Array, o = SPINE * JOINT_STRIDE + 3) => Array.from(pose.subarray(o, o + 4))
    const expected = (t: number, mode: 'squad' | 'slerp') =>
      sampleNodeTransforms(asset, asset.clips[4]!, t, { rotationMode: mode }).find((n) => n.node === SPINE)!
        .rotation
    stepN(plugin, 20)
    const t = 0.3 + 19 * DT
    expectQuatClose(spineOf(animLayer(plugin, squad)), expected(t, 'squad'), 1e-7)
    expectQuatClose(spineOf(animLayer(plugin, slerp)), expected(t, 'slerp'), 1e-7)
    // The two modes really differ here (else this test could not tell them apart).
    expect(vecDistance(expected(t, 'squad'), expected(t, 'slerp'))).toBeGreaterThan(1e-3)

    plugin.crossFade(squad, 'Turn', 1) // Turn plays with slerp; the outgoing Wobble stays squad
    plugin.step()
    const { Pose } = plugin.stores
    const from = poseOffset(Pose.base[squad]!, Pose.count[squad]!, POSE_FROM)
    const fromPose = contextOf(plugin).pool.data.subarray(from, from + 5 * JOINT_STRIDE)
    expectQuatClose(spineOf(fromPose), expected(t + DT, 'squad'), 1e-7)
  })
})
