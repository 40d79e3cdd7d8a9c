/**
 * ozz-animation's IKTwoBoneJob unit tests (test/animation/runtime/ik_two_bone_job_tests.cc, release 0.16.0),
 * ported case by case: the same inputs, ozz's expected corrections (component by component, as
 * EXPECT_SIMDQUATERNION_EQ_TOL compares them) and its tolerances (2e-3; EST cases 1e-2); EXPECT_REACHED rebuilds
 * the corrected chain and checks its end within 1e-2 of the target, and the job's `reached` flag, as ozz's does.
 */
import { describe, expect, it } from 'vitest'
import { createTwoBoneJob, runTwoBoneJob, validateTwoBoneJob, type TwoBoneJob } from '../../src/ik/twoBone.ts'
import {
  X,
  Y,
  Z,
  add,
  expectQuat,
  affine,
  axisAngle,
  cross3,
  fromEuler,
  fromQuaternion,
  identity,
  invert,
  kPi,
  kPi_2,
  kPi_4,
  kSqrt2,
  mul,
  neg,
  position,
  scale,
  scaling,
  sub,
  transformPoint,
  transformVector,
  translation,
  type Vec3,
} from '../helpers/ozzMath.ts'

const EST = 1e-2

/** ozz's _ExpectReached: the corrected chain's end within 1e-2 of the target iff `reachable`, and the flag. */
function expectReached(job: TwoBoneJob, reachable: boolean): void {
  const start = job.start!
  const mid = job.mid!
  const end = job.end!
  const midLocal = mul(invert(start), mid)
  const endLocal = mul(invert(mid), end)
  const startCorrected = mul(start, fromQuaternion(job.startCorrection!))
  const midCorrected = mul(mul(startCorrected, midLocal), fromQuaternion(job.midCorrection!))
  const endCorrected = mul(midCorrected, endLocal)
  const d = sub(position(endCorrected), [job.target[0]!, job.target[1]!, job.target[2]!])
  expect(Math.hypot(...d) < 1e-2).toBe(reachable)
  expect(job.reached).toBe(reachable)
}

/** ozz's base pose: start at the origin, mid at +y turned 90° about z, end at (1, 1, 0). */
function basePose() {
  const start = identity()
  const mid = affine(Y, axisAngle(Z, kPi_2), [1, 1, 1])
  const end = translation(add(X, Y))
  const midAxis = cross3(sub(position(start), position(mid)), sub(position(end), position(mid)))
  return { start, mid, end, midAxis }
}

function setup(start: Float64Array, mid: Float64Array, end: Float64Array, midAxis?: Vec3): TwoBoneJob {
  const job = createTwoBoneJob()
  job.start = start
  job.mid = mid
  job.end = end
  if (midAxis) job.midAxis.set(midAxis)
  job.startCorrection = new Float64Array(4)
  job.midCorrection = new Float64Array(4)
  return job
}

const set = (a: Float64Array, v: ArrayLike<number>): void => a.set(Array.from(v).slice(0, 3))

describe('IKTwoBoneJob (ozz unit tests)', () => {
  it('JobValidity', () => {
    const { start, mid, end } = basePose()
    expect(validateTwoBoneJob(createTwoBoneJob())).toBe(false)
    const quatOut = new Float64Array(4)
    const make = (parts: Partial<TwoBoneJob>): TwoBoneJob => Object.assign(createTwoBoneJob(), parts)
    const outs = { startCorrection: quatOut, midCorrection: quatOut }
    expect(validateTwoBoneJob(make({ mid, end, ...outs }))).toBe(false)
    expect(validateTwoBoneJob(make({ start, end, ...outs }))).toBe(false)
    expect(validateTwoBoneJob(make({ start, mid, ...outs }))).toBe(false)
    expect(validateTwoBoneJob(make({ start, mid, end, midCorrection: quatOut }))).toBe(false)
    expect(validateTwoBoneJob(make({ start, mid, end, startCorrection: quatOut }))).toBe(false)
    const unnormalized = make({ start, mid, end, ...outs })
    unnormalized.midAxis.set([0, 0.70710678, 0])
    expect(validateTwoBoneJob(unnormalized)).toBe(false)
    expect(runTwoBoneJob(unnormalized)).toBe(false)
    expect(validateTwoBoneJob(make({ start, mid, end, ...outs }))).toBe(true)
  })

  it('StartJointCorrection, under six root transforms', () => {
    const base = basePose()
    const parents = [
      identity(),
      translation(Y),
      fromEuler(kPi / 3, 0, 0),
      scaling([2, 2, 2]),
      scaling([1, 2, 1]),
      scaling([-3, -3, -3]),
    ]
    for (const parent of parents) {
      const job = setup(mul(parent, base.start), mul(parent, base.mid), mul(parent, base.end), base.midAxis)
      set(job.pole, transformVector(parent, Y))
      expect(validateTwoBoneJob(job)).toBe(true)
      // No correction expected.
      set(job.target, transformPoint(parent, [1, 1, 0]))
      expect(runTwoBoneJob(job)).toBe(true)
      expectReached(job, true)
      expectQuat(job.startCorrection!, [0, 0, 0, 1])
      expectQuat(job.midCorrection!, [0, 0, 0, 1])
      // 90
      set(job.target, transformPoint(parent, [0, 1, 1]))
      expect(runTwoBoneJob(job)).toBe(true)
      expectReached(job, true)
      expectQuat(job.startCorrection!, axisAngle(Y, -kPi_2))
      expectQuat(job.midCorrection!, [0, 0, 0, 1])
      // 270
      set(job.target, transformPoint(parent, [0, 1, -1]))
      expect(runTwoBoneJob(job)).toBe(true)
      expectReached(job, true)
      expectQuat(job.startCorrection!, axisAngle(Y, kPi_2))
      expectQuat(job.midCorrection!, [0, 0, 0, 1])
    }
  })

  it('Pole', () => {
    const { start, mid, end, midAxis } = basePose()
    const job = setup(start, mid, end, midAxis)
    const cases: [Vec3, Vec3, readonly number[]][] = [
      [Y, [1, 1, 0], [0, 0, 0, 1]],
      [Z, [1, 0, 1], axisAngle(X, kPi_2)],
      [neg(Z), [1, 0, -1], axisAngle(X, -kPi_2)],
      [X, [1, -1, 0], axisAngle(Z, -kPi_2)],
      [neg(X), [-1, 1, 0], axisAngle(Z, kPi_2)],
    ]
    for (const [pole, target, expected] of cases) {
      job.pole.set(pole)
      job.target.set(target)
      expect(runTwoBoneJob(job)).toBe(true)
      expectReached(job, true)
      expectQuat(job.startCorrection!, expected)
      expectQuat(job.midCorrection!, [0, 0, 0, 1])
    }
  })

  it('ZeroScale', () => {
    const start = scaling([0, 0, 0])
    const job = setup(start, start, start)
    expect(runTwoBoneJob(job)).toBe(true)
    expectQuat(job.startCorrection!, [0, 0, 0, 1])
    expectQuat(job.midCorrection!, [0, 0, 0, 1])
  })

  it('Soften', () => {
    const { start, mid, end, midAxis } = basePose()
    const job = setup(start, mid, end, midAxis)
    job.pole.set(Y)
    const run = (target: Vec3, soften: number): void => {
      job.target.set(target)
      job.soften = soften
      expect(runTwoBoneJob(job)).toBe(true)
    }
    // Reachable
    run([2, 0, 0], 1)
    expectReached(job, true)
    expectQuat(job.startCorrection!, axisAngle(Z, -kPi_2))
    expectQuat(job.midCorrection!, axisAngle(Z, kPi_2))
    // Reachable, softened
    run([2 * 0.5, 0, 0], 0.5)
    expectReached(job, true)
    run([2 * 0.4, 0, 0], 0.5)
    expectReached(job, true)
    // Not reachable, softened; softened at max; softened; a bit too far.
    run([2 * 0.6, 0, 0], 0.5)
    expectReached(job, false)
    run([2 * 0.6, 0, 0], 0)
    expectReached(job, false)
    run([2, 0, 0], 0.5)
    expectReached(job, false)
    run([3, 0, 0], 1)
    expectReached(job, false)
  })

  it('Twist', () => {
    const { start, mid, end, midAxis } = basePose()
    const job = setup(start, mid, end, midAxis)
    job.pole.set(Y)
    job.target.set([1, 1, 0])
    const diagonal: Vec3 = [0.70710678, 0.70710678, 0]
    const cases: [number, readonly number[]][] = [
      [0, [0, 0, 0, 1]],
      [kPi_2, axisAngle(diagonal, kPi_2)],
      [kPi, axisAngle(diagonal, -kPi)],
      [kPi * 2, [0, 0, 0, 1]],
    ]
    for (const [twist, expected] of cases) {
      job.twistAngle = twist
      expect(runTwoBoneJob(job)).toBe(true)
      expectReached(job, true)
      expectQuat(job.startCorrection!, expected)
      expectQuat(job.midCorrection!, [0, 0, 0, 1])
    }
  })

  it('Weight', () => {
    const { start, mid, end, midAxis } = basePose()
    const job = setup(start, mid, end, midAxis)
    job.pole.set(Y)
    job.target.set([2, 0, 0])
    for (const weight of [1, 1.1]) {
      job.weight = weight
      expect(runTwoBoneJob(job)).toBe(true)
      expectReached(job, true)
      expectQuat(job.startCorrection!, axisAngle(Z, -kPi_2))
      expectQuat(job.midCorrection!, axisAngle(Z, kPi_2))
    }
    for (const weight of [0, -0.1]) {
      job.weight = weight
      expect(runTwoBoneJob(job)).toBe(true)
      expectReached(job, false)
      expectQuat(job.startCorrection!, [0, 0, 0, 1], EST)
      expectQuat(job.midCorrection!, [0, 0, 0, 1], EST)
    }
    job.weight = 0.5
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, false)
    expectQuat(job.startCorrection!, axisAngle(Z, -kPi_2 * 0.5))
    expectQuat(job.midCorrection!, axisAngle(Z, kPi_2 * 0.5))
  })

  it('PoleTargetAlignment', () => {
    const { start, mid, end, midAxis } = basePose()
    const job = setup(start, mid, end, midAxis)
    job.pole.set(Y)
    // Reachable, undefined qstart (many solutions).
    job.target.set([0, kSqrt2, 0])
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, true)
    expectQuat(job.midCorrection!, [0, 0, 0, 1])
    // Reachable, defined qstart.
    job.target.set([0.001, kSqrt2, 0])
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, true)
    expectQuat(job.startCorrection!, axisAngle(Z, kPi_4))
    expectQuat(job.midCorrection!, [0, 0, 0, 1])
    // Full extent, undefined qstart, end not reached.
    job.target.set([0, 3, 0])
    expect(runTwoBoneJob(job)).toBe(true)
    expectQuat(job.midCorrection!, axisAngle(Z, kPi_2))
  })

  it('MidAxis', () => {
    const { start, mid, end, midAxis } = basePose()
    const job = setup(start, mid, end)
    job.pole.set(Y)
    job.target.set([1, 1, 0])
    // Positive mid_axis.
    job.midAxis.set(midAxis)
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, true)
    expectQuat(job.startCorrection!, [0, 0, 0, 1])
    expectQuat(job.midCorrection!, [0, 0, 0, 1])
    // Negative mid_axis.
    job.midAxis.set(neg(midAxis))
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, true)
    expectQuat(job.startCorrection!, axisAngle(Y, kPi))
    expectQuat(job.midCorrection!, axisAngle(Z, kPi))
    // Aligned joints.
    job.end = translation([0, 2, 0])
    job.midAxis.set(midAxis)
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, true)
    expectQuat(job.startCorrection!, [0, 0, 0, 1])
    expectQuat(job.midCorrection!, axisAngle(Z, -kPi_2))
  })

  it('AlignedJointsAndTarget', () => {
    const job = setup(identity(), translation(X), translation(add(X, X)), Z)
    job.pole.set(Y)
    job.target.set([2, 0, 0])
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, true)
    expectQuat(job.startCorrection!, [0, 0, 0, 1])
    expectQuat(job.midCorrection!, [0, 0, 0, 1])
    job.target.set([3, 0, 0])
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, false)
    expectQuat(job.startCorrection!, [0, 0, 0, 1])
    expectQuat(job.midCorrection!, [0, 0, 0, 1])
  })

  it('ZeroLengthStartTarget', () => {
    const { start, mid, end } = basePose()
    const job = setup(start, mid, end)
    job.pole.set(Y)
    job.target.set(position(start))
    expect(runTwoBoneJob(job)).toBe(true)
    expectQuat(job.startCorrection!, [0, 0, 0, 1])
    // Mid joint is bent -90 degrees to reach start.
    expectQuat(job.midCorrection!, axisAngle(Z, -kPi_2))
  })

  it('ZeroLengthBoneChain', () => {
    const job = setup(identity(), identity(), identity())
    job.pole.set(Y)
    job.target.set(X)
    // Just expecting it's not crashing.
    expect(runTwoBoneJob(job)).toBe(true)
    expectReached(job, false)
    void scale
  })
})
