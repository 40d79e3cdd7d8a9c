/**
 * Procedural clips of a generated humanoid (skeleton.ts): "Walk", "Run", "Idle" and "Wave", looping, keyed at
 * 30 keys a second. A motion is given in the world: per joint a rotation relative to its rest world rotation
 * (the same for every rig, whatever its axes) and the hips' offset from their rest place; asset.ts turns it
 * into local keys. The legs are solved by two-bone IK against planted feet: in stance a foot slides back along
 * the ground at its rest height (an in-place walk), in swing it lifts and swings forward, so a rig playing its
 * own walk keeps its stance foot on the ground to float precision. Setup code: Math.* is fine here.
 */
import { axisAngle, mulQuat, type HumanoidSkeleton, type Quat, type Vec3 } from './skeleton.ts'

export interface HumanoidPose {
  /** joint id → world rotation relative to rest; joints not listed keep their parent's. */
  readonly deltas: Map<string, Quat>
  /** The hips' world offset from their rest place, metres. */
  readonly hips: Vec3
}

export interface HumanoidMotion {
  readonly seconds: number
  pose(skeleton: HumanoidSkeleton, t: number): HumanoidPose
}

const X: Vec3 = [1, 0, 0]
const Y: Vec3 = [0, 1, 0]
const Z: Vec3 = [0, 0, 1]

interface Gait {
  seconds: number
  /** Stride (foot travel in stance) and lift, in leg lengths; stance share of the cycle. */
  stride: number
  lift: number
  stance: number
  /** Hips drop below rest and their bob, leg lengths. */
  drop: number
  bob: number
  armSwing: number
  twist: number
  lean: number
}

const WALK: Gait = {
  seconds: 1,
  stride: 0.55,
  lift: 0.1,
  stance: 0.6,
  drop: 0.04,
  bob: 0.015,
  armSwing: 0.35,
  twist: 0.12,
  lean: 0.05,
}
const RUN: Gait = {
  seconds: 0.7,
  stride: 0.9,
  lift: 0.22,
  stance: 0.42,
  drop: 0.09,
  bob: 0.03,
  armSwing: 0.7,
  twist: 0.2,
  lean: 0.2,
}

/** Thigh and shin world rotations (about x) that put the ankle at (y, z) from the hip joint, knee forward. */
function legIk(s: HumanoidSkeleton, dy: number, dz: number): [number, number] {
  const reach = s.thigh + s.shin
  const d = Math.min(Math.hypot(dy, dz), reach * 0.9999)
  const toward = Math.atan2(dz, -dy)
  const cosHip = (s.thigh ** 2 + d ** 2 - s.shin ** 2) / (2 * s.thigh * d)
  const thigh = toward + Math.acos(Math.max(-1, Math.min(1, cosHip)))
  const kneeY = -s.thigh * Math.cos(thigh)
  const kneeZ = s.thigh * Math.sin(thigh)
  return [thigh, Math.atan2(dz - kneeZ, -(dy - kneeY))]
}

/** A swing down/forward by `angle` radians about x: the world delta that tilts a hanging segment forward. */
const forward = (angle: number): Quat => axisAngle(X, -angle)

/** Arms lowered from their rest angle to hang `spread` radians off the body, then swung forward. */
function armDelta(side: 1 | -1, rest: number, spread: number, swing: number): Quat {
  return mulQuat(forward(swing), axisAngle(Z, -side * (Math.PI / 2 - spread - rest)))
}

function gaitMotion(g: Gait): HumanoidMotion {
  return {
    seconds: g.seconds,
    pose(s, t) {
      const phase = t / g.seconds
      const armDown = s.armDown
      const leg = s.thigh + s.shin
      const deltas = new Map<string, Quat>()
      const hipsY = -leg * (g.drop + g.bob * Math.cos(4 * Math.PI * phase))
      for (const [S, offset] of [
        ['L', 0],
        ['R', 0.5],
      ] as const) {
        const u = (phase + offset) % 1
        let z: number
        let lift = 0
        if (u < g.stance) z = leg * g.stride * (0.5 - u / g.stance)
        else {
          const v = (u - g.stance) / (1 - g.stance)
          z = leg * g.stride * ((1 - Math.cos(Math.PI * v)) / 2 - 0.5)
          lift = leg * g.lift * Math.sin(Math.PI * v)
        }
        const [thigh, shin] = legIk(s, lift - leg - hipsY, z)
        deltas.set(`${S}.upperLeg`, forward(thigh))
        deltas.set(`${S}.lowerLeg`, forward(shin))
        deltas.set(`${S}.foot`, [0, 0, 0, 1])
        // The arm swings against the leg of its side.
        const side = S === 'L' ? 1 : -1
        const swing = -g.armSwing * Math.cos(2 * Math.PI * (phase + offset))
        deltas.set(`${S}.upperArm`, armDelta(side, armDown, 0.12, swing))
        deltas.set(`${S}.lowerArm`, armDelta(side, armDown, 0.12, swing + 0.3 + g.lean))
      }
      const twist = g.twist * Math.sin(2 * Math.PI * phase)
      deltas.set('hips', [0, 0, 0, 1])
      const spine = s.joints.filter((j) => /^spine\d/.test(j.id))
      spine.forEach((j, k) =>
        deltas.set(
          j.id,
          mulQuat(
            axisAngle(X, g.lean * ((k + 1) / spine.length)),
            axisAngle(Y, (twist * (k + 1)) / spine.length),
          ),
        ),
      )
      deltas.set('neck1', axisAngle(X, g.lean * 0.5))
      deltas.set('head', [0, 0, 0, 1])
      return { deltas, hips: [0, hipsY, 0] }
    },
  }
}

function idleMotion(wave: boolean): HumanoidMotion {
  return {
    seconds: 2,
    pose(s, t) {
      const phase = t / 2
      const armDown = s.armDown
      const breath = Math.sin(2 * Math.PI * phase)
      const leg = s.thigh + s.shin
      const deltas = new Map<string, Quat>()
      const hipsY = -leg * (0.015 + (0.01 * (1 - Math.cos(2 * Math.PI * phase))) / 2)
      const [thigh, shin] = legIk(s, -leg - hipsY, 0)
      for (const S of ['L', 'R'] as const) {
        deltas.set(`${S}.upperLeg`, forward(thigh))
        deltas.set(`${S}.lowerLeg`, forward(shin))
        deltas.set(`${S}.foot`, [0, 0, 0, 1])
        const side = S === 'L' ? 1 : -1
        deltas.set(`${S}.upperArm`, armDelta(side, armDown, 0.15 + 0.02 * breath, 0.05))
        deltas.set(`${S}.lowerArm`, armDelta(side, armDown, 0.15 + 0.02 * breath, 0.25))
      }
      if (wave) {
        // The right arm up beside the head, the forearm waving about the body's forward axis.
        deltas.set('R.upperArm', axisAngle(Z, -(Math.PI / 2 - 0.5 + armDown)))
        deltas.set(
          'R.lowerArm',
          axisAngle(Z, -(Math.PI / 2 + armDown) + 0.45 * Math.sin(4 * Math.PI * phase)),
        )
      }
      deltas.set('spine1', axisAngle(X, 0.02 * breath))
      deltas.set('head', axisAngle(Y, wave ? 0.2 : 0.1 * Math.sin(2 * Math.PI * phase)))
      return { deltas, hips: [0, hipsY, 0] }
    },
  }
}

/** The four clips, by name. */
export const HUMANOID_MOTIONS: Readonly<Record<'Walk' | 'Run' | 'Idle' | 'Wave', HumanoidMotion>> = {
  Walk: gaitMotion(WALK),
  Run: gaitMotion(RUN),
  Idle: idleMotion(false),
  Wave: idleMotion(true),
}
