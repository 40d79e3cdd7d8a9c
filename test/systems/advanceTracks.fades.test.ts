import { describe, expect, it } from 'vitest'
import { JOINT_STRIDE, POSE_ANIM, POSE_FROM, POSE_TO, poseOffset } from '../../components/Pose.ts'
import { BLEND_S, BLEND_T, blendPoses } from '../../src/clip/blendPoses.ts'
import {
  animLayer,
  animOffset,
  createTestPlugin,
  DT,
  expectedLocal,
  expectSameBits,
  HEAD,
  HIPS,
  localOf,
  NOD,
  PROP,
  REST,
  SPINE,
  stepN,
  TAIL,
  TURN,
  vecDistance,
  WAG,
  problems,
} from '../helpers/ecs.ts'
import { expectQuatClose, quatAt, quatRotationAngle, refSlerp } from '../helpers/quat.ts'
import { contextOf } from '../../entry/plugin.ts'

const lerp3 = (a: number[], b: number[], w: number) => a.map((x, k) => x + (b[k]! - x) * w)

describe('advanceTracks + sampleTracks: cross-fade weights', () => {
  it('blend after k steps is exactly k·dt/duration for each character, independently', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    const c = plugin.addCharacter(handle)
    const { CrossFade } = plugin.stores
    plugin.play(a, 'Turn', { time: 0.1 })
    plugin.play(b, 'Nod')
    plugin.play(c, 'Wag')
    stepN(plugin, 10)
    plugin.crossFade(a, 'Nod', 0.5)
    for (let k = 1; k <= 40; k++) {
      if (k === 6) plugin.crossFade(b, 'Turn', 0.25)
      plugin.step()
      // a: 0.5 s = 30 steps.
      if (k < 30) {
        expect(CrossFade.active[a]).toBe(1)
        expect(CrossFade.blend[a]).toBe((k * DT) / 0.5)
      } else {
        expect(CrossFade.active[a]).toBe(0)
        expect(CrossFade.blend[a]).toBe(1)
      }
      // b: 0.25 s = 15 steps, starting 5 steps later.
      const kb = k - 5
      if (kb <= 0) expect(CrossFade.active[b]).toBe(0)
      else if (kb < 15) expect(CrossFade.blend[b]).toBe((kb * DT) / 0.25)
      else expect([CrossFade.active[b], CrossFade.blend[b]]).toEqual([0, 1])
      // c never fades.
      expect([CrossFade.active[c], CrossFade.blend[c]]).toEqual([0, 0])
    }
  })

  it('during a fade the pose is lerp/slerp(outgoing clip, incoming clip, k·dt/duration), both clips advancing', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const still = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { time: 0.1 })
    plugin.play(still, 'Wag', { time: 0.5, speed: 0 })
    stepN(plugin, 10)
    plugin.crossFade(a, 'Nod', 0.5)
    for (let k = 1; k < 30; k++) {
      plugin.step()
      const w = (k * DT) / 0.5
      // Outgoing Turn keeps advancing from 0.1 + 9·dt; incoming Nod starts at 0 on the first fade step.
      const tf = 0.1 + (9 + k) * DT
      const tt = (k - 1) * DT
      const pose = animLayer(plugin, a)
      for (const node of [HIPS, SPINE, HEAD, TAIL]) {
        const from = expectedLocal(TURN, node, tf)
        const to = expectedLocal(NOD, node, tt)
        const o = node * JOINT_STRIDE
        expect(vecDistance(pose.subarray(o, o + 3), lerp3(from.t, to.t, w))).toBeLessThan(2e-6)
        expectQuatClose(pose, refSlerp(from.r, to.r, w), 2e-6, o + 3)
        expect(vecDistance(pose.subarray(o + 7, o + 10), lerp3(from.s, to.s, w))).toBeLessThan(2e-6)
      }
      // The paused character beside it shows Wag at 0.5 throughout.
      expectQuatClose(
        animLayer(plugin, still),
        expectedLocal(WAG, TAIL, 0.5).r,
        2e-6,
        TAIL * JOINT_STRIDE + 3,
      )
    }
  })

  it('ends after exactly duration/dt steps for every duration (no extra step at blend 0.9999…)', () => {
    // As a running sum, 0.1 s took 7 steps, 0.25 s 16, 0.5 s 31, 0.9 s 55; 1.85 s = 111 steps rounds to
    // 1 - 1 ulp even as a product.
    const durations = [0.1, 0.25, 0.5, 0.9, 1.85]
    const { plugin, handle } = createTestPlugin()
    const { CrossFade } = plugin.stores
    const chars = durations.map(() => plugin.addCharacter(handle))
    for (const c of chars) plugin.play(c, 'Turn')
    plugin.step()
    chars.forEach((c, i) => plugin.crossFade(c, 'Wag', durations[i]!))
    const endedAt = chars.map(() => -1)
    for (let k = 1; k <= 120; k++) {
      plugin.step()
      chars.forEach((c, i) => {
        if (endedAt[i] === -1 && CrossFade.active[c] === 0) endedAt[i] = k
      })
    }
    expect(endedAt).toEqual(durations.map((d) => Math.round(d / DT)))
  })
})

describe('the end of a fade', () => {
  it('shows the incoming clip alone, bit-identical to a plain play at the same clip time', () => {
    const { plugin, handle } = createTestPlugin()
    const { Sampler, CrossFade } = plugin.stores
    const fading = plugin.addCharacter(handle)
    const twin = plugin.addCharacter(handle)
    plugin.play(fading, 'Wag', { time: 0.3 })
    plugin.play(twin, 'Nod')
    stepN(plugin, 3)
    // The twin starts Turn at the same step the fade starts, so both clip times advance in the same way.
    plugin.crossFade(fading, 'Turn', 0.25)
    plugin.play(twin, 'Turn')
    stepN(plugin, 14)
    expect(CrossFade.active[fading]).toBe(1)
    expect(Sampler.time[fading]).toBe(Sampler.time[twin])
    // One step before the end the outgoing Wag still shows (its tail rotation differs from rest).
    expect(
      quatRotationAngle(animLayer(plugin, fading), REST[TAIL]!.r, TAIL * JOINT_STRIDE + 3),
    ).toBeGreaterThan(0.01)
    expect(() => expectSameBits(animLayer(plugin, fading), animLayer(plugin, twin))).toThrow()

    plugin.step() // step 15 = 0.25 s: the fade ends
    expect(CrossFade.active[fading]).toBe(0)
    // 14 advances of dt since the fade began (the first fade step showed time 0), as for the twin.
    expect(Sampler.time[fading]).toBe(Sampler.time[twin])
    expect(Sampler.time[fading]).toBeCloseTo(14 * DT, 12)
    expectSameBits(animLayer(plugin, fading), animLayer(plugin, twin), 'ANIM after the fade')
    // The tail, which Turn does not animate, is back at its rest transform exactly.
    const tail = localOf(plugin, plugin.jointEntity(fading, 'tail'))
    expect(tail.r).toEqual(Array.from(new Float32Array(REST[TAIL]!.r)))
    expect(tail.s).toEqual([1, 1, 1])

    // And a character told to play Turn at that clip time shows the same bits on its first step.
    const fresh = plugin.addCharacter(handle)
    plugin.play(fresh, 'Wag', { time: 1.5 })
    plugin.step()
    const fadedPose = animLayer(plugin, fading)
    plugin.play(fresh, 'Turn', { time: Sampler.time[fading]! })
    plugin.step()
    expectSameBits(animLayer(plugin, fresh), fadedPose, 'ANIM of play(Turn, {time})')
    // From then on the faded character and the twin stay identical.
    for (let k = 0; k < 20; k++) {
      plugin.step()
      expectSameBits(animLayer(plugin, fading), animLayer(plugin, twin), `ANIM ${k} steps after`)
    }
  })
})

describe('a fade interrupted by another', () => {
  it('starts the new fade from the pose on screen: no pop', () => {
    const { plugin, handle } = createTestPlugin()
    const { CrossFade } = plugin.stores
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    plugin.play(b, 'Turn')
    stepN(plugin, 5)
    plugin.crossFade(a, 'Nod', 1)
    plugin.crossFade(b, 'Nod', 1)
    const spine = (e: number) => quatAt(animLayer(plugin, e), SPINE * JOINT_STRIDE + 3)
    const hips = (e: number) => Array.from(animLayer(plugin, e).subarray(0, 3))
    let motion = 0 // largest per-step change (spine angle, hips distance) over the last steps of the first fade
    let prev = animLayer(plugin, a)
    for (let k = 1; k <= 30; k++) {
      plugin.step()
      const now = animLayer(plugin, a)
      if (k > 20) {
        motion = Math.max(
          motion,
          quatRotationAngle(now, prev, SPINE * JOINT_STRIDE + 3, SPINE * JOINT_STRIDE + 3),
        )
      }
      prev = now
    }
    expect(CrossFade.blend[a]).toBe(0.5)
    const frozen = animLayer(plugin, a)
    plugin.crossFade(a, 'Wag', 0.5) // Wag leaves the spine and hips at rest
    // The frozen pose is the one on screen, and the outgoing clips stop.
    const { Pose } = plugin.stores
    const from = poseOffset(Pose.base[a]!, Pose.count[a]!, POSE_FROM)
    expectSameBits(contextOf(plugin).pool.data.slice(from, from + frozen.length), frozen, 'FROM layer')
    expect(CrossFade.from.clip[a]).toBe(-1)

    plugin.step()
    const jump = quatRotationAngle(spine(a), frozen, 0, SPINE * JOINT_STRIDE + 3)
    // A pop would jump to Nod or Turn alone (tens of degrees); one step of the new fade moves at most
    // dt/duration of the way to rest (π·dt/0.5 ≈ 0.105 rad at most), and no more than the old fade's steps.
    expect(jump).toBeLessThanOrEqual(Math.PI * (DT / 0.5))
    expect(jump).toBeLessThanOrEqual(1.5 * motion)
    expectQuatClose(
      spine(a),
      refSlerp(quatAt(frozen, SPINE * JOINT_STRIDE + 3), REST[SPINE]!.r, DT / 0.5),
      2e-6,
    )
    expect(
      vecDistance(hips(a), lerp3(Array.from(frozen.subarray(0, 3)), REST[HIPS]!.t, DT / 0.5)),
    ).toBeLessThan(2e-6)

    // Later steps blend the frozen pose toward Wag; the uninterrupted character is unaffected.
    for (let k = 2; k <= 30; k++) {
      plugin.step()
      const w = (k * DT) / 0.5
      if (k < 30) {
        expectQuatClose(spine(a), refSlerp(quatAt(frozen, SPINE * JOINT_STRIDE + 3), REST[SPINE]!.r, w), 2e-6)
        const tail = expectedLocal(WAG, TAIL, (k - 1) * DT)
        expectQuatClose(
          animLayer(plugin, a),
          refSlerp(quatAt(frozen, TAIL * 10 + 3), tail.r, w),
          2e-6,
          TAIL * 10 + 3,
        )
      }
      expect(CrossFade.blend[b]).toBe(Math.min(1, ((30 + k) * DT) / 1))
    }
    expect(CrossFade.active[a]).toBe(0)
    expect(spine(a)).toEqual(Array.from(new Float32Array(REST[SPINE]!.r)))
  })
})

describe('fade durations', () => {
  it('0 is a cut and one step fades in a single step: both bit-identical to play', () => {
    const { plugin, handle } = createTestPlugin()
    const { CrossFade } = plugin.stores
    const [cut, played, oneStep, played2, oneAndHalf] = [0, 1, 2, 3, 4].map(() =>
      plugin.addCharacter(handle),
    ) as [number, number, number, number, number]
    for (const c of [cut, played, oneStep, played2, oneAndHalf]) plugin.play(c, 'Turn', { time: 0.2 })
    stepN(plugin, 7)
    plugin.crossFade(cut, 'Nod', 0)
    expect(CrossFade.active[cut]).toBe(0)
    plugin.play(played, 'Nod')
    plugin.crossFade(oneStep, 'Nod', DT)
    expect(CrossFade.active[oneStep]).toBe(1)
    plugin.play(played2, 'Nod')
    plugin.crossFade(oneAndHalf, 'Nod', 1.5 * DT)
    for (let k = 1; k <= 10; k++) {
      plugin.step()
      expectSameBits(animLayer(plugin, cut), animLayer(plugin, played), `cut, step ${k}`)
      expectSameBits(animLayer(plugin, oneStep), animLayer(plugin, played2), `one-step fade, step ${k}`)
      expect(CrossFade.active[oneStep]).toBe(0)
      if (k === 1) {
        // 1.5 steps: blend 2/3 after the first step, the incoming clip alone after the second.
        expect(CrossFade.blend[oneAndHalf]).toBe(DT / (1.5 * DT))
        const w = DT / (1.5 * DT)
        // hips.x: the outgoing Turn one step further (0.2 + 7·dt) faded toward Nod's 0.
        const from = expectedLocal(TURN, HIPS, 0.2 + 7 * DT).t[0]
        expect(Math.abs(animLayer(plugin, oneAndHalf)[0]! - from * (1 - w))).toBeLessThan(1e-6)
      } else {
        expect(CrossFade.active[oneAndHalf]).toBe(0)
        expectSameBits(animLayer(plugin, oneAndHalf), animLayer(plugin, played), `1.5-step fade, step ${k}`)
      }
    }
  })

  it('a cross-fade to the clip already playing is a no-op', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const twin = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { time: 0.2 })
    plugin.play(twin, 'Turn', { time: 0.2 })
    stepN(plugin, 12)
    const hash = plugin.hash()
    plugin.crossFade(a, 'Turn', 0.3, { speed: 3 })
    plugin.crossFade(a, TURN, 0.3)
    expect(plugin.hash()).toBe(hash)
    for (let k = 0; k < 10; k++) {
      plugin.step()
      expectSameBits(animLayer(plugin, a), animLayer(plugin, twin), `step ${k}`)
    }
  })

  it('a cross-fade on a character with no clip yet is a cut', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    plugin.crossFade(a, 'Nod', 0.5)
    plugin.play(b, 'Nod')
    expect(plugin.stores.CrossFade.active[a]).toBe(0)
    stepN(plugin, 3)
    expectSameBits(animLayer(plugin, a), animLayer(plugin, b))
    expect(animOffset(plugin, a, 0)).not.toBe(animOffset(plugin, b, 0))
  })
})

describe('a fade blends only the paths that can change, with the same bits as a full blend', () => {
  /** The full blend (no paths mask) of a fading character's FROM and TO layers at its current weight. */
  function fullBlend(plugin: ReturnType<typeof createTestPlugin>['plugin'], e: number): Float32Array {
    const { Pose, CrossFade } = plugin.stores
    const n = Pose.count[e]!
    const base = Pose.base[e]!
    const data = contextOf(plugin).pool.data
    const out = new Float32Array(n * JOINT_STRIDE)
    const from = poseOffset(base, n, POSE_FROM)
    const to = poseOffset(base, n, POSE_TO)
    return blendPoses(out, 0, data, from, data, to, n, CrossFade.blend[e]!)
  }

  it('ANIM equals the full blend of FROM and TO every step: paths only one clip drives, a frozen pose, a repair', () => {
    const { plugin, handle } = createTestPlugin()
    const { CrossFade, Pose } = plugin.stores
    // Turn → Wag: the tail's scale is driven by the incoming clip only, and equal in both layers when the
    // fade starts (rest); Wag → Nod: the head's translation likewise (Nod starts at rest); Nod → Turn, then
    // mid-fade to Wag from the frozen pose; a fourth whose ANIM layer gets a NaN (repaired) mid-fade.
    const plan: [string, string][] = [
      ['Turn', 'Wag'],
      ['Wag', 'Nod'],
      ['Nod', 'Turn'],
      ['Turn', 'Nod'],
    ]
    const chars = plan.map(([first]) => {
      const e = plugin.addCharacter(handle)
      plugin.play(e, first, { time: 0.3 })
      return e
    })
    stepN(plugin, 3)
    chars.forEach((e, i) => plugin.crossFade(e, plan[i]![1], 1.5))
    const paths = chars.map((e) => Array.from(contextOf(plugin).fadePaths[e]!))
    // Tail scale (joint 3) blended in the first fade, head translation (joint 2) in the second: driven, not
    // different at the start. The prop (joint 4), which no clip drives, is skipped in every fade.
    expect(paths[0]![TAIL]! & BLEND_S).toBe(BLEND_S)
    expect(paths[1]![HEAD]! & BLEND_T).toBe(BLEND_T)
    for (const p of paths) expect(p[PROP]).toBe(0)
    let checked = 0
    for (let k = 1; k <= 80; k++) {
      if (k === 20) plugin.crossFade(chars[2]!, 'Wag', 1)
      if (k === 30) {
        const o = poseOffset(Pose.base[chars[3]!]!, Pose.count[chars[3]!]!, POSE_ANIM) + PROP * JOINT_STRIDE
        contextOf(plugin).pool.data[o] = Number.NaN
      }
      plugin.step()
      for (const e of chars) {
        if (CrossFade.active[e] !== 1) continue
        expectSameBits(animLayer(plugin, e), fullBlend(plugin, e), `character ${e} at step ${k}`)
        checked++
      }
    }
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([[chars[3], 'pose-non-finite']])
    expect(Array.from(contextOf(plugin).fadePaths[chars[3]!]!)).toEqual(Array(5).fill(BLEND_T | BLEND_S))
    expect(checked).toBeGreaterThan(200)
  })
})
