/**
 * Forged snapshots: real snapshots edited at known offsets with their checksum recomputed (test/helpers/
 * forge.ts), so only restore's value checks (snapshot/read.ts) stand between the edit and the simulation.
 * A forged snapshot must either be refused — AnimationError('snapshot') naming the section, the entity, the
 * field and the value, with the target plugin and world left fresh (the good snapshot then restores into them) —
 * or restore into a state that steps without a throw and keeps every world matrix finite.
 *
 * Here: edits aimed at the fields the plugin holds, one kind of bad value at a time.
 * Setup: test/helpers/forgedScene.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { contextOf } from '../../entry/plugin.ts'
import { findFloat, forge } from '../helpers/forge.ts'
import {
  fresh,
  build,
  restoreError,
  refused,
  f32,
  f64,
  u8,
  i32,
  u16,
  escape,
  says,
  characterField,
  nodeField,
  poseFloat,
  storedJoint,
  scene,
  buildScene,
} from '../helpers/forgedScene.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

beforeAll(buildScene)

describe('forged snapshots (checksum recomputed)', () => {
  it('the forging map finds the values the plugin holds', () => {
    const { plugin, bytes, map, a, b, hat } = scene
    const view = new DataView(bytes.buffer)
    const nodes = plugin.stores.SceneNode
    expect(view.getFloat32(nodeField(scene, hat, 'world', 13), true)).toBe(nodes.world[hat * 16 + 13])
    expect(view.getFloat32(nodeField(scene, a, 'translation', 0), true)).toBe(-300)
    expect(view.getUint8(characterField(scene, a, 'CrossFade', 'active'))).toBe(1)
    expect(view.getFloat64(characterField(scene, b, 'Ragdoll', 'weight'), true)).toBeGreaterThan(0)
    expect(view.getFloat64(characterField(scene, b, 'Ragdoll', 'weight'), true)).toBeLessThan(1)
    const body = ragdollInstance(contextOf(plugin).ragdolls[b]!.instance)!.bodies[0]!
    const rd = map.ragdolls.get(b)!
    expect(view.getFloat64(rd.bodies[0]!.shapes[0]!.size, true)).toBe(
      (body.shapes[0] as unknown as { radius: number }).radius,
    )
    expect(view.getFloat64(rd.bodies[0]!.position + 8, true)).toBe(body.position.y)
    // The same float found by its bits.
    expect(findFloat(bytes, body.position.y, 'f64')).toEqual([rd.bodies[0]!.position + 8])
    expect(rd.constraints).toHaveLength(
      ragdollInstance(contextOf(plugin).ragdolls[b]!.instance)!.constraints.length,
    )
    // The events section: no dropped clip events, no problem reported, then the queue (the clips loop, fade).
    expect(view.getUint32(map.events, true)).toBe(0)
    expect(view.getUint32(map.events + 4, true)).toBe(0)
    expect(view.getUint32(map.events + 8, true)).toBe(plugin.events.length)
  })

  it('a sphere radius that is negative, zero or NaN', () => {
    const { b, map } = scene
    const radius = map.ragdolls.get(b)!.bodies[0]!.shapes[0]!.size
    for (const value of [-0.05, 0, NaN]) {
      refused(
        scene,
        [f64(radius, value)],
        says(`section "ragdolls", ragdoll of ${b}, body 0`, 'shape 0 radius', String(value)),
      )
    }
  })

  it('NaN or ±Infinity in a pose layer', () => {
    const { a, b } = scene
    // Stored paths only (a path at the rest pose is not in the snapshot): the first joint storing each.
    const t = storedJoint(scene, a, 0, 1)
    refused(
      scene,
      [f32(poseFloat(scene, a, 0, t, 1), NaN)],
      says(`section "characters", character ${a}, pose layer ANIM joint ${t}`, 'translation[1]', 'NaN'),
    )
    // (The Fox's clips drive no scale: a stored scale's check is test/snapshot/poseLayers.test.ts's.)
    const s = storedJoint(scene, a, 3, 2)
    refused(
      scene,
      [f32(poseFloat(scene, a, 3, s, 2), -Infinity)],
      says(`section "characters", character ${a}, pose layer FROM joint ${s}`, 'translation[2]', '-Infinity'),
    )
    const q = storedJoint(scene, a, 4, 5)
    refused(
      scene,
      [f32(poseFloat(scene, a, 4, q, 5), Infinity)],
      new RegExp(
        `section "characters", character \\d+, pose layer TO joint ${q}: rotation is \\(.*, Infinity, .*\\); its length Infinity`,
      ),
    )
    // PHYS of a character whose ragdoll is blended in.
    const p = storedJoint(scene, b, 2, 0)
    refused(
      scene,
      [f32(poseFloat(scene, b, 2, p, 0), NaN)],
      says(`section "characters", character ${b}, pose layer PHYS joint ${p}`, 'translation[0]', 'NaN'),
    )
    // A path mask with a bit outside T, R, S.
    const masks = scene.map.characters.get(a)!.pose[0]!
    refused(
      scene,
      [u8(masks + 2, 8 | scene.bytes[masks + 2]!)],
      says(
        `section "characters", character ${a}, pose layer ANIM joint 2`,
        'stored paths',
        `${8 | scene.bytes[masks + 2]!}`,
      ),
    )
  })

  it("a key cursor past every clip's keys, or a cursor width the format has not", () => {
    const { a, map } = scene
    const c = map.characters.get(a)!
    // The Fox's clips have fewer than 256 keys a channel: a byte a cursor.
    expect(c.cursorBytes).toBe(1)
    refused(
      scene,
      [u8(c.cursors + 3, 255)],
      says(`section "characters", character ${a}`, 'key cursor 3', '255'),
    )
    // One key past the most any channel has (83), anywhere among the 42 cursors.
    expect(c.cursorCount % 4).toBe(2)
    for (const k of [0, 5, c.cursorCount - 3, c.cursorCount - 1]) {
      refused(
        scene,
        [u8(c.cursors + k, 83)],
        says(`section "characters", character ${a}`, `key cursor ${k}`, '83'),
      )
    }
    // The width, after the section's character count and ids.
    const body = map.sections.get('CHAR')!
    const widthAt = body + 4 + 4 * map.characters.size
    expect(new DataView(scene.bytes.buffer).getUint32(widthAt, true)).toBe(1)
    refused(scene, [i32(widthAt, 3)], says('section "characters"', 'key cursor bytes', '3'))
  })

  it('NaN or Infinity in a SceneNode world matrix, or a last row that is not 0 0 0 1', () => {
    const { a, hat } = scene
    const joint = scene.plugin.jointEntity(a, 'b_Spine01_02')
    refused(
      scene,
      [f32(nodeField(scene, hat, 'world', 12), NaN)],
      says(`section "nodes", scene node ${hat}`, 'world[12]', 'NaN'),
    )
    refused(
      scene,
      [f32(nodeField(scene, joint, 'world', 5), Infinity)],
      says(`section "nodes", scene node ${joint}`, 'world[5]', 'Infinity'),
    )
    refused(
      scene,
      [f32(nodeField(scene, joint, 'world', 15), 2)],
      says(`section "nodes", scene node ${joint}`, 'world matrix row 4', '(0, 0, 0, 2)'),
    )
  })

  it('a scale or translation so large that world matrices overflow float32: restored, and no world is ∞', () => {
    // Finite float32 values the plugin could hold itself must restore (an asset may have a scale of 1e20);
    // the products that leave float32's range are refused by propagation, which keeps the last world matrix.
    const { a } = scene
    for (const edit of [
      f32(nodeField(scene, a, 'scale', 0), 1e38),
      f32(nodeField(scene, a, 'translation', 2), 3e38),
    ]) {
      const target = fresh()
      expect(restoreError(target.plugin, forge(scene.bytes, [edit]))).toBeNull()
      for (let i = 0; i < 30; i++) target.plugin.step()
      expect(target.plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
    }
  })

  it('NaN or Infinity in a body position, quaternion or velocity, and a zero quaternion', () => {
    const { b, map } = scene
    const body = map.ragdolls.get(b)!.bodies[2]!
    const where = `section "ragdolls", ragdoll of ${b}, body 2`
    refused(scene, [f64(body.position + 8, NaN)], says(where, 'position[1]', 'NaN'))
    refused(scene, [f64(body.position, -Infinity)], says(where, 'position[0]', '-Infinity'))
    refused(
      scene,
      [f64(body.quaternion, Infinity)],
      new RegExp(`${escape(where)}: quaternion is \\(Infinity, `),
    )
    refused(
      scene,
      [0, 1, 2, 3].map((k) => f64(body.quaternion + 8 * k, 0)),
      says(where, 'quaternion', '(0, 0, 0, 0)'),
    )
    refused(scene, [f64(body.velocity, Infinity)], says(where, 'velocity[0]', 'Infinity'))
    // A finite float64 is a velocity cannon-es holds (a public hit of 1e300 N·s gives one): restored, and the
    // next step finds the ragdoll exploded and hands the character back to its animation.
    const target = fresh()
    expect(restoreError(target.plugin, forge(scene.bytes, [f64(body.velocity, 1e300)]))).toBeNull()
    target.plugin.step()
    expect(contextOf(target.plugin).ragdolls[b]!.instance).toBeNull()
    expect(target.plugin.events.some((e) => e.kind === 'ragdoll-exploded' && e.entity === b)).toBe(true)
    expect(target.plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
  })

  it("a fade's paths with a bit past BLEND_T | BLEND_S, or without the fade they belong to", () => {
    const { a } = scene
    const paths = scene.map.characters.get(a)!.fadePaths
    expect(paths).toBeGreaterThan(0) // a fades at step 30
    refused(
      scene,
      [u8(paths + 3, 4)],
      says(`section "characters", character ${a}, joint 3`, 'fade paths', '4'),
    )
    const flags = scene.map.characters.get(a)!.flags
    refused(
      scene,
      [u8(flags, scene.bytes[flags]! & ~4)],
      says(`section "characters", character ${a}`, 'flags', String(scene.bytes[flags]! & ~4)),
    )
  })

  it('a loop mode 7, a rotation mode 2, a ragdoll state 9', () => {
    const { a, b } = scene
    refused(
      scene,
      [u8(characterField(scene, a, 'Sampler', 'loop'), 7)],
      says(`section "characters", character ${a}`, 'Sampler.loop', '7'),
    )
    refused(
      scene,
      [u8(characterField(scene, a, 'CrossFade', 'from.loop'), 7)],
      says(`section "characters", character ${a}`, 'CrossFade.from.loop', '7'),
    )
    refused(
      scene,
      [u8(characterField(scene, a, 'Sampler', 'rotation'), 2)],
      says(`section "characters", character ${a}`, 'Sampler.rotation', '2'),
    )
    refused(
      scene,
      [u8(characterField(scene, b, 'Ragdoll', 'active'), 9)],
      says(`section "characters", character ${b}`, 'Ragdoll.active', '9'),
    )
  })

  it('a ragdoll switched on without its runtime, a handle that is not the character', () => {
    const { a, b } = scene
    // Accepted, the first step would read the missing runtime (a TypeError inside step()).
    refused(
      scene,
      [u8(characterField(scene, a, 'Ragdoll', 'active'), 1)],
      says(`section "characters", character ${a}`, 'Ragdoll.active', '1'),
    )
    refused(
      scene,
      [i32(characterField(scene, b, 'Ragdoll', 'handle'), 7)],
      says(`section "characters", character ${b}`, 'Ragdoll.handle', '7'),
    )
  })

  it('a scene-node parent cycle', () => {
    const { a } = scene
    // The character root (a root node) under one of its own joints.
    const joint = scene.plugin.jointEntity(a, 'b_Spine01_02')
    refused(
      scene,
      [i32(nodeField(scene, a, 'parent'), joint)],
      new RegExp(
        `section "nodes", scene node ${a}: parent is ${joint}; the parent links make a cycle \\(${a} → ${joint} → .* → ${a}\\)`,
      ),
    )
  })

  it('a joint entity that is not a scene node, or is listed twice', () => {
    const { a, b, game, map } = scene
    // b's joints are not a run of ids after its own, so the snapshot lists them.
    const joints = map.characters.get(b)!.joints
    expect(joints).toBeGreaterThan(0)
    const first = scene.plugin.joints(b)[0]!
    const where = `section "characters", character ${b}`
    refused(
      scene,
      [i32(joints + 4, game)],
      new RegExp(`^restore: snapshot ${escape(where)}, joint 1: entity ${game} is not a scene node`),
    )
    refused(
      scene,
      [i32(joints + 4, first)],
      new RegExp(`${escape(where)}, joint 1: entity ${first} is already a joint of character ${b}`),
    )
    const ofA = scene.plugin.joints(a)[0]!
    refused(
      scene,
      [i32(joints, ofA)],
      new RegExp(`character ${b}, joint 0: entity ${ofA} is already a joint of character ${a}`),
    )
    // A scene node, but a character.
    refused(scene, [i32(joints, a)], new RegExp(`${escape(where)}: joint entity ${a} is a character$`))
  })

  it('constraints and bodies other than the description’s', () => {
    const { b, map } = scene
    const rd = map.ragdolls.get(b)!
    const where = `section "ragdolls", ragdoll of ${b}`
    refused(scene, [u16(rd.constraints[0]!.a, 5)], says(`${where}, constraint 0`, 'body A', '5'))
    refused(
      scene,
      [f64(rd.constraints[1]!.values + 8 * 12, -1)],
      says(`${where}, constraint 1`, 'cone angle', '-1'),
    )
    const withParent = rd.bodies.findIndex((x) => x.parent >= 0)
    refused(
      scene,
      [u16(rd.bodies[withParent]!.parent, 0xffff)],
      says(`${where}, body ${withParent}`, 'parent body', '65535'),
    )
    refused(scene, [f64(rd.bodies[0]!.damping, 2)], says(`${where}, body 0`, 'linear damping', '2'))
  })

  it('a stored description with a negative radius, a zero mass, a wrong parent body', () => {
    const { b, map } = scene
    // u16 bodies × (i32 node, u8 shape, i32 parent body, f64 radius, length, axis ×3, mass, cone, twist)
    const body = (k: number) => map.ragdolls.get(b)!.description + 2 + 73 * k
    const where = `section "ragdolls", ragdoll of ${b}, description body 1`
    refused(scene, [f64(body(1) + 9, -0.1)], says(where, 'radius', '-0.1'))
    refused(scene, [f64(body(1) + 49, 0)], says(where, 'mass', '0'))
    refused(scene, [i32(body(1) + 5, 3)], says(where, 'parentBody', '3'))
    // A capsule of 10⁶ spheres is a description ragdoll() takes (spawning builds 128 of them): restored.
    const target = fresh()
    expect(restoreError(target.plugin, forge(scene.bytes, [f64(body(1) + 17, 1e6)]))).toBeNull()
    for (let k = 0; k < 5; k++) target.plugin.step()
    expect(target.plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
  })

  it('any read-back joint position or scale, ∞ and NaN too (outputs of the last step), but no zero rotation', () => {
    const { b, map } = scene
    const at = map.ragdolls.get(b)!.world
    // 8 doubles a joint: position 3, rotation 4, scale 1. Joint 3's position NaN, joint 4's scale ∞: restored,
    // and a hit at joint 3 then makes a non-finite body, which the next step reports as an explosion.
    const target = fresh()
    expect(
      restoreError(
        target.plugin,
        forge(scene.bytes, [f64(at + 64 * 3, NaN), f64(at + 64 * 4 + 56, Infinity)]),
      ),
    ).toBeNull()
    // The glTF node of joint 3 (applyImpulse names a joint by node).
    target.plugin.applyImpulse(b, contextOf(target.plugin).assets[0]!.jointNodes[3]!, [0, 1, 0])
    target.plugin.step()
    expect(target.plugin.events.some((e) => e.kind === 'ragdoll-exploded' && e.entity === b)).toBe(true)
    expect(target.plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
    refused(
      scene,
      [0, 1, 2, 3].map((k) => f64(at + 64 * 2 + 24 + 8 * k, 0)),
      new RegExp(`ragdoll of ${b}, read-back joint 2: world rotation is \\(0, 0, 0, 0\\)`),
    )
  })

  it('a negative scale under a ragdoll that spawns on the next step: restored, and the bodies spawn', () => {
    // A mirrored character is legal (setTransform scale −1, then ragdoll()), so its snapshot must restore;
    // spawning sizes bodies by |scale|.
    const pending = build(true)
    const { a } = pending
    const target = fresh()
    expect(
      restoreError(target.plugin, forge(pending.bytes, [f32(nodeField(pending, a, 'scale', 0), -1)])),
    ).toBeNull()
    target.plugin.step()
    expect(contextOf(target.plugin).ragdolls[a]!.instance).not.toBeNull()
    expect(target.plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
  })
})
