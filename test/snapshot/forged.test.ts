/**
 * Forged snapshots: real snapshots edited at known offsets with their checksum recomputed (test/helpers/
 * forge.ts), so only restore's value checks (snapshot/read.ts) stand between the edit and the simulation.
 * A forged snapshot must either be refused — AnimationError('snapshot') naming the section, the entity, the
 * field and the value, with the target plugin and world left fresh (the good snapshot then restores into them) —
 * or restore into a state that steps without a throw and keeps every world matrix finite.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { $internal, addEntity, createWorld, removeEntity, type InternalWorld, type World } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin, contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { layoutsOf, type Layouts } from '../../snapshot/format.ts'
import { generateRagdollDescription } from '../../src/physics/generate.ts'
import { mulberry32 } from '../../scripts/random.ts'
import { formatValue } from '../../src/sim/valueChecks.ts'
import { findFloat, forge, mapSnapshot, type Edit, type SnapshotMap } from '../helpers/forge.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const OPTIONS = { capacity: 256 }
/** Forged snapshots in the random test, and its seed (FORGE_RUNS=3000 for the long run, FORGE_SEED=n for others). */
const RUNS = Number(process.env.FORGE_RUNS ?? 500)
const SEED = Number(process.env.FORGE_SEED ?? 0x5eed)
const STEPS_AFTER = 30

let fox: AnimationAsset

interface Scene {
  plugin: AnimationPlugin
  /** A bare game entity (alive, no components). */
  game: number
  /** Walks, then cross-fades into Run (mid-fade at the snapshot); with `pending`, also ragdolled just before it. */
  a: number
  /** Runs, ragdolled (its own description) with a hit at step 20: falling at the snapshot, its weight ramping. */
  b: number
  /** A game node on a's head; a was placed again (setTransform) right before the snapshot, so the world
   * matrices of a's nodes and the hat are stored (the others are recomputed). */
  hat: number
  bytes: Uint8Array
  map: SnapshotMap
  layouts: Layouts
}

function fresh() {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, OPTIONS)
  plugin.addAsset(fox)
  return { world, plugin }
}

/** The snapshot of step 30: a mid-fade, a ragdoll mid-fall with bodies, a game node on a joint. */
function build(pending = false): Scene {
  const { world, plugin } = fresh()
  const game = addEntity(world)
  const temporary = addEntity(world)
  const a = plugin.addCharacter(fox)
  // b takes the freed id, its joints the next new ones: not a run after it, so the snapshot lists them.
  removeEntity(world, temporary)
  const b = plugin.addCharacter(fox)
  const hat = addEntity(world)
  addSceneNode(plugin.sceneGraph, hat, plugin.jointEntity(a, 'b_Head_05'))
  const nodes = plugin.stores.SceneNode
  nodes.translation[hat * 3 + 1] = 12
  nodes.translation[a * 3] = -300
  nodes.scale.fill(0.01, b * 3, b * 3 + 3)
  nodes.dirty[a] = nodes.dirty[b] = nodes.dirty[hat] = 1
  plugin.play(a, 'Walk')
  plugin.play(b, 'Run')
  // A description of its own (so the snapshot carries one), of a few bodies (so the steps after are quick).
  const description = { bodies: generateRagdollDescription(fox).bodies.slice(0, 6) }
  for (let k = 0; k < 30; k++) {
    if (k === 20) plugin.ragdoll(b, { description, impulse: { joint: 'b_Spine02_03', impulse: [3, 0, 0] } })
    if (k === 26) plugin.crossFade(a, 'Run', 0.5)
    plugin.step()
  }
  if (pending) plugin.ragdoll(a, { impulse: { joint: 'b_Hip_01', impulse: [0, 1, 0] } })
  plugin.setTransform(a, { position: [-300, 0, 0] })
  const bytes = plugin.snapshot()
  const layouts = layoutsOf(contextOf(plugin))
  return { plugin, game, a, b, hat, bytes, map: mapSnapshot(bytes, layouts), layouts }
}

function entityIndex(world: World) {
  return (world as InternalWorld)[$internal].entityIndex
}

let scene: Scene
let pristine: string

beforeAll(async () => {
  fox = await loadAsset(FOX)
  scene = build()
  pristine = fresh().plugin.hash()
})

/** The restore's error, or null when it restored. Any other throw fails the test. */
function restoreError(plugin: AnimationPlugin, bytes: Uint8Array): AnimationError | null {
  try {
    plugin.restore(bytes)
    return null
  } catch (error) {
    if (!(error instanceof AnimationError) || error.kind !== 'snapshot') {
      throw new Error(`restore threw something other than AnimationError('snapshot'): ${String(error)}`)
    }
    return error
  }
}

/**
 * The forged snapshot is refused with a message matching `pattern`, leaves a fresh target fresh, and the good
 * snapshot then restores into the same plugin.
 */
function refused(s: Scene, edits: readonly Edit[], pattern: RegExp): void {
  const target = fresh()
  const error = restoreError(target.plugin, forge(s.bytes, edits))
  expect(error, 'the forged snapshot was restored').not.toBeNull()
  expect(error!.message).toMatch(pattern)
  expect(target.plugin.hash()).toBe(pristine)
  expect(entityIndex(target.world).maxId).toBe(0)
  expect(target.plugin.physics.bodies).toHaveLength(1)
  target.plugin.restore(s.bytes)
  expect(target.plugin.hash()).toBe(s.plugin.hash())
}

const f32 = (offset: number, value: number): Edit => ({ offset, kind: 'f32', value })
const f64 = (offset: number, value: number): Edit => ({ offset, kind: 'f64', value })
const u8 = (offset: number, value: number): Edit => ({ offset, kind: 'u8', value })
const i32 = (offset: number, value: number): Edit => ({ offset, kind: 'i32', value })
const u16 = (offset: number, value: number): Edit => ({ offset, kind: 'u16', value })
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** A pattern for `restore: snapshot <where>: <field> is <value>; …`. */
const says = (where: string, field: string, value: string) =>
  new RegExp(`^restore: snapshot ${escape(where)}: ${escape(field)} is ${escape(value)};`)

/** Offset of store field `name` (element `k`) of character `eid` in its column. */
function characterField(s: Scene, eid: number, store: string, name: string, k = 0): number {
  const f = s.map.characters.get(eid)!.fields.get(`${store}.${name}`)!
  return f.offset + k * f.size
}

/** Offset of SceneNode field `name` (element `k`: float32 or int32) of node `eid`; it must be stored. */
function nodeField(
  s: Scene,
  eid: number,
  name: 'parent' | 'translation' | 'rotation' | 'scale' | 'world',
  k = 0,
): number {
  const at = s.map.nodes.get(eid)![name]
  if (at < 0) throw new Error(`node ${eid}'s ${name} is not in the snapshot`)
  return at + 4 * k
}

/** Offset of float `k` of joint `j` in pose layer `layer` (0 ANIM … 4 TO) of character `eid`; it must be stored. */
function poseFloat(s: Scene, eid: number, layer: number, j: number, k: number): number {
  const c = s.map.characters.get(eid)!
  if (c.pose[layer]! < 0) throw new Error(`character ${eid}'s pose layer ${layer} is the rest pose`)
  return c.pose[layer]! + 4 * (j * 10 + k)
}

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
    const body = contextOf(plugin).ragdolls[b]!.instance!.bodies[0]!
    const rd = map.ragdolls.get(b)!
    expect(view.getFloat64(rd.bodies[0]!.shapes[0]!.size, true)).toBe(
      (body.shapes[0] as unknown as { radius: number }).radius,
    )
    expect(view.getFloat64(rd.bodies[0]!.position + 8, true)).toBe(body.position.y)
    // The same float found by its bits.
    expect(findFloat(bytes, body.position.y, 'f64')).toEqual([rd.bodies[0]!.position + 8])
    expect(rd.constraints).toHaveLength(contextOf(plugin).ragdolls[b]!.instance!.constraints.length)
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
    refused(
      scene,
      [f32(poseFloat(scene, a, 0, 3, 1), NaN)],
      says(`section "characters", character ${a}, pose layer ANIM joint 3`, 'translation[1]', 'NaN'),
    )
    refused(
      scene,
      [f32(poseFloat(scene, a, 3, 5, 8), -Infinity)],
      says(`section "characters", character ${a}, pose layer FROM joint 5`, 'scale[1]', '-Infinity'),
    )
    refused(
      scene,
      [f32(poseFloat(scene, a, 4, 2, 5), Infinity)],
      /section "characters", character \d+, pose layer TO joint 2: rotation is \(.*, Infinity, .*\); its length Infinity/,
    )
    // PHYS of a character whose ragdoll is blended in.
    refused(
      scene,
      [f32(poseFloat(scene, b, 2, 0, 0), NaN)],
      says(`section "characters", character ${b}, pose layer PHYS joint 0`, 'translation[0]', 'NaN'),
    )
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
      [u8(characterField(scene, a, 'CrossFade', 'fromLoop'), 7)],
      says(`section "characters", character ${a}`, 'CrossFade.fromLoop', '7'),
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

  it(
    `random forgeries (${RUNS} snapshots, 1–4 edits each): refused unchanged, or stepping finite`,
    () => {
      const { rejected, accepted, failures } = forgeRandomly(scene, RUNS, SEED)
      console.log(`forged snapshots (seed ${SEED}): ${rejected} rejected, ${accepted} accepted (of ${RUNS})`)
      expect(failures).toEqual([])
      expect(rejected + accepted).toBe(RUNS)
    },
    // ~15 s on a quiet 2-core machine; 40 s seen with four other jobs on it.
    Math.max(120_000, 200 * RUNS),
  )
})

const FLOATS = [NaN, Infinity, -Infinity, 1e38, -1e38, 3.4e38, 1e9, 1e10, 2 ** 31, 2 ** 53, 1e300, -1e300]
FLOATS.push(-1, 0, -0, 1, 1e-45)
const INTS = [0, 1, 2, 7, 255, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 2 ** 24]

/** The float fields the simulation reads (node records, pose blocks, body motion, shape sizes), for aimed edits. */
function floatFields(s: Scene): { offset: number; kind: 'f32' | 'f64' }[] {
  const out: { offset: number; kind: 'f32' | 'f64' }[] = []
  for (const node of s.map.nodes.values()) {
    for (const [at, n] of [
      [node.translation, 3],
      [node.rotation, 4],
      [node.scale, 3],
      [node.world, 16],
    ] as const) {
      if (at >= 0) for (let k = 0; k < n; k++) out.push({ offset: at + 4 * k, kind: 'f32' })
    }
  }
  for (const c of s.map.characters.values()) {
    for (const at of c.pose)
      if (at >= 0) for (let k = 0; k < c.count * 10; k++) out.push({ offset: at + 4 * k, kind: 'f32' })
  }
  for (const rd of s.map.ragdolls.values()) {
    for (const body of rd.bodies) {
      for (let k = 0; k < 13; k++) out.push({ offset: body.position + 8 * k, kind: 'f64' })
      for (const shape of body.shapes) out.push({ offset: shape.size, kind: 'f64' })
    }
  }
  return out
}

/**
 * One random edit: a random byte anywhere, a special int or float at any offset, or a special or random float
 * in a float field the simulation reads.
 */
function randomEdit(random: () => number, length: number, fields: ReturnType<typeof floatFields>): Edit {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  const roll = random()
  if (roll < 0.3)
    return { offset: Math.floor(random() * length), kind: 'u8', value: Math.floor(random() * 256) }
  if (roll < 0.45) return { offset: Math.floor(random() * (length - 3)), kind: 'u32', value: pick(INTS) }
  if (roll < 0.65) {
    const kind = random() < 0.5 ? 'f32' : 'f64'
    return { offset: Math.floor(random() * (length - 7)), kind, value: pick(FLOATS) }
  }
  const value = random() < 0.8 ? pick(FLOATS) : (random() - 0.5) * 2 ** (random() * 80 - 20)
  return { ...pick(fields), value }
}

/**
 * `runs` forged copies of the scene's snapshot, each restored into a fresh plugin: refused, it must leave the
 * plugin fresh and then take the good snapshot; restored, it must step STEPS_AFTER times without a throw, every
 * world matrix element finite after each step. Stops at 5 failures, each described with its edits.
 */
function forgeRandomly(s: Scene, runs: number, seed: number) {
  const random = mulberry32(seed)
  const fields = floatFields(s)
  const failures: string[] = []
  let rejected = 0
  let accepted = 0
  for (let run = 0; run < runs && failures.length < 5; run++) {
    const edits = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
      randomEdit(random, s.bytes.length, fields),
    )
    const what = `run ${run}, edits ${JSON.stringify(edits, (_, v) => (typeof v === 'number' ? formatValue(v) : v))}`
    const target = fresh()
    try {
      const error = restoreError(target.plugin, forge(s.bytes, edits))
      if (error) {
        rejected++
        if (target.plugin.hash() !== pristine || entityIndex(target.world).maxId !== 0) {
          throw new Error(`refused (${error.message}), but the target changed`)
        }
        target.plugin.restore(s.bytes)
        continue
      }
      accepted++
      for (let k = 1; k <= STEPS_AFTER; k++) {
        target.plugin.step()
        const world = target.plugin.stores.SceneNode.world
        const bad = world.findIndex((x) => !Number.isFinite(x))
        if (bad >= 0)
          throw new Error(`restored, then after step ${k} world matrix element ${bad} is ${world[bad]}`)
      }
    } catch (e) {
      failures.push(`${what}: ${(e as Error).message}`)
    }
  }
  return { rejected, accepted, failures }
}
