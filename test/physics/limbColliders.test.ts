/**
 * A partial ragdoll's limb against the animated rest of its body (src/physics/limbColliders.ts): an arm knocked
 * across the body stays out of the animated torso and legs, where without the colliders it passes into them; a
 * limb that overlaps the body at rest is not thrown off it; a whole-body ragdoll has no colliders.
 *
 * The independent side: penetration measured here from the ragdoll's sphere shapes and capsules rebuilt from the
 * scene graph's world matrices of the character's animated joints (the ragdoll's own scratch is not read).
 */
import { execFileSync } from 'node:child_process'
import { Sphere, Vec3 } from 'cannon-es'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { contextOf } from '../../entry/plugin.ts'
import { isClipEvent } from '../../systems/state.ts'
import { largestGap, restoreAndStep, twinScene, type TwinScene } from '../helpers/ragdollLimits.ts'
import { HANG_MS } from '../helpers/hang.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'
import { ALLOCATION_NODE_FLAGS } from '../helpers/heapWindows.ts'

let robot: AnimationAsset
let fox: AnimationAsset

beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

/** Segment and radius of each description body that is animated (not in the ragdoll), from the scene graph. */
function animatedCapsules(s: TwinScene): { a: number[]; b: number[]; r: number; body: number }[] {
  const ctx = contextOf(s.p)
  const rt = ctx.ragdolls[s.c]!
  const kept = new Set(rt.bodies.map((b) => b.node))
  const out: { a: number[]; b: number[]; r: number; body: number }[] = []
  rt.description.forEach((spec, d) => {
    if (kept.has(spec.node)) return
    const m = s.p.sceneGraph.store.world.subarray(
      s.p.jointEntity(s.c, spec.node) * 16,
      s.p.jointEntity(s.c, spec.node) * 16 + 16,
    )
    const scale = Math.hypot(m[0]!, m[1]!, m[2]!)
    // The bone's direction: the joint's matrix applied to its axis (uniform scale).
    const dir = [0, 1, 2].map(
      (k) => (m[k]! * spec.axis[0] + m[4 + k]! * spec.axis[1] + m[8 + k]! * spec.axis[2]) / scale,
    )
    const length = spec.length * scale
    const r = spec.radius * scale
    const end = Math.max(0, length / 2 - r)
    const mid = [0, 1, 2].map((k) => m[12 + k]! + dir[k]! * length * 0.5)
    out.push({ a: mid.map((x, k) => x - dir[k]! * end), b: mid.map((x, k) => x + dir[k]! * end), r, body: d })
  })
  return out
}

/** Deepest penetration (world units) of the ragdoll's spheres into the animated capsules each body may touch. */
function penetration(s: TwinScene, skip: (body: number, capsule: number) => boolean): number {
  const rt = contextOf(s.p).ragdolls[s.c]!
  const r = ragdollInstance(rt.instance)!
  // Less what the animation itself overlaps this step (the colliders' allowance, by ragdoll and animated body).
  const kept = new Set(rt.bodies.map((b) => b.node))
  const animated = rt.description.flatMap((spec, d) => (kept.has(spec.node) ? [] : [d]))
  const allow = (b: number, d: number) => r.colliders!.allowance[b * animated.length + animated.indexOf(d)]!
  let worst = 0
  const at = new Vec3()
  for (const cap of animatedCapsules(s)) {
    for (const [b, body] of r.bodies.entries()) {
      if (skip(b, cap.body)) continue
      body.shapes.forEach((shape, i) => {
        if (!(shape instanceof Sphere)) return
        body.quaternion.vmult(body.shapeOffsets[i]!, at)
        at.vadd(body.position, at)
        const p = [at.x, at.y, at.z]
        const e = cap.b.map((x, k) => x - cap.a[k]!)
        const e2 = e[0]! ** 2 + e[1]! ** 2 + e[2]! ** 2
        const t =
          e2 > 0
            ? Math.min(1, Math.max(0, e.reduce((sum, x, k) => sum + x * (p[k]! - cap.a[k]!), 0) / e2))
            : 0
        const d = Math.hypot(...p.map((x, k) => x - cap.a[k]! - e[k]! * t))
        worst = Math.max(worst, shape.radius + cap.r - d - allow(b, cap.body))
      })
    }
  }
  return worst
}

/**
 * The pairs the colliders leave alone, by ragdoll body and description body: the body each hangs from and those
 * overlapping in the rest pose (read from the colliders' own table).
 */
function ignored(s: TwinScene): (body: number, capsule: number) => boolean {
  const rt = contextOf(s.p).ragdolls[s.c]!
  const c = ragdollInstance(rt.instance)!.colliders!
  const kept = new Set(rt.bodies.map((b) => b.node))
  const animated = rt.description.flatMap((spec, d) => (kept.has(spec.node) ? [] : [d]))
  return (body, capsule) => {
    const k = animated.indexOf(capsule)
    return ((c.ignore[body * c.words + (k >> 5)]! >>> (k & 31)) & 1) !== 0
  }
}

/** The robot's left arm limp and knocked across its body; the deepest penetration over `steps` steps. */
function knockArmAcross(
  colliders: boolean,
  steps = 60,
): { s: TwinScene; worst: number; gap: number; resting: number } {
  const s = twinScene(robot, 0.4, 'Idle')
  s.p.ragdoll(s.c, { root: 'UpperArm.L', impulse: { joint: 'Palm1.L', impulse: [-1.5, 0, 0.6] } })
  s.p.step()
  const rt = contextOf(s.p).ragdolls[s.c]!
  s.p.step()
  const r = ragdollInstance(rt.instance)!
  if (!colliders) r.colliders = { ...r.colliders!, joint: new Int32Array(0) }
  const skip = ignored(s)
  let worst = 0
  let gap = 0
  for (let k = 0; k < steps; k++) {
    s.p.step()
    worst = Math.max(worst, penetration(s, skip))
    gap = Math.max(gap, largestGap(s.p, s.c))
  }
  // Then the arm hangs against the body: its joints as at rest.
  for (let k = 0; k < 60; k++) s.p.step()
  return { s, worst, gap, resting: largestGap(s.p, s.c) }
}

describe('limb colliders', () => {
  it('an arm knocked across the body stays out of the animated torso and legs', () => {
    const off = knockArmAcross(false)
    const on = knockArmAcross(true)
    const size = on.s.size
    // Without the colliders the arm goes into the body (the scenario reaches it) …
    expect(off.worst / size, 'penetration without colliders, in sizes').toBeGreaterThan(0.03)
    // … with them it stays out, within what the joint projection after the push may take back (1 cm per 1.8 m).
    expect(on.worst / size, 'penetration with colliders, in sizes').toBeLessThan(0.01 / 1.8)
    // A push opens the limb's joints by what it moved (the joint projection ran before it): within the limits,
    // 3 cm per 1.8 m of character while it moves, 1 cm at rest.
    expect(on.gap / size, 'joint gaps stay within the limit').toBeLessThan(0.03 / 1.8)
    expect(on.resting / size, 'joint gaps at rest').toBeLessThan(0.01 / 1.8)
    expect(on.s.p.events.filter((e) => !isClipEvent(e))).toEqual([])
  })

  it('a limb overlapping the body at rest is not thrown off it: the Fox’s neck, limp, stays near its pose', () => {
    const s = twinScene(fox, 0.01, 'Survey')
    s.p.ragdoll(s.c, { root: 'b_Neck_04' })
    const r = () => ragdollInstance(contextOf(s.p).ragdolls[s.c]!.instance)
    s.p.step()
    let fastest = 0
    for (let k = 0; k < 60; k++) {
      s.p.step()
      for (const b of r()!.bodies) fastest = Math.max(fastest, b.velocity.length() / s.size)
    }
    // A neck falling limp under gravity moves a few sizes per second at most; thrown off, it would be far more.
    expect(fastest, 'fastest body, sizes per second').toBeLessThan(5)
    expect(largestGap(s.p, s.c) / s.size).toBeLessThan(0.03 / 1.8)
  })

  it('derives its colliders again after a restore: the same bits', () => {
    const { s } = knockArmAcross(true, 5)
    const run = restoreAndStep(s.p, [robot], 40)
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
  })

  it('a whole-body ragdoll has none', () => {
    const s = twinScene(robot, 0.4, 'Idle')
    s.p.ragdoll(s.c)
    for (let k = 0; k < 5; k++) s.p.step()
    expect(ragdollInstance(contextOf(s.p).ragdolls[s.c]!.instance)!.colliders).toBeNull()
  })
})

describe('limb pushes: memory', () => {
  it('the ragdoll layer of a mix of ten ragdolls, partial ones included, allocates next to nothing a step', () => {
    const out = execFileSync(
      process.execPath,
      [...ALLOCATION_NODE_FLAGS, '--import', 'tsx', 'test/helpers/ragdollMixAllocation.ts'],
      { encoding: 'utf8', timeout: HANG_MS },
    )
    const { bytesPerStep, windows } = JSON.parse(out) as { bytesPerStep: number; windows: unknown[] }
    // What remains is not the ragdolls': clip events' records and the boxed dt of the call into cannon-es
    // (~200 B). The limb pushes' segment distance once boxed its doubles: 558 B a step.
    expect(bytesPerStep, `windows ${JSON.stringify(windows)}`).toBeLessThan(350)
  })
})
