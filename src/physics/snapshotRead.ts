import { Body, type Constraint, type World as PhysicsWorld } from 'cannon-es'
import type { ResolvedBody } from './description.ts'
import { equalWords, Reader, readU32Array, wordsOf } from '../sim/byteStream.ts'
import {
  checkChoice,
  checkFinite,
  checkFlags,
  checkNonNegative,
  checkPositive,
  checkRange,
  checkUnit,
  invalidValue,
  snapshotError,
} from '../sim/valueChecks.ts'

import {
  BODY_PARENT,
  DYNAMIC_DOUBLES,
  BROADPHASE_AXIS_LIST,
  BROADPHASE_DIRTY,
  type AnchorData,
  type BodyData,
  type ConstraintData,
  type Entry,
  HAS_ORIENTATION,
  type InstanceData,
  JOINT_CONE_TWIST,
  JOINT_REPAIRED,
  type PhysicsPlan,
  SHAPE_BOX,
  SHAPE_SPHERE,
  type ShapeData,
  type StaticData,
} from './snapshotFormat.ts'
import type { RagdollInstance } from './ragdoll.ts'
import { staticBlocks } from './snapshotWrite.ts'

/** The cannon-es half of a snapshot: reading and checking, changing nothing (layout and rationale: src/physics/snapshotFormat.ts). */

/**
 * Reads a ragdoll instance and checks it against its description (`where` names the section and the ragdoll).
 * Its static block: the same bytes as `live`'s (a live instance of the same description the restore keeps)
 * need no check (the plugin wrote them for it); any other is parsed and checked (readStatic). Its dynamic values:
 * positions, velocities, forces, world inertia finite, quaternions near unit length, sleep states known, read in
 * place through the reader's typed views (nothing allocated).
 */
export function readInstance(
  r: Reader,
  where: string,
  description: readonly ResolvedBody[],
  anchorJoints: readonly number[] | null,
  live: RagdollInstance | null,
): InstanceData {
  const staticLength = r.u32()
  r.u32()
  if (staticLength % 8 !== 0 || staticLength < 8) {
    throw invalidValue(where, 'static block length', staticLength, 'must be a multiple of 8, at least 8')
  }
  const staticAt = r.span(staticLength)
  const known = live === null ? undefined : staticBlocks.get(live.bodies)
  let statics: StaticData | null = null
  let reuse: RagdollInstance | null = null
  if (known !== undefined && sameBytes(known, r.bytes, staticAt, staticLength)) reuse = live
  else statics = readStatic(r.bytes, staticAt, staticLength, where, description, anchorJoints)
  const anchorCount = anchorJoints?.length ?? 0
  const count = description.length + anchorCount
  const dynamicAt = r.span(8 * DYNAMIC_DOUBLES * count)
  const sleepAt = r.span(count)
  const typeAt = r.span(count)
  r.align(8)
  const d = r.doubles
  for (let b = 0; b < count; b++) {
    const o = (dynamicAt >>> 3) + b * DYNAMIC_DOUBLES
    let sum = 0
    for (let k = 0; k < DYNAMIC_DOUBLES; k++) sum += d[o + k]! * 0
    const q = d[o + 3]! * d[o + 3]! + d[o + 4]! * d[o + 4]! + d[o + 5]! * d[o + 5]! + d[o + 6]! * d[o + 6]!
    const sleep = r.bytes[sleepAt + b]!
    const type = r.bytes[typeAt + b]!
    if (sum === 0 && q >= 0.25 && q <= 4 && sleep <= 2 && (type === 1 || type === 2 || type === 4)) continue
    const at = b < description.length ? `${where}, body ${b}` : `${where}, anchor ${b - description.length}`
    checkFinite(at, 'position', d, o, 3)
    checkUnit(at, 'quaternion', d, o + 3)
    checkFinite(at, 'velocity', d, o + 7, 3)
    checkFinite(at, 'angular velocity', d, o + 10, 3)
    checkFinite(at, 'force', d, o + 13, 3)
    checkFinite(at, 'torque', d, o + 16, 3)
    checkFinite(at, 'inverse world inertia', d, o + 19, 9)
    checkFinite(at, 'time last sleepy', d, o + 28, 1)
    checkChoice(at, 'sleep state', sleep, SLEEP_STATES)
    checkChoice(at, 'type', type, BODY_TYPES)
  }
  const constraintCount = statics ? statics.constraints.length : live!.constraints.length
  return {
    bodyCount: description.length,
    anchorCount,
    constraintCount,
    statics,
    reuse,
    staticAt,
    staticLength,
    dynamicAt,
    sleepAt,
    typeAt,
  }
}

function sameBytes(a: Uint8Array, bytes: Uint8Array, at: number, n: number): boolean {
  if (a.length !== n) return false
  const x = wordsOf(a.buffer)
  const y = wordsOf(bytes.buffer)
  const xo = a.byteOffset >>> 2
  const yo = (bytes.byteOffset + at) >>> 2
  return equalWords(x, xo, y, yo, n >>> 2)
}

/**
 * An instance's static block (bytes [at, at + length)), parsed and checked: one body per description body,
 * hanging from the body its description names; one constraint per body with a parent body, in body order,
 * linking the two; every value within what cannon-es and the ragdoll code can take (see readBody), so that
 * buildInstance cannot throw and no zero quaternion or axis turns into NaN.
 */
export function readStatic(
  bytes: Uint8Array,
  at: number,
  length: number,
  where: string,
  description: readonly ResolvedBody[],
  anchorJoints: readonly number[] | null,
): StaticData {
  const r = new Reader(bytes, at)
  r.limit = at + length
  r.section = 'ragdolls'
  const bodies: BodyData[] = []
  const offsets: number[] = []
  const count = r.u16()
  const constraintCount = r.u16()
  const anchorCount = r.u16()
  if (count !== description.length) {
    throw invalidValue(where, 'body count', count, `must be ${description.length}, as in its description`)
  }
  // A partial ragdoll (anchorJoints: the joint each top body's anchor follows) hangs every top body from its
  // anchor; anchors are numbered after the bodies.
  const children: number[] = []
  const parentOf: number[] = []
  let tops = 0
  description.forEach((spec, b) => {
    if (spec.parentBody < 0 && !anchorJoints) return
    children.push(b)
    parentOf.push(spec.parentBody >= 0 ? spec.parentBody : count + tops++)
  })
  if (anchorCount !== tops) {
    throw invalidValue(
      where,
      'anchor count',
      anchorCount,
      `must be ${tops}, one per top body of a partial ragdoll`,
    )
  }
  for (let b = 0; b < count; b++) {
    const at = `${where}, body ${b}`
    const k = children.indexOf(b)
    bodies.push(readBody(r, at, k < 0 ? -1 : parentOf[k]!))
    const offset = r.f64s(7)
    checkFinite(at, 'joint offset', offset, 0, 3)
    checkUnit(at, 'joint offset rotation', offset, 3)
    offsets.push(...offset)
  }
  if (constraintCount !== children.length) {
    throw invalidValue(
      where,
      'constraint count',
      constraintCount,
      `must be ${children.length}, one per body with a parent body${anchorJoints ? ' or an anchor' : ''}`,
    )
  }
  const constraints: ConstraintData[] = []
  for (let k = 0; k < constraintCount; k++) {
    const at = `${where}, constraint ${k}`
    const kind = r.u8()
    const a = r.u16()
    const b = r.u16()
    const collide = r.u8()
    const values = r.f64s(15)
    checkChoice(at, 'kind', kind, [JOINT_CONE_TWIST, JOINT_REPAIRED])
    const child = children[k]!
    const parent = parentOf[k]!
    if (b !== child) throw invalidValue(at, 'body B', b, `must be ${child} (constraints follow their bodies)`)
    if (a !== parent)
      throw invalidValue(at, 'body A', a, `must be ${parent}, the parent body of body ${child}`)
    checkChoice(at, 'collide connected', collide, [0, 1])
    checkFinite(at, 'pivot A', values, 0, 3)
    checkFinite(at, 'pivot B', values, 3, 3)
    checkUnit(at, 'axis A', values, 6, 3)
    checkUnit(at, 'axis B', values, 9, 3)
    checkRange(at, 'cone angle', values[12]!, 0, Math.PI, true)
    checkRange(at, 'twist angle', values[13]!, 0, Math.PI)
    checkPositive(at, 'max force', values[14]!)
    constraints.push({ kind, a, b, collideConnected: collide === 1, values })
  }
  const anchors: AnchorData[] = []
  for (let k = 0; k < anchorCount; k++) {
    const where2 = `${where}, anchor ${k}`
    const body = readBody(r, where2, -1, true)
    if (body.type !== Body.KINEMATIC) throw invalidValue(where2, 'type', body.type, 'must be kinematic (4)')
    const joint = r.i32()
    if (joint !== anchorJoints![k]) {
      throw invalidValue(
        where2,
        'joint',
        joint,
        `must be ${anchorJoints![k]}, the parent joint of its top body`,
      )
    }
    const offset = r.f64s(4)
    checkUnit(where2, 'rotation offset', offset)
    anchors.push({ body, joint, offset })
  }
  r.align(8)
  if (r.at() !== at + length)
    throw snapshotError(`${where}: ${at + length - r.at()} unread bytes in its static block`)
  return { bodies, offsets, constraints, anchors }
}

const BODY_TYPES = [Body.DYNAMIC, Body.STATIC, Body.KINEMATIC]
const SLEEP_STATES = [Body.AWAKE, Body.SLEEPY, Body.SLEEPING]

/**
 * One body's static part, checked: type and flags known; mass finite (> 0 for a dynamic body), damping a
 * fraction; inertia finite and ≥ 0; 1 to 255 shapes, each a sphere of radius > 0 or a box of half extents > 0
 * (cannon-es throws for a negative radius, and a zero one gives NaN normals); hanging from `parentBody`.
 */
function readBody(r: Reader, where: string, parentBody: number, anchor = false): BodyData {
  const type = r.u8()
  const flags = r.u8()
  const shapeCount = r.u8()
  r.u8()
  checkChoice(where, 'type', type, BODY_TYPES)
  checkFlags(where, 'flags', flags, BODY_PARENT)
  // An anchor has no shapes; a body at least one.
  if (anchor) checkRange(where, 'shape count', shapeCount, 0, 0)
  else checkRange(where, 'shape count', shapeCount, 1, 255)
  const mass = r.f64()
  if (type === Body.DYNAMIC) checkPositive(where, 'mass', mass)
  else checkNonNegative(where, 'mass', mass)
  const damping = r.f64s(2)
  checkRange(where, 'linear damping', damping[0]!, 0, 1)
  checkRange(where, 'angular damping', damping[1]!, 0, 1)
  const group = r.i32()
  const mask = r.i32()
  const inertia = r.f64s(6)
  for (let k = 0; k < 3; k++) {
    checkNonNegative(where, `inertia[${k}]`, inertia[k]!)
    checkNonNegative(where, `inverse inertia[${k}]`, inertia[3 + k]!)
  }
  const parent = (flags & BODY_PARENT) !== 0 ? r.u16() : -1
  if (parent !== parentBody) {
    throw invalidValue(where, 'parent body', parent, `must be ${parentBody}, as in its description`)
  }
  const shapes: ShapeData[] = []
  for (let i = 0; i < shapeCount; i++) {
    const tag = r.u8()
    const kind = tag & ~HAS_ORIENTATION
    checkChoice(where, `shape ${i} kind`, kind, [SHAPE_SPHERE, SHAPE_BOX])
    const size = r.f64s(kind === SHAPE_SPHERE ? 1 : 3)
    const name = kind === SHAPE_SPHERE ? 'radius' : 'half extents'
    size.forEach((x, k) => checkPositive(where, `shape ${i} ${name}${size.length > 1 ? `[${k}]` : ''}`, x))
    const offset = r.f64s(3)
    checkFinite(where, `shape ${i} offset`, offset)
    const orientation = (tag & HAS_ORIENTATION) !== 0 ? r.f64s(4) : null
    if (orientation) checkUnit(where, `shape ${i} orientation`, orientation)
    shapes.push({ kind, size, offset, orientation })
  }
  return { type, flags, mass, damping, group, mask, inertia, parent, shapes }
}

/** A physics world's own bodies and constraints: those of no ragdoll, in world order. */
export interface OwnPhysics {
  readonly bodies: readonly Body[]
  readonly constraints: readonly Constraint[]
}

/**
 * Reads the world section and checks it against `physics` (gravity, the broadphase kind), its own bodies and
 * constraints (`own`: the non-ragdoll ones), and the ragdolls read before it (`sizes`: bodies and constraints
 * per character).
 */
export function readPhysicsWorld(
  r: Reader,
  physics: PhysicsWorld,
  own: OwnPhysics,
  sizes: ReadonlyMap<number, { bodies: number; constraints: number }>,
): PhysicsPlan {
  const time = r.f64()
  const stepnumber = r.f64()
  const gravity = r.f64s(3)
  checkNonNegative('section "physics"', 'time', time)
  // cannon-es takes it modulo the quaternion normalization period.
  if (!(Number.isInteger(stepnumber) && stepnumber >= 0 && stepnumber <= Number.MAX_SAFE_INTEGER)) {
    throw invalidValue('section "physics"', 'step number', stepnumber, 'must be a whole number ≥ 0')
  }
  const g = physics.gravity
  if (!Object.is(gravity[0], g.x) || !Object.is(gravity[1], g.y) || !Object.is(gravity[2], g.z)) {
    throw snapshotError(
      `has gravity (${gravity.join(', ')}), this plugin's physics world (${g.x}, ${g.y}, ${g.z})`,
    )
  }
  const entries = (kind: 'bodies' | 'constraints', count: number, other: (e: Entry, i: number) => void) => {
    const list: Entry[] = []
    // Numbers, not strings, as keys (an id below 2^31 and a u16: exact in a double).
    const seen = new Set<number>()
    for (let i = 0; i < count; i++) {
      const e = { eid: r.i32(), index: r.u16() }
      if (e.eid !== 0) {
        const key = e.eid * 65536 + e.index
        if (e.index >= (sizes.get(e.eid)?.[kind] ?? 0) || seen.has(key)) {
          throw snapshotError(
            `section "physics": ${kind} entry ${i} names ragdoll ${e.eid}'s ${kind} ${e.index}, which does not exist or is listed twice`,
          )
        }
        seen.add(key)
      } else other(e, i)
      list.push(e)
    }
    const total = [...sizes.values()].reduce((s, x) => s + x[kind], 0)
    if (seen.size !== total)
      throw snapshotError(`section "physics": the world lists ${seen.size} of the ragdolls' ${total} ${kind}`)
    return list
  }
  let ownBodies = 0
  const bodies = entries('bodies', r.u32(), (_, i) => {
    const type = r.u8()
    const statics = type === Body.STATIC ? r.f64s(7) : null
    const mine = own.bodies[ownBodies]
    if (!mine || mine.type !== type) {
      throw snapshotError(
        `has a non-ragdoll ${bodyType(type)} body at physics index ${i}; this plugin's physics world has ` +
          `${mine ? `a ${bodyType(mine.type)} one` : `only ${own.bodies.length} bodies`} there ` +
          '(create the plugin with the same physics options)',
      )
    }
    const p = mine.position
    const q = mine.quaternion
    const here = [p.x, p.y, p.z, q.x, q.y, q.z, q.w]
    if (statics && !here.every((x, k) => Object.is(x, statics[k]))) {
      throw snapshotError(
        `static body ${ownBodies} is at (${statics.slice(0, 3).join(', ')}), this plugin's at ` +
          `(${here.slice(0, 3).join(', ')}) (create the plugin with the same ground)`,
      )
    }
    ownBodies++
  })
  if (ownBodies !== own.bodies.length) {
    throw snapshotError(
      `has ${ownBodies} non-ragdoll physics bodies, this plugin's physics world ${own.bodies.length}`,
    )
  }
  let ownConstraints = 0
  const constraints = entries('constraints', r.u32(), () => ownConstraints++)
  if (ownConstraints !== own.constraints.length) {
    throw snapshotError(
      `has ${ownConstraints} non-ragdoll constraints, this plugin's physics world ${own.constraints.length}`,
    )
  }
  const flags = r.u8()
  checkFlags('section "physics"', 'broadphase flags', flags, BROADPHASE_DIRTY | BROADPHASE_AXIS_LIST)
  const sweeps = Array.isArray((physics.broadphase as { axisList?: Body[] }).axisList)
  if (sweeps !== ((flags & BROADPHASE_AXIS_LIST) !== 0)) {
    throw snapshotError(
      `was taken with ${sweeps ? 'a broadphase without' : 'a sweep-and-prune broadphase with'} an axis list, ` +
        `this plugin's physics world uses ${physics.broadphase.constructor.name}`,
    )
  }
  let axisList: Uint32Array | null = null
  if (sweeps) {
    const count = r.u32()
    axisList = readU32Array(r.bytes, r.span(4 * count), count)
    const seen = new Uint8Array(bodies.length)
    if (count !== bodies.length || !axisList.every((i) => i < bodies.length && seen[i]!++ === 0)) {
      throw snapshotError(
        `section "physics": the broadphase axis list (${count} entries) is not an order of the ${bodies.length} bodies`,
      )
    }
  }
  return { time, stepnumber, bodies, constraints, dirty: (flags & BROADPHASE_DIRTY) !== 0, axisList }
}

function bodyType(type: number): string {
  return type === Body.STATIC ? 'static' : type === Body.KINEMATIC ? 'kinematic' : 'dynamic'
}
