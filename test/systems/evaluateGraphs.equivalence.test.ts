/**
 * A graph plays nothing of its own: for any schedule of parameter changes and triggers, a character run by the
 * graph and a character driven by hand — play, crossFade, playBlendSpace, setBlendParameter, setLayer and
 * stopLayer called at the steps the graph decided, as setGraph documents the mapping — have bit-identical world
 * matrices after every step (three characters on each side, in different states), at any time scale.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { isClipEvent } from '../../entry/index.ts'
import {
  entryEntries,
  graphPlugin,
  prepareByHand,
  recordingStep,
  replayEntries,
  ROBOT_GRAPH,
  worldMatrices,
  type GraphEntry,
  type HandParams,
} from '../helpers/graphs.ts'

let robot: AnimationAsset
beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

const STEPS = 150
const CHARACTERS = 3

/** One game input at a step: a parameter value or a trigger, for one character. */
const input = fc.record({
  step: fc.integer({ min: 0, max: STEPS - 1 }),
  who: fc.integer({ min: 0, max: CHARACTERS - 1 }),
  what: fc.oneof(
    fc.record({ speed: fc.constantFrom(0, 0.05, 0.1, 0.5, 1, 2.5, 4, 6) }),
    fc.record({ grounded: fc.boolean() }),
    fc.constantFrom({ trigger: 'wave' }, { trigger: 'nod' }),
    // The animation clock's rate, the whole plugin's (both sides): fades and state times follow it.
    fc.record({ timeScale: fc.constantFrom(0.5, 1, 1.75) }),
  ),
})

describe('a graph and the same calls by hand', () => {
  it('give bit-identical world matrices after every step, for any parameter schedule', () => {
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 40 }), (inputs) => {
        const graphed = graphPlugin()
        const hand = graphPlugin()
        const a = Array.from({ length: CHARACTERS }, () => graphed.addCharacter(robot))
        const b = Array.from({ length: CHARACTERS }, () => hand.addCharacter(robot))
        const params: HandParams[] = a.map(() => ({ speed: 0, grounded: 1 }))
        const log: GraphEntry[] = []
        const step = recordingStep(graphed, log)
        for (let c = 0; c < CHARACTERS; c++) {
          prepareByHand(hand, ROBOT_GRAPH, b[c]!)
          graphed.setGraph(a[c]!, ROBOT_GRAPH)
        }
        // setGraph's entry states, as the hand makes them: each layer cut to its entry.
        for (let c = 0; c < CHARACTERS; c++)
          replayEntries(hand, ROBOT_GRAPH, entryEntries(ROBOT_GRAPH, b[c]!), () => params[c]!)
        const byStep = new Map<number, typeof inputs>()
        for (const i of inputs) byStep.set(i.step, [...(byStep.get(i.step) ?? []), i])
        let entered = 0
        for (let s = 0; s < STEPS; s++) {
          for (const i of byStep.get(s) ?? []) {
            const eid = a[i.who]!
            if ('timeScale' in i.what) {
              graphed.setTimeScale(i.what.timeScale)
              hand.setTimeScale(i.what.timeScale)
            } else if ('trigger' in i.what) graphed.trigger(eid, i.what.trigger)
            else if ('speed' in i.what) {
              graphed.setParameter(eid, 'speed', i.what.speed)
              params[i.who]!.speed = i.what.speed
            } else {
              graphed.setParameter(eid, 'grounded', i.what.grounded)
              params[i.who]!.grounded = i.what.grounded ? 1 : 0
            }
          }
          log.length = 0
          step()
          entered += log.filter((e) => e.kind === 'enter').length
          // The same calls on the hand side, at this step, in the graph's order (its ids mapped).
          const mapped = log.map((e) => ({ ...e, eid: b[a.indexOf(e.eid)]! }))
          replayEntries(hand, ROBOT_GRAPH, mapped, (eid) => params[b.indexOf(eid)]!)
          hand.step()
          for (let c = 0; c < CHARACTERS; c++) {
            const ga = worldMatrices(graphed, a[c]!)
            const hb = worldMatrices(hand, b[c]!)
            if (!Buffer.from(ga.buffer).equals(Buffer.from(hb.buffer))) {
              throw new Error(`character ${c} differs at step ${s}`)
            }
          }
        }
        // Both sides reported the same clip events (the graph's own events are its alone).
        const clipEvents = (p: typeof hand, ids: number[]) =>
          p.events.filter(isClipEvent).map((e) => `${e.step} ${ids.indexOf(e.character)} ${e.kind} ${e.clip}`)
        expect(clipEvents(graphed, a)).toEqual(clipEvents(hand, b))
        return entered >= 0
      }),
      { numRuns: 12 },
    )
  })

  it('covers transitions of every kind (a control: the schedule below makes them all)', () => {
    const graphed = graphPlugin()
    const eid = graphed.addCharacter(robot)
    graphed.setGraph(eid, ROBOT_GRAPH)
    const log: GraphEntry[] = []
    const step = recordingStep(graphed, log)
    const plan: Record<number, () => void> = {
      5: () => graphed.setParameter(eid, 'speed', 2),
      20: () => graphed.trigger(eid, 'wave'),
      30: () => graphed.setParameter(eid, 'speed', 5),
      40: () => graphed.trigger(eid, 'nod'),
      60: () => graphed.setParameter(eid, 'grounded', false),
      62: () => graphed.setParameter(eid, 'grounded', true),
      63: () => graphed.trigger(eid, 'wave'),
      140: () => graphed.setParameter(eid, 'speed', 0),
    }
    for (let s = 0; s < 200; s++) {
      plan[s]?.()
      step()
    }
    const kinds = new Set(log.map((e) => (e.kind === 'follow' ? 'follow' : `${e.g}:${e.s}`)))
    // Every state of every layer entered by a transition, and a blend space followed its parameter.
    expect([...kinds].sort()).toEqual(['0:0', '0:1', '0:2', '1:0', '1:1', '2:0', '2:1', 'follow'])
  })
})
