import type { World } from 'bitecs'
import { registerQuery } from 'bitecs'
import { rampEnded } from '../src/clip/ramp.ts'
import type { AnimationStores, StepState } from './state.ts'
import { emitGraphEvent, type GraphEventsInput } from './graphEvents.ts'
import {
  conditionsHold,
  FROM_ANY,
  INTERRUPT_BOTH,
  INTERRUPT_CURRENT,
  INTERRUPT_NEXT,
  INTERRUPT_NONE,
  RUN_CURRENT,
  RUN_CURRENT_NORMALIZED,
  RUN_CURRENT_STEPS,
  RUN_CURRENT_TIME,
  RUN_FLOATS,
  RUN_INTS,
  RUN_NEXT,
  RUN_NEXT_NORMALIZED,
  RUN_NEXT_STEPS,
  RUN_NEXT_TIME,
  RUN_TRANSITION,
  RUN_TRANSITION_STEPS,
  startTimes,
  STATE_BLEND_SPACE,
  STATE_CLIP,
  type GraphLayerPlan,
  type GraphRun,
} from './graphState.ts'

/**
 * What the step calls to play the states a graph enters: the same layer calls a game makes (crossFade, play,
 * playBlendSpace, setBlendParameter, setLayer's weight, stopLayer, after their checks: plugin/graphPlayback.ts),
 * passed in by the plugin. Both never throw and allocate nothing once the character's graph is set up.
 */
export interface GraphPlayback {
  /** Layer g of the character's run enters state s by transition t (its duration; -1: a cut, setGraph's entry). */
  enter(eid: number, run: GraphRun, g: number, s: number, t: number): void
  /** The blend space of state s of layer g takes its parameters' values (when they moved). */
  follow(eid: number, run: GraphRun, g: number, s: number): void
}

/** What evaluateGraphs reads and writes: a slice of the plugin's context. */
export type EvaluateGraphsInput = Pick<StepState, 'world' | 'dt' | 'timeScale' | 'graphs' | 'uses'> &
  GraphEventsInput & { readonly stores: Pick<AnimationStores, 'Sampler' | 'Pose'> }

/**
 * evaluateGraphs: runs every character's state machine one step, first in the step, so what it starts plays in
 * this very step. Per character (in the order advanceTracks visits them) and graph layer (in order):
 * 1. the state's time advances (and that of the state a transition heads to), by the time scale as the clips do
 *    (setTimeScale): a clip's by dt × its rate from
 *    its start time, not wrapped (a 'once' clip's stops at its end); a blend space's normalized time by dt × rate
 *    over its cycle's length (the weighted mean of its clips'); an empty state's normalized time is 1;
 * 2. the blend space the layer heads to takes its parameters' values;
 * 3. a running transition whose fade ends this step (rampEnded of its steps, as the layer's fade) ends:
 *    'state-exit' of the state it left, 'transition-end';
 * 4. the first transition in list order that may go, goes: its `from` is the layer's state, or 'any' (not to
 *    the state the layer is in unless canTransitionToSelf); while a transition runs, only as its interruption
 *    allows ('current': from the state it leaves, 'next': from the state it heads to, 'both': either, and 'any'
 *    with each; 'none': nothing), and not to the state it heads to unless canTransitionToSelf; every condition
 *    holds; the exit time, if any, is reached (the
 *    normalized time of the state it leaves: the one heading to when from it, else the layer's, ≥ exitTime).
 *    Its triggers are used up, an interrupted transition ends first (its 'state-exit', 'transition-end'), and the
 *    layer enters the state as the game's calls would (GraphPlayback.enter): 'transition-start', 'state-enter'.
 * Then triggers nobody used are cleared. Never throws; allocates only event records, and those are reused.
 */
export function createEvaluateGraphsSystem(ctx: EvaluateGraphsInput, playback: GraphPlayback) {
  const characters = registerQuery(ctx.world, [ctx.stores.Sampler, ctx.stores.Pose])

  /**
   * Steps state s of layer g one step on (its times at `at`: current or next; its steps at `stepsAt`): by the time
   * scale, as its clips advance; a state entered outside the step (steps -1) shows its start first.
   */
  function advanceState(
    run: GraphRun,
    layer: GraphLayerPlan,
    g: number,
    s: number,
    at: number,
    stepsAt: number,
  ) {
    const f = g * RUN_FLOATS
    const before = run.f[f + stepsAt]!
    const steps = before < 0 ? 0 : before + ctx.timeScale
    run.f[f + stepsAt] = steps
    const o = f + at
    const kind = layer.kind[s]
    const rate = ctx.dt * layer.speed[s]!
    if (kind === STATE_CLIP) {
      const duration = layer.duration[s]!
      let t = layer.start[s]! + steps * rate
      if (layer.once[s] === 1) t = t < 0 ? 0 : t > duration ? duration : t
      run.f[o] = t
      // normalized(t, duration) written out: a float returned from a call V8 does not inline is boxed.
      run.f[o + 1] = duration > 0 ? t / duration : 1
    } else if (kind === STATE_BLEND_SPACE) {
      run.f[o] = steps * rate
      if (before >= 0) advanceCycles(run, layer, g, s, o + 1)
    } else run.f[o] = steps * ctx.dt
  }

  /**
   * A blend space's normalized time at `run.f[at]` one step on: dt × time scale × rate over its cycle's length now (the
   * weighted mean of its clips'). Only integers and objects cross the call (a float argument is boxed).
   */
  function advanceCycles(run: GraphRun, layer: GraphLayerPlan, g: number, s: number, at: number): void {
    const bs = run.blendSpaces[g]![s]
    if (bs == null) return
    let cycle = 0
    for (let p = 0; p < bs.weights.length; p++) cycle += bs.weights[p]! * bs.durations[p]!
    if (cycle > 0) run.f[at] = run.f[at]! + (ctx.dt * ctx.timeScale * layer.speed[s]!) / cycle
  }

  /** The first transition of layer g that may go this step, or -1. */
  function choose(run: GraphRun, layer: GraphLayerPlan, g: number): number {
    const i = g * RUN_INTS
    const current = run.i[i + RUN_CURRENT]!
    const next = run.i[i + RUN_NEXT]!
    const running = run.i[i + RUN_TRANSITION]!
    const interruption = running >= 0 ? layer.interruption[running]! : INTERRUPT_BOTH
    if (interruption === INTERRUPT_NONE) return -1
    const fromCurrent = running < 0 || interruption === INTERRUPT_CURRENT || interruption === INTERRUPT_BOTH
    const fromNext = running >= 0 && (interruption === INTERRUPT_NEXT || interruption === INTERRUPT_BOTH)
    const heading = running >= 0 ? next : current
    const f = g * RUN_FLOATS
    for (let t = 0; t < layer.from.length; t++) {
      const from = layer.from[t]!
      // Not (again) to the state the layer heads to, from 'any' or mid-transition (PlayCanvas skips every
      // transition to its active state), unless the transition says it may.
      if (layer.to[t] === heading && layer.toSelf[t] === 0 && (from === FROM_ANY || running >= 0)) continue
      let time: number
      if (from === FROM_ANY) {
        time = run.f[f + RUN_CURRENT_NORMALIZED]!
      } else if (fromCurrent && from === current) time = run.f[f + RUN_CURRENT_NORMALIZED]!
      else if (fromNext && from === next) time = run.f[f + RUN_NEXT_NORMALIZED]!
      else continue
      const exit = layer.exitTime[t]!
      if (exit === exit && !(time >= exit)) continue
      if (conditionsHold(run, layer, t)) return t
    }
    return -1
  }

  /** The running transition of layer g ends: the layer is in the state it headed to. */
  function finish(eid: number, run: GraphRun, layer: GraphLayerPlan, g: number): void {
    const i = g * RUN_INTS
    const f = g * RUN_FLOATS
    const from = layer.stateNames[run.i[i + RUN_CURRENT]!]!
    const to = layer.stateNames[run.i[i + RUN_NEXT]!]!
    emitGraphEvent(ctx, 'state-exit', eid, layer.index, layer.name, from, to)
    emitGraphEvent(ctx, 'transition-end', eid, layer.index, layer.name, from, to)
    run.i[i + RUN_CURRENT] = run.i[i + RUN_NEXT]!
    run.f[f + RUN_CURRENT_STEPS] = run.f[f + RUN_NEXT_STEPS]!
    run.f[f + RUN_CURRENT_TIME] = run.f[f + RUN_NEXT_TIME]!
    run.f[f + RUN_CURRENT_NORMALIZED] = run.f[f + RUN_NEXT_NORMALIZED]!
    run.i[i + RUN_NEXT] = -1
    run.i[i + RUN_TRANSITION] = -1
    run.f[f + RUN_TRANSITION_STEPS] = 0
    run.f[f + RUN_NEXT_STEPS] = -1
  }

  /** Transition t of layer g starts (ending the one it interrupts): its triggers are used, its state entered. */
  function start(eid: number, run: GraphRun, layer: GraphLayerPlan, g: number, t: number): void {
    const i = g * RUN_INTS
    const f = g * RUN_FLOATS
    if (run.i[i + RUN_TRANSITION]! >= 0) finish(eid, run, layer, g)
    const first = layer.condFirst[t]!
    for (let c = first; c < first + layer.condCount[t]!; c++) run.triggers[layer.condParam[c]!] = 0
    const to = layer.to[t]!
    run.i[i + RUN_NEXT] = to
    run.i[i + RUN_TRANSITION] = t
    // The fade's first step is this step's: one step of animation time.
    run.f[f + RUN_TRANSITION_STEPS] = ctx.timeScale
    run.f[f + RUN_NEXT_STEPS] = 0
    startTimes(run, g, RUN_NEXT_TIME, to)
    const from = layer.stateNames[run.i[i + RUN_CURRENT]!]!
    emitGraphEvent(ctx, 'transition-start', eid, layer.index, layer.name, from, layer.stateNames[to]!)
    emitGraphEvent(ctx, 'state-enter', eid, layer.index, layer.name, from, layer.stateNames[to]!)
    playback.enter(eid, run, g, to, t)
    // This step shows the fade's first step; a fade of at most one step ends in it.
    if (rampEnded(ctx, run.f, f + RUN_TRANSITION_STEPS, layer.fade, t)) finish(eid, run, layer, g)
  }

  function evaluate(eid: number, run: GraphRun): void {
    const layers = run.plan.layers
    for (let g = 0; g < layers.length; g++) {
      const layer = layers[g]!
      const i = g * RUN_INTS
      const f = g * RUN_FLOATS
      const running = run.i[i + RUN_TRANSITION]!
      advanceState(run, layer, g, run.i[i + RUN_CURRENT]!, RUN_CURRENT_TIME, RUN_CURRENT_STEPS)
      if (running >= 0) advanceState(run, layer, g, run.i[i + RUN_NEXT]!, RUN_NEXT_TIME, RUN_NEXT_STEPS)
      const heading = running >= 0 ? run.i[i + RUN_NEXT]! : run.i[i + RUN_CURRENT]!
      if (layer.kind[heading] === STATE_BLEND_SPACE) playback.follow(eid, run, g, heading)
      if (running >= 0) {
        run.f[f + RUN_TRANSITION_STEPS] = run.f[f + RUN_TRANSITION_STEPS]! + ctx.timeScale
        if (rampEnded(ctx, run.f, f + RUN_TRANSITION_STEPS, layer.fade, running)) finish(eid, run, layer, g)
      }
      const t = choose(run, layer, g)
      if (t >= 0) start(eid, run, layer, g, t)
    }
    run.triggers.fill(0)
  }

  return function evaluateGraphs(_world: World): void {
    if (!ctx.uses.graphs) return
    const dense = characters.dense
    for (let k = 0; k < dense.length; k++) {
      const run = ctx.graphs[dense[k]!]
      if (run !== undefined) evaluate(dense[k]!, run)
    }
  }
}
