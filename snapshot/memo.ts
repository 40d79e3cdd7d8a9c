import { equalWords } from '../src/sim/byteStream.ts'
import type { AnimationContext } from '../plugin/context.ts'
import type { EntitiesData } from './entities.ts'
import type { CharactersData } from './readCharacters.ts'
import type { StructurePlan } from './structure.ts'

/**
 * What a restore remembers of the structure it last read, so that the next restore of a snapshot with the same
 * structure (a rollback's, every frame) neither checks it again nor plans its entities again.
 *
 * Reading: the entities section and the nodes section's ids and parents are pure functions of their bytes (and
 * of the plugin's capacity, fixed): when a snapshot's words there equal those last read, what was read from them
 * (and checked) is taken as it is. The characters' ids, assets, joint counts and joints are checked against the
 * entities and nodes read: when those are the memo's objects and a character's are the memo's, its checks (ids
 * alive, scene nodes, each joint one character's) hold as they did; at the first character that differs, the
 * rest are checked as before. That each node's local transform is stored once (in the nodes section, or as its
 * character's ANIM) is checked once for the same structure, runs of stored locals and characters whose ANIM the
 * locals are. A snapshot that differs in any bit of these is read and checked anew, so a forged one is refused as
 * before; every value (the rest of the snapshot) is checked on every restore.
 *
 * Planning: a plan that found the plugin's entities and scene links to be the snapshot's ("same": nothing to
 * make, remove or relink) holds again while the plugin's structure has not changed since and the snapshot's is
 * that plan's: the same node and character structure read (the objects above), the plugin's characters now the
 * snapshot's in its order, and the scene graph's `version` unchanged (it counts every node added or removed and
 * every parent changed, the game's included; a character is made and removed with its nodes, and a game that
 * removes a joint's entity removes its node). A plan that changes anything is never kept.
 */
export interface StructureMemo {
  /** The entities section's body as last read, and what was read from it. */
  entitiesBytes: Int32Array
  entities: EntitiesData | null
  /** The nodes section's ids and parents (its first words, through the parent column) as last read. */
  nodeBytes: Int32Array
  nodes: NodeStructure | null
  /** The entities read that `nodes` was checked against. */
  nodesEntities: EntitiesData | null
  /** The characters' ids, assets, joint counts and joints as last read and checked. */
  characters: CharacterStructure | null
  /** Where the nodes' locals came from in the last snapshot whose sources were checked (read.ts checkLocals). */
  locals: LocalSources | null
  /** The last "same" plan and what it was made from. */
  plan: StructurePlan | null
  planVersion: number
  planNodes: NodeStructure | null
  planCharacters: CharacterStructure | null
}

/** What of the characters section a restore's entities depend on (readCharacters.ts), checked with `entities`, `nodes`. */
export interface CharacterStructure {
  readonly entities: EntitiesData | null
  readonly nodes: NodeStructure | null
  readonly eids: Int32Array
  /** Per id ≤ the snapshot's maxId: its position + 1 as a character, 0 for none. */
  readonly position: Int32Array
  readonly asset: Int32Array
  readonly n: Int32Array
  readonly jointsFrom: Int32Array
  readonly joints: Int32Array
}

/** The nodes section's runs of stored locals and, per character, its CHARACTER_ANIM_IS_LOCALS bit. */
export interface LocalSources {
  readonly nodes: NodeStructure
  readonly characters: CharacterStructure
  readonly runs: Uint32Array
  readonly anim: Uint8Array
}

/** The nodes section's structure: node ids ascending, their parents, and each id's position + 1 (0: no node). */
export interface NodeStructure {
  readonly count: number
  readonly ids: Int32Array
  readonly parents: Int32Array
  readonly position: Int32Array
}

const memos = new WeakMap<AnimationContext, StructureMemo>()

export function structureMemo(ctx: AnimationContext): StructureMemo {
  let m = memos.get(ctx)
  if (m === undefined) {
    m = {
      entitiesBytes: new Int32Array(0),
      entities: null,
      nodeBytes: new Int32Array(0),
      nodes: null,
      nodesEntities: null,
      characters: null,
      locals: null,
      plan: null,
      planVersion: -1,
      planNodes: null,
      planCharacters: null,
    }
    memos.set(ctx, m)
  }
  return m
}

/** Whether words [at, at + kept.length) of `words` are `kept`'s. */
export function sameWords(words: Int32Array, at: number, kept: Int32Array, length: number): boolean {
  return kept.length === length && at + length <= words.length && equalWords(words, at, kept, 0, length)
}

/**
 * The kept "same" plan, if it holds for this snapshot (read as `nodes` and `chars`) and the plugin's characters
 * now (`current`, the systems' query), else null.
 */
export function keptPlan(
  m: StructureMemo,
  ctx: AnimationContext,
  nodes: NodeStructure,
  chars: CharactersData,
  current: readonly number[],
): StructurePlan | null {
  if (m.plan === null || m.planVersion !== ctx.sceneGraph.version) return null
  if (m.planNodes !== nodes || m.planCharacters !== chars.structure) return null
  if (current.length !== chars.count) return null
  for (let i = 0; i < chars.count; i++) if (current[i] !== chars.eids[i]) return null
  return m.plan
}

/** Keeps `plan` when it is "same" (see StructureMemo), with what it was made from; forgets any other. */
export function keepPlan(
  m: StructureMemo,
  ctx: AnimationContext,
  plan: StructurePlan,
  nodes: NodeStructure,
  chars: CharactersData,
): void {
  m.plan = plan.same ? plan : null
  m.planVersion = ctx.sceneGraph.version
  m.planNodes = nodes
  m.planCharacters = chars.structure
}
