import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { buildSkeleton } from '../../src/gltf/skeleton.ts'
import type { SkinSource } from '../../src/gltf/skeleton.ts'

/** A random forest of n nodes (acyclic: each node's parent comes earlier in a random permutation). */
const forest = fc.integer({ min: 1, max: 14 }).chain((n) =>
  fc
    .tuple(
      fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { minLength: n, maxLength: n }),
    )
    .map(([order, picks]) => {
      const parents = new Array<number>(n).fill(-1)
      order.forEach((node, k) => {
        const pick = Math.floor(picks[k]! * (k + 1)) // k means "no parent"
        parents[node] = pick === k ? -1 : order[pick]!
      })
      return parents
    }),
)

/** A forest plus a skin: some of its nodes in random order. */
const skinCase = forest.chain((parents) =>
  fc
    .shuffledSubarray([...parents.keys()], { minLength: 1 })
    .map((joints) => ({ parents, joints: joints as number[] })),
)

function lineage(parents: readonly number[], node: number): number[] {
  const chain = [node]
  for (let p = parents[node]!; p !== -1; p = parents[p]!) chain.push(p)
  return chain
}

function skin(joints: number[], ibm: number[] | null = null, skeleton = -1): SkinSource {
  return { name: 'test', joints, inverseBindMatrices: ibm, skeleton }
}

describe('buildSkeleton', () => {
  it('orders any skin parent-first, keeps the joint set, and moves inverse bind matrices along', () => {
    fc.assert(
      fc.property(skinCase, ({ parents, joints }) => {
        // Matrix of file joint j is filled with 1000*j + element, so any mix-up shows.
        const ibm = joints.flatMap((_, j) => Array.from({ length: 16 }, (_, e) => 1000 * j + e))
        const s = buildSkeleton(skin(joints, ibm), parents, 'skin')
        const ordered = Array.from(s.joints)
        expect([...ordered].sort((a, b) => a - b)).toEqual([...joints].sort((a, b) => a - b))
        ordered.forEach((node, j) => {
          expect(joints[s.skinJointOrder[j]!]).toBe(node)
          const nearest = lineage(parents, node)
            .slice(1)
            .find((p) => joints.includes(p))
          expect(s.parents[j]).toBe(nearest === undefined ? -1 : ordered.indexOf(nearest))
          expect(s.parents[j]!).toBeLessThan(j)
          for (let e = 0; e < 16; e++)
            expect(s.inverseBindMatrices[16 * j + e]).toBe(1000 * s.skinJointOrder[j]! + e)
        })
        // Siblings (same parent joint) appear in ascending node index.
        for (let j = 0; j < ordered.length; j++) {
          for (let k = j + 1; k < ordered.length; k++) {
            if (s.parents[j] === s.parents[k]) expect(ordered[j]!).toBeLessThan(ordered[k]!)
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('takes the deepest common ancestor-or-self of the joints as root when the skin names none', () => {
    fc.assert(
      fc.property(skinCase, ({ parents, joints }) => {
        const s = buildSkeleton(skin(joints), parents, 'skin')
        // Brute force: nodes that are ancestor-or-self of every joint; the deepest has the longest lineage.
        const common = parents
          .map((_, node) => node)
          .filter((node) => joints.every((j) => lineage(parents, j).includes(node)))
        const deepest = common.sort((a, b) => lineage(parents, b).length - lineage(parents, a).length)[0]
        expect(s.root).toBe(deepest ?? -1)
      }),
      { numRuns: 300 },
    )
  })

  it('fills identity matrices when the skin has no inverse bind matrices', () => {
    const s = buildSkeleton(skin([2, 0]), [-1, 0, 1], 'skin')
    expect(Array.from(s.joints)).toEqual([0, 2])
    expect(Array.from(s.parents)).toEqual([-1, 0])
    expect(Array.from(s.skinJointOrder)).toEqual([1, 0])
    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    expect(Array.from(s.inverseBindMatrices)).toEqual([...identity, ...identity])
    expect(s.root).toBe(0)
  })

  it('returns the named skeleton root when it is an ancestor of every joint', () => {
    expect(buildSkeleton(skin([1, 2], null, 0), [-1, 0, 1], 'skin').root).toBe(0)
  })

  it.each([
    [
      'a joint that is not a node',
      skin([0, 7]),
      [-1, 0],
      'skin: joint 1 is node 7, which does not exist (2 nodes)',
    ],
    ['a repeated joint', skin([1, 0, 1]), [-1, 0], 'skin: joint 2 repeats node 1 (also joint 0)'],
    ['no joints', skin([]), [-1], 'skin: has no joints'],
    ['a cycle', skin([0]), [1, 0], 'skin: node 0 is its own ancestor (the node tree has a cycle)'],
    [
      'too few inverse bind matrices',
      skin([0, 1], new Array(16).fill(0)),
      [-1, 0],
      'skin: has 2 joints but 1 inverse bind matrices',
    ],
    [
      'a non-finite inverse bind matrix',
      skin([0], [...new Array(15).fill(0), NaN]),
      [-1],
      'skin: inverse bind matrix 0 element 15 is NaN',
    ],
    [
      'a skeleton root that is not an ancestor',
      skin([1, 2], null, 2),
      [-1, 0, 0],
      'skin: skeleton root node 2 is not an ancestor of joint node 1',
    ],
  ])('rejects %s', (_, source, parents, message) => {
    let thrown: unknown
    try {
      buildSkeleton(source, parents, 'skin')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(AnimationError)
    expect((thrown as AnimationError).kind).toBe('gltf')
    expect((thrown as AnimationError).message).toBe(message)
  })
})
