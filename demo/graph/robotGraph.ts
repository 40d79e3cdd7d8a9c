import type { AnimationGraph } from '../../entry/index.ts'

/**
 * The state machine page's graph (the one of issue 38) on RobotExpressive: a base layer that idles, moves (a
 * blend space from Walking to Running by `speed`) and jumps while not `grounded`, and an emote layer over the
 * upper body (Abdomen's subtree) that waves once on the `wave` trigger and empties again.
 */
export const ROBOT_GRAPH = {
  parameters: {
    speed: { type: 'float', default: 0 },
    grounded: { type: 'bool', default: true },
    wave: { type: 'trigger' },
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
        { from: 'idle', to: 'move', when: [['speed', '>', 0.1]], duration: 0.25 },
        { from: 'move', to: 'idle', when: [['speed', '<=', 0.1]], duration: 0.3 },
        { from: 'any', to: 'jump', when: [['grounded', '==', false]], duration: 0.1 },
        { from: 'jump', to: 'idle', exitTime: 0.9, duration: 0.2 },
      ],
    },
    {
      name: 'emotes',
      mask: ['Abdomen'],
      entry: 'none',
      states: { none: {}, wave: { clip: 'Wave', loop: 'once' } },
      transitions: [
        { from: 'none', to: 'wave', when: [['wave']], duration: 0.2 },
        { from: 'wave', to: 'none', exitTime: 1, duration: 0.3 },
      ],
    },
  ],
} as const satisfies AnimationGraph
