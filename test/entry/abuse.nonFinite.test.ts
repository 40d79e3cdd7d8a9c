/**
 * Runtime abuse: NaN and ∞ forced into poses, stores, bodies and scene nodes.
 * The rule, and the setup: test/helpers/abuse.ts.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { JOINT_STRIDE, POSE_ANIM, POSE_FROM, POSE_PHYS, poseOffset } from '../../components/Pose.ts'
import { RAGDOLL_FALLING, RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { createAnimationPlugin, contextOf } from '../../entry/plugin.ts'
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
  TURN,
  vecDistance,
  problems,
} from '../helpers/ecs.ts'
import {
  fox,
  loadFox,
  nonFiniteNodes,
  expectNoLeaks,
  foxPlugin,
  bodyState,
  worldOf,
} from '../helpers/abuse.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

beforeAll(loadFox)

describe('non-finite values forced in', () => {
  it('NaN in a pose layer: the joints keep their last transform, one event, repaired next step, others unaffected', () => {
    const { plugin, handle } = createTestPlugin()
    const twin = createTestPlugin()
    const [a, b] = [plugin.addCharacter(handle), plugin.addCharacter(handle)]
    const tb = twin.plugin.addCharacter(twin.handle)
    for (const [p, c] of [
      [plugin, a],
      [plugin, b],
      [twin.plugin, tb],
    ] as const) {
      p.play(c, 'Turn')
    }
    stepN(plugin, 5)
    stepN(twin.plugin, 5)
    const data = contextOf(plugin).pool.data
    const spine = plugin.joints(a)[SPINE]!
    const prop = plugin.joints(a)[PROP]!
    const before = [localOf(plugin, spine), localOf(plugin, prop)]
    // Turn drives hips.translation and spine.rotation: spine.translation and prop are not resampled.
    data[animOffset(plugin, a, SPINE)] = Number.NaN
    data[animOffset(plugin, a, PROP) + 8] = Infinity
    const check = () => {
      expectSameBits(animLayer(plugin, b), animLayer(twin.plugin, tb), 'b vs twin')
      expect(localOf(plugin, plugin.joints(b)[SPINE]!)).toEqual(
        localOf(twin.plugin, twin.plugin.joints(tb)[SPINE]!),
      )
      expect(nonFiniteNodes(plugin)).toEqual([])
    }
    plugin.step()
    twin.plugin.step()
    expect([localOf(plugin, spine), localOf(plugin, prop)]).toEqual(before)
    expect(localOf(plugin, plugin.joints(a)[HIPS]!).t[0]).toBeCloseTo(
      expectedLocal(TURN, HIPS, 5 * DT).t[0],
      6,
    )
    expect(problems(plugin)).toEqual([
      {
        step: 5,
        character: a,
        entity: a,
        kind: 'pose-non-finite',
        message:
          `character ${a}: 2 joint(s) with non-finite pose values were not written (first: joint 1 "spine" in the ` +
          'animation pose); they keep their last transform and were reset to rest for the next step',
      },
    ])
    check()
    // Next step: resampled from the repaired layer, exactly the clip again (spine.translation back to rest).
    plugin.step()
    twin.plugin.step()
    expectSameBits(animLayer(plugin, a), animLayer(plugin, b), 'a repaired')
    expect(localOf(plugin, spine)).toEqual(localOf(plugin, plugin.joints(b)[SPINE]!))
    check()
    // Again: the joints are refused again, but the character was reported already.
    data[animOffset(plugin, a, HEAD) + 3] = Number.NaN
    stepN(plugin, 2)
    stepN(twin.plugin, 2)
    expect(problems(plugin).length).toBe(1)
    check()
    // A character made later on the same id is reported afresh.
    plugin.removeCharacter(a)
    const again = plugin.addCharacter(handle)
    expect(again).toBe(a)
    plugin.play(again, 'Nod')
    plugin.step()
    contextOf(plugin).pool.data[animOffset(plugin, again, PROP)] = Number.NaN
    plugin.step()
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([
      [a, 'pose-non-finite'],
      [again, 'pose-non-finite'],
    ])
    expect(nonFiniteNodes(plugin)).toEqual([])
  })

  it('NaN in the frozen pose a fade starts from is repaired at once, not shown for the rest of the fade', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    stepN(plugin, 3)
    plugin.crossFade(a, 'Nod', 0.5)
    stepN(plugin, 3)
    plugin.crossFade(a, 'Wag', 0.5) // mid-fade: fades from the frozen blend
    expect(plugin.stores.CrossFade.from.clip[a]).toBe(-1)
    const { Pose } = plugin.stores
    const from = poseOffset(Pose.base[a]!, Pose.count[a]!, POSE_FROM)
    contextOf(plugin).pool.data[from + HIPS * JOINT_STRIDE + 1] = Number.NaN
    const hips = plugin.joints(a)[HIPS]!
    const shown = localOf(plugin, hips)
    plugin.step()
    expect(localOf(plugin, hips)).toEqual(shown)
    expect(problems(plugin).map((e) => e.kind)).toEqual(['pose-non-finite'])
    plugin.step()
    // Wag does not drive the hips: from the rest hips (the repair) to the rest hips is the rest hips.
    expect(localOf(plugin, hips).t).toEqual(REST[HIPS]!.t)
    expect(plugin.stores.CrossFade.active[a]).toBe(1)
    stepN(plugin, 40)
    expect(nonFiniteNodes(plugin)).toEqual([])
    expect(problems(plugin).length).toBe(1)
  })

  it('NaN and ∞ written into Sampler and CrossFade stores: times restart at 0, bad fade durations cut', () => {
    const { plugin, handle } = createTestPlugin()
    const { Sampler, CrossFade } = plugin.stores
    const chars = Array.from({ length: 7 }, () => plugin.addCharacter(handle))
    const [nanTime, infSpeed, ...fading] = chars as [number, number, ...number[]]
    plugin.play(nanTime, 'Turn', { time: 0.5 })
    plugin.play(infSpeed, 'Wag', { loop: 'pingpong' })
    for (const c of fading) plugin.play(c, 'Turn')
    stepN(plugin, 2)
    for (const c of fading) plugin.crossFade(c, 'Nod', 1)
    stepN(plugin, 2)
    Sampler.time[nanTime] = Number.NaN
    Sampler.speed[infSpeed] = Infinity
    const durations = [Number.NaN, Infinity, -1, 0, 1]
    fading.forEach((c, i) => (CrossFade.duration[c] = durations[i]!))
    CrossFade.from.time[fading[4]!] = Number.NaN
    plugin.step()
    expect(Sampler.time[nanTime]).toBe(0)
    expect(Sampler.time[infSpeed]).toBe(0)
    // Each bad duration ended its fade: the incoming clip alone, as after a cut.
    fading.slice(0, 4).forEach((c) => {
      expect([CrossFade.active[c], CrossFade.blend[c]]).toEqual([0, 1])
      expect(
        vecDistance(animLayer(plugin, c).subarray(0, 3), expectedLocal(NOD, HIPS, 2 * DT).t),
      ).toBeLessThan(2e-6)
    })
    // The outgoing clip's NaN time restarts it: Turn at 0 faded toward Nod.
    expect(CrossFade.from.time[fading[4]!]).toBe(0)
    expect(CrossFade.active[fading[4]!]).toBe(1)
    stepN(plugin, 3)
    expect(Sampler.time[nanTime]).toBeCloseTo(3 * DT, 12)
    expect(nonFiniteNodes(plugin)).toEqual([])
    for (const c of chars) expect(animLayer(plugin, c).every(Number.isFinite)).toBe(true)
    expect(problems(plugin)).toEqual([])
  })

  it('NaN in a ragdoll body: that ragdoll ends before the physics step; one lying on the same ground is unaffected', () => {
    // Two worlds: in one, a's body gets a NaN; in the other, a is removed at the same point. b must not tell.
    const run = (poison: boolean) => {
      const { plugin, add } = foxPlugin()
      const a = add(0)
      const b = add(5)
      plugin.play(a, 'Walk')
      plugin.play(b, 'Run')
      stepN(plugin, 10)
      plugin.ragdoll(a)
      plugin.ragdoll(b, { impulse: { joint: 'b_Hip_01', impulse: [0, 0, 2] } })
      stepN(plugin, 90) // both down on the ground
      if (poison) ragdollInstance(contextOf(plugin).ragdolls[a]!.instance)!.bodies[2]!.velocity.y = Number.NaN
      else plugin.removeCharacter(a)
      stepN(plugin, 30)
      return { plugin, a, b }
    }
    const poisoned = run(true)
    const clean = run(false)
    const { plugin, a, b } = poisoned
    expect(plugin.stores.Ragdoll.active[a]).toBe(RAGDOLL_OFF)
    expect(plugin.stores.Ragdoll.active[b]).toBe(RAGDOLL_FALLING)
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([[a, 'ragdoll-exploded']])
    expect(problems(plugin)[0]!.message).toContain('non-finite state before the physics step')
    expectSameBits(bodyState(plugin, b), bodyState(clean.plugin, b), 'b bodies')
    expectSameBits(animLayer(plugin, b), animLayer(clean.plugin, b), 'b ANIM')
    for (const e of plugin.joints(b))
      expectSameBits(worldOf(plugin, e), worldOf(clean.plugin, e), `joint ${e}`)
    expect(nonFiniteNodes(plugin)).toEqual([])
    expectNoLeaks(plugin)
  })

  it('a degenerate body orientation gives a non-finite physics pose: not shown, the ragdoll ends, one event', () => {
    const { world, plugin, add } = foxPlugin()
    const a = add(0)
    const b = add(5)
    for (const c of [a, b]) plugin.play(c, 'Walk')
    stepN(plugin, 5)
    for (const c of [a, b]) plugin.ragdoll(c)
    stepN(plugin, 20)
    const joints = Array.from(plugin.joints(a))
    const before = joints.map((e) => localOf(plugin, e))
    // cannon-es keeps a zero quaternion zero (finite), but a joint frame cannot be read from it.
    ragdollInstance(contextOf(plugin).ragdolls[a]!.instance)!.bodies[3]!.quaternion.set(0, 0, 0, 0)
    const { Pose } = plugin.stores
    const phys = poseOffset(Pose.base[a]!, Pose.count[a]!, POSE_PHYS)
    const data = contextOf(plugin).pool.data
    const nonFinite = () =>
      joints.flatMap((_, j) =>
        data.subarray(phys + j * JOINT_STRIDE, phys + (j + 1) * JOINT_STRIDE).every(Number.isFinite)
          ? []
          : [j],
      )
    // The step's systems one by one (what step() runs), to see the physics pose as stepRagdolls read it back.
    let bad: number[] = []
    for (const system of plugin.systems) {
      system(world)
      if (system.name === 'stepRagdolls') bad = nonFinite()
    }
    // The joints whose physics pose went non-finite keep their transform, and the physics pose is repaired.
    expect(bad.length).toBeGreaterThan(0)
    for (const j of bad) expect(localOf(plugin, joints[j]!), `joint ${j}`).toEqual(before[j])
    expect(nonFinite()).toEqual([])
    // So the plugin's own snapshot restores (a non-finite PHYS value in it would be refused).
    const copy = createAnimationPlugin(createWorld(), { capacity: 2048 })
    copy.addAsset(fox)
    copy.restore(plugin.snapshot())
    expect(copy.hash()).toBe(plugin.hash())
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([[a, 'pose-non-finite']])
    expect(problems(plugin)[0]!.message).toContain('in the physics pose); the ragdoll was ended')
    expect(plugin.stores.Ragdoll.weight[a]).toBe(0)
    plugin.step()
    expect(plugin.stores.Ragdoll.active[a]).toBe(RAGDOLL_OFF)
    expect(plugin.stores.Ragdoll.active[b]).toBe(RAGDOLL_FALLING)
    stepN(plugin, 5)
    expect(nonFiniteNodes(plugin)).toEqual([])
    expectNoLeaks(plugin)
    expect(problems(plugin).length).toBe(1)
  })

  it('NaN a game writes into scene-node locals: joints are rewritten by the next pose, a root is the game’s', () => {
    const { plugin, add } = foxPlugin()
    const a = add(0)
    const b = add(5)
    plugin.play(a, 'Walk')
    plugin.play(b, 'Run')
    stepN(plugin, 3)
    const nodes = plugin.stores.SceneNode
    // A joint: its local is the plugin's and is rewritten from the pose (NaN never equals the pose value).
    const neck = plugin.jointEntity(a, 'b_Neck_04')
    nodes.rotation[neck * 4] = Number.NaN
    nodes.dirty[neck] = 1
    plugin.step()
    expect(nonFiniteNodes(plugin)).toEqual([])
    const { Pose } = plugin.stores
    const j = Array.from(plugin.joints(a)).indexOf(neck)
    const o = poseOffset(Pose.base[a]!, Pose.count[a]!, POSE_ANIM) + j * JOINT_STRIDE
    expect(Array.from(nodes.rotation.subarray(neck * 4, neck * 4 + 4))).toEqual(
      Array.from(contextOf(plugin).pool.data.subarray(o + 3, o + 7)),
    )
    // The character's root: the game's node. Its NaN reaches no world matrix (the node keeps its last one, one
    // event); a ragdoll under it is not started (there is no finite pose to hand over) and is reported once.
    nodes.translation[a * 3 + 1] = Number.NaN
    nodes.dirty[a] = 1
    plugin.ragdoll(a)
    plugin.ragdoll(b)
    stepN(plugin, 3)
    // Only the game's own local is NaN; no world matrix is.
    expect(nonFiniteNodes(plugin)).toEqual([a])
    expect(plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
    expect(plugin.stores.Ragdoll.active[a]).toBe(RAGDOLL_OFF)
    expect(plugin.stores.Ragdoll.active[b]).toBe(RAGDOLL_FALLING)
    // The ragdoll never starts: its root (the game's) has no finite pose to hand over.
    expect(problems(plugin).map((e) => [e.entity, e.kind])).toEqual([
      [a, 'ragdoll-exploded'],
      [a, 'world-non-finite'],
    ])
    expect(problems(plugin)[0]!.message).toContain(
      'root transform is not finite; the ragdoll was not started',
    )
    expectNoLeaks(plugin)
    // Once the game repairs its node, everything is finite again.
    nodes.translation[a * 3 + 1] = 0
    nodes.dirty[a] = 1
    plugin.step()
    expect(nonFiniteNodes(plugin)).toEqual([])
  })
})
