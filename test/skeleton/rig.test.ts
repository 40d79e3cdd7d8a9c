import { describe, expect, it } from 'vitest'
import { buildRig, findJoint, MAX_RIG_JOINTS } from '../../src/skeleton/rig.ts'
import type { AnimationAsset, AssetNode, Skeleton } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { cpuMs } from '../helpers/cpuTime.ts'

/** An asset of bare nodes: `children[i]` lists node i's children; `roots` the scene roots. */
function asset(
  children: number[][],
  roots: number[],
  names?: string[],
  skinJoints: number[] = [],
): AnimationAsset {
  const parent = new Array<number>(children.length).fill(-1)
  children.forEach((cs, i) => cs.forEach((c) => (parent[c] = i)))
  const nodes: AssetNode[] = children.map((cs, i) => ({
    index: i,
    name: names?.[i] ?? `node${i}`,
    parent: parent[i] ?? -1,
    children: cs,
    translation: [i, 0, 0],
    rotation: [0, 0, 0, 1],
    scale: [1, 1, 1],
    weights: [],
    skin: -1,
    mesh: -1,
  }))
  const skeletons: Skeleton[] = skinJoints.length
    ? [
        {
          name: 'skin',
          joints: Int32Array.from(skinJoints),
          parents: new Int32Array(skinJoints.length).fill(-1),
          inverseBindMatrices: new Float32Array(16 * skinJoints.length),
          skinJointOrder: Int32Array.from(skinJoints.map((_, i) => i)),
          root: skinJoints[0]!,
        },
      ]
    : []
  return { source: 'test-asset', nodes, roots, skeletons, clips: [] }
}

/** The order a recursive depth-first walk gives (the reference for the iterative one). */
function recursiveOrder(children: number[][], roots: number[]): number[] {
  const out: number[] = []
  const visit = (n: number): void => {
    out.push(n)
    for (const c of children[n]!) visit(c)
  }
  for (const r of roots) visit(r)
  return out
}

describe('buildRig', () => {
  it('orders joints parents first, depth-first in file order, like a recursive walk', () => {
    const children = [[3, 1], [2], [], [], [5], []]
    const roots = [4, 0]
    const rig = buildRig(asset(children, roots))
    expect(Array.from(rig.jointNodes)).toEqual(recursiveOrder(children, roots))
    for (let j = 0; j < rig.jointNodes.length; j++) {
      const p = rig.jointParents[j]!
      expect(p).toBeLessThan(j)
      if (p >= 0) expect(children[rig.jointNodes[p]!]).toContain(rig.jointNodes[j])
      expect(rig.nodeJoint[rig.jointNodes[j]!]).toBe(j)
      expect(rig.rest[j * 10]).toBe(rig.jointNodes[j])
    }
  })

  it('walks a 60,000-node chain without recursion, in linear time', () => {
    const n = 60_000
    const children = Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : []))
    // Linear: tens of ms of CPU; a walk over each node's ancestors, 1.8e9 steps.
    const { ms, value: rig } = cpuMs(() => buildRig(asset(children, [0])))
    expect(ms).toBeLessThan(2000)
    expect(rig.jointParents[n - 1]).toBe(n - 2)
  })

  it('names an out-of-range root or child as out of range, and a node reachable twice as such', () => {
    expect(() => buildRig(asset([[], [], []], [99]))).toThrow(
      'test-asset: scene root 0 names node 99, out of range (3 nodes)',
    )
    expect(() => buildRig(asset([[7], []], [0]))).toThrow(
      "node 0's child 0 names node 7, out of range (2 nodes)",
    )
    expect(() => buildRig(asset([[1], []], [0, 1]))).toThrow('node 1 is reachable twice in the scene tree')
    expect(() => buildRig(asset([], []))).toThrow('the scene has no nodes')
  })

  it(`refuses more than ${MAX_RIG_JOINTS} joints with a capacity error`, () => {
    const n = MAX_RIG_JOINTS + 1
    const children = Array.from({ length: n }, () => [] as number[])
    const err = (() => {
      try {
        buildRig(
          asset(
            children,
            children.map((_, i) => i),
          ),
        )
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(AnimationError)
    expect((err as AnimationError).kind).toBe('capacity')
  })
})

describe('findJoint', () => {
  // 0 Armature ─ 1 Head (bone) ─ 2 Hand;  3 Head (mesh);  4 Torso (bone), 5 Torso (bone): ambiguous
  const children = [[1, 4, 5], [2], [], [], [], []]
  const names = ['Armature', 'Head', 'Hand', 'Head', 'Torso', 'Torso']
  const a = asset(children, [0, 3], names, [1, 2, 4, 5])
  const rig = buildRig(a)

  it('finds by index and by a unique name', () => {
    expect(findJoint(rig, a, 2, 'q')).toBe(rig.nodeJoint[2])
    expect(findJoint(rig, a, 'Hand', 'q')).toBe(rig.nodeJoint[2])
  })

  it('prefers the skin joint when a bone and a mesh share a name', () => {
    expect(findJoint(rig, a, 'Head', 'q')).toBe(rig.nodeJoint[1])
  })

  it('throws with the candidates when the name is still ambiguous', () => {
    expect(() => findJoint(rig, a, 'Torso', 'jointEntity(7)')).toThrow(
      'jointEntity(7): test-asset has 2 scene nodes named "Torso" (nodes 4, 5, joints of a skin: 4, 5); pass the node index',
    )
  })

  it('throws for unknown names, bad indices and values of other types', () => {
    for (const bad of ['Tail', -1, 6, 1.5, NaN, null, {}, Symbol('x')] as unknown[]) {
      expect(() => findJoint(rig, a, bad as string, 'q'), String(bad)).toThrow(AnimationError)
    }
  })
})
