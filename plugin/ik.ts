import { entityExists, hasComponent } from 'bitecs'
import { AnimationError, showValue } from '../src/errors.ts'
import { detSinCos } from '../src/math/detmath.ts'
import { composeMatrix, multiplyMatrices } from '../src/math/transform.ts'
import { cross, invertMatrix, transformVector } from '../src/ik/ikMath.ts'
import { CHAIN_CCD, CHAIN_FABRIK } from '../src/ik/chain.ts'
import type { AnimationContext, RegisteredAsset } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'
import { finiteNumber, optionsObject, vector3, type OptionNames } from './checks.ts'
import { growChainScratch } from '../systems/ik.ts'
import {
  F_AXIS,
  F_CHAIN_WEIGHTS,
  F_LEFT_REST_AXIS,
  F_LENGTH,
  F_PITCH,
  F_PITCH_COS,
  F_POLE,
  F_RAMP_DURATION,
  F_REST_AXIS,
  F_RIGHT_REST_AXIS,
  F_SOFTEN,
  F_TARGET,
  F_TOLERANCE,
  F_TWIST,
  F_UP,
  F_WEIGHT,
  F_WEIGHT_FROM,
  F_WEIGHT_TO,
  F_YAW,
  F_YAW_COS,
  GROUND_FUNCTION,
  GROUND_PHYSICS,
  I_GROUND,
  I_ITERATIONS,
  I_LENGTH,
  I_METHOD,
  I_POLE_ENTITY,
  I_TARGET_ENTITY,
  IK_AIM,
  IK_CHAIN,
  IK_FEET,
  IK_KINDS,
  IK_TWO_BONE,
  insertAt,
  type IKSolver,
} from '../systems/ikState.ts'

import type {
  AimIKOptions,
  ChainIKOptions,
  FeetIKOptions,
  IKOptions,
  IKTarget,
  TwoBoneIKOptions,
} from './ikOptions.ts'

export type {
  AimIKOptions,
  ChainIKOptions,
  FeetIKOptions,
  IKOptions,
  IKTarget,
  IKWeightOptions,
  TwoBoneIKOptions,
} from './ikOptions.ts'

const COMMON = { kind: true, weight: true, fadeSeconds: true } as const
const NAMES: readonly OptionNames<IKOptions>[] = [
  { ...COMMON, left: true, right: true, ground: true, pelvis: true } as OptionNames<FeetIKOptions>,
  {
    ...COMMON,
    joint: true,
    target: true,
    pole: true,
    soften: true,
    twist: true,
  } as OptionNames<TwoBoneIKOptions>,
  {
    ...COMMON,
    joints: true,
    target: true,
    iterations: true,
    tolerance: true,
    method: true,
  } as OptionNames<ChainIKOptions>,
  {
    ...COMMON,
    joint: true,
    target: true,
    axis: true,
    up: true,
    limits: true,
    chain: true,
  } as OptionNames<AimIKOptions>,
] as never

/**
 * Sets (or with null removes) the IK solver `name` of a character, from the next step: a new one's weight ramps
 * from 0, an existing one's from where it is, to `weight` over `fadeSeconds`; setting it again with the same
 * weight moves its target and keeps any ramp running. Throws AnimationError for a bad value, changing nothing.
 */
export function setIK(ctx: AnimationContext, eid: number, name: string, options: IKOptions | null): void {
  const what = `setIK(${showValue(eid)}, ${showValue(name)})`
  checkCharacter(ctx, eid, what)
  if (typeof name !== 'string' || name.length === 0) {
    throw new AnimationError('argument', `${what}: the name must be a non-empty string`)
  }
  const state = ctx.poseEdits
  const ik = state.ik[eid]
  const index = ik === undefined ? -1 : ik.solvers.findIndex((s) => s.name === name)
  if (options === null) {
    if (index < 0) return
    ik!.solvers.splice(index, 1)
    if (ik!.solvers.length === 0) {
      state.ik[eid] = undefined
      state.ikCount--
    }
    return
  }
  const solver = makeSolver(ctx, eid, name, options, what)
  const old = index < 0 ? undefined : ik!.solvers[index]!
  rampWeight(solver, old, options.weight ?? 1, options.fadeSeconds ?? 0, what)
  if (solver.kind === IK_CHAIN) growChainScratch(solver.joints.length)
  // Checked whole: from here nothing throws.
  if (solver.ground !== null) state.grounds.set(name, solver.ground)
  if (ik === undefined) {
    state.ik[eid] = { solvers: [solver] }
    state.ikCount++
    return
  }
  if (old !== undefined && old.kind === solver.kind) ik.solvers[index] = solver
  else {
    if (index >= 0) ik.solvers.splice(index, 1)
    ik.solvers.splice(insertAt(ik.solvers, solver.kind), 0, solver)
  }
}

/** The weight and its ramp: kept when the weight asked is where the solver goes already; else a new ramp. */
function rampWeight(
  s: IKSolver,
  old: IKSolver | undefined,
  weight: unknown,
  fade: unknown,
  what: string,
): void {
  const w = finiteNumber(weight, what, 'weight')
  if (w < 0 || w > 1) throw new AnimationError('argument', `${what}: weight ${w} is not in [0, 1]`)
  const seconds = finiteNumber(fade, what, 'fadeSeconds', ' s')
  if (seconds < 0) throw new AnimationError('argument', `${what}: fadeSeconds ${seconds} is negative`)
  const f = s.f
  if (old !== undefined && (old.f[F_RAMP_DURATION]! > 0 ? old.f[F_WEIGHT_TO] : old.f[F_WEIGHT]) === w) {
    for (const k of [F_RAMP_DURATION, F_WEIGHT, F_WEIGHT_FROM, F_WEIGHT_TO]) f[k] = old.f[k]!
    s.steps[0] = old.steps[0]!
    return
  }
  const from = old === undefined ? 0 : old.f[F_WEIGHT]!
  f[F_WEIGHT_TO] = w
  f[F_WEIGHT_FROM] = from
  s.steps[0] = 0
  if (seconds > 0 && from !== w) {
    f[F_WEIGHT] = from
    f[F_RAMP_DURATION] = seconds
  } else {
    f[F_WEIGHT] = w
    f[F_RAMP_DURATION] = 0
  }
}

function makeSolver(
  ctx: AnimationContext,
  eid: number,
  name: string,
  options: unknown,
  what: string,
): IKSolver {
  const kindName =
    typeof options === 'object' && options !== null ? (options as { kind?: unknown }).kind : undefined
  const kind = IK_KINDS.indexOf(kindName as never)
  if (kind < 0) {
    throw new AnimationError(
      'argument',
      `${what}: kind ${showValue(kindName)} is not one of ${IK_KINDS.join(', ')}`,
    )
  }
  const o = optionsObject<Record<string, unknown>>(options, what, NAMES[kind]! as never)
  const rig = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const joint = (node: unknown, label: string): number =>
    jointIndex(ctx, eid, node as string | number, `${what}: ${label}`)
  const ancestors = (j: number, label: string): [number, number] => {
    const p = rig.jointParents[j]!
    const g = p < 0 ? -1 : rig.jointParents[p]!
    if (g < 0)
      throw new AnimationError('argument', `${what}: ${label} needs a parent and a grandparent joint`)
    return [g, p]
  }
  let joints: number[]
  let length: number = F_LENGTH[kind]!
  const i = new Uint32Array(I_LENGTH)
  let ground: IKSolver['ground'] = null
  const extra: ((f: Float64Array) => void)[] = []
  if (kind === IK_TWO_BONE) {
    const end = joint(o.joint, 'joint')
    joints = [...ancestors(end, 'joint'), end]
    const soften = finiteNumber(o.soften ?? 1, what, 'soften')
    if (soften < 0 || soften > 1)
      throw new AnimationError('argument', `${what}: soften ${soften} is not in [0, 1]`)
    const twist = finiteNumber(o.twist ?? 0, what, 'twist', ' rad')
    extra.push((f) => {
      f[F_SOFTEN] = soften
      f[F_TWIST] = twist
      restAxis(f, F_REST_AXIS, rig, joints)
    })
    target(ctx, o.pole, what, 'pole', i, I_POLE_ENTITY, extra, F_POLE, true)
  } else if (kind === IK_AIM) {
    const head = joint(o.joint, 'joint')
    const axis = unit(o.axis, what, 'axis')
    const up = o.up === undefined ? null : unit(o.up, what, 'up')
    const limits = optionsObject<{ yaw: number; pitch: number }>(
      o.limits,
      what,
      { yaw: true, pitch: true },
      'limits',
    )
    const yaw = limits.yaw === undefined ? NaN : angle(limits.yaw, what, 'limits.yaw')
    const pitch = limits.pitch === undefined ? NaN : angle(limits.pitch, what, 'limits.pitch')
    const chain = aimChain(o.chain, head, rig, joint, what)
    joints = [head, ...chain.map((c) => c.joint)]
    length += chain.length
    extra.push((f) => {
      f.set(axis, F_AXIS)
      f.set(up ?? [NaN, NaN, NaN], F_UP)
      f[F_YAW] = yaw
      f[F_PITCH] = pitch
      for (const [at, a] of [
        [F_YAW_COS, yaw],
        [F_PITCH_COS, pitch],
      ] as const) {
        if (a !== a) continue
        const sc = detSinCos(new Float64Array(2), a)
        f[at] = sc[1]!
        f[at + 1] = sc[0]!
      }
      chain.forEach((c, k) => (f[F_CHAIN_WEIGHTS + k] = c.weight))
    })
  } else if (kind === IK_CHAIN) {
    if (!Array.isArray(o.joints) || o.joints.length < 2) {
      throw new AnimationError(
        'argument',
        `${what}: joints ${showValue(o.joints)} must list at least 2 joints`,
      )
    }
    joints = (o.joints as unknown[]).map((n, k) => joint(n, `joints[${k}]`))
    for (let k = 1; k < joints.length; k++) {
      if (rig.jointParents[joints[k]!] !== joints[k - 1]) {
        throw new AnimationError('argument', `${what}: joints[${k}] is not a child of joints[${k - 1}]`)
      }
    }
    const iterations = o.iterations ?? 10
    if (!Number.isInteger(iterations) || (iterations as number) < 1 || (iterations as number) > 1000) {
      throw new AnimationError(
        'argument',
        `${what}: iterations ${showValue(iterations)} is not an integer in [1, 1000]`,
      )
    }
    const tolerance = o.tolerance === undefined ? NaN : finiteNumber(o.tolerance, what, 'tolerance')
    if (tolerance < 0) throw new AnimationError('argument', `${what}: tolerance ${tolerance} is negative`)
    const method = ['fabrik', 'ccd'].indexOf((o.method ?? 'fabrik') as string)
    if (method < 0)
      throw new AnimationError('argument', `${what}: method ${showValue(o.method)} is not 'fabrik' or 'ccd'`)
    i[I_ITERATIONS] = iterations as number
    i[I_METHOD] = method === 0 ? CHAIN_FABRIK : CHAIN_CCD
    extra.push((f) => (f[F_TOLERANCE] = tolerance))
  } else {
    const left = joint(o.left, 'left')
    const right = joint(o.right, 'right')
    if (left === right) throw new AnimationError('argument', `${what}: left and right are the same joint`)
    const legs = [...ancestors(left, 'left'), left, ...ancestors(right, 'right'), right]
    const pelvis =
      o.pelvis === undefined ? commonAncestor(rig, legs[0]!, legs[3]!) : joint(o.pelvis, 'pelvis')
    if (pelvis < 0 || !isAncestor(rig, pelvis, legs[0]!) || !isAncestor(rig, pelvis, legs[3]!)) {
      throw new AnimationError(
        'argument',
        `${what}: no pelvis above both hips${o.pelvis === undefined ? '' : ` (${showValue(o.pelvis)} is not)`}`,
      )
    }
    joints = [...legs, pelvis]
    if (o.ground === 'physics') i[I_GROUND] = GROUND_PHYSICS
    else if (typeof o.ground === 'function') {
      i[I_GROUND] = GROUND_FUNCTION
      ground = o.ground as (x: number, z: number) => number
    } else
      throw new AnimationError(
        'argument',
        `${what}: ground ${showValue(o.ground)} is not 'physics' or a function`,
      )
    extra.push((f) => {
      restAxis(f, F_LEFT_REST_AXIS, rig, joints.slice(0, 3))
      restAxis(f, F_RIGHT_REST_AXIS, rig, joints.slice(3, 6))
    })
  }
  if (kind !== IK_FEET) target(ctx, o.target, what, 'target', i, I_TARGET_ENTITY, extra, F_TARGET, false)
  const f = new Float64Array(length).fill(NaN)
  for (const set of extra) set(f)
  return { name, kind, joints: Int32Array.from(joints), f, i, steps: new Float64Array(1), ground }
}

/** A target or pole: a point (three numbers finite in float32) or { entity } of a live scene node. */
function target(
  ctx: AnimationContext,
  v: unknown,
  what: string,
  name: string,
  i: Uint32Array,
  io: number,
  extra: ((f: Float64Array) => void)[],
  fo: number,
  optional: boolean,
): void {
  if (v === undefined && optional) return
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = optionsObject<{ entity: number }>(v, what, { entity: true }, name)
    const e = o.entity
    const nodes = ctx.sceneGraph.store
    if (
      !Number.isInteger(e) ||
      e! <= 0 ||
      e! >= ctx.capacity ||
      !entityExists(ctx.world, e!) ||
      !hasComponent(ctx.world, e!, nodes)
    ) {
      throw new AnimationError('argument', `${what}: ${name}.entity ${showValue(e)} is not a scene node`)
    }
    i[io] = e!
    return
  }
  const p = vector3(v, what, name)
  if (p.some((x) => Math.abs(x) > 3.4028234663852886e38)) {
    throw new AnimationError('argument', `${what}: ${name} ${showValue(p)} is not finite in float32`)
  }
  extra.push((f) => f.set(p, fo))
}

function unit(v: unknown, what: string, name: string): [number, number, number] {
  const [x, y, z] = vector3(v, what, name)
  const l = Math.sqrt(x * x + y * y + z * z)
  if (!(l > 0) || l === Infinity)
    throw new AnimationError('argument', `${what}: ${name} ${showValue(v)} has no direction`)
  return [x / l, y / l, z / l]
}

function angle(v: unknown, what: string, name: string): number {
  const a = finiteNumber(v, what, name, ' rad')
  if (a < 0 || a > Math.PI) throw new AnimationError('argument', `${what}: ${name} ${a} is not in [0, π]`)
  return a
}

/** The aim chain: ancestors of the aiming joint, each once, with weights in [0, 1]; parents first. */
function aimChain(
  v: unknown,
  head: number,
  rig: RegisteredAsset,
  joint: (node: unknown, label: string) => number,
  what: string,
): { joint: number; weight: number }[] {
  if (v === undefined) return []
  if (!Array.isArray(v))
    throw new AnimationError('argument', `${what}: chain ${showValue(v)} is not an array`)
  const out = v.map((entry: unknown, k) => {
    const label = `chain[${k}]`
    const o = optionsObject<{ joint: string | number; weight: number }>(
      entry,
      what,
      { joint: true, weight: true },
      label,
    )
    const j = joint(o.joint, `${label}.joint`)
    if (!isAncestor(rig, j, head))
      throw new AnimationError('argument', `${what}: ${label}.joint is not an ancestor of joint`)
    const weight = finiteNumber(o.weight, what, `${label}.weight`)
    if (weight < 0 || weight > 1)
      throw new AnimationError('argument', `${what}: ${label}.weight ${weight} is not in [0, 1]`)
    return { joint: j, weight }
  })
  const seen = new Set(out.map((c) => c.joint))
  if (seen.size !== out.length) throw new AnimationError('argument', `${what}: chain lists a joint twice`)
  // Parents come first in joint order.
  return out.sort((x, y) => x.joint - y.joint)
}

function isAncestor(rig: RegisteredAsset, a: number, j: number): boolean {
  for (let p = rig.jointParents[j]!; p >= 0; p = rig.jointParents[p]!) if (p === a) return true
  return false
}

function commonAncestor(rig: RegisteredAsset, a: number, b: number): number {
  for (let p = rig.jointParents[a]!; p >= 0; p = rig.jointParents[p]!) if (isAncestor(rig, p, b)) return p
  return -1
}

/**
 * The middle joint's bend axis in the rest pose, in its own space (cross(start − mid, end − mid), normalized), at
 * f[o..o+3); left NaN when the chain is straight at rest.
 */
function restAxis(f: Float64Array, o: number, rig: RegisteredAsset, chain: readonly number[]): void {
  const world = (j: number): Float64Array => {
    const m = new Float64Array(16)
    composeMatrix(m, 0, rig.rest, j * 10, rig.rest, j * 10 + 3, rig.rest, j * 10 + 7)
    const p = rig.jointParents[j]!
    return p < 0 ? m : (multiplyMatrices(m, 0, world(p), 0, m, 0) as Float64Array)
  }
  const [s, m, e] = chain.map(world) as [Float64Array, Float64Array, Float64Array]
  const v = new Float64Array(12)
  for (let k = 0; k < 3; k++) {
    v[k] = s[12 + k]! - m[12 + k]!
    v[3 + k] = e[12 + k]! - m[12 + k]!
  }
  cross(v, 6, v, 0, v, 3)
  const bend2 = v[6]! ** 2 + v[7]! ** 2 + v[8]! ** 2
  const l2 = (v[0]! ** 2 + v[1]! ** 2 + v[2]! ** 2) * (v[3]! ** 2 + v[4]! ** 2 + v[5]! ** 2)
  if (!(bend2 > 1e-8 * l2)) return
  const inverse = invertMatrix(new Float64Array(16), 0, m, 0)
  transformVector(v, 9, inverse, 0, v, 6)
  const l = Math.sqrt(v[9]! ** 2 + v[10]! ** 2 + v[11]! ** 2)
  if (!(l > 0)) return
  for (let k = 0; k < 3; k++) f[o + k] = v[9 + k]! / l
}
