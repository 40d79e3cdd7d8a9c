/**
 * The layer calls a state machine makes when a layer enters a state (systems/evaluateGraphs.ts GraphPlayback):
 * crossFade / play into a clip, playBlendSpace into a blend space (and setBlendParameter as its parameters
 * move), stopLayer into an empty state, and on a layer other than 0 setLayer's weight — the same functions the
 * public calls end in, after their checks, with everything resolved when the graph was compiled, so a graph
 * plays exactly what a game calling them at the same steps plays, and allocates nothing in the step.
 */
import type { AnimationContext } from './context.ts'
import type { PlannedGraph } from './graphCompile.ts'
import { crossFadeResolved, playResolved } from './playback.ts'
import {
  REPLAY_ARGS,
  REPLAY_FADE,
  REPLAY_SPEED,
  REPLAY_X,
  REPLAY_Y,
  replayBlendSpace,
  updateBlendWeights,
} from './blendSpaces.ts'
import { setLayerWeight, stopLayerResolved } from './layers.ts'
import {
  BLOCK_POINTS,
  type Layer,
  RAMP_LENGTH,
  RAMP_SECONDS,
  RAMP_TO,
  SOURCE_NONE,
} from '../systems/layerState.ts'
import { STATE_BLEND_SPACE, STATE_CLIP, STATE_EMPTY, type GraphRun } from '../systems/graphState.ts'
import type { GraphPlayback } from '../systems/evaluateGraphs.ts'

/** The plugin's GraphPlayback (see enterState and followParameters). */
export function createGraphPlayback(ctx: AnimationContext): GraphPlayback {
  const args = createEnterArgs()
  return {
    enter: (eid, run, g, s, t) => enterState(ctx, eid, run, g, s, t, args),
    follow: (eid, run, g, s) => followParameters(run, g, s),
  }
}

/**
 * enterState's scratch: the numbers of the calls it makes, through memory (a float argument of a call V8 does
 * not inline is boxed): the fade's seconds, setLayerWeight's, replayBlendSpace's.
 */
export interface EnterArgs {
  readonly fade: Float64Array
  readonly ramp: Float64Array
  readonly blend: Float64Array
}

export function createEnterArgs(): EnterArgs {
  return {
    fade: new Float64Array(1),
    ramp: new Float64Array(RAMP_LENGTH),
    blend: new Float64Array(REPLAY_ARGS),
  }
}

/**
 * Layer g of character `eid`'s run enters state s by transition t (-1: a cut, setGraph's entry), over the
 * transition's duration: a clip state is crossFade's (a cut: play's) with the state's options; a blend space
 * is playBlendSpace's at the parameters' values, fading; an empty state is stopLayer's. On a layer other than 0,
 * a layer that showed nothing starts at weight 0, and the weight then goes to the graph layer's over the
 * duration (setLayer's weight and fadeSeconds). `args`: the calls' numbers (EnterArgs). Never throws;
 * allocates nothing (the layers and blend spaces were made when the graph was set).
 */
export function enterState(
  ctx: AnimationContext,
  eid: number,
  run: GraphRun,
  g: number,
  s: number,
  t: number,
  args: EnterArgs,
): void {
  const layer = (run.plan as PlannedGraph).layers[g]!
  const k = layer.index
  const kind = layer.kind[s]
  const target = k === 0 ? undefined : ctx.layers[eid]?.layers[k]
  if (!canPlay(ctx, eid, run, g, s, target)) return
  const seconds = t < 0 ? 0 : layer.fade[t]!
  args.fade[0] = seconds
  args.ramp[RAMP_SECONDS] = seconds
  if (kind === STATE_EMPTY) {
    stopLayerResolved(ctx, target!, args.ramp)
    return
  }
  const A = ctx.stores.AnimLayer
  if (target !== undefined && A.source[target.slot] === SOURCE_NONE) {
    args.ramp[RAMP_TO] = 0
    args.ramp[RAMP_SECONDS] = 0
    setLayerWeight(A, target.slot, args.ramp)
  }
  const refs = layer.references[s]!
  if (kind === STATE_CLIP) {
    const clip = layer.clips[s]!
    const settings = layer.settings[s]!
    if (t < 0) playResolved(ctx, eid, k, clip, settings, refs)
    else crossFadeResolved(ctx, eid, k, clip, args.fade, settings, refs)
  } else {
    const blend = args.blend
    blend[REPLAY_FADE] = seconds
    blend[REPLAY_X] = run.params[layer.paramX[s]!]!
    blend[REPLAY_Y] = layer.paramY[s]! >= 0 ? run.params[layer.paramY[s]!]! : 0
    blend[REPLAY_SPEED] = layer.speed[s]!
    replayBlendSpace(ctx, eid, k, run.blendSpaces[g]![s]!, blend, refs)
  }
  if (target !== undefined) {
    args.ramp[RAMP_TO] = layer.weight
    args.ramp[RAMP_SECONDS] = seconds
    setLayerWeight(A, target.slot, args.ramp)
  }
}

/**
 * Whether the layer a state plays on is as setGraph made it: a layer other than 0 exists, and a blend space's
 * layer has its pose room (so entering allocates nothing and cannot throw). Only a snapshot forged to lack them
 * makes this false: the graph then leaves that layer alone.
 */
function canPlay(
  ctx: AnimationContext,
  eid: number,
  run: GraphRun,
  g: number,
  s: number,
  target: Layer | undefined,
): boolean {
  const layer = run.plan.layers[g]!
  if (layer.index > 0 && target === undefined) return false
  if (layer.kind[s] !== STATE_BLEND_SPACE) return true
  const bs = run.blendSpaces[g]![s] ?? null
  const on = layer.index === 0 ? ctx.layers[eid]?.layers[0] : target
  const n = ctx.stores.Pose.count[eid]!
  return bs !== null && on !== undefined && on.slots >= (BLOCK_POINTS + bs.points.clip.length) * n
}

/** The blend space of state s of layer g takes its parameters' values, if they moved (setBlendParameter's). */
export function followParameters(run: GraphRun, g: number, s: number): void {
  const layer = run.plan.layers[g]!
  const bs = run.blendSpaces[g]![s]
  if (bs == null) return
  const px = layer.paramX[s]!
  const py = layer.paramY[s]!
  // Read from and written to typed arrays only: a float that meets an integer in one variable is boxed.
  if (bs.param[0] === run.params[px] && (py < 0 || bs.param[1] === run.params[py])) return
  bs.param[0] = run.params[px]!
  if (py >= 0) bs.param[1] = run.params[py]!
  updateBlendWeights(bs)
}
