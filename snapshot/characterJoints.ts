import type { AnimationContext } from '../plugin/context.ts'
import { equalWords } from '../src/sim/byteStream.ts'
import { snapshotError } from '../src/sim/valueChecks.ts'
import type { EntitiesData } from './entities.ts'
import type { CharacterStructure } from './memo.ts'
import type { NodesData } from './readNodes.ts'

/** The characters section's joint lists (readCharacters.ts): compared with the structure memo's, and checked. */

/**
 * Whether character i's n joints as the snapshot lists them (`ints` from byte `jointsAt`, or the run after `eid`
 * when jointsAt is -1) are the memo's character i's.
 */
export function sameJoints(
  known: CharacterStructure,
  i: number,
  ints: Int32Array,
  jointsAt: number,
  eid: number,
  n: number,
): boolean {
  if (i >= known.n.length || known.n[i] !== n) return false
  const at = known.jointsFrom[i]!
  if (jointsAt >= 0) return equalWords(ints, jointsAt >>> 2, known.joints, at, n)
  for (let j = 0; j < n; j++) if (known.joints[at + j] !== eid + 1 + j) return false
  return true
}

/** Character i's joints (`list[from .. from + n)`): alive scene nodes below capacity, each one character's. */
export function checkJoints(
  ctx: AnimationContext,
  where: string,
  i: number,
  n: number,
  list: Int32Array,
  from: number,
  entities: EntitiesData,
  nodes: NodesData,
  eids: Int32Array,
  jointOf: Int32Array,
): void {
  for (let j = 0; j < n; j++) {
    const e = list[from + j]!
    if (e === 0) continue
    if (!(e >= 1 && e <= entities.maxId && entities.isAlive[e] === 1 && e < ctx.capacity)) {
      throw snapshotError(
        `${where}, joint ${j}: entity ${e} is not an alive id below capacity ${ctx.capacity}`,
      )
    }
    if (nodes.position[e] === 0) throw snapshotError(`${where}, joint ${j}: entity ${e} is not a scene node`)
    if (jointOf[e] !== 0) {
      throw snapshotError(
        `${where}, joint ${j}: entity ${e} is already a joint of character ${eids[jointOf[e]! - 1]}`,
      )
    }
    jointOf[e] = i + 1
  }
}
