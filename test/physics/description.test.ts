import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import {
  resolveRagdollDescription,
  type RagdollBodySpec,
  type RagdollDescription,
  type RagdollSkeletonView,
} from '../../src/physics/description.ts'
import { generateRagdollDescription, MAX_GENERATED_BODIES } from '../../src/physics/generate.ts'
import { HUMANOID, HUMANOID_NODES, HUMANOID_RAGDOLL, makeHumanoidAsset } from '../helpers/humanoid.ts'

const humanoid = makeHumanoidAsset()
const view = (asset: AnimationAsset): RagdollSkeletonView => ({
  source: asset.source,
  nodes: asset.nodes,
  skinJoints: asset.skeletons[0]?.joints,
})

let fox: AnimationAsset
beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

/** The parent body of each generated body, by joint name, found by walking the node tree (not the resolver). */
function parentBodies(asset: AnimationAsset, desc: RagdollDescription): Map<string, string | null> {
  const names = new Set(desc.bodies.map((b) => String(b.joint)))
  const out = new Map<string, string | null>()
  for (const b of desc.bodies) {
    let a = asset.nodes.find((n) => n.name === b.joint)!.parent
    while (a >= 0 && !names.has(asset.nodes[a]!.name)) a = asset.nodes[a]!.parent
    out.set(String(b.joint), a >= 0 ? asset.nodes[a]!.name : null)
  }
  return out
}

describe('generateRagdollDescription', () => {
  it('gives the humanoid bodies on its bones, none above the pelvis, none on leaves, by default', () => {
    const desc = generateRagdollDescription(view(humanoid))
    expect(desc.bodies.map((b) => b.joint).sort()).toEqual(
      [
        'pelvis',
        'spine',
        'chest',
        'neck',
        'head',
        'upperArm.L',
        'forearm.L',
        'upperArm.R',
        'forearm.R',
        'thigh.L',
        'shin.L',
        'foot.L',
        'thigh.R',
        'shin.R',
        'foot.R',
      ].sort(),
    )
    const withLeaves = generateRagdollDescription(view(humanoid), { leafBodies: true })
    expect(withLeaves.bodies.map((b) => b.joint)).toEqual(
      expect.arrayContaining(['hand.L', 'hand.R', 'toe.L', 'toe.R', 'headTip']),
    )
  })

  it('runs each capsule along its bone: unit axis towards the child joint, length = the bone', () => {
    const desc = generateRagdollDescription(view(humanoid))
    const forearm = desc.bodies.find((b) => b.joint === 'forearm.L')!
    // forearm.L → hand.L is (0, 0.25, 0) in the forearm's frame.
    expect(forearm.axis[0]).toBeCloseTo(0, 12)
    expect(forearm.axis[1]).toBeCloseTo(1, 12)
    expect(forearm.length).toBeCloseTo(0.25, 12)
    for (const b of desc.bodies) expect(Math.hypot(...b.axis)).toBeCloseTo(1, 12)
  })

  it('measures the skeleton from its bones: the pelvis 1 m above the armature origin is not a bone', () => {
    // Longest chain from the pelvis: spine 0.12 + chest 0.2 + shoulder 0.255 + upper arm 0.28 + forearm 0.25
    // = 1.105 (legs: 0.112 + 0.45 + 0.42 + 0.14 = 1.122). Radii are clamped to [2 %, 8 %] of 1.122 m.
    const size = Math.hypot(0.1, 0.05) + 0.45 + 0.42 + 0.14
    const desc = generateRagdollDescription(view(humanoid))
    for (const b of desc.bodies) {
      expect(b.radius, String(b.joint)).toBeGreaterThanOrEqual(0.02 * size - 1e-12)
      expect(b.radius, String(b.joint)).toBeLessThanOrEqual(0.08 * size + 1e-12)
    }
    // Moving the whole skeleton 10 m up changes nothing.
    const lifted = {
      ...view(humanoid),
      nodes: humanoid.nodes.map((n) =>
        n.index === HUMANOID.pelvis ? { ...n, translation: [0, 11, 0] as const } : n,
      ),
    }
    expect(generateRagdollDescription(lifted)).toEqual(desc)
  })

  it('spreads totalMass by the bodies each one carries, so no body is lighter than one hanging on it', () => {
    for (const asset of [humanoid, fox]) {
      const desc = generateRagdollDescription(view(asset), { totalMass: 70 })
      const total = desc.bodies.reduce((a, b) => a + b.mass, 0)
      expect(total).toBeCloseTo(70, 9)
      const parents = parentBodies(asset, desc)
      const mass = new Map(desc.bodies.map((b) => [String(b.joint), b.mass]))
      const carried = new Map<string, number>()
      const count = (name: string): number =>
        1 + [...parents].filter(([, p]) => p === name).reduce((a, [child]) => a + count(child), 0)
      const units = desc.bodies.reduce((a, b) => a + count(String(b.joint)), 0)
      for (const b of desc.bodies) {
        carried.set(String(b.joint), count(String(b.joint)))
        expect(b.mass, String(b.joint)).toBeCloseTo((70 * count(String(b.joint))) / units, 9)
        const p = parents.get(String(b.joint))
        if (p) expect(mass.get(p)!, `${p} carries ${String(b.joint)}`).toBeGreaterThan(b.mass)
      }
      expect(Math.max(...carried.values())).toBe(desc.bodies.length)
    }
  })

  it('gives the Fox a body on each long bone and none on its root chain or leaves', () => {
    const desc = generateRagdollDescription(view(fox))
    const joints = desc.bodies.map((b) => String(b.joint))
    expect(joints).toContain('b_Hip_01')
    expect(joints).toContain('b_Spine01_02')
    expect(joints).not.toContain('b_Root_00')
    expect(joints).not.toContain('_rootJoint')
    expect(joints).not.toContain('b_Head_05')
    expect(joints).not.toContain('b_Tail03_014')
    expect(desc.bodies).toHaveLength(16)
  })

  it(`keeps at most ${MAX_GENERATED_BODIES} bodies, those nearest the root, of a bushy skeleton`, () => {
    // 9 children a joint, 4 levels below the root: 820 joints with child joints, each a body before the cap.
    const nodes: RagdollSkeletonView['nodes'][number][] = []
    const add = (parent: number, level: number): number => {
      const i = nodes.length
      const node = {
        name: `n${i}`,
        parent,
        children: [] as number[],
        translation: parent < 0 ? [0, 0, 0] : [0.3 * ((i % 3) - 1), 1, 0.3 * (((i / 3) | 0) % 3) - 0.3],
        rotation: [0, 0, 0, 1],
        scale: [1, 1, 1],
      }
      nodes.push(node)
      if (level < 4) for (let c = 0; c < 9; c++) node.children.push(add(i, level + 1))
      return i
    }
    add(-1, 0)
    const bushy: RagdollSkeletonView = { source: 'bushy', nodes }
    const desc = generateRagdollDescription(bushy)
    expect(desc.bodies).toHaveLength(MAX_GENERATED_BODIES)
    // Level by level: the root's body, its 9 children's, then as many of the 81 grandchildren's as fit.
    const level = (name: string): number => {
      let d = 0
      for (let a = nodes[Number(name.slice(1))]!.parent; a >= 0; a = nodes[a]!.parent) d++
      return d
    }
    const levels = desc.bodies.map((b) => level(String(b.joint)))
    expect([0, 1, 2, 3].map((l) => levels.filter((x) => x === l).length)).toEqual([
      1,
      9,
      MAX_GENERATED_BODIES - 10,
      0,
    ])
    // Parents first, each kept body's parent body kept, and the masses still add up.
    const resolved = resolveRagdollDescription(bushy, desc)
    expect(resolved.every((b, i) => b.parentBody < i)).toBe(true)
    expect(resolved.filter((b) => b.parentBody === -1)).toHaveLength(1)
    expect(desc.bodies.reduce((m, b) => m + b.mass, 0)).toBeCloseTo(30, 9)
  })

  it('refuses a skeleton with no extent', () => {
    const flat = { source: 'flat', nodes: [{ ...humanoid.nodes[1]!, parent: -1, children: [] }] }
    expect(() => generateRagdollDescription(flat)).toThrow(
      new AnimationError('ragdoll', 'flat: the skeleton has no extent to build a ragdoll from'),
    )
  })
})

describe('resolveRagdollDescription', () => {
  const v = view(humanoid)
  const body = (over: Partial<RagdollBodySpec>): RagdollDescription => ({
    bodies: [HUMANOID_RAGDOLL.bodies[0]!, { ...HUMANOID_RAGDOLL.bodies[1]!, ...over }],
  })

  it('hangs a body from its `parent` when given, listing the parent first, and refuses a bad or circular one', () => {
    const bodies = HUMANOID_RAGDOLL.bodies.map((b) =>
      b.joint === 'foot.L' ? { ...b, parent: 'thigh.R' } : b,
    )
    const resolved = resolveRagdollDescription(v, { bodies: [...bodies].reverse() })
    const at = (n: string) => resolved.findIndex((r) => HUMANOID_NODES[r.node]!.name === n)
    expect(resolved[at('foot.L')]!.parentBody).toBe(at('thigh.R'))
    resolved.forEach((r, i) => expect(r.parentBody).toBeLessThan(i))
    const withParent = (parent: string | number) => ({
      bodies: HUMANOID_RAGDOLL.bodies.map((b) => (b.joint === 'foot.L' ? { ...b, parent } : b)),
    })
    for (const bad of ['foot.L', 'hand.L', 'nowhere', 999]) {
      expect(() => resolveRagdollDescription(v, withParent(bad))).toThrow(
        /parent .* is not another joint with a body in this description/,
      )
    }
    const loop = {
      bodies: HUMANOID_RAGDOLL.bodies.map((b) => (b.joint === 'pelvis' ? { ...b, parent: 'shin.L' } : b)),
    }
    expect(() => resolveRagdollDescription(v, loop)).toThrow(
      new AnimationError('ragdoll', `${humanoid.source}: the ragdoll bodies' parents form a cycle`),
    )
  })

  it('orders bodies parents first and links each to its nearest ancestor with a body', () => {
    const reversed = { bodies: [...HUMANOID_RAGDOLL.bodies].reverse() }
    const resolved = resolveRagdollDescription(v, reversed)
    const names = resolved.map((r) => HUMANOID_NODES[r.node]!.name)
    expect(names[0]).toBe('pelvis')
    resolved.forEach((r, i) => expect(r.parentBody).toBeLessThan(i))
    const byName = (n: string) => resolved.find((r) => HUMANOID_NODES[r.node]!.name === n)!
    // chest's nearest ancestor with a body is the pelvis (spine has none); forearm.L hangs on upperArm.L.
    expect(resolved[byName('chest').parentBody]!.node).toBe(HUMANOID.pelvis)
    expect(resolved[byName('forearm.L').parentBody]!.node).toBe(HUMANOID['upperArm.L'])
    expect(byName('pelvis').parentBody).toBe(-1)
  })

  it('accepts glTF node indices and normalizes axes', () => {
    const resolved = resolveRagdollDescription(v, {
      bodies: [{ ...HUMANOID_RAGDOLL.bodies[0]!, joint: HUMANOID.pelvis!, axis: [0, 3, 4] }],
    })
    expect(resolved[0]!.node).toBe(HUMANOID.pelvis)
    expect(resolved[0]!.axis).toEqual([0, 0.6, 0.8])
  })

  const cases: [string, RagdollDescription, string][] = [
    [
      'a joint the skeleton lacks',
      body({ joint: 'tail' }),
      'ragdoll body 1 ("tail"): the skeleton has no joint "tail"',
    ],
    ['a node index out of range', body({ joint: 99 }), 'ragdoll body 1 (99): the skeleton has no joint 99'],
    [
      'a joint listed twice',
      body({ joint: 'pelvis' }),
      'ragdoll body 1 ("pelvis"): joint pelvis already has a body',
    ],
    ['mass 0', body({ mass: 0 }), 'ragdoll body 1 ("chest"): mass 0 must be a finite number > 0'],
    ['negative mass', body({ mass: -2 }), 'ragdoll body 1 ("chest"): mass -2 must be a finite number > 0'],
    ['NaN mass', body({ mass: NaN }), 'ragdoll body 1 ("chest"): mass NaN must be a finite number > 0'],
    ['radius 0', body({ radius: 0 }), 'ragdoll body 1 ("chest"): radius 0 must be a finite number > 0'],
    [
      'negative length',
      body({ length: -0.1 }),
      'ragdoll body 1 ("chest"): length -0.1 must be a finite number > 0',
    ],
    ['cone 0', body({ coneAngle: 0 }), 'ragdoll body 1 ("chest"): coneAngle 0 rad must be in (0, π]'],
    [
      'cone past π',
      body({ coneAngle: 3.2 }),
      'ragdoll body 1 ("chest"): coneAngle 3.2 rad must be in (0, π]',
    ],
    [
      'negative twist',
      body({ twistAngle: -0.1 }),
      'ragdoll body 1 ("chest"): twistAngle -0.1 rad must be in [0, π]',
    ],
    ['twist past π', body({ twistAngle: 4 }), 'ragdoll body 1 ("chest"): twistAngle 4 rad must be in [0, π]'],
    [
      'a zero axis',
      body({ axis: [0, 0, 0] }),
      'ragdoll body 1 ("chest"): axis [0,0,0] must be a non-zero 3-vector',
    ],
    [
      'an unknown shape',
      body({ shape: 'cone' as 'box' }),
      'ragdoll body 1 ("chest"): shape "cone" is not capsule or box',
    ],
    ['no bodies', { bodies: [] }, 'a ragdoll description needs at least one body'],
  ]
  for (const [what, desc, message] of cases) {
    it(`rejects ${what}`, () => {
      expect(() => resolveRagdollDescription(v, desc)).toThrow(
        new AnimationError('ragdoll', `generated-humanoid: ${message}`),
      )
    })
  }
})
