import type {
  Body,
  ContactEquation,
  Equation,
  FrictionEquation,
  Mat3,
  RotationalMotorEquation,
} from 'cannon-es'
import type { ConeLimitEquation, TwistLimitEquation } from '../joint.ts'

/**
 * The rows of RagdollSolver's typed arrays (src/physics/cannonPatches/solver.ts): each body's state and each equation's
 * Jacobian, right-hand side and denominator, written out as cannon-es 0.20 computes them (the same operations in
 * the same order, so the same bits).
 */

export function copyJacobians(out: Float64Array, o: number, c: Equation): void {
  put3(out, o, c.jacobianElementA.spatial)
  put3(out, o + 3, c.jacobianElementA.rotational)
  put3(out, o + 6, c.jacobianElementB.spatial)
  put3(out, o + 9, c.jacobianElementB.rotational)
}

function put3(out: Float64Array, o: number, v: Vec3Like): void {
  out[o] = v.x
  out[o + 1] = v.y
  out[o + 2] = v.z
}

/**
 * The right-hand sides and the denominators, written out. GSSolver asks each equation for computeB(h) and
 * computeC(): calls on six classes, megamorphic, each reaching into both bodies' objects again (velocities,
 * forces, inverse mass and inertia) for every equation — 44 % of a solve, more than its iterations (100 Foxes
 * apart, falling). Here each body's part is read once per solve (writeBodyState), and each class's computeB is
 * the same operations in the same order on the arrays (cannon-es 0.20: ContactEquation, FrictionEquation,
 * RotationalMotorEquation; src/physics/joint.ts: the limit equations), its Jacobian written straight into the
 * solver's array; computeC is Equation's: G·M⁻¹·Gᵀ + eps. The same bits (test/physics/cannonPatches/solver.test.ts).
 *
 * A body's STATE doubles: position, velocity, angular velocity (3 each), then M⁻¹·f (Vec3.scale: invMass × f)
 * and I⁻¹·τ (Mat3.vmult), as Equation.computeGiMf makes them.
 */
export const STATE = 15

export function writeBodyState(
  out: Float64Array,
  o: number,
  body: Body,
  m: number,
  e: Mat3['elements'],
): void {
  const x = body.position
  const v = body.velocity
  const w = body.angularVelocity
  const f = body.force
  const t = body.torque
  put3(out, o, x)
  put3(out, o + 3, v)
  put3(out, o + 6, w)
  out[o + 9] = m * f.x
  out[o + 10] = m * f.y
  out[o + 11] = m * f.z
  const tx = t.x
  const ty = t.y
  const tz = t.z
  out[o + 12] = e[0]! * tx + e[1]! * ty + e[2]! * tz
  out[o + 13] = e[3]! * tx + e[4]! * ty + e[5]! * tz
  out[o + 14] = e[6]! * tx + e[7]! * ty + e[8]! * tz
}

/**
 * JacobianElement.multiplyVectors of the element at jac[g] (spatial, rotational) with a body's two vectors at
 * s[o] and s[o + 3]: spatial·v + rotational·w, each dot in x, y, z order.
 */
function multiplyVectors(jac: Float64Array, g: number, s: Float64Array, o: number): number {
  return (
    s[o]! * jac[g]! +
    s[o + 1]! * jac[g + 1]! +
    s[o + 2]! * jac[g + 2]! +
    (s[o + 3]! * jac[g + 3]! + s[o + 4]! * jac[g + 4]! + s[o + 5]! * jac[g + 5]!)
  )
}

/** Equation.computeGW: GA·(vi, wi) + GB·(vj, wj). */
function computeGW(jac: Float64Array, g: number, s: Float64Array, a: number, b: number): number {
  return multiplyVectors(jac, g, s, STATE * a + 3) + multiplyVectors(jac, g + 6, s, STATE * b + 3)
}

/** Equation.computeGiMf: GA·(M⁻¹fi, I⁻¹τi) + GB·(M⁻¹fj, I⁻¹τj). */
function computeGiMf(jac: Float64Array, g: number, s: Float64Array, a: number, b: number): number {
  return multiplyVectors(jac, g, s, STATE * a + 9) + multiplyVectors(jac, g + 6, s, STATE * b + 9)
}

/** Equation.computeGiMGt: invMassi + invMassj, + (I⁻¹i·GA.r)·GA.r, + (I⁻¹j·GB.r)·GB.r. */
export function computeGiMGt(jac: Float64Array, g: number, mass: Float64Array, a: number, b: number): number {
  let result = mass[10 * a]! + mass[10 * b]!
  result += inertiaProduct(mass, 10 * a, jac, g + 3)
  result += inertiaProduct(mass, 10 * b, jac, g + 9)
  return result
}

/** (I⁻¹·r)·r for the inverse inertia at mass[m + 1] (row-major) and r at jac[r]: Mat3.vmult, then Vec3.dot. */
function inertiaProduct(mass: Float64Array, m: number, jac: Float64Array, r: number): number {
  const x = jac[r]!
  const y = jac[r + 1]!
  const z = jac[r + 2]!
  const tx = mass[m + 1]! * x + mass[m + 2]! * y + mass[m + 3]! * z
  const ty = mass[m + 4]! * x + mass[m + 5]! * y + mass[m + 6]! * z
  const tz = mass[m + 7]! * x + mass[m + 8]! * y + mass[m + 9]! * z
  return tx * x + ty * y + tz * z
}

/** Writes G = [−u, −(r_i × u), u, r_j × u] (a contact's normal or a friction's tangent u) at jac[g]. */
function writeArmJacobian(jac: Float64Array, g: number, ri: Vec3Like, rj: Vec3Like, u: Vec3Like): void {
  const ux = u.x
  const uy = u.y
  const uz = u.z
  jac[g] = -ux
  jac[g + 1] = -uy
  jac[g + 2] = -uz
  jac[g + 3] = -(ri.y * uz - ri.z * uy)
  jac[g + 4] = -(ri.z * ux - ri.x * uz)
  jac[g + 5] = -(ri.x * uy - ri.y * ux)
  jac[g + 6] = ux
  jac[g + 7] = uy
  jac[g + 8] = uz
  jac[g + 9] = rj.y * uz - rj.z * uy
  jac[g + 10] = rj.z * ux - rj.x * uz
  jac[g + 11] = rj.x * uy - rj.y * ux
}

interface Vec3Like {
  x: number
  y: number
  z: number
}

/** ContactEquation.computeB (contacts and the point equations of joints). */
export function contactB(
  c: ContactEquation,
  jac: Float64Array,
  g: number,
  s: Float64Array,
  a: number,
  b: number,
  h: number,
): number {
  const ri = c.ri
  const rj = c.rj
  const n = c.ni
  writeArmJacobian(jac, g, ri, rj, n)
  const nx = n.x
  const ny = n.y
  const nz = n.z
  const i = STATE * a
  const j = STATE * b
  // The penetration: xj + rj − xi − ri, then its part along n.
  const px = s[j]! + rj.x - s[i]! - ri.x
  const py = s[j + 1]! + rj.y - s[i + 1]! - ri.y
  const pz = s[j + 2]! + rj.z - s[i + 2]! - ri.z
  const gap = nx * px + ny * py + nz * pz
  const ePlusOne = c.restitution + 1
  // ePlusOne·vj·n − ePlusOne·vi·n + wj·(rj × n) − wi·(ri × n), with ri × n the negation of GA.rotational.
  const vjn = s[j + 3]! * nx + s[j + 4]! * ny + s[j + 5]! * nz
  const vin = s[i + 3]! * nx + s[i + 4]! * ny + s[i + 5]! * nz
  const wjr = s[j + 6]! * jac[g + 9]! + s[j + 7]! * jac[g + 10]! + s[j + 8]! * jac[g + 11]!
  const wir = s[i + 6]! * -jac[g + 3]! + s[i + 7]! * -jac[g + 4]! + s[i + 8]! * -jac[g + 5]!
  const GW = ePlusOne * vjn - ePlusOne * vin + wjr - wir
  const GiMf = computeGiMf(jac, g, s, a, b)
  return -gap * c.a - GW * c.b - h * GiMf
}

/** FrictionEquation.computeB. */
export function frictionB(
  c: FrictionEquation,
  jac: Float64Array,
  g: number,
  s: Float64Array,
  a: number,
  b: number,
  h: number,
): number {
  writeArmJacobian(jac, g, c.ri, c.rj, c.t)
  return velocityB(jac, g, s, a, b, h, c.b, 0)
}

/** RotationalMotorEquation.computeB: G = [GA.spatial, axisA, GB.spatial, −axisB] (the spatial parts as they are). */
export function motorB(
  c: RotationalMotorEquation,
  jac: Float64Array,
  g: number,
  s: Float64Array,
  a: number,
  b: number,
  h: number,
): number {
  const sa = c.jacobianElementA.spatial
  const sb = c.jacobianElementB.spatial
  const axisA = c.axisA
  const axisB = c.axisB
  put3(jac, g, sa)
  put3(jac, g + 3, axisA)
  put3(jac, g + 6, sb)
  jac[g + 9] = -axisB.x
  jac[g + 10] = -axisB.y
  jac[g + 11] = -axisB.z
  return velocityB(jac, g, s, a, b, h, c.b, c.targetVelocity)
}

/**
 * −(G·W − target)·coefB − h·G·M⁻¹f: FrictionEquation's and RotationalMotorEquation's computeB once the Jacobian is
 * at jac[g] (friction's target 0: x − 0 is x, the same bits).
 */
function velocityB(
  jac: Float64Array,
  g: number,
  s: Float64Array,
  a: number,
  b: number,
  h: number,
  coefB: number,
  target: number,
): number {
  const GW = computeGW(jac, g, s, a, b) - target
  const GiMf = computeGiMf(jac, g, s, a, b)
  return -GW * coefB - h * GiMf
}

/** The limit equations' computeB (src/physics/joint.ts): G = [0, nB × nA, 0, nA × nB], C = cos(limit) − nA·nB. */
export function limitB(
  c: ConeLimitEquation | TwistLimitEquation,
  jac: Float64Array,
  g: number,
  s: Float64Array,
  a: number,
  b: number,
  h: number,
): number {
  const cosLimit = c.limitCosine()
  const nA = c.axisA
  const nB = c.axisB
  jac[g] = 0
  jac[g + 1] = 0
  jac[g + 2] = 0
  jac[g + 3] = nB.y * nA.z - nB.z * nA.y
  jac[g + 4] = nB.z * nA.x - nB.x * nA.z
  jac[g + 5] = nB.x * nA.y - nB.y * nA.x
  jac[g + 6] = 0
  jac[g + 7] = 0
  jac[g + 8] = 0
  jac[g + 9] = nA.y * nB.z - nA.z * nB.y
  jac[g + 10] = nA.z * nB.x - nA.x * nB.z
  jac[g + 11] = nA.x * nB.y - nA.y * nB.x
  const C = cosLimit - (nA.x * nB.x + nA.y * nB.y + nA.z * nB.z)
  return -C * c.a - computeGW(jac, g, s, a, b) * c.b - h * computeGiMf(jac, g, s, a, b)
}
