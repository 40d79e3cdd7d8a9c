import fc from 'fast-check'
import { Matrix4, Object3D, Quaternion, Vector3 } from 'three'
import { describe, expect, it } from 'vitest'
import {
  composeWorld,
  decomposeMatrix,
  forwardKinematics,
  localFromWorld,
  rotateVector,
  WORLD_STRIDE,
} from '../../src/physics/kinematics.ts'
import { angularVelocity } from '../../src/physics/kinematics.ts'
import { HUMANOID_NODES } from '../helpers/humanoid.ts'
import { quatDistance, quatFromAxisAngle, refMultiply, unitQuatArb } from '../helpers/quat.ts'

const coord = fc.double({ min: -10, max: 10, noNaN: true })
const vec3Arb = fc.tuple(coord, coord, coord)
const scaleArb = fc.double({ min: 0.01, max: 4, noNaN: true })

/** A 10-float pose joint (uniform scale s). */
function poseJoint(t: readonly number[], r: readonly number[], s: number): number[] {
  return [...t, ...r, s, s, s]
}

/** 8-double world transform from a three.js object's matrixWorld. */
function worldOf(o: Object3D): number[] {
  const p = new Vector3()
  const q = new Quaternion()
  const s = new Vector3()
  o.matrixWorld.decompose(p, q, s)
  return [p.x, p.y, p.z, q.x, q.y, q.z, q.w, s.x]
}

function expectWorldClose(actual: Float64Array, o: number, expected: readonly number[], tol: number): void {
  for (let k = 0; k < 3; k++)
    expect(Math.abs(actual[o + k]! - expected[k]!), `position ${k}`).toBeLessThan(tol)
  expect(quatDistance(actual, expected, o + 3, 3), 'rotation').toBeLessThan(tol)
  expect(Math.abs(actual[o + 7]! - expected[7]!), 'scale').toBeLessThan(tol)
}

describe('forwardKinematics', () => {
  it('matches a three.js Object3D hierarchy for the humanoid rest pose under a scaled, turned root', () => {
    const n = HUMANOID_NODES.length
    const pose = new Float32Array(n * 10)
    const parents = Int32Array.from(HUMANOID_NODES.map((x) => x.parent))
    HUMANOID_NODES.forEach((x, j) => pose.set(poseJoint(x.t, x.r, j === 3 ? 1.5 : 1), j * 10))
    const rootQ = quatFromAxisAngle([0.3, 1, -0.2], 0.8)
    const root = Float64Array.from([1, -2, 0.5, ...rootQ, 0.01])
    const out = forwardKinematics(new Float64Array(n * WORLD_STRIDE), pose, 0, parents, n, root, 0)

    const top = new Object3D()
    top.position.set(1, -2, 0.5)
    top.quaternion.set(...rootQ)
    top.scale.setScalar(0.01)
    const objects = HUMANOID_NODES.map((x, j) => {
      const o = new Object3D()
      o.position.set(pose[j * 10]!, pose[j * 10 + 1]!, pose[j * 10 + 2]!)
      o.quaternion.set(pose[j * 10 + 3]!, pose[j * 10 + 4]!, pose[j * 10 + 5]!, pose[j * 10 + 6]!)
      o.scale.setScalar(pose[j * 10 + 7]!)
      return o
    })
    objects.forEach((o, j) => (parents[j]! < 0 ? top : objects[parents[j]!]!).add(o))
    top.updateMatrixWorld(true)
    objects.forEach((o, j) => expectWorldClose(out, j * WORLD_STRIDE, worldOf(o), 1e-6))
  })
})

describe('localFromWorld', () => {
  it('inverts composeWorld: parent ∘ local → world → local gives the local back', () => {
    fc.assert(
      fc.property(vec3Arb, unitQuatArb(), scaleArb, vec3Arb, unitQuatArb(), (pt, pq, ps, lt, lq) => {
        const parent = Float64Array.from([...pt, ...pq, ps])
        const local = Float32Array.from(poseJoint(lt, lq, 1))
        const world = new Float64Array(8)
        composeWorld(world, 0, parent, 0, local, 0)
        const back = Float32Array.from(local).fill(0)
        localFromWorld(back, 0, parent, 0, world, 0)
        for (let k = 0; k < 3; k++)
          expect(Math.abs(back[k]! - local[k]!)).toBeLessThan(1e-4 * (1 + Math.abs(lt[k]!)))
        expect(quatDistance(back, local, 3, 3)).toBeLessThan(1e-6)
      }),
    )
  })
})

describe('decomposeMatrix', () => {
  it('agrees with three.js Matrix4.decompose for rotation · uniform scale + translation', () => {
    fc.assert(
      fc.property(vec3Arb, unitQuatArb(), scaleArb, (t, q, s) => {
        const m = new Matrix4().compose(new Vector3(...t), new Quaternion(...q), new Vector3(s, s, s))
        const out = decomposeMatrix(new Float64Array(10), 1, Float32Array.from(m.elements), 0)
        expectWorldClose(out, 1, [...t, ...q, s], 2e-5 * Math.max(1, s, ...t.map(Math.abs)))
      }),
    )
  })

  it('covers every branch of the quaternion extraction (trace > 0, and each largest diagonal)', () => {
    for (const q of [
      quatFromAxisAngle([0, 0, 1], 0.3),
      quatFromAxisAngle([1, 0, 0], 3),
      quatFromAxisAngle([0, 1, 0], 3),
      quatFromAxisAngle([0, 0, 1], 3),
    ]) {
      const m = new Matrix4().compose(new Vector3(), new Quaternion(...q), new Vector3(1, 1, 1))
      const out = decomposeMatrix(new Float64Array(8), 0, Float32Array.from(m.elements), 0)
      expect(quatDistance(out, q, 3, 0)).toBeLessThan(1e-6)
    }
  })
})

describe('rotateVector', () => {
  it('rotates like three.js Vector3.applyQuaternion', () => {
    fc.assert(
      fc.property(unitQuatArb(), vec3Arb, (q, v) => {
        const out = new Float64Array(3)
        rotateVector(out, 0, Float64Array.from(q), 0, ...v)
        const e = new Vector3(...v).applyQuaternion(new Quaternion(...q))
        expect(Math.abs(out[0]! - e.x) + Math.abs(out[1]! - e.y) + Math.abs(out[2]! - e.z)).toBeLessThan(1e-9)
      }),
    )
  })
})

describe('angularVelocity', () => {
  it('recovers ω from a = q, b = exp(ω·dt/2)·q, along the short arc (b and -b alike)', () => {
    const w = fc.double({ min: -20, max: 20, noNaN: true })
    fc.assert(
      fc.property(unitQuatArb(), fc.tuple(w, w, w), fc.boolean(), (q, omega, flip) => {
        const dt = 1 / 60
        const speed = Math.hypot(...omega)
        const step = speed > 0 ? quatFromAxisAngle(omega, speed * dt) : [0, 0, 0, 1]
        const b = refMultiply(step, q).map((x) => (flip ? -x : x))
        const out = angularVelocity(new Float64Array(3), Float64Array.from(q), 0, Float64Array.from(b), 0, dt)
        for (let k = 0; k < 3; k++) expect(Math.abs(out[k]! - omega[k]!)).toBeLessThan(1e-6 * (1 + speed))
      }),
    )
  })

  it('is zero for equal rotations', () => {
    const q = Float64Array.from(quatFromAxisAngle([1, 2, 3], 1))
    expect(Array.from(angularVelocity(new Float64Array(3), q, 0, q, 0, 0.1))).toEqual([0, 0, 0])
  })
})
