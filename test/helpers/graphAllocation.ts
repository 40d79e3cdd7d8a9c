/**
 * The allocation measurement of the state machine tests (test/systems/evaluateGraphs.memory.test.ts), run in a
 * process of its own (`node --expose-gc --import tsx`: in a vitest worker the worker's own messages allocate in
 * every window; and one scenario a process, as another plugin's calls would change what V8 makes of the shared
 * functions). Prints the heap bytes of each clean window (heapWindows.ts) of 64 steps as JSON, for a crowd whose
 * graphs only follow a parameter (`steady`), or for the same crowd changing state in most steps, on every layer
 * (clip cross-fades and cuts, blend spaces, a masked layer emptied and filled again, an additive layer), with
 * the game clearing the queue after every step (`busy`: event records are reused); the graphs alone
 * (evaluateGraphs and the clock), or with `step` the whole step.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationGraph } from '../../entry/index.ts'
import { makeTestAsset } from './ecs.ts'
import { heapWindows } from './heapWindows.ts'

const CHARACTERS = 12

/** `phase` (an int the game cycles) picks each layer's state; `speed` moves the blend spaces. */
const GRAPH: AnimationGraph = {
  parameters: { phase: { type: 'int' }, speed: { type: 'float' }, go: { type: 'trigger' } },
  layers: [
    {
      name: 'base',
      entry: 'turn',
      states: {
        turn: { clip: 'Turn' },
        wag: { clip: 'Wag', speed: 1.5 },
        blend: {
          blendSpace: {
            points: [
              { clip: 'Nod', at: 0 },
              { clip: 'Turn', at: 1 },
            ],
            parameter: 'speed',
          },
        },
      },
      transitions: [
        { from: 'any', to: 'turn', when: [['phase', '==', 0]], duration: 0.05 },
        { from: 'any', to: 'wag', when: [['phase', '==', 1]], duration: 0 },
        { from: 'any', to: 'blend', when: [['phase', '==', 2]], duration: 0.03 },
      ],
    },
    {
      name: 'upper',
      mask: ['spine'],
      weight: 0.5,
      entry: 'off',
      states: { off: {}, nod: { clip: 'Nod' } },
      transitions: [
        { from: 'off', to: 'nod', when: [['phase', '>=', 2]], duration: 0.02 },
        { from: 'nod', to: 'off', when: [['phase', '<', 2]], duration: 0.02 },
      ],
    },
    {
      name: 'extra',
      mode: 'additive',
      entry: 'wag',
      states: { wag: { clip: 'Wag' }, turn: { clip: 'Turn', loop: 'once' } },
      transitions: [
        { from: 'wag', to: 'turn', when: [['go']], duration: 0.02 },
        { from: 'turn', to: 'wag', exitTime: 0.5, duration: 0 },
      ],
    },
  ],
}

const QUEUE_FLOOR = 64

function crowd(): { plugin: AnimationPlugin; ids: number[] } {
  const plugin = createAnimationPlugin(createWorld(), {
    capacity: 512,
    dt: 1 / 64,
    physics: { ground: false },
  })
  const handle = plugin.addAsset(makeTestAsset())
  const ids = Array.from({ length: CHARACTERS }, () => plugin.addCharacter(handle))
  for (const eid of ids) plugin.setGraph(eid, GRAPH)
  for (let k = 0; k < 16; k++) plugin.step()
  while (plugin.events.length < QUEUE_FLOOR) plugin.events.push(plugin.events[0]!)
  return { plugin, ids }
}

let clock = 0
/**
 * The speeds the game sets, boxed once: a float computed (or read from an array of doubles, which V8 keeps
 * unboxed) and passed to a call is boxed there, an allocation of the game's loop, not of the plugin's.
 */
const SPEEDS: unknown[] = [0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 'boxed']

/**
 * `n` steps; `busy`: each character's phase moves every 3rd step (staggered), a trigger every 5th. `graphsOnly`:
 * the step is evaluateGraphs and advanceClock alone (the graphs' own cost: what they decide and the layer calls
 * they make), else the whole step.
 */
function run(
  plugin: AnimationPlugin,
  ids: readonly number[],
  n: number,
  busy: boolean,
  graphsOnly: boolean,
): void {
  const systems = plugin.systems
  for (let k = 0; k < n; k++) {
    clock++
    for (let c = 0; c < ids.length; c++) {
      const eid = ids[c]!
      plugin.setParameter(eid, 'speed', SPEEDS[(clock + c) % 8] as number)
      if (!busy) continue
      plugin.setParameter(eid, 'phase', (((clock + c) / 3) % 4) | 0)
      if ((clock + c) % 5 === 0) plugin.trigger(eid, 'go')
    }
    if (graphsOnly) {
      systems[0]!(plugin.world)
      systems[systems.length - 1]!(plugin.world)
    } else plugin.step()
    // The game clears what the step added. The queue keeps QUEUE_FLOOR records it read before: an array cut
    // to less than half its storage gives the storage back, and the next push allocates it anew (the array's
    // cost, not the step's).
    if (plugin.events.length > QUEUE_FLOOR) plugin.events.length = QUEUE_FLOOR
  }
}

/** The scenario of argv[2] ('steady' or 'busy'), the graphs alone; argv[3] 'step': the whole step. */
const busy = process.argv[2] === 'busy'
const { plugin, ids } = crowd()
if (!busy) plugin.setParameter(ids[0]!, 'phase', 2)
console.log(
  JSON.stringify(await heapWindows((n) => run(plugin, ids, n, busy, process.argv[3] !== 'step'), 64)),
)
