/**
 * ozz-animation's IKAimJob unit tests (test/animation/runtime/ik_aim_job_tests.cc, release 0.16.0), ported
 * case by case: the same inputs (ozz's float constants), its expected corrections and tolerance (2e-3).
 */
import { describe, expect, it } from 'vitest'
import { createAimJob, runAimJob, validateAimJob, type AimJob } from '../../src/ik/aim.ts'
import {
  X,
  Y,
  Z,
  axisAngle,
  expectQuat,
  fromEuler,
  identity,
  kPi,
  kPi_2,
  kPi_4,
  kSqrt2_2,
  neg,
  scale,
  scaling,
  transformPoint,
  transformVector,
  translation,
  type Vec3,
} from '../helpers/ozzMath.ts'

const IDENTITY = [0, 0, 0, 1]

function job(joint: Float64Array = identity()): AimJob {
  const j = createAimJob()
  j.joint = joint
  j.correction = new Float64Array(4)
  return j
}

function run(j: AimJob, expected: readonly number[]): void {
  expect(runAimJob(j)).toBe(true)
  expectQuat(j.correction!, expected)
}

describe('IKAimJob (ozz unit tests)', () => {
  it('JobValidity', () => {
    expect(validateAimJob(createAimJob())).toBe(false)
    expect(validateAimJob(Object.assign(createAimJob(), { joint: identity() }))).toBe(false)
    expect(validateAimJob(Object.assign(createAimJob(), { correction: new Float64Array(4) }))).toBe(false)
    const unnormalized = createAimJob()
    unnormalized.forward.set([0.5, 0, 0])
    expect(validateAimJob(unnormalized)).toBe(false)
    const valid = job()
    expect(validateAimJob(valid)).toBe(true)
    expect(runAimJob(valid)).toBe(true)
  })

  it('Correction, under six root transforms', () => {
    const parents = [
      identity(),
      translation(Y),
      fromEuler(kPi / 3, 0, 0),
      scaling([2, 2, 2]),
      scaling([1, 2, 1]),
      scaling([-3, -3, -3]),
    ]
    for (const parent of parents) {
      const j = job(parent)
      j.forward.set(X)
      j.up.set(Y)
      j.pole.set(transformVector(parent, Y))
      const cases: [Vec3, readonly number[]][] = [
        [X, IDENTITY],
        [neg(X), axisAngle(Y, kPi)],
        [Z, axisAngle(Y, -kPi_2)],
        [neg(Z), axisAngle(Y, kPi_2)],
        [[1, 1, 0], axisAngle(Z, kPi_4)],
        [[2, 2, 0], axisAngle(Z, kPi_4)],
      ]
      for (const [target, expected] of cases) {
        j.target.set(transformPoint(parent, target))
        run(j, expected)
      }
    }
  })

  it('Forward', () => {
    const j = job()
    j.target.set(X)
    j.up.set(Y)
    j.pole.set(Y)
    j.forward.set(X)
    run(j, IDENTITY)
    j.forward.set(neg(X))
    run(j, axisAngle(Y, -kPi))
    j.forward.set(Z)
    run(j, axisAngle(Y, kPi_2))
  })

  it('Up', () => {
    const j = job()
    j.target.set(X)
    j.forward.set(X)
    j.pole.set(Y)
    const cases: [Vec3, readonly number[]][] = [
      [Y, IDENTITY],
      [neg(Y), axisAngle(X, kPi)],
      [Z, axisAngle(X, -kPi_2)],
      [scale(Z, 2), axisAngle(X, -kPi_2)],
      [scale(Z, Math.fround(1e-9)), axisAngle(X, -kPi_2)],
      [[0, 0, 0], IDENTITY],
    ]
    for (const [up, expected] of cases) {
      j.up.set(up)
      run(j, expected)
    }
  })

  it('Pole', () => {
    const j = job()
    j.target.set(X)
    j.forward.set(X)
    j.up.set(Y)
    const cases: [Vec3, readonly number[]][] = [
      [Y, IDENTITY],
      [neg(Y), axisAngle(X, kPi)],
      [Z, axisAngle(X, kPi_2)],
      [scale(Z, 2), axisAngle(X, kPi_2)],
      [scale(Z, Math.fround(1e-9)), axisAngle(X, kPi_2)],
    ]
    for (const [pole, expected] of cases) {
      j.pole.set(pole)
      run(j, expected)
    }
  })

  it('Offset', () => {
    const j = job()
    j.target.set(X)
    j.forward.set(X)
    j.up.set(Y)
    j.pole.set(Y)
    const cases: [Vec3, readonly number[], boolean][] = [
      [[0, 0, 0], IDENTITY, true],
      [[0, kSqrt2_2, 0], axisAngle(Z, -kPi_4), true],
      [[0.5, 0.5, 0], axisAngle(Z, -kPi / 6), true],
      [[-0.5, 0.5, 0], axisAngle(Z, -kPi / 6), true],
      [[0.5, 0, 0.5], axisAngle(Y, kPi / 6), true],
      [[0, 1, 0], axisAngle(Z, -kPi_2), true],
      [[0, 2, 0], IDENTITY, false],
    ]
    for (const [offset, expected, reached] of cases) {
      j.reached = !reached
      j.offset.set(offset)
      run(j, expected)
      expect(j.reached).toBe(reached)
    }
    // Offset inside of target sphere, unreachable.
    j.joint = translation(Y)
    j.reached = false
    j.offset.set(Y)
    run(j, axisAngle(Z, -kPi_2))
    expect(j.reached).toBe(true)
  })

  it('Twist', () => {
    const j = job()
    j.target.set(X)
    j.forward.set(X)
    j.up.set(Y)
    j.pole.set(Y)
    for (const [twist, expected] of [
      [0, IDENTITY],
      [kPi_2, axisAngle(X, kPi_2)],
      [-kPi_2, axisAngle(X, -kPi_2)],
    ] as const) {
      j.twistAngle = twist
      run(j, expected)
    }
  })

  it('AlignedTargetUp', () => {
    const j = job()
    j.forward.set(X)
    j.pole.set(Y)
    j.up.set(Y)
    for (const [target, expected] of [
      [X, IDENTITY],
      [Y, axisAngle(Z, kPi_2)],
      [scale(Y, 2), axisAngle(Z, kPi_2)],
      [scale(Y, -2), axisAngle(Z, -kPi_2)],
    ] as const) {
      j.target.set(target)
      run(j, expected)
    }
  })

  it('AlignedTargetPole', () => {
    const j = job()
    j.forward.set(X)
    j.up.set(Y)
    j.target.set(X)
    j.pole.set(Y)
    run(j, IDENTITY)
    j.target.set(Y)
    run(j, axisAngle(Z, kPi_2))
  })

  it('TargetTooClose', () => {
    const j = job()
    j.forward.set(X)
    j.up.set(Y)
    j.pole.set(Y)
    run(j, IDENTITY)
  })

  it('Weight', () => {
    const j = job()
    j.target.set(Z)
    j.forward.set(X)
    j.up.set(Y)
    j.pole.set(Y)
    for (const [weight, expected] of [
      [1, axisAngle(Y, -kPi_2)],
      [2, axisAngle(Y, -kPi_2)],
      [0.5, axisAngle(Y, -kPi_4)],
      [0, IDENTITY],
      [-0.5, IDENTITY],
    ] as const) {
      j.weight = weight
      run(j, expected)
    }
  })

  it('ZeroScale', () => {
    run(job(scaling([0, 0, 0])), IDENTITY)
  })
})
