/**
 * Shared setup of the state machine tests: the graph on RobotExpressive (with an additive layer), a step
 * whose evaluateGraphs records what each layer entered, and the same entries replayed by hand with the public
 * calls a game would make (play, crossFade, playBlendSpace, setBlendParameter, setLayer, stopLayer).
 */
import { createWorld } from 'bitecs'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationGraph, GraphClipState, GraphBlendSpaceState } from '../../entry/index.ts'
import { createEvaluateGraphsSystem, type GraphPlayback } from '../../systems/evaluateGraphs.ts'
import { createGraphPlayback } from '../../plugin/graphPlayback.ts'
import type { GraphRun } from '../../systems/graphState.ts'

/** The graph, with an additive nod layer and every kind of state and transition option. */
export const ROBOT_GRAPH = {
  parameters: {
    speed: { type: 'float', default: 0 },
    grounded: { type: 'bool', default: true },
    wave: { type: 'trigger' },
    nod: { type: 'trigger' },
  },
  layers: [
    {
      name: 'base',
      entry: 'idle',
      states: {
        idle: { clip: 'Idle' },
        move: {
          blendSpace: {
            points: [
              { clip: 'Walking', at: 1 },
              { clip: 'Running', at: 4 },
            ],
            parameter: 'speed',
          },
        },
        jump: { clip: 'Jump', loop: 'once' },
      },
      transitions: [
        { from: 'idle', to: 'move', when: [['speed', '>', 0.1]], duration: 0.25, interruption: 'next' },
        { from: 'move', to: 'idle', when: [['speed', '<=', 0.1]], duration: 0.3, interruption: 'both' },
        { from: 'any', to: 'jump', when: [['grounded', '==', false]], duration: 0.1 },
        { from: 'jump', to: 'idle', exitTime: 0.9, duration: 0.2 },
      ],
    },
    {
      name: 'emotes',
      mask: ['Abdomen'],
      weight: 0.8,
      entry: 'none',
      states: { none: {}, wave: { clip: 'Wave', loop: 'once', speed: 1.5 } },
      transitions: [
        { from: 'none', to: 'wave', when: [['wave']], duration: 0.2 },
        { from: 'wave', to: 'none', exitTime: 1, duration: 0.3, interruption: 'current' },
        { from: 'wave', to: 'wave', when: [['wave']], duration: 0.1 },
      ],
    },
    {
      name: 'nods',
      mode: 'additive',
      entry: 'still',
      states: { still: {}, yes: { clip: 'Yes', loop: 'once' } },
      transitions: [
        { from: 'still', to: 'yes', when: [['nod']], duration: 0.15 },
        { from: 'yes', to: 'still', exitTime: 0.8, duration: 0 },
      ],
    },
  ],
} as const satisfies AnimationGraph

/** A plugin for state machine tests: no ground, room for a crowd. */
export function graphPlugin(): AnimationPlugin {
  return createAnimationPlugin(createWorld(), { capacity: 2048, physics: { ground: false } })
}

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

/** World matrices of every joint of a character (float32 bits). */
export function worldMatrices(p: AnimationPlugin, eid: number): Float32Array {
  const world = p.stores.SceneNode.world
  const joints = p.joints(eid)
  const out = new Float32Array(joints.length * 16)
  joints.forEach((e, j) => out.set(world.subarray(e * 16, e * 16 + 16), j * 16))
  return out
}
