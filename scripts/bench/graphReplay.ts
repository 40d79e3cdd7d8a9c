/**
 * A graph's decisions recorded and replayed by hand: a step whose evaluateGraphs records every state a layer
 * enters and every blend-space move, and the same entries made with the public calls a game would make (play,
 * crossFade, playBlendSpace, setBlendParameter, setLayer, stopLayer), as setGraph documents the mapping. The
 * equivalence property (test/systems/evaluateGraphs.equivalence.test.ts) and the graph bench (graphs.ts) use it.
 */
import type { AnimationPlugin } from '../../entry/plugin.ts'
import { contextOf } from '../../entry/plugin.ts'
import type { AnimationGraph, GraphBlendSpaceState, GraphClipState } from '../../entry/index.ts'
import { createEvaluateGraphsSystem, type GraphPlayback } from '../../systems/evaluateGraphs.ts'
import { createGraphPlayback } from '../../plugin/graphPlayback.ts'
import type { GraphRun } from '../../systems/graphState.ts'

/** What a graph's layer did in a step: entered a state (by transition t, -1 a cut), or moved a blend space. */
export type GraphEntry =
  | { kind: 'enter'; eid: number; g: number; s: number; t: number }
  | { kind: 'follow'; eid: number; g: number; x: number; y: number }

/**
 * A step of `plugin` whose evaluateGraphs (in its place, first) records every layer call its graphs make, in
 * order, into `log`; the other systems are the plugin's own.
 */
export function recordingStep(plugin: AnimationPlugin, log: GraphEntry[]): () => void {
  const ctx = contextOf(plugin)
  const real = createGraphPlayback(ctx)
  const playback: GraphPlayback = {
    enter(eid, run, g, s, t) {
      log.push({ kind: 'enter', eid, g, s, t })
      real.enter(eid, run, g, s, t)
    },
    follow(eid, run: GraphRun, g, s) {
      const layer = run.plan.layers[g]!
      const bs = run.blendSpaces[g]![s]!
      const x = run.params[layer.paramX[s]!]!
      const y = layer.paramY[s]! >= 0 ? run.params[layer.paramY[s]!]! : 0
      if (bs.param[0] !== x || bs.param[1] !== y) log.push({ kind: 'follow', eid, g, x, y })
      real.follow(eid, run, g, s)
    },
  }
  const evaluate = createEvaluateGraphsSystem(ctx, playback)
  const rest = plugin.systems.slice(1)
  return () => {
    evaluate(plugin.world)
    for (const system of rest) system(plugin.world)
  }
}

/** The parameters' values a hand-driven game keeps (as the graph's run has them). */
export type HandParams = Record<string, number>

/**
 * A graph's entries replayed on `hand` with the public calls (the mapping setGraph documents): a clip state is
 * crossFade (a cut: play) with its options, a blend space playBlendSpace at the parameters' values fading over
 * the duration, an empty state stopLayer; on a layer other than 0 a layer showing nothing is set to weight 0
 * first, and the weight goes to the graph layer's over the duration after. `params(eid)` gives the character's
 * parameter values now.
 */
export function replayEntries(
  hand: AnimationPlugin,
  graph: AnimationGraph,
  entries: readonly GraphEntry[],
  params: (eid: number) => HandParams,
): void {
  for (const e of entries) {
    const layer = graph.layers[e.g]!
    const k = e.g
    if (e.kind === 'follow') {
      const state = hand.getLayer(e.eid, k)
      hand.setBlendParameter(e.eid, state.blendSpace!.parameter.length === 2 ? [e.x, e.y] : e.x, { layer: k })
      continue
    }
    const name = Object.keys(layer.states)[e.s]!
    const state = layer.states[name]!
    const seconds = e.t < 0 ? 0 : (layer.transitions![e.t]!.duration ?? 0)
    if (!('clip' in state) && !('blendSpace' in state)) {
      hand.stopLayer(e.eid, k, seconds)
      continue
    }
    if (k > 0 && hand.getLayer(e.eid, k).source === 'none') hand.setLayer(e.eid, k, { weight: 0 })
    if ('clip' in state) {
      const { clip, ...options } = state as GraphClipState
      if (e.t < 0) hand.play(e.eid, clip, { ...options, layer: k })
      else hand.crossFade(e.eid, clip, seconds, { ...options, layer: k })
    } else {
      const { points, parameter, ...options } = (state as GraphBlendSpaceState).blendSpace
      const values = params(e.eid)
      const at =
        typeof parameter === 'string' ? values[parameter]! : [values[parameter[0]]!, values[parameter[1]]!]
      hand.playBlendSpace(e.eid, points, {
        ...options,
        layer: k,
        parameter: at as never,
        fadeSeconds: seconds,
      })
    }
    if (k > 0) hand.setLayer(e.eid, k, { weight: layer.weight ?? 1, fadeSeconds: seconds })
  }
}

/** setGraph's layer setup by hand: setLayer with each layer's mode, mask and weight (layer 0 only if given). */
export function prepareByHand(hand: AnimationPlugin, graph: AnimationGraph, eid: number): void {
  graph.layers.forEach((layer, k) => {
    const options: Parameters<AnimationPlugin['setLayer']>[2] = {}
    if (layer.mode !== undefined) options.mode = layer.mode
    if (layer.mode === 'additive') options.reference = null
    if (layer.mask !== undefined) options.mask = layer.mask
    if (layer.weight !== undefined) options.weight = layer.weight
    if (k > 0 || Object.keys(options).length > 0) hand.setLayer(eid, k, options)
  })
}

/** setGraph's entry states as entries: each layer of each character cut to its entry. */
export function entryEntries(graph: AnimationGraph, eid: number): GraphEntry[] {
  return graph.layers.map((layer, g) => ({
    kind: 'enter',
    eid,
    g,
    s: Object.keys(layer.states).indexOf(layer.entry),
    t: -1,
  }))
}
