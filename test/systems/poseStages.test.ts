/**
 * Pose stages (plugin.addPoseStage): where they run, what they see, that their edits never build up, how a
 * throwing stage is handled, and that the plugin's calls refuse to run inside one.
 */
import { describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import {
  contextOf,
  createAnimationPlugin,
  type AnimationPlugin,
  type PoseAccess,
} from '../../entry/plugin.ts'
import { HUMANOID, makeHumanoidAsset } from '../helpers/humanoid.ts'

const asset = makeHumanoidAsset()

function make(): { plugin: AnimationPlugin; a: number; b: number } {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
  const a = plugin.addCharacter(asset)
  const b = plugin.addCharacter(asset)
  plugin.play(a, 'Walk')
  plugin.play(b, 'Idle', { time: 0.5 })
  return { plugin, a, b }
}

/** A stage that turns a character's head 10° about x on top of whatever it has (a relative edit). */
function nod(character: number) {
  const q = [0, 0, 0, 1]
  const s = Math.sin((10 * Math.PI) / 360)
  const c = Math.cos((10 * Math.PI) / 360)
  return (pose: PoseAccess) => {
    pose.getRotation(character, 'head', q)
    const [x, y, z, w] = q as [number, number, number, number]
    // q · (sin, 0, 0, cos)
    pose.setRotation(character, 'head', [w * s + x * c, y * c + z * s, z * c - y * s, w * c - x * s])
  }
}

const world = (p: AnimationPlugin, e: number): number[] =>
  Array.from(p.stores.SceneNode.world.subarray(16 * e, 16 * e + 16))

describe('pose stages: edits on the composed pose', () => {
  it('a relative edit on a paused clip applied 30 steps equals applying it once', () => {
    const once = make()
    const many = make()
    for (const { plugin, a } of [once, many]) {
      plugin.step()
      plugin.pause(a)
      plugin.addPoseStage(nod(a))
    }
    once.plugin.step()
    for (let i = 0; i < 30; i++) many.plugin.step()
    const head = many.plugin.jointEntity(many.a, 'head')
    expect(world(many.plugin, head)).toEqual(world(once.plugin, once.plugin.jointEntity(once.a, 'head')))
    // And it is an edit: the head differs from the paused clip's.
    const plain = make()
    plain.plugin.step()
    plain.plugin.pause(plain.a)
    plain.plugin.step()
    expect(world(plain.plugin, plain.plugin.jointEntity(plain.a, 'head'))).not.toEqual(
      world(many.plugin, head),
    )
  })
})

describe('pose stages: what they see and when', () => {
  it('runs once a step, in the order added, after root motion and before the ragdoll; removers remove', () => {
    const { plugin, a } = make()
    const calls: string[] = []
    const first = plugin.addPoseStage((pose) => {
      calls.push(`first ${pose.characters.length}`)
    })
    plugin.addPoseStage(() => calls.push('second'))
    plugin.step()
    plugin.step()
    expect(calls).toEqual(['first 2', 'second', 'first 2', 'second'])
    first()
    first()
    plugin.step()
    expect(calls.slice(4)).toEqual(['second'])
    const names = plugin.systems.map((s) => s.name)
    expect(names.indexOf('restorePoses')).toBe(names.indexOf('sampleTracks') - 1)
    expect(names.indexOf('runPoseStages')).toBe(names.indexOf('extractRootMotion') + 1)
    expect(names.indexOf('stepRagdolls')).toBe(names.indexOf('runPoseStages') + 1)
    void a
  })

  it('reads the local pose and world matrices the step will show; writes what the scene graph gets', () => {
    const { plugin, a } = make()
    const seen: number[][] = []
    plugin.addPoseStage((pose) => {
      seen.push(pose.worldMatrix(a, 'hand.L', new Array<number>(16)))
      seen.push(pose.getTranslation(a, HUMANOID['forearm.L']!, new Float32Array(3)) as unknown as number[])
      pose.setScale(a, 'hand.L', [2, 2, 2])
    })
    plugin.step()
    const hand = plugin.jointEntity(a, 'hand.L')
    const w = world(plugin, hand)
    // The stage's world matrix is before its own scale edit: scale the columns to compare.
    for (let c = 0; c < 3; c++)
      for (let r = 0; r < 3; r++) expect(w[4 * c + r]).toBeCloseTo(2 * seen[0]![4 * c + r]!, 5)
    for (let r = 0; r < 3; r++) expect(w[12 + r]).toBeCloseTo(seen[0]![12 + r]!, 5)
    expect(Array.from(seen[1]!)).toEqual(
      Array.from(
        plugin.stores.SceneNode.translation.subarray(
          3 * plugin.jointEntity(a, 'forearm.L'),
          3 * plugin.jointEntity(a, 'forearm.L') + 3,
        ),
      ),
    )
    expect(Array.from(plugin.stores.SceneNode.scale.subarray(3 * hand, 3 * hand + 3))).toEqual([2, 2, 2])
  })

  it('a throwing stage: reported, the characters it edited keep the layers’ pose, earlier stages’ edits stay', () => {
    const plain = make()
    const { plugin, a, b } = make()
    plugin.addPoseStage(nod(b))
    plugin.addPoseStage((pose) => {
      nod(a)(pose)
      throw new Error('boom')
    })
    for (let i = 0; i < 3; i++) {
      plain.plugin.step()
      expect(() => plugin.step()).not.toThrow()
    }
    const head = (p: AnimationPlugin, c: number) => world(p, p.jointEntity(c, 'head'))
    expect(head(plugin, a)).toEqual(head(plain.plugin, plain.a))
    expect(head(plugin, b)).not.toEqual(head(plain.plugin, plain.b))
    expect(
      plugin.events.filter((e) => e.kind === 'pose-stage-error').map((e) => [e.step, e.character, e.message]),
    ).toEqual([0, 1, 2].map((step) => [step, a, expect.stringContaining('pose stage 1 threw: boom')]))
  })

  it('refuses bad arguments, and the calls that may not run inside a stage', () => {
    const { plugin, a } = make()
    const errors: string[] = []
    const attempts: ((pose: PoseAccess) => unknown)[] = [
      (pose) => pose.getRotation(9999, 'head', [0, 0, 0, 0]),
      (pose) => pose.getRotation(a, 'nose', [0, 0, 0, 0]),
      (pose) => pose.getRotation(a, 'head', new Float32Array(2)),
      (pose) => pose.getRotation(a, 'head', {} as never),
      (pose) => pose.setRotation(a, 'head', [0, 0, 0, 0]),
      (pose) => pose.setRotation(a, 'head', [0, 0, NaN, 1]),
      (pose) => pose.setTranslation(a, 'head', [0, 1e39, 0]),
      (pose) => pose.setScale(a, 999, [1, 1, 1]),
      () => plugin.step(),
      () => plugin.addCharacter(asset),
      () => plugin.removeCharacter(a),
      () => plugin.restore(plugin.snapshot()),
      () => plugin.dispose(),
    ]
    for (const attempt of attempts) {
      plugin.addPoseStage((pose) => {
        try {
          attempt(pose)
        } catch (error) {
          errors.push(`${(error as Error).name}: ${(error as Error).message}`)
        }
      })
    }
    const before = make().plugin
    before.step()
    plugin.step()
    expect(errors.length).toBe(attempts.length)
    for (const e of errors) expect(e).toMatch(/^AnimationError: /)
    expect(errors.slice(8).every((e) => e.includes('not allowed inside a pose stage'))).toBe(true)
    // Nothing was changed by any of them.
    expect(plugin.hash()).toBe(before.hash())
  })

  it('a pose levels of detail hold is edited afresh each step, never twice', () => {
    const plain = make()
    const staged = make()
    for (const { plugin } of [plain, staged]) plugin.setLod({ near: 0, far: 0, camera: [0, 0, -1000] })
    staged.plugin.addPoseStage(nod(staged.a))
    const q = (p: AnimationPlugin, c: number): number[] => {
      const e = p.jointEntity(c, 'head')
      return Array.from(p.stores.SceneNode.rotation.subarray(4 * e, 4 * e + 4))
    }
    const s = Math.sin((10 * Math.PI) / 360)
    const c = Math.cos((10 * Math.PI) / 360)
    let held = 0
    for (let i = 0; i < 24; i++) {
      plain.plugin.step()
      staged.plugin.step()
      if (plain.plugin.lodRate(plain.a) > 1) held++
      const [x, y, z, w] = q(plain.plugin, plain.a) as [number, number, number, number]
      const want = [w * s + x * c, y * c + z * s, z * c - y * s, w * c - x * s]
      q(staged.plugin, staged.a).forEach((v, k) => expect(v).toBeCloseTo(want[k]!, 6))
    }
    expect(held).toBeGreaterThan(0)
  })

  it('the ragdoll hand-off starts from the edited pose, at the edited pose’s velocity (not a jump)', () => {
    const spin = (edit: boolean) => {
      const { plugin, a } = make()
      if (edit) plugin.setIK(a, 'look', { kind: 'aim', joint: 'head', axis: [0, 0, 1], target: [3, 2.5, -2] })
      for (let i = 0; i < 5; i++) plugin.step()
      plugin.ragdoll(a)
      plugin.step()
      const ctx = contextOf(plugin)
      const rt = ctx.ragdolls[a]!
      // Per joint 6 doubles (linear, angular velocity) at the joints with a body (src/physics/api.ts).
      const v = new Float64Array(6 * 32).fill(NaN)
      ctx.physics.velocities(rt.instance!, v)
      const h = 6 * ctx.assets[0]!.nodeJoint[HUMANOID.head!]!
      const headBody = { angularVelocity: { length: () => Math.hypot(v[h + 3]!, v[h + 4]!, v[h + 5]!) } }
      const headJoint = plugin.jointEntity(a, 'head')
      return { w: headBody?.angularVelocity.length() ?? NaN, plugin, headJoint }
    }
    const plain = spin(false)
    const edited = spin(true)
    // The head looks away from the walk's: its body spins no faster than the unedited one's, give or take.
    expect(edited.w).toBeLessThan(plain.w + 1)
    expect(world(edited.plugin, edited.headJoint)).not.toEqual(world(plain.plugin, plain.headJoint))
  })
})
