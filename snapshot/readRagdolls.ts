import { AnimationError } from '../src/errors.ts'
import { MAX_RAGDOLL_BODIES, type ResolvedBody } from '../src/physics/description.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext, RegisteredAsset } from '../plugin/context.ts'
import type { Reader } from '../src/sim/byteStream.ts'
import {
  checkChoice,
  checkFinite,
  checkFlags,
  checkPositive,
  checkRange,
  checkUnit,
  invalidValue,
  snapshotError,
} from '../src/sim/valueChecks.ts'
import type { ReadBodies } from '../src/physics/api.ts'
import { mergeRoots, partialBodies } from '../src/physics/subtrees.ts'
import { defaultDescription } from '../plugin/ragdolls.ts'
import {
  BODY_AXIS,
  BODY_NUMBER_COUNT,
  bodyOf,
  checkBodyNumbers,
  FLAG_BODIES,
  FLAG_DEFAULT_DESCRIPTION,
  FLAG_JOINT_WEIGHTS,
  FLAG_MOTORS,
  FLAG_PARTIAL,
  FLAG_RECOVERS,
  FLAG_REPLACED,
  RAGDOLL_FLAG_BITS,
  sameDescription,
} from './ragdollFields.ts'

import type { CharactersData } from './readCharacters.ts'

/** Restore's reading of the ragdolls (snapshot/read.ts runs it): descriptions, bodies, states, all checked. */

export interface RagdollData {
  eid: number
  flags: number
  /** The description, or null for the asset's default. */
  bodies: ResolvedBody[] | null
  /** A partial ragdoll's subtree roots (joint indices), [] for a whole-body one. */
  subtrees: number[]
  impulses: { joint: number; impulse: readonly [number, number, number] }[]
  /** Per-joint weights (RagdollRuntime.jointWeights), null for none. */
  jointWeights: { weights: number[]; targets: number[] } | null
  /** A hit reaction's recovery rate (RagdollRuntime.recoverRate), 0 for none. */
  recoverRate: number
  /** Motors (RagdollRuntime.motors) and, with bodies, each constraint's centred flag and limit centre (5 each). */
  motors: { holdRoot: boolean; strength: number[]; references: number[] | null } | null
  /** Byte offset of the read-back joint world transforms, -1 when the bodies do not exist. */
  world: number
  instance: ReadBodies | null
  /** The larger ragdoll that replaces it in the next step (RagdollRuntime.next), null for none. */
  next: { subtrees: number[]; impulses: RagdollData['impulses']; recoverRate: number } | null
}

export function readRagdolls(ctx: AnimationContext, r: Reader, characters: CharactersData): RagdollData[] {
  const out: RagdollData[] = []
  const seen = new Set<number>()
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const flags = r.u8()
    const where = `section "ragdolls", ragdoll of ${eid}`
    const c = eid < characters.position.length ? characters.position[eid]! - 1 : -1
    if (c < 0) throw snapshotError(`${where}: entity ${eid} is not a character`)
    if (seen.has(eid)) throw snapshotError(`${where}: listed twice`)
    seen.add(eid)
    checkFlags(where, 'flags', flags, RAGDOLL_FLAG_BITS)
    const n = characters.n[c]!
    const assetId = characters.asset[c]!
    let bodies: ResolvedBody[] | null = null
    let description: readonly ResolvedBody[]
    if ((flags & FLAG_DEFAULT_DESCRIPTION) === 0) {
      bodies = readDescription(ctx, r, where, assetId)
      description = bodies
    } else {
      try {
        description = defaultDescription(ctx, assetId)
      } catch (error) {
        if (!(error instanceof AnimationError)) throw error
        throw snapshotError(`${where}: its asset has no default ragdoll description (${error.message})`)
      }
    }
    const asset = ctx.assets[assetId]!
    const subtrees =
      (flags & FLAG_PARTIAL) !== 0 ? readRoots(r, `${where}, subtree roots`, n, asset, false) : []
    const inUse = partialBodies(description, subtrees, asset.nodeJoint, asset.jointParents)
    if (inUse.length === 0) {
      throw invalidValue(where, 'subtree roots', subtrees, 'carry no body of its description')
    }
    const impulses = readHits(r, where, n)
    r.align(8)
    let jointWeights: RagdollData['jointWeights'] = null
    if ((flags & FLAG_JOINT_WEIGHTS) !== 0) {
      const weights = r.f64s(n)
      const targets = r.f64s(n)
      for (let j = 0; j < n; j++) {
        checkRange(`${where}, joint ${j}`, 'weight', weights[j]!, 0, 1)
        checkRange(`${where}, joint ${j}`, 'target weight', targets[j]!, 0, 1)
      }
      jointWeights = { weights, targets }
    }
    const recoverRate = (flags & FLAG_RECOVERS) !== 0 ? r.f64() : 0
    if ((flags & FLAG_RECOVERS) !== 0) checkPositive(where, 'recovery rate', recoverRate)
    let motors: RagdollData['motors'] = null
    if ((flags & FLAG_MOTORS) !== 0) {
      const strength = r.f64s(n)
      strength.forEach((x, j) => checkRange(`${where}, joint ${j}`, 'motor strength', x, 0, 100))
      const hold = r.u8()
      checkChoice(where, 'motors hold root', hold, [0, 1])
      r.align(8)
      motors = { holdRoot: hold === 1, strength, references: null }
    }
    let world = -1
    let instance: ReadBodies | null = null
    if ((flags & FLAG_BODIES) !== 0) {
      world = r.span(8 * n * WORLD_STRIDE)
      // Positions and scales are taken as they are, ±∞ and NaN included: they are an output of the last step
      // (the next one rewrites them, parents first, before reading any), read before that only by a hit at a
      // joint, where a non-finite one makes a non-finite body that the next step reports as an explosion. The
      // plugin holds such values itself: a chain scaled 1e5 a node overflows float64 2,000 nodes down.
      const d = r.doubles
      for (let j = 0; j < n; j++) {
        const o = (world >>> 3) + j * WORLD_STRIDE + 3
        const q = d[o]! * d[o]! + d[o + 1]! * d[o + 1]! + d[o + 2]! * d[o + 2]! + d[o + 3]! * d[o + 3]!
        if (!(q >= 0.25 && q <= 4)) checkUnit(`${where}, read-back joint ${j}`, 'world rotation', d, o)
      }
      // A live instance of the same description may be kept (its static bytes compared: readInstance).
      const current = ctx.ragdolls[eid]
      const fallback = defaultDescription(ctx, assetId)
      const same =
        current !== undefined &&
        (bodies === null
          ? current.description === fallback
          : current.description !== fallback && sameDescription(current.description, bodies))
      // Each top body of a partial ragdoll hangs from an anchor following its joint's parent joint.
      const anchors =
        subtrees.length > 0
          ? inUse.filter((b) => b.parentBody < 0).map((b) => asset.jointParents[asset.nodeJoint[b.node]!]!)
          : null
      instance = ctx.physics.readBodies(r, where, inUse, anchors, same ? current.instance : null)
      if (impulses.length > 0) {
        throw invalidValue(
          where,
          'queued hits',
          impulses.length,
          'must be 0 once the bodies exist (hits apply at once)',
        )
      }
    }
    if (instance && motors) {
      const references: number[] = []
      for (let k = 0; k < instance.constraintCount; k++) {
        const q = r.f64s(4)
        const centred = r.u8()
        r.align(8)
        checkChoice(`${where}, constraint ${k}`, 'centred', centred, [0, 1])
        checkUnit(`${where}, constraint ${k}`, 'limit centre', q)
        references.push(centred, ...q)
      }
      motors.references = references
    }
    let next: RagdollData['next'] = null
    if ((flags & FLAG_REPLACED) !== 0) {
      const at = `${where}, its replacement`
      if (!instance) throw snapshotError(`${at}: only a ragdoll with bodies is replaced in the next step`)
      const roots = readRoots(r, `${at}, subtree roots`, n, asset, true)
      const merged = mergeRoots(subtrees, roots, asset.jointParents)
      if (merged.length !== roots.length || merged.some((j, k) => j !== roots[k]) || same(roots, subtrees)) {
        throw invalidValue(at, 'subtree roots', roots, 'must cover more than the ragdoll it replaces')
      }
      const hits = readHits(r, at, n)
      r.align(8)
      const rate = r.f64()
      checkRange(at, 'recovery rate', rate, 0, Number.MAX_VALUE)
      next = { subtrees: roots, impulses: hits, recoverRate: rate }
    }
    out.push({
      eid,
      flags,
      bodies,
      subtrees,
      impulses,
      jointWeights,
      recoverRate,
      motors,
      world,
      instance,
      next,
    })
  }
  return out
}

/**
 * Subtree roots: u16 count × u16 joint, each a joint of the character's, ascending, none at or under another;
 * `whole`: none (the whole body) allowed.
 */
function readRoots(r: Reader, at: string, n: number, asset: RegisteredAsset, whole: boolean): number[] {
  const roots: number[] = []
  for (let k = r.u16(); k > 0; k--) roots.push(r.u16())
  if (roots.length === 0 && !whole) throw invalidValue(at, 'count', 0, 'a partial ragdoll has at least one')
  roots.forEach((j, k) => {
    if (j >= n) throw invalidValue(at, `root ${k}`, j, `the character has joints 0..${n - 1}`)
  })
  if (!same(mergeRoots(roots, roots, asset.jointParents), roots)) {
    throw invalidValue(at, 'roots', roots, 'must be ascending, none at or under another')
  }
  return roots
}

function same(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k])
}

/** Queued hits: u16 count × (u16 joint, f64×3 impulse), joints of the character's, impulses finite. */
function readHits(r: Reader, where: string, n: number): RagdollData['impulses'] {
  const impulses: RagdollData['impulses'] = []
  for (let k = r.u16(); k > 0; k--) {
    const at = `${where}, queued hit ${impulses.length}`
    const joint = r.u16()
    const v = r.f64s(3)
    if (joint >= n) throw invalidValue(at, 'joint', joint, `the character has joints 0..${n - 1}`)
    checkFinite(at, 'impulse', v)
    impulses.push({ joint, impulse: [v[0]!, v[1]!, v[2]!] })
  }
  return impulses
}

/**
 * A ragdoll description stored in the snapshot: what resolveRagdollDescription accepts (joints of the asset,
 * each once, parents first (each body's parent body listed before it); sizes, mass, axis, limits in
 * range). A capsule of any length and radius: spawnRagdoll builds at most MAX_BODY_SHAPES (8) shapes of
 * it, which a body's shape count (a byte in the format) holds.
 */
function readDescription(ctx: AnimationContext, r: Reader, where: string, assetId: number): ResolvedBody[] {
  const asset = ctx.assets[assetId]!
  const bodies: ResolvedBody[] = []
  const bodyOfNode = new Map<number, number>()
  const count = r.u16()
  if (count === 0) throw invalidValue(where, 'description bodies', 0, 'a description has at least one')
  if (count > MAX_RAGDOLL_BODIES) {
    throw invalidValue(where, 'description bodies', count, `a description has at most ${MAX_RAGDOLL_BODIES}`)
  }
  for (let b = 0; b < count; b++) {
    const at = `${where}, description body ${b}`
    const node = r.i32()
    const shapeIndex = r.u8()
    const parentBody = r.i32()
    const v = r.f64s(BODY_NUMBER_COUNT)
    const joint = node >= 0 && node < asset.nodeJoint.length ? asset.nodeJoint[node]! : -1
    if (joint < 0) throw invalidValue(at, 'node', node, `is not a joint of ${asset.asset.source}`)
    if (bodyOfNode.has(node)) throw invalidValue(at, 'node', node, `already has body ${bodyOfNode.get(node)}`)
    checkChoice(at, 'shape', shapeIndex, [0, 1])
    checkBodyNumbers(at, v)
    checkUnit(at, 'axis', v, BODY_AXIS, 3)
    // Parents first: the body it hangs from is listed before it (its description's `parent`, or its
    // nearest ancestor's body).
    checkRange(at, 'parentBody', parentBody, -1, b - 1)
    bodyOfNode.set(node, b)
    bodies.push(bodyOf(node, shapeIndex, parentBody, v))
  }
  return bodies
}

/**
 * A character's Ragdoll entry against its runtime: a ragdoll that is on has a runtime (stepRagdolls reads it),
 * the handle is the character's own id exactly when it has one, bodies exist only while it is on, and a
 * ragdoll spawning on the next step gets non-negative sizes.
 */
export function checkRagdollStates(characters: CharactersData, ragdolls: RagdollData[]): void {
  const runtime = new Map(ragdolls.map((rd) => [rd.eid, rd]))
  for (let i = 0; i < characters.count; i++) {
    const eid = characters.eids[i]!
    const where = `section "characters", character ${eid}`
    const rd = runtime.get(eid)
    const active = characters.ragdollActive[i]!
    const handle = characters.ragdollHandle[i]!
    if (active !== RAGDOLL_OFF && !rd) {
      throw invalidValue(
        where,
        'Ragdoll.active',
        active,
        'a ragdoll that is on needs its runtime, and the ragdolls section has none',
      )
    }
    const own = rd ? eid : -1
    if (handle !== own) {
      throw invalidValue(
        where,
        'Ragdoll.handle',
        handle,
        `must be ${own} (${rd ? 'the character: it has a ragdoll runtime' : 'it has no ragdoll runtime'})`,
      )
    }
    if (rd?.instance && active === RAGDOLL_OFF) {
      throw invalidValue(
        where,
        'Ragdoll.active',
        active,
        'its ragdoll has bodies, so it must be falling (1) or getting up (2)',
      )
    }
  }
}
