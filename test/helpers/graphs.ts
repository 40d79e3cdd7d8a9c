/**
 * Shared setup of the state machine tests: the graph on RobotExpressive (with an additive layer), and the
 * recording and replay of a graph's decisions (scripts/bench/graphReplay.ts, which the graph bench shares).
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationGraph } from '../../entry/index.ts'

export {
  entryEntries,
  prepareByHand,
  recordingStep,
  replayEntries,
  type GraphEntry,
  type HandParams,
} from '../../scripts/bench/graphReplay.ts'

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

/** World matrices of every joint of a character (float32 bits). */
export function worldMatrices(p: AnimationPlugin, eid: number): Float32Array {
  const world = p.stores.SceneNode.world
  const joints = p.joints(eid)
  const out = new Float32Array(joints.length * 16)
  joints.forEach((e, j) => out.set(world.subarray(e * 16, e * 16 + 16), j * 16))
  return out
}
