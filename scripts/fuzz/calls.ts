/**
 * Random call sequences: from a seed (mulberry32), `count` public calls of a plugin holding the case's asset,
 * each argument either a value that makes sense (a character, a joint name, a clip, a duration) or any
 * JavaScript value (null, a Symbol, a BigInt, NaN, a Proxy whose traps throw, a getter that answers
 * differently each time it is read, an object of the wrong shape), with steps in between. Every failed call
 * must throw an AnimationError and change neither hash() nor snapshot(); no step throws; every world matrix
 * stays finite; and the snapshot of whatever state the sequence leaves restores into a fresh plugin, which then
 * steps on with the same hash. The sequence is a function of the seed and the asset, so a seed replays it.
 */
import { createWorld } from 'bitecs'
import { mulberry32 } from '../random.ts'
import { createAnimationPlugin, type AnimationAsset, type AnimationPlugin } from '../../entry/index.ts'
import { drawCall, type Call, type World } from './draw.ts'
import { freshPlugin, Judge, type RunReport } from './judge.ts'
import { capacityFor } from './pipeline.ts'

export interface CallsReport extends RunReport {
  /** The calls as made, with what each did ('ok', or the AnimationError's kind). */
  log: string[]
  ok: number
  refused: number
}

/** Runs `count` random calls (steps not counted) on a fresh plugin holding the asset and one character. */
export function runCalls(asset: AnimationAsset, seed: number, count: number): CallsReport {
  const judge = new Judge()
  judge.stage = 'calls'
  const random = mulberry32(seed)
  const log: string[] = []
  let ok = 0
  let refused = 0
  // Room for a few characters; for a big rig one more (every call is observed: a snapshot per character).
  const options = { capacity: capacityFor(asset.nodes.length, asset.nodes.length > 1000 ? 2 : 4) }
  const made = judge.call(null, 'createAnimationPlugin', () => createAnimationPlugin(createWorld(), options))
  if (!made[0]) return { ...judge.report(), log, ok, refused }
  const plugin = made[1]
  const w: World = { plugin, asset, handle: null, characters: [], snapshots: [] }
  const added = judge.call(plugin, 'addCharacter(asset)', () => plugin.addCharacter(asset))
  if (added[0]) w.characters.push(added[1])
  for (let made = 0; made < count && judge.faults.length === 0;) {
    let call: Call
    try {
      call = drawCall(random, w)
    } catch (error) {
      // Drawing reads the plugin (snapshot()); a failure there is the plugin's, not the draw's.
      judge.fault('error', `preparing a call threw ${String(error)}`)
      break
    }
    if (call.text === 'step()') {
      judge.step(plugin, `step after ${log.length} calls`)
      log.push('step()')
      continue
    }
    made++
    const refusalsBefore = judge.refusals.length
    const [success] = judge.call(plugin, call.text, call.run)
    if (success) ok++
    else if (judge.refusals.length > refusalsBefore) refused++
    log.push(
      `${call.text} → ${success ? 'ok' : (judge.refusals[judge.refusals.length - 1]?.kind ?? 'FAULT')}`,
    )
  }
  // Steps after the last call: what the calls left must still step.
  for (let i = 0; i < 3 && judge.faults.length === 0; i++) judge.step(plugin, `final step ${i + 1}`)
  // And whatever state they left, the plugin's own snapshot of it restores: the same hash, stepping alike.
  if (added[0] && judge.faults.length === 0) restoresItself(judge, plugin, asset, options)
  return { ...judge.report(), log, ok, refused }
}

/**
 * Restores the plugin's snapshot into a fresh plugin holding the asset: refused, or a hash other than the
 * original's, after the restore or after either of two steps both take, is a `diverged` fault.
 */
function restoresItself(
  judge: Judge,
  plugin: AnimationPlugin,
  asset: AnimationAsset,
  options: { capacity: number },
): void {
  const taken = judge.call(plugin, 'snapshot() after the calls', () => plugin.snapshot())
  if (!taken[0]) return
  const copy = freshPlugin(judge, asset, options)
  if (!copy) return
  if (!judge.call(copy, 'restore(its snapshot)', () => copy.restore(taken[1]))[0]) {
    const last = judge.refusals[judge.refusals.length - 1]
    judge.fault('diverged', `a fresh plugin refused the snapshot the calls left: ${last?.message ?? '?'}`)
    return
  }
  for (let i = 0; i <= 2; i++) {
    if (i > 0 && !(judge.step(copy, `restored step ${i}`) && judge.step(plugin, `original step ${i}`))) return
    const [copied, original] = [judge.hash(copy), judge.hash(plugin)]
    if (copied !== original) {
      judge.fault('diverged', `${i} steps after the restore: hash ${copied}, the original ${original}`)
      return
    }
  }
}
