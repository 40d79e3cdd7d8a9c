import fc from 'fast-check'
import { Matrix4, Quaternion, Vector3 } from 'three'
import { describe, expect, it } from 'vitest'
import { blendComposed, createWorldSync, decompose } from '../../adapters/worldSync.ts'

/** A SceneNode-shaped store of `n` nodes with identity-free worlds we set by hand (three composes them). */
function store(n: number) {
  return { changed: new Uint8Array(n), world: new Float32Array(16 * n) }
}

function setWorld(s: ReturnType<typeof store>, e: number, t: number[], q: Quaternion, scale: number[]): void {
  const m = new Matrix4().compose(new Vector3(...t), q, new Vector3(...scale))
  s.world.set(m.elements, 16 * e)
  s.changed[e] = 1
}

const unitQuat = fc
  .tuple(
    fc.double({ min: -1, max: 1 }),
    fc.double({ min: -1, max: 1 }),
    fc.double({ min: -1, max: 1 }),
    fc.double({ min: -1, max: 1 }),
  )
  .filter(([x, y, z, w]) => x * x + y * y + z * z + w * w > 0.01)
  .map(([x, y, z, w]) => new Quaternion(x, y, z, w).normalize())
const coord = fc.double({ min: -50, max: 50, noNaN: true })
const scale = fc.double({ min: 0.01, max: 10, noNaN: true })

describe('worldSync kernels', () => {
  it('decompose recovers T, R (up to sign), S of any matrix three composes, mirrored ones included', () => {
    fc.assert(
      fc.property(
        fc.tuple(coord, coord, coord),
        unitQuat,
        fc.tuple(scale, scale, scale),
        fc.boolean(),
        (t, q, s, mirror) => {
          const sx = mirror ? -s[0] : s[0]
          const m = new Float32Array(
            new Matrix4().compose(new Vector3(...t), q, new Vector3(sx, s[1], s[2])).elements,
          )
          const out = new Float64Array(10)
          decompose(out, 0, m, 0)
          // Rebuild with three and compare matrices: the decomposition is only defined up to q ~ -q.
          const back = new Matrix4().compose(
            new Vector3(out[0], out[1], out[2]),
            new Quaternion(out[3], out[4], out[5], out[6]),
            new Vector3(out[7], out[8], out[9]),
          )
          back.elements.forEach((x, k) =>
            expect(Math.abs(x - m[k]!)).toBeLessThan(1e-4 * Math.max(1, Math.abs(m[k]!))),
          )
          expect(Math.hypot(out[3]!, out[4]!, out[5]!, out[6]!)).toBeCloseTo(1, 12)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('blendComposed: a = 0 and 1 give the ends; the middle lerps T and S and halves the turn', () => {
    const trs = new Float64Array(20)
    const p = new Float32Array(
      new Matrix4().compose(new Vector3(1, 2, 3), new Quaternion(), new Vector3(1, 1, 1)).elements,
    )
    const turn = new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), 0.6)
    const c = new Float32Array(
      new Matrix4().compose(new Vector3(3, 2, 1), turn, new Vector3(2, 2, 2)).elements,
    )
    decompose(trs, 0, p, 0)
    decompose(trs, 10, c, 0)
    const out = new Array<number>(16).fill(NaN)
    blendComposed(out, trs, 0, 0)
    out.forEach((x, k) => expect(x).toBeCloseTo(p[k]!, 6))
    blendComposed(out, trs, 0, 1)
    out.forEach((x, k) => expect(x).toBeCloseTo(c[k]!, 6))
    blendComposed(out, trs, 0, 0.5)
    const t = new Vector3()
    const q = new Quaternion()
    const s = new Vector3()
    new Matrix4().fromArray(out).decompose(t, q, s)
    expect(t.toArray()).toEqual([2, 2, 2].map((v) => expect.closeTo(v, 6)))
    expect(s.toArray()).toEqual([1.5, 1.5, 1.5].map((v) => expect.closeTo(v, 6)))
    // nlerp at the midpoint is exactly slerp's midpoint: 0.3 rad about y.
    expect(2 * Math.acos(Math.min(1, Math.abs(q.w)))).toBeCloseTo(0.3, 6)
    expect(q.y * Math.sign(q.w)).toBeGreaterThan(0)
  })
})

describe('createWorldSync', () => {
  it('writes only changed slots, keeps state across remove(), and never writes removed targets', () => {
    const s = store(6)
    const sync = createWorldSync(s, { interpolate: false })
    const targets = [1, 2, 3, 4].map(() => new Float64Array(16))
    for (let e = 1; e <= 4; e++) setWorld(s, e, [e, 0, 0], new Quaternion(), [1, 1, 1])
    expect(sync.add([1, 2, 3, 4], targets)).toBe(0)
    sync.render()
    expect(sync.uploads).toBe(4)
    expect(Array.from(targets[2]!.subarray(12, 15))).toEqual([3, 0, 0])

    s.changed.fill(0)
    setWorld(s, 3, [30, 0, 0], new Quaternion(), [1, 1, 1])
    sync.capture()
    s.changed.fill(0)
    sync.capture() // a second step in the same frame changes nothing
    sync.remove(1, 1) // entity 2's slot: entities 3 and 4 move down, their pending write stays
    expect(sync.count).toBe(3)
    targets[1]!.fill(-1)
    sync.render()
    expect(sync.uploads).toBe(1)
    expect(targets[2]![12]).toBe(30)
    expect(targets[1]![0]).toBe(-1) // removed: untouched
    sync.render()
    expect(sync.uploads).toBe(0)
  })

  it('interpolates a slot that moved in the last capture and shows the exact world at alpha 1', () => {
    const s = store(3)
    const sync = createWorldSync(s)
    const target = new Array<number>(16).fill(0)
    setWorld(s, 1, [0, 0, 0], new Quaternion(), [1, 1, 1])
    sync.add([1], [target])
    sync.capture()
    s.changed.fill(0)
    setWorld(s, 1, [4, 0, 0], new Quaternion(), [1, 1, 1])
    sync.capture()
    sync.render(0.25)
    expect(target[12]).toBeCloseTo(1, 6)
    sync.render(1)
    expect(target[12]).toBe(4)
    s.changed.fill(0)
    sync.capture() // still from now on
    sync.render(0.25)
    expect(target[12]).toBe(4)
  })
})
