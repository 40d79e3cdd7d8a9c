import {
  ContactEquation,
  FrictionEquation,
  GSSolver,
  RotationalMotorEquation,
  type Body,
  type Equation,
  type Mat3,
  type World,
} from 'cannon-es'
import { ConeLimitEquation, TwistLimitEquation } from '../joint.ts'
import {
  computeGiMGt,
  contactB,
  copyJacobians,
  frictionB,
  limitB,
  motorB,
  STATE,
  writeBodyState,
} from './equationRows.ts'

/**
 * cannon-es's Gauss-Seidel solver (GSSolver.solve, cannon-es 0.20) with its iterations over typed arrays: the
 * same operations on the same numbers in the same order, so the same bits.
 *
 * GSSolver's inner loop calls computeGWlambda and addToWlambda on each equation, reaching through the equation
 * to its Jacobian elements and its bodies' vlambda, wlambda and inverse inertia: a ragdoll world holds six
 * equation classes (contact, friction, point, cone, twist, motor), so every one of those reads is megamorphic,
 * and the loop was a quarter of a ragdoll step's CPU (npm run bench:ragdoll, 100 apart, --cpu-prof). Here each
 * solve puts what the iterations read (per equation: its two bodies' slots, the four Jacobian vectors, eps and
 * the force bounds; per body: inverse mass and inverse world inertia as the solve sees them) into typed arrays,
 * computing the right-hand sides and denominators there too for the equation classes a ragdoll world holds
 * (equationRows.ts), iterates there, and hands vlambda, wlambda and each equation's multiplier back
 * as GSSolver leaves them. Allocation-free once its arrays have grown to the world.
 */
export class RagdollSolver extends GSSolver {
  private eqCapacity = 0
  private bodyCapacity = 0
  private B = new Float64Array(0)
  private invC = new Float64Array(0)
  private lambda = new Float64Array(0)
  /** Per equation: eps, min force, max force. */
  private params = new Float64Array(0)
  /** Per equation: GA spatial, GA rotational, GB spatial, GB rotational (12 doubles). */
  private jacobians = new Float64Array(0)
  /** Per equation: the slots of bi and bj. */
  private slots = new Int32Array(0)
  /** Per body: inverse mass, inverse world inertia (row-major 3×3): 10 doubles. */
  private mass = new Float64Array(0)
  /** Per body: vlambda, wlambda (6 doubles). */
  private velocity = new Float64Array(0)
  /** Per body: what the equations' right-hand sides read (STATE doubles, see writeBodyState). */
  private state = new Float64Array(0)
  /** Per body: 1 when the solve cannot move it (no inverse mass or inertia: static, kinematic, asleep). */
  private fixed = new Uint8Array(0)
  /** Per equation: MOVES_A | MOVES_B for the bodies the solve can move. */
  private sides = new Uint8Array(0)

  override solve(dt: number, world: World): number {
    const equations = this.equations
    const n = equations.length
    const bodies = world.bodies
    const nb = bodies.length
    this.reserve(n, nb)
    const slots = this.slots
    // Bodies are solved by their place in the world (Body.index, which cannon-es keeps equal to it); an
    // equation on a body elsewhere is left to GSSolver itself.
    for (let i = 0; i < n; i++) {
      const c = equations[i]!
      const a = slotOf(c.bi, bodies)
      const b = slotOf(c.bj, bodies)
      if (a < 0 || b < 0) return super.solve(dt, world)
      slots[2 * i] = a
      slots[2 * i + 1] = b
    }
    if (n === 0) return 0
    for (let i = 0; i < nb; i++) bodies[i]!.updateSolveMassProperties()
    const mass = this.mass
    const state = this.state
    const fixed = this.fixed
    for (let i = 0; i < nb; i++) {
      const body = bodies[i]!
      const m = body.invMassSolve
      const e = body.invInertiaWorldSolve.elements
      mass[10 * i] = m
      let moves = m !== 0
      for (let k = 0; k < 9; k++) {
        mass[10 * i + 1 + k] = e[k]!
        if (e[k] !== 0) moves = true
      }
      fixed[i] = moves ? 0 : 1
      writeBodyState(state, STATE * i, body, m, e)
    }
    const B = this.B
    const invC = this.invC
    const lambda = this.lambda
    const params = this.params
    const jac = this.jacobians
    for (let i = 0; i < n; i++) {
      const c = equations[i]!
      lambda[i] = 0.0
      const g = 12 * i
      const a = slots[2 * i]!
      const b = slots[2 * i + 1]!
      const kind = c.constructor
      params[3 * i] = c.eps
      params[3 * i + 1] = c.minForce
      params[3 * i + 2] = c.maxForce
      // The classes a ragdoll world holds, each's computeB written out on the arrays (see STATE); any other
      // equation (a game's constraint) computes its own, and its Jacobian is copied.
      if (kind === ContactEquation) B[i] = contactB(c as ContactEquation, jac, g, state, a, b, dt)
      else if (kind === FrictionEquation) B[i] = frictionB(c as FrictionEquation, jac, g, state, a, b, dt)
      else if (kind === ConeLimitEquation || kind === TwistLimitEquation) {
        B[i] = limitB(c as ConeLimitEquation, jac, g, state, a, b, dt)
      } else if (kind === RotationalMotorEquation) {
        B[i] = motorB(c as RotationalMotorEquation, jac, g, state, a, b, dt)
      } else {
        // Every equation class's computeB takes the step (the base class's typing says three numbers).
        B[i] = (c as unknown as { computeB(h: number): number }).computeB(dt)
        invC[i] = 1.0 / c.computeC()
        copyJacobians(jac, g, c)
        continue
      }
      invC[i] = 1.0 / (computeGiMGt(jac, g, mass, a, b) + c.eps)
    }
    const vel = this.velocity
    const sides = this.sides
    for (let i = 0; i < n; i++) {
      sides[i] = (fixed[slots[2 * i]!] ? 0 : MOVES_A) | (fixed[slots[2 * i + 1]!] ? 0 : MOVES_B)
    }
    vel.fill(0, 0, 6 * nb)
    const tolSquared = this.tolerance * this.tolerance
    let iter = 0
    for (iter = 0; iter !== this.iterations; iter++) {
      let deltalambdaTot = 0.0
      for (let j = 0; j !== n; j++) {
        const a = 6 * slots[2 * j]!
        const b = 6 * slots[2 * j + 1]!
        const g = 12 * j
        const moves = sides[j]!
        // computeGWlambda: GA·(vi, wi) + GB·(vj, wj), each vector's dot in x, y, z order. A fixed body's terms
        // are ±0 (its velocity stays +0), and x + ±0 is x: left out (see MOVES_A).
        let gw = 0.0
        if ((moves & MOVES_A) !== 0) {
          gw =
            vel[a]! * jac[g]! +
            vel[a + 1]! * jac[g + 1]! +
            vel[a + 2]! * jac[g + 2]! +
            (vel[a + 3]! * jac[g + 3]! + vel[a + 4]! * jac[g + 4]! + vel[a + 5]! * jac[g + 5]!)
        }
        if ((moves & MOVES_B) !== 0) {
          const gwb =
            vel[b]! * jac[g + 6]! +
            vel[b + 1]! * jac[g + 7]! +
            vel[b + 2]! * jac[g + 8]! +
            (vel[b + 3]! * jac[g + 9]! + vel[b + 4]! * jac[g + 10]! + vel[b + 5]! * jac[g + 11]!)
          gw = (moves & MOVES_A) !== 0 ? gw + gwb : gwb
        }
        const lambdaj = lambda[j]!
        let deltalambda = invC[j]! * (B[j]! - gw - params[3 * j]! * lambdaj)
        if (lambdaj + deltalambda < params[3 * j + 1]!) deltalambda = params[3 * j + 1]! - lambdaj
        else if (lambdaj + deltalambda > params[3 * j + 2]!) deltalambda = params[3 * j + 2]! - lambdaj
        lambda[j] = lambdaj + deltalambda
        deltalambdaTot += deltalambda > 0.0 ? deltalambda : -deltalambda
        // Equation.addToWlambda, written out (as a call it was not inlined: 13 % of a step's samples):
        // vlambda += (invMass·Δλ)·spatial for bi then bj, then wlambda += Δλ·(invI·rotational) for bi then bj,
        // in that order (bi and bj may be one body), each matrix row summed left to right (Mat3.vmult). A fixed
        // body's additions are ±0 to a +0: left out.
        const dl = deltalambda
        if ((moves & MOVES_A) !== 0) {
          const ma = slots[2 * j]! * 10
          const sa = mass[ma]! * dl
          vel[a] = vel[a]! + sa * jac[g]!
          vel[a + 1] = vel[a + 1]! + sa * jac[g + 1]!
          vel[a + 2] = vel[a + 2]! + sa * jac[g + 2]!
        }
        if ((moves & MOVES_B) !== 0) {
          const mb = slots[2 * j + 1]! * 10
          const sb = mass[mb]! * dl
          vel[b] = vel[b]! + sb * jac[g + 6]!
          vel[b + 1] = vel[b + 1]! + sb * jac[g + 7]!
          vel[b + 2] = vel[b + 2]! + sb * jac[g + 8]!
        }
        if ((moves & MOVES_A) !== 0) {
          const ma = slots[2 * j]! * 10
          const x = jac[g + 3]!
          const y = jac[g + 4]!
          const z = jac[g + 5]!
          vel[a + 3] = vel[a + 3]! + dl * (mass[ma + 1]! * x + mass[ma + 2]! * y + mass[ma + 3]! * z)
          vel[a + 4] = vel[a + 4]! + dl * (mass[ma + 4]! * x + mass[ma + 5]! * y + mass[ma + 6]! * z)
          vel[a + 5] = vel[a + 5]! + dl * (mass[ma + 7]! * x + mass[ma + 8]! * y + mass[ma + 9]! * z)
        }
        if ((moves & MOVES_B) !== 0) {
          const mb = slots[2 * j + 1]! * 10
          const x = jac[g + 9]!
          const y = jac[g + 10]!
          const z = jac[g + 11]!
          vel[b + 3] = vel[b + 3]! + dl * (mass[mb + 1]! * x + mass[mb + 2]! * y + mass[mb + 3]! * z)
          vel[b + 4] = vel[b + 4]! + dl * (mass[mb + 4]! * x + mass[mb + 5]! * y + mass[mb + 6]! * z)
          vel[b + 5] = vel[b + 5]! + dl * (mass[mb + 7]! * x + mass[mb + 8]! * y + mass[mb + 9]! * z)
        }
      }
      if (deltalambdaTot * deltalambdaTot < tolSquared) break
    }
    // GSSolver's ending: the velocities (scaled by the body's factors) and each equation's multiplier.
    for (let i = 0; i < nb; i++) {
      const body = bodies[i]!
      const o = 6 * i
      body.vlambda.set(vel[o]!, vel[o + 1]!, vel[o + 2]!)
      body.wlambda.set(vel[o + 3]!, vel[o + 4]!, vel[o + 5]!)
      body.vlambda.vmul(body.linearFactor, body.vlambda)
      body.velocity.vadd(body.vlambda, body.velocity)
      body.wlambda.vmul(body.angularFactor, body.wlambda)
      body.angularVelocity.vadd(body.wlambda, body.angularVelocity)
    }
    const invDt = 1 / dt
    for (let l = n - 1; l >= 0; l--) equations[l]!.multiplier = lambda[l]! * invDt
    return iter
  }

  private reserve(n: number, nb: number): void {
    if (n > this.eqCapacity) {
      const c = Math.max(n, 2 * this.eqCapacity, 64)
      this.eqCapacity = c
      this.B = new Float64Array(c)
      this.invC = new Float64Array(c)
      this.lambda = new Float64Array(c)
      this.params = new Float64Array(3 * c)
      this.jacobians = new Float64Array(12 * c)
      this.slots = new Int32Array(2 * c)
      this.sides = new Uint8Array(c)
    }
    if (nb > this.bodyCapacity) {
      const c = Math.max(nb, 2 * this.bodyCapacity, 16)
      this.bodyCapacity = c
      this.mass = new Float64Array(10 * c)
      this.velocity = new Float64Array(6 * c)
      this.state = new Float64Array(STATE * c)
      this.fixed = new Uint8Array(c)
    }
  }
}

/**
 * An equation's sides the solve can move. A body with zero inverse mass and inertia (the ground, a kinematic
 * anchor, a sleeping body) keeps vlambda = wlambda = +0 through GSSolver's iterations: every addition to it is
 * (0·Δλ)·J = ±0, and +0 + ±0 = +0. Its terms of G·W are ±0 too, which leave a sum unchanged except for the sign
 * of a zero result, and a zero's sign cannot reach a velocity (x + ±0 is x, and vlambda never holds −0) or a
 * multiplier (λ starts at +0). So the iterations skip a fixed side's reads and writes: the same bits, about
 * half the work of a ground contact's three equations. (A non-finite Jacobian would make GSSolver's additions
 * NaN; the plugin ends a ragdoll whose bodies are not finite before the step.)
 */
const MOVES_A = 1
const MOVES_B = 2

function slotOf(body: Body, bodies: readonly Body[]): number {
  const i = body.index
  return i >= 0 && i < bodies.length && bodies[i] === body ? i : -1
}
