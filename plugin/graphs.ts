/**
 * State machines, the calls: setGraph, setParameter, trigger, getState, and a character's graph made (here and by
 * a restore). The graph as per-character state (released, hashed, snapshotted) is characterData/graphs.ts; the
 * step's half is systems/evaluateGraphs.ts; the graph's checks plugin/graphCheck.ts,
 * its compilation plugin/graphCompile.ts, the layer calls its states make plugin/graphPlayback.ts.
 */
import { AnimationError, showValue } from '../src/errors.ts'
import { rampFraction } from '../src/clip/ramp.ts'
import { poseSlotsFit } from '../components/Pose.ts'
import type { AnimationContext } from './context.ts'
import { checkCharacter } from './characters.ts'
import { BLOCK_POINTS, type BlendSpaceState } from '../systems/layerState.ts'
import {
  createGraphRun,
  PARAM_BOOL,
  PARAM_INT,
  PARAM_TRIGGER,
  PARAMETER_TYPES,
  RUN_CURRENT,
  RUN_CURRENT_NORMALIZED,
  RUN_CURRENT_TIME,
  RUN_FLOATS,
  RUN_INTS,
  RUN_NEXT,
  RUN_TRANSITION,
  RUN_TRANSITION_STEPS,
  STATE_BLEND_SPACE,
  type GraphRun,
} from '../systems/graphState.ts'
import { emitGraphEvent } from '../systems/graphEvents.ts'
import { checkGraph } from './graphCheck.ts'
import { graphPlan, type PlannedGraph } from './graphCompile.ts'
import { createEnterArgs, enterState } from './graphPlayback.ts'
import { layerFor, setLayer, type LayerOptions } from './layers.ts'
import { makeBlendSpace } from './blendSpaces.ts'

/** What getState reports of a graph layer. */
export interface GraphStateInfo {
  /** The state the layer is in (while a transition runs, the one it leaves). */
  readonly state: string
  /**
   * Seconds into the state: a clip state's clip time from its start time, not wrapped at loops (a 'once' clip's
   * stops at its end); a blend space's or an empty state's time in the state.
   */
  readonly time: number
  /** A clip state's time / its clip's duration; a blend space's cycles played; 1 for an empty state. */
  readonly normalizedTime: number
  /** The transition under way: the state it goes to and how far its fade is, (0, 1]; null for none. */
  readonly transition: {
    /** The state it goes to. */
    readonly to: string
    /** How far its fade is, (0, 1]: the share of the layer the state it goes to shows. */
    readonly progress: number
  } | null
}

/** Sets (or, with null, removes) a character's state machine; see AnimationPlugin.setGraph. */
export function setGraph(ctx: AnimationContext, eid: number, graph: unknown): void {
  const what = `setGraph(${showValue(eid)})`
  checkCharacter(ctx, eid, what)
  if (graph === null) {
    leaveGraph(ctx, eid)
    return
  }
  const plan = graphPlan(ctx, ctx.stores.Pose.asset[eid]!, checkGraph(graph, what), what)
  checkRoom(ctx, eid, plan, what)
  leaveGraph(ctx, eid)
  prepareLayers(ctx, eid, plan)
  const run = attachGraph(ctx, eid, plan)
  const args = createEnterArgs()
  for (let g = 0; g < plan.layers.length; g++) {
    const layer = plan.layers[g]!
    enterState(ctx, eid, run, g, layer.entry, -1, args)
    emitGraphEvent(ctx, 'state-enter', eid, layer.index, layer.name, '', layer.stateNames[layer.entry]!)
  }
}

/**
 * Throws AnimationError('capacity') when the layer slots or pose slots the graph's layers need (prepareLayers)
 * are not there, before anything changes.
 */
function checkRoom(ctx: AnimationContext, eid: number, plan: PlannedGraph, what: string): void {
  const n = ctx.stores.Pose.count[eid]!
  const stack = ctx.layers[eid]
  let free = 0
  for (let k = 0; k < ctx.layerSlots.count; k++) if (ctx.layerSlots.used[k] === 0) free++
  const sizes: number[] = []
  let hasStack = stack !== undefined
  for (const layer of plan.layers) {
    if (layer.index === 0 && !needsBaseLayer(layer)) continue
    const current = stack?.layers[layer.index]
    if (layer.index > 0 && current === undefined) free--
    if (!hasStack && layer.index > 0) sizes.push(BLOCK_POINTS * n)
    hasStack = true
    const needed = (BLOCK_POINTS + layer.maxPoints) * n
    if (current === undefined || current.slots < needed) sizes.push(needed)
  }
  if (free < 0) {
    throw new AnimationError(
      'capacity',
      `${what}: the graph's layers need more layer slots than are free (raise the plugin's maxLayers option)`,
    )
  }
  if (!poseSlotsFit(ctx.pool, sizes)) {
    throw new AnimationError(
      'capacity',
      `${what}: the graph's layers need more pose slots than are free (raise the plugin's maxPoseSlots option)`,
    )
  }
}

/** Whether a graph's layer 0 needs the character's layer stack: it has blend spaces, or setLayer options. */
function needsBaseLayer(layer: PlannedGraph['layers'][number]): boolean {
  return layer.maxPoints > 0 || layer.mode !== undefined || layer.mask !== undefined || layer.weightGiven
}

/**
 * The plugin layers a graph drives, as setLayer makes them: mode, mask (and an additive layer's reference: each
 * clip's own) and weight as the graph gives them, with pose room for its largest blend space. Layer 0 only
 * when it needs a stack (needsBaseLayer): a crowd on a graph of clips pays nothing for layers.
 */
function prepareLayers(ctx: AnimationContext, eid: number, plan: PlannedGraph): void {
  for (const layer of plan.layers) {
    const k = layer.index
    if (k === 0 && !needsBaseLayer(layer)) continue
    layerFor(ctx, eid, k, layer.maxPoints)
    const options: LayerOptions = {}
    if (layer.mode !== undefined) options.mode = layer.mode
    if (layer.mode === 'additive') options.reference = null
    if (layer.mask !== undefined) options.mask = layer.mask
    if (layer.weightGiven) options.weight = layer.weight
    setLayer(ctx, eid, k, options)
  }
}

/**
 * Makes `plan` character `eid`'s graph: a run at the parameters' defaults and the entry states (setGraph and a
 * restore, which then sets the run's numbers), with its blend spaces made on the layers prepareLayers made.
 */
export function attachGraph(ctx: AnimationContext, eid: number, plan: PlannedGraph): GraphRun {
  const blendSpaces = plan.layers.map((layer) =>
    layer.blendSpaces.map((b, s): BlendSpaceState | null => {
      if (b === null || layer.kind[s] !== STATE_BLEND_SPACE) return null
      const x = plan.paramDefault[layer.paramX[s]!]!
      const y = layer.paramY[s]! >= 0 ? plan.paramDefault[layer.paramY[s]!]! : 0
      // A layer a restored snapshot lacks: no blend space (the graph leaves the layer alone: graphPlayback.ts).
      const on = ctx.layers[eid]?.layers[layer.index]
      return on === undefined ? null : makeBlendSpace(ctx, eid, on, b.clips, b.coords, b.dims, b.sync, x, y)
    }),
  )
  const run = createGraphRun(plan, blendSpaces)
  ctx.graphs[eid] = run
  ctx.uses.graphs = true
  return run
}

/**
 * After a restore: where a layer heads to a blend-space state and plays a blend space of that state's points
 * (the restored one, not the run's), the run takes that one, so its parameters move what the layer plays.
 */
export function adoptBlendSpaces(ctx: AnimationContext, eid: number, run: GraphRun): void {
  const layers = run.plan.layers
  for (let g = 0; g < layers.length; g++) {
    const layer = layers[g]!
    const i = g * RUN_INTS
    const heading = run.i[i + RUN_NEXT]! >= 0 ? run.i[i + RUN_NEXT]! : run.i[i + RUN_CURRENT]!
    const own = run.blendSpaces[g]![heading]
    const live = ctx.layers[eid]?.layers[layer.index]?.blendSpace ?? null
    if (own == null || live === null || !samePoints(own, live)) continue
    run.blendSpaces[g]![heading] = live
  }
}

/** Whether two blend spaces have the same clips at the same points, dimensions and sync. */
function samePoints(a: BlendSpaceState, b: BlendSpaceState): boolean {
  const m = a.points.clip.length
  if (b.points.clip.length !== m || a.dims !== b.dims || a.sync !== b.sync) return false
  for (let p = 0; p < m; p++) {
    if (a.points.clip[p] !== b.points.clip[p] || a.xs[p] !== b.xs[p] || a.ys[p] !== b.ys[p]) return false
  }
  return true
}

/**
 * The character's graph lets go of its layers (they play on as they were): 'state-exit' of each layer's state
 * (and, mid-transition, of the one it leaves, with 'transition-end'), at the clock of the call.
 */
function leaveGraph(ctx: AnimationContext, eid: number): void {
  const run = ctx.graphs[eid]
  if (run === undefined) return
  const layers = run.plan.layers
  for (let g = 0; g < layers.length; g++) {
    const layer = layers[g]!
    const i = g * RUN_INTS
    const current = layer.stateNames[run.i[i + RUN_CURRENT]!]!
    const next = run.i[i + RUN_NEXT]!
    let last = current
    if (next >= 0) {
      last = layer.stateNames[next]!
      emitGraphEvent(ctx, 'state-exit', eid, layer.index, layer.name, current, last)
      emitGraphEvent(ctx, 'transition-end', eid, layer.index, layer.name, current, last)
    }
    emitGraphEvent(ctx, 'state-exit', eid, layer.index, layer.name, last, '')
  }
  ctx.graphs[eid] = undefined
}

/**
 * Sets a parameter of the character's graph: a finite number for 'float', an integer for 'int', true or false
 * for 'bool'. Allocation-free (a call every frame); throws AnimationError('argument') for a character without a
 * graph, an unknown name, a trigger (trigger() sets those) or a value of the wrong type, changing nothing.
 */
export function setParameter(ctx: AnimationContext, eid: number, name: string, value: unknown): void {
  const run = graphRun(ctx, eid, 'setParameter')
  const p = parameter(run, name, 'setParameter')
  const type = run.plan.paramType[p]!
  if (type === PARAM_TRIGGER) {
    throw new AnimationError('argument', `setParameter: "${name}" is a trigger: set it with trigger()`)
  }
  if (type === PARAM_BOOL) {
    if (typeof value !== 'boolean') {
      throw new AnimationError('argument', `setParameter: "${name}" is a bool, not ${showValue(value)}`)
    }
    run.params[p] = value ? 1 : 0
    return
  }
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (type === PARAM_INT && !Number.isInteger(value))
  ) {
    throw new AnimationError(
      'argument',
      `setParameter: "${name}" is a${type === PARAM_INT ? 'n int: an integer' : ' float: a finite number'}, not ${showValue(value)}`,
    )
  }
  run.params[p] = value + 0
}

/** Sets a trigger of the character's graph: pending until a transition uses it or the next step ends. */
export function trigger(ctx: AnimationContext, eid: number, name: string): void {
  const run = graphRun(ctx, eid, 'trigger')
  const p = parameter(run, name, 'trigger')
  if (run.plan.paramType[p] !== PARAM_TRIGGER) {
    throw new AnimationError(
      'argument',
      `trigger: "${name}" is a ${PARAMETER_TYPES[run.plan.paramType[p]!]}, not a trigger (setParameter sets it)`,
    )
  }
  run.triggers[p] = 1
}

/** Where a graph layer of the character is (see GraphStateInfo). */
export function getState(ctx: AnimationContext, eid: number, layerName: string): GraphStateInfo {
  const run = graphRun(ctx, eid, 'getState')
  const g = run.plan.layers.findIndex((l) => l.name === layerName)
  if (g < 0) {
    const names = run.plan.layers.map((l) => `"${l.name}"`).join(', ')
    throw new AnimationError(
      'argument',
      `getState: no graph layer ${showValue(layerName)} (the graph has ${names})`,
    )
  }
  const layer = run.plan.layers[g]!
  const i = g * RUN_INTS
  const f = g * RUN_FLOATS
  const next = run.i[i + RUN_NEXT]!
  const t = run.i[i + RUN_TRANSITION]!
  return {
    state: layer.stateNames[run.i[i + RUN_CURRENT]!]!,
    time: run.f[f + RUN_CURRENT_TIME]!,
    normalizedTime: run.f[f + RUN_CURRENT_NORMALIZED]!,
    transition:
      next < 0
        ? null
        : {
            to: layer.stateNames[next]!,
            progress: rampFraction(run.f[f + RUN_TRANSITION_STEPS]!, ctx.dt, layer.fade[t]!),
          },
  }
}

/** The character's run of its graph, or a throw naming `what`. */
function graphRun(ctx: AnimationContext, eid: number, what: string): GraphRun {
  checkCharacter(ctx, eid, what)
  const run = ctx.graphs[eid]
  if (run === undefined) {
    throw new AnimationError('argument', `${what}: character ${eid} has no graph (setGraph gives it one)`)
  }
  return run
}

/** The index of parameter `name` of a run's graph, or a throw naming `what`. */
function parameter(run: GraphRun, name: unknown, what: string): number {
  const names = run.plan.paramNames
  for (let p = 0; p < names.length; p++) if (names[p] === name) return p
  const known = names.map((n) => `"${n}"`).join(', ')
  throw new AnimationError(
    'argument',
    `${what}: no parameter ${showValue(name)} (the graph has ${known || 'none'})`,
  )
}
