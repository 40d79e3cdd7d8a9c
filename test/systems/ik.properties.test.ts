/**
 * Properties of the IK solvers on a humanoid (test/helpers/ikRig.ts), with fast-check: bone lengths never change
 * (1e-6 relative); weight 0 is bit-identical to no IK; a reachable target is reached to 1e-4 of the rig's height;
 * an unreachable one is pointed at, the chain fully extended; a knee swept through full extension stays on its
 * pole's side; aim limits hold.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Vector3 } from 'three'
import type { IKOptions } from '../../entry/plugin.ts'
import { HUMANOID_HEIGHT, ikScene, positionOf, storedWorlds, worldOf } from '../helpers/ikRig.ts'

const TOL = 1e-4 * HUMANOID_HEIGHT
const ARM = ['upperArm.L', 'forearm.L', 'hand.L'] as const
const v3 = (p: Vector3): [number, number, number] => [p.x, p.y, p.z]

/** A direction from three numbers (not near zero). */
const direction = fc
  .tuple(
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
  )
  .filter(([x, y, z]) => Math.hypot(x, y, z) > 0.2)
  .map(([x, y, z]) => new Vector3(x, y, z).normalize())

function lengths(
  plugin: ReturnType<typeof ikScene>['plugin'],
  c: number,
  joints: readonly string[],
): number[] {
  const p = joints.map((j) => positionOf(plugin, c, j))
  return p.slice(1).map((q, i) => q.distanceTo(p[i]!))
}

describe('two-bone IK properties', () => {
  it('a reachable target is reached to 1e-4 of the rig height; bone lengths kept to 1e-6', () => {
    const { plugin, a } = ikScene()
    plugin.step()
    const before = lengths(plugin, a, ARM)
    const reach = before[0]! + before[1]!
    fc.assert(
      fc.property(direction, fc.double({ min: 0.3, max: 0.95, noNaN: true }), (dir, share) => {
        const shoulder = positionOf(plugin, a, 'upperArm.L')
        const target = shoulder.clone().addScaledVector(dir, share * reach)
        plugin.setIK(a, 'hand', { kind: 'two-bone', joint: 'hand.L', target: v3(target) })
        plugin.step()
        expect(positionOf(plugin, a, 'hand.L').distanceTo(target)).toBeLessThan(TOL)
        lengths(plugin, a, ARM).forEach((l, i) =>
          expect(Math.abs(l - before[i]!) / before[i]!).toBeLessThan(1e-6),
        )
      }),
      { numRuns: 60 },
    )
  })

  it('an unreachable target is pointed at, the chain fully extended', () => {
    const { plugin, a } = ikScene()
    plugin.step()
    const [l1, l2] = lengths(plugin, a, ARM) as [number, number]
    fc.assert(
      fc.property(direction, fc.double({ min: 1.05, max: 4, noNaN: true }), (dir, share) => {
        const shoulder = positionOf(plugin, a, 'upperArm.L')
        const target = shoulder.clone().addScaledVector(dir, share * (l1 + l2))
        plugin.setIK(a, 'hand', { kind: 'two-bone', joint: 'hand.L', target: v3(target) })
        plugin.step()
        const hand = positionOf(plugin, a, 'hand.L')
        const s = positionOf(plugin, a, 'upperArm.L')
        expect(hand.distanceTo(s)).toBeCloseTo(l1 + l2, 4)
        // On the line from the shoulder to the target.
        const along = target.clone().sub(s).normalize()
        const off = hand.clone().sub(s)
        expect(off.sub(along.multiplyScalar(off.dot(along))).length()).toBeLessThan(TOL)
      }),
      { numRuns: 40 },
    )
  })

  it.each([
    ['bent', 0.05],
    ['straight', 0.55],
  ])(
    'no knee flip through full extension, the animated knee %s: the knee stays on the pole side',
    (_, time) => {
      const { plugin, a } = ikScene({ time })
      plugin.pause(a)
      plugin.step()
      const hip = positionOf(plugin, a, 'thigh.L')
      const [l1, l2] = lengths(plugin, a, ['thigh.L', 'shin.L', 'foot.L']) as [number, number]
      // With no pole, the side the animation bends the knee to (forward, +z, where it is straight).
      const animatedKnee = positionOf(plugin, a, 'shin.L').sub(hip)
      const animatedSide = time < 0.5 ? animatedKnee : new Vector3(0, 0, 1)
      for (const pole of [
        [hip.x, hip.y - 0.5, hip.z + 2],
        [hip.x + 2, hip.y - 0.5, hip.z],
        [hip.x, hip.y - 0.5, hip.z - 2],
        null,
      ] as ([number, number, number] | null)[]) {
        let bent = 0
        // Down and forward through full extension, out to 130 %, and back.
        const shares = [
          ...Array.from({ length: 40 }, (_, k) => 0.6 + k * 0.018),
          ...Array.from({ length: 40 }, (_, k) => 1.3 - k * 0.018),
        ]
        for (const share of shares) {
          const target = hip
            .clone()
            .add(new Vector3(0.05, -1, 0.1).normalize().multiplyScalar(share * (l1 + l2)))
          plugin.setIK(a, 'leg', {
            kind: 'two-bone',
            joint: 'foot.L',
            target: v3(target),
            ...(pole ? { pole } : {}),
          })
          plugin.step()
          const h = positionOf(plugin, a, 'thigh.L')
          const knee = positionOf(plugin, a, 'shin.L')
          const foot = positionOf(plugin, a, 'foot.L')
          const line = foot.clone().sub(h).normalize()
          const offset = knee.clone().sub(h)
          offset.sub(line.clone().multiplyScalar(offset.dot(line)))
          if (offset.length() < 1e-5) continue
          bent++
          const side = pole ? new Vector3(...pole).sub(h) : animatedSide.clone()
          side.sub(line.clone().multiplyScalar(side.dot(line)))
          expect(offset.dot(side), `pole ${pole}, share ${share}`).toBeGreaterThan(0)
        }
        expect(bent).toBeGreaterThan(40)
      }
    },
  )
})

describe('every solver', () => {
  it('weight 0 is bit-identical (world matrices) to no IK, step after step', () => {
    const plain = ikScene()
    const zero = ikScene()
    const solvers: IKOptions[] = [
      { kind: 'two-bone', joint: 'hand.L', target: [0.4, 1.4, 0.3], weight: 0 },
      {
        kind: 'aim',
        joint: 'head',
        axis: [0, 0, 1],
        target: [1, 2, 3],
        weight: 0,
        chain: [{ joint: 'neck', weight: 0.5 }],
      },
      { kind: 'chain', joints: ['upperArm.R', 'forearm.R', 'hand.R'], target: [-0.4, 1.2, 0.2], weight: 0 },
      { kind: 'feet', left: 'foot.L', right: 'foot.R', ground: (x, z) => 0.1 + 0.2 * z + x, weight: 0 },
    ]
    solvers.forEach((o, k) => {
      zero.plugin.setIK(zero.a, `s${k}`, o)
      zero.plugin.setIK(zero.b, `s${k}`, o)
    })
    for (let i = 0; i < 20; i++) {
      plain.plugin.step()
      zero.plugin.step()
      expect(storedWorlds(zero.plugin)).toEqual(storedWorlds(plain.plugin))
    }
    // And the same solvers at weight 1 change it.
    solvers.forEach((o, k) => zero.plugin.setIK(zero.a, `s${k}`, { ...o, weight: 1 }))
    zero.plugin.step()
    plain.plugin.step()
    expect(storedWorlds(zero.plugin)).not.toEqual(storedWorlds(plain.plugin))
  })
})

describe('aim properties', () => {
  /** Yaw (about world +y) and pitch (elevation) of a direction, radians. */
  const yawPitch = (d: Vector3): [number, number] => [
    Math.atan2(d.x, d.z),
    Math.atan2(d.y, Math.hypot(d.x, d.z)),
  ]
  const forward = (plugin: ReturnType<typeof ikScene>['plugin'], c: number): Vector3 =>
    new Vector3(0, 0, 1).transformDirection(worldOf(plugin, plugin.jointEntity(c, 'head')))

  it('the aim direction stays within the yaw and pitch limits of the animated one, and reaches targets inside', () => {
    const plain = ikScene()
    const aimed = ikScene()
    fc.assert(
      fc.property(
        direction,
        fc.double({ min: 0.5, max: 5, noNaN: true }),
        fc.double({ min: 0.05, max: 1.5, noNaN: true }),
        fc.double({ min: 0.05, max: 1.2, noNaN: true }),
        (dir, distance, yaw, pitch) => {
          const head = positionOf(aimed.plugin, aimed.a, 'head')
          const target = head.clone().addScaledVector(dir, distance)
          aimed.plugin.setIK(aimed.a, 'look', {
            kind: 'aim',
            joint: 'head',
            axis: [0, 0, 1],
            up: [0, 1, 0],
            target: v3(target),
            limits: { yaw, pitch },
          })
          plain.plugin.step()
          aimed.plugin.step()
          const [y0, p0] = yawPitch(forward(plain.plugin, plain.a))
          const got = forward(aimed.plugin, aimed.a)
          const [y1, p1] = yawPitch(got)
          const dyaw = Math.abs(((y1 - y0 + 3 * Math.PI) % (2 * Math.PI)) - Math.PI)
          expect(dyaw).toBeLessThan(yaw + 1e-4)
          expect(Math.abs(p1 - p0)).toBeLessThan(pitch + 1e-4)
          // A target within the limits is aimed at exactly.
          const want = target
            .clone()
            .sub(positionOf(aimed.plugin, aimed.a, 'head'))
            .normalize()
          const [yt, pt] = yawPitch(want)
          const inside =
            Math.abs(((yt - y0 + 3 * Math.PI) % (2 * Math.PI)) - Math.PI) < yaw - 1e-3 &&
            Math.abs(pt - p0) < pitch - 1e-3
          if (inside && Math.abs(want.y) < 0.99) expect(got.angleTo(want)).toBeLessThan(1e-4)
        },
      ),
      { numRuns: 60 },
    )
  })
})
