/**
 * The clean forms of src/skeleton/sceneNodes.ts: propagateWorldMatrices against gl-matrix's products down a
 * random forest (its refusals and ranges too). applyPoseToSceneGraph's cases are test/systems/blendPoses.test.ts's;
 * test/engine/ holds the fast forms to these bit for bit.
 */
import fc from 'fast-check'
import { mat4 } from 'gl-matrix'
import { describe, expect, it } from 'vitest'
import { createSceneNodeStore } from '../../components/SceneNode.ts'
import { propagateWorldMatrices } from '../../src/skeleton/sceneNodes.ts'
import { unitQuatArb } from '../helpers/quat.ts'

const coord = fc.double({ min: -10, max: 10, noNaN: true }).map(Math.fround)
const size = fc.double({ min: 0.5, max: 2, noNaN: true }).map(Math.fround)
const local = fc.tuple(fc.tuple(coord, coord, coord), unitQuatArb(), fc.tuple(size, size, size))
/** Node i (1-based) hangs under an earlier node or is a root (0); in that order, parents come first. */
const forest = fc.array(fc.tuple(fc.nat(), local), { minLength: 1, maxLength: 12 })

describe('propagateWorldMatrices', () => {
  it('is parentWorld · T·R·S down the forest, as gl-matrix multiplies them, to float32 rounding', () => {
    fc.assert(
      fc.property(forest, (nodes) => {
        const n = nodes.length
        const store = createSceneNodeStore(n + 1)
        const parents = nodes.map(([k], i) => (k % 3 === 0 ? 0 : k % (i + 1) || 0))
        nodes.forEach(([, [t, q, s]], i) => {
          const e = i + 1
          store.translation.set(t, 3 * e)
          store.rotation.set(q, 4 * e)
          store.scale.set(s, 3 * e)
          store.parent[e] = parents[i]!
          store.dirty[e] = 1
        })
        const order = Int32Array.from({ length: n }, (_, i) => i + 1)
        const refused = new Int32Array(1)
        // Two ranges, the second starting where the first ends (the workers' split).
        const mid = n >> 1
        const recomputed =
          propagateWorldMatrices(store, order, 0, mid, new Uint8Array(n + 1), new Int32Array(4), refused) +
          propagateWorldMatrices(store, order, mid, n, new Uint8Array(n + 1), new Int32Array(4), refused)
        expect(recomputed).toBe(n)
        expect(refused[0]).toBe(0)
        const worlds: mat4[] = []
        for (let i = 0; i < n; i++) {
          const [t, q, s] = nodes[i]![1]
          const m = mat4.fromRotationTranslationScale(mat4.create(), q, t, s)
          worlds[i] = parents[i] === 0 ? m : mat4.multiply(mat4.create(), worlds[parents[i]! - 1]!, m)
          for (let k = 0; k < 16; k++) {
            const want = k % 4 === 3 ? 0 : worlds[i]![k]!
            const got = store.world[16 * (i + 1) + k]!
            expect(Math.abs(got - want), `node ${i + 1}, ${k}`).toBeLessThan(
              1e-5 * Math.max(1, Math.abs(want)) * 4096,
            )
          }
          expect([store.dirty[i + 1], store.changed[i + 1]]).toEqual([0, 1])
        }
      }),
    )
  })

  it('refuses a product past float32: the node keeps its matrix, is kept and listed, its subtree untouched', () => {
    const store = createSceneNodeStore(4)
    for (const e of [1, 2, 3]) {
      store.rotation[4 * e + 3] = 1
      store.scale.fill(1e30, 3 * e, 3 * e + 3)
      store.parent[e] = e - 1
      store.dirty[e] = 1
    }
    store.dirty[3] = 0
    store.world.fill(5, 32, 48)
    const kept = new Uint8Array(4)
    const list = new Int32Array(1)
    const refused = Int32Array.of(2)
    expect(propagateWorldMatrices(store, Int32Array.of(1, 2, 3), 0, 3, kept, list, refused)).toBe(1)
    expect(Array.from(refused)).toEqual([3])
    // The list holds one; the count went on from 2, so node 2 was not listed.
    expect(Array.from(list)).toEqual([0])
    expect(Array.from(kept)).toEqual([0, 0, 1, 0])
    expect(Array.from(store.world.subarray(32, 48))).toEqual(new Array(16).fill(5))
    expect([store.changed[2], store.changed[3], store.dirty[2]]).toEqual([0, 0, 0])
  })
})
