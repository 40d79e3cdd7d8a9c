/**
 * Restore in place (snapshot/structure.ts, the contract in snapshot/format.ts "Entity ids"): a running plugin
 * rewound to an earlier snapshot is exactly as it was then — same hash, same snapshot bytes, same entity ids —
 * and steps on as a plugin that never rewound; characters made since are removed and removed ones come back;
 * a game's own entities, components and scene nodes are left as they are; an id the plugin needs that a game
 * entity took refuses the restore, changing nothing; refused and forged snapshots change nothing in a running
 * world either. snapshotInto writes the same bytes into a caller's buffer and allocates nothing.
 */
import { execFileSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  $internal,
  addComponent,
  addEntity,
  createWorld,
  entityExists,
  hasComponent,
  query,
  removeEntity,
  type InternalWorld,
  type World,
} from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { mulberry32 } from '../../scripts/random.ts'
import { forge } from '../helpers/forge.ts'
import { SNAPSHOT_VERSION } from '../../snapshot/format.ts'
import { HANG_MS } from '../helpers/hang.ts'
import { ALLOCATION_NODE_FLAGS } from '../helpers/heapWindows.ts'

const OPTIONS = { capacity: 1024 } as const
let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

/** The game's own component: a position per entity, and one entity of its own between the plugin's. */
const Position = { x: new Float64Array(OPTIONS.capacity), y: new Float64Array(OPTIONS.capacity) }

interface Game {
  world: World
  plugin: AnimationPlugin
  /** Foxes a (walks, fades), b (ragdolls with hits, gets up), and a robot r (layers, morph weights). */
  a: number
  b: number
  r: number
  /** The game's entities: one with a Position, one with a hat node on a's head. */
  player: number
  hat: number
}

function fresh(): { world: World; plugin: AnimationPlugin } {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, OPTIONS)
  plugin.addAsset(fox)
  plugin.addAsset(robot)
  return { world, plugin }
}

function game(): Game {
  const { world, plugin } = fresh()
  const player = addEntity(world)
  addComponent(world, player, Position)
  Position.x[player] = 3
  const a = plugin.addCharacter(fox)
  const b = plugin.addCharacter(fox)
  const r = plugin.addCharacter(robot)
  const hat = addEntity(world)
  addSceneNode(plugin.sceneGraph, hat, plugin.jointEntity(a, 'b_Head_05'))
  plugin.stores.SceneNode.translation[hat * 3 + 1] = 12
  plugin.setTransform(b, { position: [1, 0, 0], scale: [0.01, 0.01, 0.01] })
  plugin.setTransform(a, { position: [-1, 0, 0], scale: [0.01, 0.01, 0.01] })
  return { world, plugin, a, b, r, player, hat }
}

/** What happens before step k: the same calls in every run of the script. */
function script(g: Game, k: number): void {
  const p = g.plugin
  if (k === 0) {
    p.play(g.a, 'Walk')
    p.play(g.b, 'Run')
    p.play(g.r, 'Walking')
    p.setLayer(g.r, 1, { mask: ['Abdomen'], weight: 0.8 })
    p.play(g.r, 'Wave', { layer: 1 })
    p.setMorphWeights(g.r, 'Head', [0.5, 0, 0.2])
  }
  if (k === 20) p.crossFade(g.a, 'Run', 0.5)
  if (k === 30) p.ragdoll(g.b, { impulse: { joint: 'b_Spine02_03', impulse: [3, 1, 0] } })
  if (k === 45) p.applyImpulse(g.b, 'b_Head_05', [0, 0, 2])
  if (k === 50) p.crossFade(g.r, 'Running', 0.3, { layer: 1 })
  if (k === 70) p.getUp(g.b, { clip: 'Survey' })
  if (k === 90) p.crossFade(g.a, 'Survey', 0.4, { loop: 'once' })
  Position.x[g.player] = k // the game's own state moves every step
}

function run(g: Game, from: number, to: number, after?: (k: number) => void): void {
  for (let k = from; k < to; k++) {
    script(g, k)
    g.plugin.step()
    after?.(k)
  }
}

function entityIndex(world: World) {
  return (world as InternalWorld)[$internal].entityIndex
}

const STEPS = 120

describe('restore in place', () => {
  it('rewinds a running plugin to any earlier step: the same hash and bytes, then the same hashes', () => {
    // The reference: the script run straight through, its hash after every step.
    const reference: string[] = []
    const straight = game()
    run(straight, 0, STEPS, () => reference.push(straight.plugin.hash()))
    expect(new Set(reference).size).toBeGreaterThan(STEPS - 5)

    const g = game()
    const snapshots = new Map<number, { bytes: Uint8Array; hash: string }>()
    run(g, 0, STEPS, (k) => snapshots.set(k, { bytes: g.plugin.snapshot(), hash: g.plugin.hash() }))
    // Back to each of these steps (before the fade, mid-fall with bodies, mid-get-up, …), from the end.
    for (const k of [5, 25, 35, 50, 75, 100]) {
      const s = snapshots.get(k)!
      g.plugin.restore(s.bytes)
      expect(g.plugin.hash(), `restored to step ${k}`).toBe(s.hash)
      expect(g.plugin.snapshot(), `snapshot at step ${k}`).toEqual(s.bytes)
      run(g, k + 1, STEPS, (j) =>
        expect(g.plugin.hash(), `step ${j} after a rewind to ${k}`).toBe(reference[j]),
      )
    }
    // The game's own entity and component were never touched by the plugin.
    expect(Position.x[g.player]).toBe(STEPS - 1)
    expect(Position.y[g.player]).toBe(0)
    expect(hasComponent(g.world, g.player, Position)).toBe(true)
  })

  it('removes characters made since, brings back removed ones with their ids, and the index as it was', () => {
    const g = game()
    run(g, 0, 40)
    const bytes = g.plugin.snapshot()
    const hash = g.plugin.hash()
    const index = entityIndex(g.world)
    const dense = index.dense.slice()
    const before = { maxId: index.maxId, alive: index.aliveCount }
    // After the snapshot: b (ragdolling) is removed, two characters are added (one on b's recycled ids).
    const jointsB = Array.from(g.plugin.joints(g.b))
    g.plugin.removeCharacter(g.b)
    const c = g.plugin.addCharacter(fox)
    const d = g.plugin.addCharacter(robot)
    g.plugin.play(c, 'Walk')
    for (let k = 0; k < 20; k++) g.plugin.step()
    expect(c).toBe(g.b) // b's id, recycled first, is c's now
    g.plugin.restore(bytes)
    expect(g.plugin.hash()).toBe(hash)
    expect(g.plugin.snapshot()).toEqual(bytes)
    expect(Array.from(g.plugin.joints(g.b))).toEqual(jointsB)
    expect(entityExists(g.world, d)).toBe(false)
    expect(() => g.plugin.joints(d)).toThrow(AnimationError)
    // The game's entities are the same as at the snapshot, so the whole entity index is the snapshot's.
    expect({ maxId: index.maxId, alive: index.aliveCount }).toEqual(before)
    expect(index.dense).toEqual(dense)
    // The systems visit the characters in the snapshot's order.
    expect(Array.from(query(g.world, [contextOf(g.plugin).stores.Ragdoll]))).toEqual([g.a, g.b, g.r])
    // And it steps on as the straight run.
    const straight = game()
    run(straight, 0, 40)
    run(g, 40, 80)
    run(straight, 40, 80)
    expect(g.plugin.hash()).toBe(straight.plugin.hash())
    // The next new entity gets the id it got after the snapshot in the straight run.
    expect(addEntity(g.world)).toBe(addEntity(straight.world))
  })

  it("leaves the game's entities, components and nodes alone; recomputes the hat's world", () => {
    const g = game()
    run(g, 0, 30)
    const bytes = g.plugin.snapshot()
    const hatWorld = Array.from(g.plugin.stores.SceneNode.world.subarray(g.hat * 16, g.hat * 16 + 16))
    run(g, 30, 50)
    // The game, meanwhile: a new entity with a Position, its hat moved (its own node's local).
    const bullet = addEntity(g.world)
    addComponent(g.world, bullet, Position)
    Position.y[bullet] = 7
    const nodes = g.plugin.stores.SceneNode
    g.plugin.restore(bytes)
    expect(entityExists(g.world, bullet)).toBe(true)
    expect(hasComponent(g.world, bullet, Position)).toBe(true)
    expect(Position.y[bullet]).toBe(7)
    expect(nodes.translation[g.hat * 3 + 1]).toBe(12)
    expect(nodes.parent[g.hat]).toBe(g.plugin.jointEntity(g.a, 'b_Head_05'))
    // Its world matrix follows the rewound head again, as it was at the snapshot.
    expect(Array.from(nodes.world.subarray(g.hat * 16, g.hat * 16 + 16))).toEqual(hatWorld)
  })

  it('refuses, changing nothing, when a game entity took an id the snapshot’s plugin needs', () => {
    const g = game()
    run(g, 0, 20)
    const bytes = g.plugin.snapshot()
    const b = g.b
    g.plugin.removeCharacter(b)
    run(g, 20, 25)
    // The game's next entity takes b's freed id (bitecs recycles the last removed first).
    const taken = addEntity(g.world)
    expect(taken).toBe(b)
    const hash = g.plugin.hash()
    const snapshot = g.plugin.snapshot()
    const dense = entityIndex(g.world).dense.slice()
    expect(() => g.plugin.restore(bytes)).toThrow(
      new RegExp(`needs entity ${b} for its character ${b}, and it is the game's now`),
    )
    expect(g.plugin.hash()).toBe(hash)
    expect(g.plugin.snapshot()).toEqual(snapshot)
    expect(entityIndex(g.world).dense).toEqual(dense)
    expect(entityExists(g.world, taken)).toBe(true)
    // Once the game gives the id back, the rewind works.
    removeEntity(g.world, taken)
    g.plugin.restore(bytes)
    expect(g.plugin.joints(b)).toHaveLength(fox.nodes.length)
  })

  it('refuses a snapshot of other assets, options, markers or version, changing nothing', () => {
    const g = game()
    run(g, 0, 25)
    const other = fresh()
    other.plugin.addMarker(other.plugin.addAsset(fox), 'Walk', 0.5, 'step')
    const marked = other.plugin.snapshot()
    const small = createAnimationPlugin(createWorld(), { capacity: 512 })
    small.addAsset(fox)
    small.addAsset(robot)
    const foxOnly = createAnimationPlugin(createWorld(), OPTIONS)
    foxOnly.addAsset(fox)
    const good = g.plugin.snapshot()
    const versioned = good.slice()
    versioned[4] = 4 // format version 4
    const cases: [Uint8Array, RegExp][] = [
      [marked, /asset 0's clip markers/],
      [small.snapshot(), /has capacity 512, this plugin 1024/],
      [foxOnly.snapshot(), /has 1 assets, this plugin 2/],
      [versioned, new RegExp(`format version 4; this build reads version ${SNAPSHOT_VERSION} only`)],
    ]
    run(g, 25, 30)
    const hash = g.plugin.hash()
    const bytes = g.plugin.snapshot()
    for (const [snapshot, message] of cases) {
      expect(() => g.plugin.restore(snapshot)).toThrow(message)
      expect(g.plugin.hash()).toBe(hash)
      expect(g.plugin.snapshot()).toEqual(bytes)
    }
  })

  it('checks forged snapshots fully before changing a running plugin (random edits)', () => {
    const g = game()
    run(g, 0, 40) // b lies in its ragdoll, a fades, r has layers
    const bytes = g.plugin.snapshot()
    run(g, 40, 45)
    const random = mulberry32(0x1ab)
    let refused = 0
    for (let n = 0; n < 60; n++) {
      const edits = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        const kind = (['u8', 'u32', 'f32', 'f64'] as const)[Math.floor(random() * 4)]!
        const value = [NaN, Infinity, -1, 0, 1e30, 7, 255, 0xffffffff][Math.floor(random() * 8)]!
        return { offset: 48 + Math.floor(random() * (bytes.length - 56)), kind, value }
      })
      const hash = g.plugin.hash()
      const before = g.plugin.snapshot()
      try {
        g.plugin.restore(forge(bytes, edits))
      } catch (error) {
        expect(error).toBeInstanceOf(AnimationError)
        expect(g.plugin.hash(), JSON.stringify(edits)).toBe(hash)
        expect(g.plugin.snapshot()).toEqual(before)
        refused++
        continue
      }
      // Restored: it steps on with finite world matrices, and rewinds again to the good snapshot.
      for (let k = 0; k < 5; k++) g.plugin.step()
      expect(g.plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
      g.plugin.restore(bytes)
    }
    expect(refused).toBeGreaterThan(10)
  })
})

describe('snapshotInto', () => {
  it('writes the bytes snapshot() gives, into any buffer long enough; a short one is refused', () => {
    const g = game()
    run(g, 0, 40)
    const bytes = g.plugin.snapshot()
    const buffer = new Uint8Array(bytes.length + 100)
    expect(g.plugin.snapshotInto(buffer)).toBe(bytes.length)
    expect(buffer.subarray(0, bytes.length)).toEqual(bytes)
    // A view that does not start at a multiple of 8 in its buffer.
    const odd = new Uint8Array(bytes.length + 8).subarray(3)
    expect(g.plugin.snapshotInto(odd)).toBe(bytes.length)
    expect(odd.subarray(0, bytes.length)).toEqual(bytes)
    const hash = g.plugin.hash()
    expect(() => g.plugin.snapshotInto(new Uint8Array(bytes.length - 8))).toThrow(
      new RegExp(`snapshotInto: the snapshot is ${bytes.length} bytes, the buffer ${bytes.length - 8}`),
    )
    expect(g.plugin.hash()).toBe(hash)
    expect(g.plugin.snapshot()).toEqual(bytes)
    // What it wrote restores.
    run(g, 40, 50)
    g.plugin.restore(buffer.subarray(0, bytes.length))
    expect(g.plugin.hash()).toBe(hash)
  })
})

describe('snapshotInto: memory', () => {
  it('allocates nothing in steady state: a ring of snapshots costs only the copy', () => {
    // Measured in a process of its own (test/helpers/snapshotAllocation.ts says why and how).
    const out = execFileSync(
      process.execPath,
      [...ALLOCATION_NODE_FLAGS, '--import', 'tsx', 'test/helpers/snapshotAllocation.ts'],
      { encoding: 'utf8', timeout: HANG_MS },
    )
    const { ring, copies } = JSON.parse(out) as Record<
      'ring' | 'copies',
      { bytesPerStep: number; windows: unknown[] }
    >
    // Zero bytes a call, in the smallest GC-free window of 200 snapshots of a crowd that plays, fades, has layers
    // and lies in a ragdoll: anything a snapshot allocated (a boxed float, an iterator, a view) shows in every window.
    expect(ring.bytesPerStep, `windows ${JSON.stringify(ring.windows)}`).toBe(0)
    // The control: snapshot() allocates its result (and the measurement sees it).
    expect(copies.bytesPerStep).toBeGreaterThan(64)
  })
})
