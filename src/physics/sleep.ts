import { Body } from 'cannon-es'
import type { RagdollInstance } from './ragdoll.ts'

/**
 * Ragdolls at rest sleep: a limp whole-body ragdoll whose bodies have all moved slower than RAGDOLL_STILL_SPEED
 * of its longest body per second and turned slower than RAGDOLL_STILL_SPIN radians per second for
 * RAGDOLL_STILL_SECONDS is put to sleep whole, and its joints' equations leave the solver until it wakes; cannon-es
 * wakes a body a fast one touches, a hit wakes the body hit, and any body awake wakes the whole ragdoll. Lying
 * ragdolls then cost next to nothing (npm run bench:ragdoll: the solver was most of a step, 10 equations per joint
 * and contact). The plugin does this itself, with cannon-es's own per-body state (sleepState, timeLastSleepy;
 * both in snapshots): the world's allowSleep stays off, so a game's bodies in it are not put to sleep, and the
 * test is relative to the ragdoll's size (cannon-es's own adds speed and spin in one fixed number, 0.1). Partial
 * ragdolls (their anchors move), powered ones and held roots never sleep.
 *
 * "Moved" is how far a body went over the step, joint and ground projection included (its place now against
 * the one it started the step from, cannon-es's previousPosition and previousQuaternion), not its velocity: a
 * lying body the projection holds keeps the velocity the solver gave it against the projection, about one step
 * of gravity, while it stays where it is. The projection and the solver also leave a lying body shaking by a few
 * millimetres a step (up to 0.75 of a Fox's longest body per second), hence the still speed of one longest body
 * per second (Bullet's default is 0.8 m/s, with 2 s).
 */
export const RAGDOLL_STILL_SPEED = 1
/**
 * Lying on the ground, cannon-es's solver leaves a ragdoll's light bodies turning back and forth at up to
 * 1–1.3 rad/s (a Fox's neck) while the pose creeps 1–2 cm/s: 2 rad/s is at rest, not a slow roll, which slows
 * and stops before a second at that speed is up.
 */
export const RAGDOLL_STILL_SPIN = 2
export const RAGDOLL_STILL_SECONDS = 1

/** Before the physics step: wakes a ragdoll with any body awake, and takes a sleeping one's joints out. */
export function wakeOrRest(r: RagdollInstance): void {
  const bodies = r.bodies
  let sleeping = 0
  for (let i = 0; i < bodies.length; i++) if (bodies[i]!.sleepState === Body.SLEEPING) sleeping++
  if (sleeping > 0 && sleeping < bodies.length) {
    for (let i = 0; i < bodies.length; i++) bodies[i]!.wakeUp()
    sleeping = 0
  }
  const enabled = sleeping === 0
  const constraints = r.constraints
  for (let k = 0; k < constraints.length; k++) {
    const equations = constraints[k]!.equations
    // The point, cone and twist equations (a motor's follow: powered ragdolls never sleep).
    for (let e = 0; e < equations.length && e < 5; e++) equations[e]!.enabled = enabled
  }
}

/**
 * After the physics step and the joint projection: the sleep test of a ragdoll that may sleep (see above), at
 * world time `time` after a step of `dt`. Each body still for the first time becomes SLEEPY from then
 * (timeLastSleepy); one that moves is AWAKE again; when every body has been still for RAGDOLL_STILL_SECONDS, all
 * sleep. The turn over the step is measured by its half angle's sine squared, 1 − (q·q₀)² (+ − × only).
 */
export function sleepTick(r: RagdollInstance, time: number, dt: number): void {
  const bodies = r.bodies
  const step = RAGDOLL_STILL_SPEED * r.longest * dt
  const step2 = step * step
  // sin²(θ/2) ≤ (θ/2)² for the largest turn θ = spin·dt: the test is at most that strict.
  const half = 0.5 * RAGDOLL_STILL_SPIN * dt
  const turn2 = half * half
  let ready = true
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i]!
    if (b.sleepState === Body.SLEEPING) continue
    const p = b.position
    const p0 = b.previousPosition
    const dx = p.x - p0.x
    const dy = p.y - p0.y
    const dz = p.z - p0.z
    const q = b.quaternion
    const q0 = b.previousQuaternion
    const d = q.x * q0.x + q.y * q0.y + q.z * q0.z + q.w * q0.w
    const still = dx * dx + dy * dy + dz * dz <= step2 && 1 - d * d <= turn2
    if (!still) {
      b.sleepState = Body.AWAKE
      ready = false
    } else if (b.sleepState === Body.AWAKE) {
      b.sleepState = Body.SLEEPY
      b.timeLastSleepy = time
      ready = false
    } else if (!(time - b.timeLastSleepy >= RAGDOLL_STILL_SECONDS)) ready = false
  }
  if (ready)
    for (let i = 0; i < bodies.length; i++) if (bodies[i]!.sleepState !== Body.SLEEPING) bodies[i]!.sleep()
}

/** Wakes every body of a ragdoll (for one that may no longer sleep: given motors, for example). */
export function wakeRagdoll(r: RagdollInstance): void {
  for (let i = 0; i < r.bodies.length; i++) r.bodies[i]!.wakeUp()
  wakeOrRest(r)
}
