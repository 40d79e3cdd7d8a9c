import type { AnimationContext } from '../plugin/context.ts'
import type { CharacterDatum, SnapshotCharacters } from '../plugin/characterData.ts'
import { checkGraph } from '../plugin/graphCheck.ts'
import { graphPlan, type PlannedGraph } from '../plugin/graphCompile.ts'
import { adoptBlendSpaces, attachGraph } from '../plugin/graphs.ts'
import { copyInto, type Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkFinite, checkRange, invalidValue, snapshotError } from '../src/sim/valueChecks.ts'
import {
  PARAM_BOOL,
  PARAM_INT,
  PARAM_TRIGGER,
  RUN_CURRENT,
  RUN_CURRENT_STEPS,
  RUN_FLOATS,
  RUN_INTS,
  RUN_NEXT,
  RUN_NEXT_STEPS,
  RUN_TRANSITION,
  RUN_TRANSITION_STEPS,
} from '../systems/graphState.ts'
import { decoder } from '../snapshot/format.ts'

/**
 * A character's state machine (GraphRun, systems/graphState.ts): none until setGraph gives it one; hash() covers
 * its graph's text, parameters, pending triggers and where each layer is. The calls are plugin/graphs.ts's.
 */
export const graphsDatum: CharacterDatum<GraphData[]> = {
  name: 'graph',
  attach(ctx, eid) {
    ctx.graphs[eid] = undefined
  },
  release(ctx, eid) {
    ctx.graphs[eid] = undefined
  },
  hash(h, ctx, eid) {
    const run = ctx.graphs[eid]
    if (run)
      h.update((run.plan as PlannedGraph).bytes)
        .update(run.params)
        .update(run.triggers)
        .update(run.i)
        .update(run.f)
  },
  snapshot: { tag: 'GRPH', name: 'graphs', write: writeGraphs, read: readGraphs, apply: applyGraphs },
}

/**
 * The snapshot's GRPH section (state machines, after RMOT):
 *
 *   u32 graphs × (u32 asset id, u32 byte length, the graph's canonical JSON as UTF-8, zeros to a multiple of 4),
 *     each graph a character below runs, in the order first met
 *   u32 count × (u32 eid, u32 graph, zeros to a multiple of 8, f64[parameters] values, f64[layers·RUN_FLOATS],
 *     i32[layers·RUN_INTS] (systems/graphState.ts), u8[parameters] pending triggers, zeros to a multiple of 4),
 *     the characters with a graph in the characters section's order
 *
 * A restore compiles each graph again from its text (the same plan a setGraph of it makes) and makes the runs'
 * blend spaces on the restored layers. Allocates nothing when written (snapshotInto).
 */

/** Counts snapshots written, so each lists a graph once (PlannedGraph.listed). */
let listing = 0

export function writeGraphs(ctx: AnimationContext, w: Writer, characters: readonly number[]): void {
  const stamp = ++listing
  const graphsAt = w.at()
  w.u32(0)
  let graphs = 0
  let count = 0
  for (let k = 0; k < characters.length; k++) {
    const run = ctx.graphs[characters[k]!]
    if (run === undefined) continue
    count++
    const plan = run.plan as PlannedGraph
    if (plan.listed === stamp) continue
    plan.listed = stamp
    plan.listedAt = graphs++
    w.u32(plan.asset)
    w.u32(plan.bytes.length)
    w.raw(plan.bytes, 0, plan.bytes.length)
    w.align(4)
  }
  w.setU32(graphsAt, graphs)
  w.u32(count)
  for (let k = 0; k < characters.length; k++) {
    const eid = characters[k]!
    const run = ctx.graphs[eid]
    if (run === undefined) continue
    w.u32(eid)
    w.u32((run.plan as PlannedGraph).listedAt)
    w.align(8)
    w.raw(run.params, 0, run.params.length)
    w.raw(run.f, 0, run.f.length)
    w.raw(run.i, 0, run.i.length)
    w.raw(run.triggers, 0, run.triggers.length)
    w.align(4)
  }
}

export interface GraphData {
  eid: number
  plan: PlannedGraph
  params: Float64Array
  f: Float64Array
  i: Int32Array
  triggers: Uint8Array
}

/**
 * Reads and checks the GRPH section: each graph checked and compiled as setGraph would (its text canonical, its
 * clips and joints on its asset), each run's character of that asset, its parameters of their types, its
 * states, transitions and steps in range. Changes nothing (a compiled graph is kept for the next setGraph or
 * restore of it). A layer a graph plays on that the snapshot lacks (or made too small for its blend spaces) is
 * not refused here: the graph then leaves it alone (plugin/graphPlayback.ts).
 */
export function readGraphs(ctx: AnimationContext, r: Reader, characters: SnapshotCharacters): GraphData[] {
  const plans: PlannedGraph[] = []
  for (let g = r.u32(); g > 0; g--) {
    const where = `section "graphs", graph ${plans.length}`
    const asset = r.u32()
    checkRange(where, 'asset', asset, 0, ctx.assets.length - 1)
    const length = r.u32()
    const from = r.span(length)
    r.align(4)
    const text = decoder.decode(r.bytes.subarray(from, from + length))
    let plan: PlannedGraph
    try {
      plan = graphPlan(ctx, asset, checkGraph(JSON.parse(text), 'restore'), 'restore')
    } catch (error) {
      throw snapshotError(`${where}: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (plan.text !== text) throw snapshotError(`${where}: its text is not a graph's canonical form`)
    plans.push(plan)
  }
  const out: GraphData[] = []
  const seen = new Set<number>()
  for (let count = r.u32(); count > 0; count--) {
    const eid = r.u32()
    const where = `section "graphs", character ${eid}`
    const c = eid < characters.position.length ? characters.position[eid]! - 1 : -1
    if (c < 0 || seen.has(eid))
      throw snapshotError(`${where}: not a character of the snapshot, or listed twice`)
    seen.add(eid)
    const g = r.u32()
    checkRange(where, 'graph', g, 0, plans.length - 1)
    const plan = plans[g]!
    if (plan.asset !== characters.asset[c]) {
      throw invalidValue(
        where,
        'graph',
        g,
        `is compiled for asset ${plan.asset}, the character is of ${characters.asset[c]}`,
      )
    }
    r.align(8)
    const P = plan.paramNames.length
    const L = plan.layers.length
    const params = new Float64Array(P)
    copyInto(params, 0, r.bytes, r.span(8 * P), P)
    const f = new Float64Array(L * RUN_FLOATS)
    copyInto(f, 0, r.bytes, r.span(8 * f.length), f.length)
    const i = new Int32Array(L * RUN_INTS)
    copyInto(i, 0, r.bytes, r.span(4 * i.length), i.length)
    const triggers = r.bytes.slice(r.span(P), r.at())
    r.align(4)
    checkFinite(where, 'parameters', params)
    checkFinite(where, 'times', f)
    for (let p = 0; p < P; p++) checkParameter(where, plan, p, params[p]!, triggers[p]!)
    for (let l = 0; l < L; l++) checkRun(`${where}, layer ${l}`, plan, l, i, f)
    out.push({ eid, plan, params, f, i, triggers })
  }
  return out
}

function checkParameter(where: string, plan: PlannedGraph, p: number, value: number, trigger: number): void {
  const type = plan.paramType[p]!
  const name = `parameter "${plan.paramNames[p]}"`
  if ((type === PARAM_BOOL || type === PARAM_TRIGGER) && value !== 0 && value !== 1) {
    throw invalidValue(where, name, value, 'must be 0 or 1')
  }
  if (type === PARAM_INT && !Number.isInteger(value))
    throw invalidValue(where, name, value, 'must be an integer')
  if (trigger !== 0 && !(trigger === 1 && type === PARAM_TRIGGER)) {
    throw invalidValue(where, `${name}'s trigger`, trigger, 'must be 0, or 1 for a trigger')
  }
}

/** A layer's place: states and transitions in range, a transition exactly while heading somewhere, steps ≥ -1. */
function checkRun(where: string, plan: PlannedGraph, l: number, run: Int32Array, f: Float64Array): void {
  const layer = plan.layers[l]!
  const at = l * RUN_INTS
  const states = layer.stateNames.length
  checkRange(where, 'state', run[at + RUN_CURRENT]!, 0, states - 1)
  checkRange(where, 'next state', run[at + RUN_NEXT]!, -1, states - 1)
  checkRange(where, 'transition', run[at + RUN_TRANSITION]!, -1, layer.to.length - 1)
  const t = run[at + RUN_TRANSITION]!
  if (t < 0 !== run[at + RUN_NEXT]! < 0 || (t >= 0 && layer.to[t] !== run[at + RUN_NEXT])) {
    throw invalidValue(where, 'transition', t, 'must be running exactly while the layer heads to its state')
  }
  const o = l * RUN_FLOATS
  if (!(f[o + RUN_TRANSITION_STEPS]! >= 0)) {
    throw invalidValue(where, 'transition steps', f[o + RUN_TRANSITION_STEPS]!, 'must be ≥ 0')
  }
  for (const [name, k] of [
    ['state steps', RUN_CURRENT_STEPS],
    ['next state steps', RUN_NEXT_STEPS],
  ] as const) {
    if (!(f[o + k]! >= -1)) throw invalidValue(where, name, f[o + k]!, 'must be ≥ -1')
  }
}

/** Every character's graph as the snapshot has it: none for those it does not list. */
export function applyGraphs(
  ctx: AnimationContext,
  _bytes: Uint8Array,
  characters: SnapshotCharacters,
  plan: readonly GraphData[],
): void {
  for (let c = 0; c < characters.count; c++) ctx.graphs[characters.eids[c]!] = undefined
  for (const d of plan) {
    const run = attachGraph(ctx, d.eid, d.plan)
    run.params.set(d.params)
    run.f.set(d.f)
    run.i.set(d.i)
    run.triggers.set(d.triggers)
    adoptBlendSpaces(ctx, d.eid, run)
  }
}
