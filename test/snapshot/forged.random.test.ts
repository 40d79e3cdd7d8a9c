/**
 * Forged snapshots: real snapshots edited at known offsets with their checksum recomputed (test/helpers/
 * forge.ts), so only restore's value checks (snapshot/read.ts) stand between the edit and the simulation.
 * A forged snapshot must either be refused — AnimationError('snapshot') naming the section, the entity, the
 * field and the value, with the target plugin and world left fresh (the good snapshot then restores into them) —
 * or restore into a state that steps without a throw and keeps every world matrix finite.
 *
 * Here: random forgeries, seeded (FORGE_RUNS, FORGE_SEED).
 * Setup: test/helpers/forgedScene.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { mulberry32 } from '../../scripts/random.ts'
import { formatValue } from '../../src/sim/valueChecks.ts'
import { forge, type Edit } from '../helpers/forge.ts'
import {
  type Scene,
  fresh,
  entityIndex,
  restoreError,
  scene,
  pristine,
  buildScene,
} from '../helpers/forgedScene.ts'

beforeAll(buildScene)

/** Forged snapshots in the random test, and its seed (FORGE_RUNS=3000 for the long run, FORGE_SEED=n for others). */
const RUNS = Number(process.env.FORGE_RUNS ?? 500)
const SEED = Number(process.env.FORGE_SEED ?? 0x5eed)
const STEPS_AFTER = 30

describe('forged snapshots (checksum recomputed)', () => {
  it(
    `random forgeries (${RUNS} snapshots, 1–4 edits each): refused unchanged, or stepping finite`,
    () => {
      const { rejected, accepted, failures } = forgeRandomly(scene, RUNS, SEED)
      console.log(`forged snapshots (seed ${SEED}): ${rejected} rejected, ${accepted} accepted (of ${RUNS})`)
      expect(failures).toEqual([])
      expect(rejected + accepted).toBe(RUNS)
    },
    // ~15 s on a quiet 2-core machine; 40 s seen with four other jobs on it.
    Math.max(120_000, 200 * RUNS),
  )
})

const FLOATS = [NaN, Infinity, -Infinity, 1e38, -1e38, 3.4e38, 1e9, 1e10, 2 ** 31, 2 ** 53, 1e300, -1e300]
FLOATS.push(-1, 0, -0, 1, 1e-45)
const INTS = [0, 1, 2, 7, 255, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 2 ** 24]

/** The float fields the simulation reads (node records, pose blocks, body motion, shape sizes), for aimed edits. */
function floatFields(s: Scene): { offset: number; kind: 'f32' | 'f64' }[] {
  const out: { offset: number; kind: 'f32' | 'f64' }[] = []
  for (const node of s.map.nodes.values()) {
    for (const [at, n] of [
      [node.translation, 3],
      [node.rotation, 4],
      [node.scale, 3],
      [node.world, 16],
    ] as const) {
      if (at >= 0) for (let k = 0; k < n; k++) out.push({ offset: at + 4 * k, kind: 'f32' })
    }
  }
  for (const c of s.map.characters.values()) {
    for (const at of c.pose)
      if (at >= 0) for (let k = 0; k < c.count * 10; k++) out.push({ offset: at + 4 * k, kind: 'f32' })
  }
  for (const rd of s.map.ragdolls.values()) {
    for (const body of rd.bodies) {
      for (let k = 0; k < 13; k++) out.push({ offset: body.position + 8 * k, kind: 'f64' })
      for (const shape of body.shapes) out.push({ offset: shape.size, kind: 'f64' })
    }
  }
  return out
}

/**
 * One random edit: a random byte anywhere, a special int or float at any offset, or a special or random float
 * in a float field the simulation reads.
 */
function randomEdit(random: () => number, length: number, fields: ReturnType<typeof floatFields>): Edit {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  const roll = random()
  if (roll < 0.3)
    return { offset: Math.floor(random() * length), kind: 'u8', value: Math.floor(random() * 256) }
  if (roll < 0.45) return { offset: Math.floor(random() * (length - 3)), kind: 'u32', value: pick(INTS) }
  if (roll < 0.65) {
    const kind = random() < 0.5 ? 'f32' : 'f64'
    return { offset: Math.floor(random() * (length - 7)), kind, value: pick(FLOATS) }
  }
  const value = random() < 0.8 ? pick(FLOATS) : (random() - 0.5) * 2 ** (random() * 80 - 20)
  return { ...pick(fields), value }
}

/**
 * `runs` forged copies of the scene's snapshot, each restored into a fresh plugin: refused, it must leave the
 * plugin fresh and then take the good snapshot; restored, it must step STEPS_AFTER times without a throw, every
 * world matrix element finite after each step. Stops at 5 failures, each described with its edits.
 */
function forgeRandomly(s: Scene, runs: number, seed: number) {
  const random = mulberry32(seed)
  const fields = floatFields(s)
  const failures: string[] = []
  let rejected = 0
  let accepted = 0
  for (let run = 0; run < runs && failures.length < 5; run++) {
    const edits = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
      randomEdit(random, s.bytes.length, fields),
    )
    const what = `run ${run}, edits ${JSON.stringify(edits, (_, v) => (typeof v === 'number' ? formatValue(v) : v))}`
    const target = fresh()
    try {
      const error = restoreError(target.plugin, forge(s.bytes, edits))
      if (error) {
        rejected++
        if (target.plugin.hash() !== pristine || entityIndex(target.world).maxId !== 0) {
          throw new Error(`refused (${error.message}), but the target changed`)
        }
        target.plugin.restore(s.bytes)
        continue
      }
      accepted++
      for (let k = 1; k <= STEPS_AFTER; k++) {
        target.plugin.step()
        const world = target.plugin.stores.SceneNode.world
        const bad = world.findIndex((x) => !Number.isFinite(x))
        if (bad >= 0)
          throw new Error(`restored, then after step ${k} world matrix element ${bad} is ${world[bad]}`)
      }
    } catch (e) {
      failures.push(`${what}: ${(e as Error).message}`)
    }
  }
  return { rejected, accepted, failures }
}
