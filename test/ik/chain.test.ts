/**
 * The chain job against three.js's CCDIKSolver (examples/jsm/animation/CCDIKSolver.js, three 0.187): the same
 * chain of bones and target, CCD with the same passes, gives the same joint positions (to 1e-9 of the chain's
 * length: three turns by acos and axis-angle, the job by the shortest-arc quaternion of the same two vectors);
 * FABRIK reaches what CCD reaches, and where the target is out of reach it lays the chain straight at it while
 * CCD only comes close. Bone lengths are kept by both.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Bone, Quaternion, Vector3 } from 'three'
import { CCDIKSolver } from 'three/examples/jsm/animation/CCDIKSolver.js'
import {
  CHAIN_CCD,
  CHAIN_FABRIK,
  chainScratchLength,
  createChainJob,
  runChainJob,
  validateChainJob,
  type ChainJob,
} from '../../src/ik/chain.ts'
import { fromQuaternion, mul, type Vec3 } from '../helpers/ozzMath.ts'

/** A chain of bones: `offsets[i]` is bone i's position in its parent, `turns[i]` its local rotation. */
interface ChainSpec {
  offsets: Vec3[]
  turns: [number, number, number, number][]
}

function threeChain(spec: ChainSpec, target: Vec3): { bones: Bone[]; targetBone: Bone } {
  const bones = spec.offsets.map((o, i) => {
    const b = new Bone()
    b.position.set(...o)
    b.quaternion.set(...spec.turns[i]!).normalize()
    return b
  })
  for (let i = 1; i < bones.length; i++) bones[i - 1]!.add(bones[i]!)
  const targetBone = new Bone()
  targetBone.position.set(...target)
  bones[0]!.updateMatrixWorld(true)
  targetBone.updateMatrixWorld(true)
  return { bones, targetBone }
}

function jobFor(bones: Bone[], target: Vec3, method: number, iterations: number): ChainJob {
  const job = createChainJob()
  job.count = bones.length
  job.joints = new Float64Array(16 * bones.length)
  bones.forEach((b, i) => job.joints!.set(b.matrixWorld.elements, 16 * i))
  job.target.set(target)
  job.method = method
  job.iterations = iterations
  job.corrections = new Float64Array(4 * bones.length)
  job.scratch = new Float64Array(chainScratchLength(bones.length))
  return job
}

/** World positions of the chain after the job's corrections, rebuilt from the local transforms. */
function solvedPositions(spec: ChainSpec, job: ChainJob): Vec3[] {
  let world: Float64Array = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
  const out: Vec3[] = []
  spec.offsets.forEach((o, i) => {
    const q = new Quaternion(...spec.turns[i]!).normalize()
    const c = job.corrections!.subarray(4 * i, 4 * i + 4)
    q.multiply(new Quaternion(c[0], c[1], c[2], c[3]))
    const local = fromQuaternion([q.x, q.y, q.z, q.w])
    local.set(o, 12)
    world = mul(world, local)
    out.push([world[12]!, world[13]!, world[14]!])
  })
  return out
}

const dist = (a: Vec3, b: Vec3): number => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2])
const lengths = (p: Vec3[]): number[] => p.slice(1).map((q, i) => dist(q, p[i]!))

const spec: ChainSpec = {
  offsets: [
    [0, 0, 0],
    [0, 1, 0],
    [0, 0.8, 0],
    [0, 0.6, 0],
    [0, 0.4, 0],
  ],
  turns: [
    [0, 0, 0.1, 1],
    [0.1, 0, 0.2, 1],
    [0, 0.1, 0.15, 1],
    [0.05, 0, 0.1, 1],
    [0, 0, 0, 1],
  ],
}

function runThree(target: Vec3, iterations: number): Vec3[] {
  const { bones, targetBone } = threeChain(spec, target)
  const all = [...bones, targetBone]
  const n = bones.length
  const links = Array.from({ length: n - 1 }, (_, k) => ({ index: n - 2 - k }))
  new CCDIKSolver({ skeleton: { bones: all } } as never, [
    { target: n, effector: n - 1, links, iteration: iterations },
  ]).update()
  return bones.map((b) => {
    const p = new Vector3().setFromMatrixPosition(b.matrixWorld)
    return [p.x, p.y, p.z] as Vec3
  })
}

function runOurs(target: Vec3, method: number, iterations: number): { positions: Vec3[]; job: ChainJob } {
  const { bones } = threeChain(spec, target)
  const job = jobFor(bones, target, method, iterations)
  expect(runChainJob(job)).toBe(true)
  return { positions: solvedPositions(spec, job), job }
}

const before = lengths(
  threeChain(spec, [0, 0, 0]).bones.map((b) => {
    const p = new Vector3().setFromMatrixPosition(b.matrixWorld)
    return [p.x, p.y, p.z] as Vec3
  }),
)
const total = before.reduce((a, b) => a + b, 0)

describe('chain job vs three.js CCDIKSolver', () => {
  it('CCD: the same joint positions as three, pass for pass, reachable or not', () => {
    for (const target of [
      [1.2, 1.5, 0.3],
      [-1, 0.5, 1],
      [0.5, -1, 0.2],
      [4, 3, 0],
    ] as Vec3[]) {
      for (const iterations of [1, 3, 10]) {
        const three = runThree(target, iterations)
        const ours = runOurs(target, CHAIN_CCD, iterations).positions
        for (let i = 0; i < three.length; i++) expect(dist(ours[i]!, three[i]!)).toBeLessThan(1e-9 * total)
      }
    }
  })

  it('reach: FABRIK and CCD both reach a reachable target; bone lengths kept by all three', () => {
    const target: Vec3 = [1.2, 1.5, 0.3]
    const three = runThree(target, 40)
    const ccd = runOurs(target, CHAIN_CCD, 40).positions
    const fabrik = runOurs(target, CHAIN_FABRIK, 40).positions
    for (const p of [three, ccd, fabrik]) {
      expect(dist(p[p.length - 1]!, target)).toBeLessThan(1e-4 * total)
      lengths(p).forEach((l, i) => expect(Math.abs(l - before[i]!) / before[i]!).toBeLessThan(1e-6))
    }
  })

  it('out of reach: FABRIK lies straight along the line to the target; CCD (ours and three) only near it', () => {
    const target: Vec3 = [4, 3, 0]
    const fabrik = runOurs(target, CHAIN_FABRIK, 10).positions
    const three = runThree(target, 10)
    const miss = dist([0, 0, 0], target) - total
    expect(dist(fabrik[fabrik.length - 1]!, target)).toBeCloseTo(miss, 9)
    // Every joint on the root-to-target line.
    for (const p of fabrik) {
      const along = (p[0] * 4 + p[1] * 3) / 5
      expect(Math.hypot(p[0] - (along * 4) / 5, p[1] - (along * 3) / 5, p[2])).toBeLessThan(1e-9)
    }
    // three's CCD (which ours matches) ends short of full extension: where the two methods differ.
    expect(dist(three[three.length - 1]!, target)).toBeGreaterThan(miss)
  })

  it('bone lengths stay the same for any target and either method (1e-6 relative)', () => {
    fc.assert(
      fc.property(
        fc.tuple(
          fc.double({ min: -4, max: 4, noNaN: true }),
          fc.double({ min: -4, max: 4, noNaN: true }),
          fc.double({ min: -4, max: 4, noNaN: true }),
        ),
        fc.constantFrom(CHAIN_FABRIK, CHAIN_CCD),
        fc.integer({ min: 1, max: 20 }),
        (target, method, iterations) => {
          const p = runOurs(target as Vec3, method, iterations).positions
          lengths(p).forEach((l, i) => expect(Math.abs(l - before[i]!) / before[i]!).toBeLessThan(1e-6))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('validates: chain of ≥ 2, arrays large enough, a known method, ≥ 1 pass, tolerance ≥ 0', () => {
    const { bones } = threeChain(spec, [1, 1, 0])
    const ok = (): ChainJob => jobFor(bones, [1, 1, 0], CHAIN_FABRIK, 5)
    expect(validateChainJob(ok())).toBe(true)
    expect(validateChainJob(createChainJob())).toBe(false)
    for (const bad of [
      { count: 1 },
      { count: 6 },
      { method: 2 },
      { iterations: 0 },
      { iterations: 1.5 },
      { tolerance: -1 },
      { tolerance: NaN },
      { scratch: new Float64Array(10) },
      { corrections: new Float64Array(4) },
    ]) {
      const job = Object.assign(ok(), bad)
      expect(validateChainJob(job), JSON.stringify(bad)).toBe(false)
      expect(runChainJob(job)).toBe(false)
    }
  })
})
