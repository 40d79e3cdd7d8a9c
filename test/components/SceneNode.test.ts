import {
  addComponent,
  addEntity,
  createWorld,
  entityExists,
  hasComponent,
  query,
  removeComponent,
  removeEntity,
} from 'bitecs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SceneGraph } from '../../components/SceneNode.ts'
import {
  addSceneNode,
  createSceneGraph,
  createSceneNodeStore,
  MAX_SCENE_CAPACITY,
  refreshSceneOrder,
  removeSceneNode,
  setSceneNodeParent,
} from '../../components/SceneNode.ts'
import { AnimationError } from '../../src/errors.ts'

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]

function expectAnimationError(fn: () => unknown, kind: string, message: string): void {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(AnimationError)
    expect((error as AnimationError).kind).toBe(kind)
    expect((error as AnimationError).message).toBe(message)
    return
  }
  expect.fail(`expected AnimationError: ${message}`)
}

function newGraph(capacity = 32): SceneGraph {
  return createSceneGraph(createWorld(), capacity)
}

/** Adds `count` entities that are SceneNodes under `parent` (0 = roots); returns their ids. */
function addNodes(graph: SceneGraph, count: number, parent = 0): number[] {
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const e = addEntity(graph.world)
    addSceneNode(graph, e, parent)
    ids.push(e)
  }
  return ids
}

function expectFreshNode(graph: SceneGraph, e: number): void {
  const s = graph.store
  expect(Array.from(s.translation.subarray(e * 3, e * 3 + 3))).toEqual([0, 0, 0])
  expect(Array.from(s.rotation.subarray(e * 4, e * 4 + 4))).toEqual([0, 0, 0, 1])
  expect(Array.from(s.scale.subarray(e * 3, e * 3 + 3))).toEqual([1, 1, 1])
  expect(Array.from(s.world.subarray(e * 16, e * 16 + 16))).toEqual(IDENTITY)
  expect(s.parent[e]).toBe(0)
  expect(s.dirty[e]).toBe(1)
  expect(s.changed[e]).toBe(0)
  expect(graph.firstChild[e]).toBe(0)
}

/** Fills a node's every field with junk, as a removed entity's stale data would look. */
function scribble(graph: SceneGraph, e: number): void {
  const s = graph.store
  s.translation.fill(5, e * 3, e * 3 + 3)
  s.rotation.fill(0.5, e * 4, e * 4 + 4)
  s.scale.fill(9, e * 3, e * 3 + 3)
  s.world.fill(3, e * 16, e * 16 + 16)
  s.dirty[e] = 0
  s.changed[e] = 1
}

/**
 * The graph's invariants, checked against bitecs membership: parents are members; the child lists hold exactly
 * the nodes whose parent is that node; the order holds every member once, each after its parent.
 */
function expectValidGraph(graph: SceneGraph): void {
  const members = Array.from(query(graph.world, [graph.store]))
  const isMember = new Set(members)
  const { parent } = graph.store
  for (const e of members) {
    const p = parent[e]!
    if (p !== 0) expect(isMember.has(p), `parent ${p} of ${e} is a member`).toBe(true)
    const listed: number[] = []
    for (let c = graph.firstChild[e]!, prev = 0; c !== 0; prev = c, c = graph.nextSibling[c]!) {
      expect(graph.prevSibling[c], `prevSibling of ${c}`).toBe(prev)
      listed.push(c)
    }
    const expected = members.filter((c) => parent[c] === e)
    expect(
      listed.sort((a, b) => a - b),
      `children of ${e}`,
    ).toEqual(expected.sort((a, b) => a - b))
  }
  const n = refreshSceneOrder(graph)
  const order = Array.from(graph.order.subarray(0, n))
  expect(order.slice().sort((a, b) => a - b)).toEqual(members.slice().sort((a, b) => a - b))
  const position = new Map(order.map((e, i) => [e, i]))
  for (const e of order) {
    const p = parent[e]!
    if (p !== 0) expect(position.get(p)!, `parent ${p} before ${e}`).toBeLessThan(position.get(e)!)
  }
}

describe('createSceneNodeStore', () => {
  it('makes zeroed typed arrays sized by capacity', () => {
    const s = createSceneNodeStore(10)
    expect(s.translation).toBeInstanceOf(Float32Array)
    expect(s.translation.length).toBe(30)
    expect(s.rotation).toBeInstanceOf(Float32Array)
    expect(s.rotation.length).toBe(40)
    expect(s.scale.length).toBe(30)
    expect(s.parent).toBeInstanceOf(Int32Array)
    expect(s.parent.length).toBe(10)
    expect(s.dirty).toBeInstanceOf(Uint8Array)
    expect(s.changed).toBeInstanceOf(Uint8Array)
    expect(s.world).toBeInstanceOf(Float32Array)
    expect(s.world.length).toBe(160)
    expect(s.world.every((x) => x === 0)).toBe(true)
  })

  it('makes a new store per call', () => {
    expect(createSceneNodeStore(4).world).not.toBe(createSceneNodeStore(4).world)
  })

  it.each([1, 1.5, 0, -3, NaN, Infinity, MAX_SCENE_CAPACITY + 1])('rejects capacity %s', (capacity) => {
    expectAnimationError(
      () => createSceneNodeStore(capacity),
      'argument',
      `SceneNode store: capacity ${capacity} must be an integer in [2, ${MAX_SCENE_CAPACITY}] (entity ids are 1..capacity-1)`,
    )
  })
})

describe('addSceneNode', () => {
  it('makes an identity, dirty root or child, and bumps the hierarchy version', () => {
    const graph = newGraph()
    const [root] = addNodes(graph, 1)
    const v = graph.version
    const [child] = addNodes(graph, 1, root)
    expect(graph.version).toBeGreaterThan(v)
    expect(hasComponent(graph.world, child!, graph.store)).toBe(true)
    expect(graph.store.parent[child!]).toBe(root)
    expect(graph.firstChild[root!]).toBe(child)
    expect(graph.store.dirty[child!]).toBe(1)
    expect(Array.from(graph.store.world.subarray(child! * 16, child! * 16 + 16))).toEqual(IDENTITY)
  })

  it('resets a recycled entity id: identity local and world, dirty, root, no children', () => {
    const graph = newGraph()
    const [a, b] = addNodes(graph, 2)
    const [child] = addNodes(graph, 1, b)
    scribble(graph, b!)
    removeEntity(graph.world, b!)
    const recycled = addEntity(graph.world)
    expect(recycled).toBe(b) // bitecs recycles ids last-in first-out
    addSceneNode(graph, recycled)
    expectFreshNode(graph, recycled)
    setSceneNodeParent(graph, recycled, a!)
    // The old child was detached when its parent went away; it is not adopted by the new owner of the id.
    expect(graph.store.parent[child!]).toBe(0)
    expectValidGraph(graph)
  })

  it("also resets nodes added with bitecs's own addComponent", () => {
    const graph = newGraph()
    const e = addEntity(graph.world)
    scribble(graph, e)
    addComponent(graph.world, e, graph.store)
    expectFreshNode(graph, e)
    expectValidGraph(graph)
  })

  it('rejects ids outside the store, missing entities, existing nodes and unknown parents', () => {
    const graph = newGraph(8)
    const [node] = addNodes(graph, 1)
    const plain = addEntity(graph.world)
    for (const eid of [0, 8, 2.5, -1]) {
      expectAnimationError(
        () => addSceneNode(graph, eid),
        'capacity',
        `addSceneNode: entity id ${eid} is outside 1..7 (SceneNode capacity 8)`,
      )
    }
    expectAnimationError(
      () => addSceneNode(graph, 6),
      'argument',
      'addSceneNode: entity 6 does not exist in the world',
    )
    expectAnimationError(
      () => addSceneNode(graph, node!),
      'argument',
      `addSceneNode: entity ${node} is already a SceneNode`,
    )
    const other = addEntity(graph.world)
    expectAnimationError(
      () => addSceneNode(graph, other, plain),
      'argument',
      `addSceneNode: parent ${plain} of node ${other} is not a SceneNode entity`,
    )
    expect(hasComponent(graph.world, other, graph.store)).toBe(false)
  })
})

describe('setSceneNodeParent', () => {
  it('moves a node, marks it dirty and bumps the version; re-setting the same parent does not', () => {
    const graph = newGraph()
    const [a, b] = addNodes(graph, 2)
    const [c] = addNodes(graph, 1, a)
    graph.store.dirty[c!] = 0
    const v = graph.version
    setSceneNodeParent(graph, c!, b!)
    expect(graph.store.parent[c!]).toBe(b)
    expect(graph.store.dirty[c!]).toBe(1)
    expect(graph.firstChild[a!]).toBe(0)
    expect(graph.firstChild[b!]).toBe(c)
    expect(graph.version).toBe(v + 1)
    setSceneNodeParent(graph, c!, b!)
    expect(graph.version).toBe(v + 1)
    setSceneNodeParent(graph, c!, 0)
    expect(graph.store.parent[c!]).toBe(0)
    expect(graph.firstChild[b!]).toBe(0)
    expectValidGraph(graph)
  })

  it('rejects cycles: the node itself or one of its descendants', () => {
    const graph = newGraph()
    const [a] = addNodes(graph, 1)
    const [b] = addNodes(graph, 1, a)
    const [c] = addNodes(graph, 1, b)
    expectAnimationError(
      () => setSceneNodeParent(graph, a!, a!),
      'argument',
      `setSceneNodeParent: parent ${a} of node ${a} would make a cycle (the node itself)`,
    )
    expectAnimationError(
      () => setSceneNodeParent(graph, a!, c!),
      'argument',
      `setSceneNodeParent: parent ${c} of node ${a} would make a cycle (${c} is a descendant of ${a})`,
    )
    expect(graph.store.parent[a!]).toBe(0)
    expectValidGraph(graph)
  })

  it('rejects nodes and parents that are not SceneNodes', () => {
    const graph = newGraph(8)
    const [a] = addNodes(graph, 1)
    const plain = addEntity(graph.world)
    expectAnimationError(
      () => setSceneNodeParent(graph, plain, a!),
      'argument',
      `setSceneNodeParent: node ${plain} is not a SceneNode entity`,
    )
    expectAnimationError(
      () => setSceneNodeParent(graph, a!, plain),
      'argument',
      `setSceneNodeParent: parent ${plain} of node ${a} is not a SceneNode entity`,
    )
    expectAnimationError(
      () => setSceneNodeParent(graph, a!, 99),
      'argument',
      `setSceneNodeParent: parent 99 of node ${a} is not a SceneNode entity`,
    )
  })
})

describe('removing a SceneNode', () => {
  it('makes its children roots that keep their local transform and are dirty; the entity stays', () => {
    const graph = newGraph()
    const [p] = addNodes(graph, 1)
    const [c1, c2] = addNodes(graph, 2, p)
    const [g] = addNodes(graph, 1, c1)
    graph.store.translation.set([1, 2, 3], c1! * 3)
    graph.store.dirty.fill(0)
    removeSceneNode(graph, p!)
    expect(hasComponent(graph.world, p!, graph.store)).toBe(false)
    expect(entityExists(graph.world, p!)).toBe(true)
    expect(graph.store.parent[c1!]).toBe(0)
    expect(graph.store.parent[c2!]).toBe(0)
    expect(graph.store.parent[g!]).toBe(c1)
    expect(graph.store.dirty[c1!]).toBe(1)
    expect(graph.store.dirty[c2!]).toBe(1)
    expect(graph.store.dirty[g!]).toBe(0)
    expect(Array.from(graph.store.translation.subarray(c1! * 3, c1! * 3 + 3))).toEqual([1, 2, 3])
    expectValidGraph(graph)
    expectAnimationError(
      () => removeSceneNode(graph, p!),
      'argument',
      `removeSceneNode: node ${p} is not a SceneNode entity`,
    )
  })

  it('works the same through removeEntity and removeComponent', () => {
    const graph = newGraph()
    const [p, q] = addNodes(graph, 2)
    const [c] = addNodes(graph, 1, p)
    const [d] = addNodes(graph, 1, q)
    const [mid] = addNodes(graph, 1, c)
    removeEntity(graph.world, p!)
    removeComponent(graph.world, q!, graph.store)
    expect(graph.store.parent[c!]).toBe(0)
    expect(graph.store.parent[d!]).toBe(0)
    expect(graph.store.parent[mid!]).toBe(c)
    expectValidGraph(graph)
  })

  it('unlinks a middle child from its siblings', () => {
    const graph = newGraph()
    const [p] = addNodes(graph, 1)
    const [a, b, c] = addNodes(graph, 3, p)
    removeSceneNode(graph, b!)
    const children: number[] = []
    for (let x = graph.firstChild[p!]!; x !== 0; x = graph.nextSibling[x]!) children.push(x)
    expect(children.sort()).toEqual([a!, c!].sort())
    expectValidGraph(graph)
  })
})

describe('refreshSceneOrder', () => {
  it('puts parents first although children were added first, and rebuilds only after a change', () => {
    const graph = newGraph()
    // Entities are created leaf first, so ids run child-before-parent; the hierarchy is wired afterwards.
    const [leaf, mid, root] = addNodes(graph, 3)
    setSceneNodeParent(graph, mid!, root!)
    setSceneNodeParent(graph, leaf!, mid!)
    expect(refreshSceneOrder(graph)).toBe(3)
    expect(Array.from(graph.order.subarray(0, 3))).toEqual([root, mid, leaf])
    const builds = graph.stats.orderBuilds
    refreshSceneOrder(graph)
    refreshSceneOrder(graph)
    expect(graph.stats.orderBuilds).toBe(builds)
    setSceneNodeParent(graph, leaf!, root!)
    refreshSceneOrder(graph)
    expect(graph.stats.orderBuilds).toBe(builds + 1)
    expectValidGraph(graph)
  })

  it('keeps every invariant through any sequence of adds, removals and re-parentings', () => {
    type Op = { kind: 'add' | 'remove' | 'removeEntity' | 'parent'; a: number; b: number }
    const opArb = fc.record({
      // Twice as many adds and re-parentings as removals, so trees grow bushy.
      kind: fc.constantFrom('add', 'add', 'parent', 'parent', 'remove', 'removeEntity') as fc.Arbitrary<
        Op['kind']
      >,
      a: fc.nat(),
      b: fc.nat(),
    })
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 60, size: 'max' }), (ops) => {
        const graph = newGraph(64)
        const live: number[] = []
        for (const op of ops) {
          const pick = (k: number) => live[k % live.length]!
          if (op.kind === 'add' || live.length === 0) {
            const e = addEntity(graph.world)
            addSceneNode(graph, e, live.length > 0 && op.b % 3 !== 0 ? pick(op.b) : 0)
            live.push(e)
          } else if (op.kind === 'parent') {
            const e = pick(op.a)
            let target = op.b % 4 === 0 ? 0 : pick(op.b)
            // A would-be cycle must throw and change nothing.
            let cyclic = false
            for (let x = target; x !== 0; x = graph.store.parent[x]!) if (x === e) cyclic = true
            if (cyclic) {
              expect(() => setSceneNodeParent(graph, e, target)).toThrow(AnimationError)
              target = 0
            }
            setSceneNodeParent(graph, e, target)
          } else {
            const e = live.splice(op.a % live.length, 1)[0]!
            if (op.kind === 'remove') removeSceneNode(graph, e)
            else removeEntity(graph.world, e)
          }
          expectValidGraph(graph)
        }
      }),
      { numRuns: 100 },
    )
  })
})
