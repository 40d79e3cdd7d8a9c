/**
 * setGraph, setParameter, trigger and getState as calls: every mistake in a graph is an AnimationError naming
 * its path, a failed call changes nothing (hash() and snapshot() bytes), one graph drives many characters
 * compiled once per asset, and a graph that is replaced or removed says which states it left.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError, isGraphEvent, type AnimationGraph } from '../../entry/index.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { makeTestAsset } from '../helpers/ecs.ts'
import { ROBOT_GRAPH } from '../helpers/graphs.ts'

let robot: AnimationAsset
beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

/** The graph with a mistake put in by `edit` (on a deep copy). */
function broken(edit: (g: any) => void): AnimationGraph {
  const g = structuredClone(ROBOT_GRAPH) as any
  edit(g)
  return g
}

const MISTAKES: [string, (g: any) => void][] = [
  [
    'layers[0].transitions[3].when[0]: no parameter "sped"',
    (g) => (g.layers[0].transitions[3].when = [['sped', '>', 1]]),
  ],
  ['graph: has no key "layer" (it takes parameters, layers)', (g) => (g.layer = [])],
  ['layers: undefined must be an array of 1 to 8 layers', (g) => delete g.layers],
  ['layers: [] must be an array of 1 to 8 layers', (g) => (g.layers = [])],
  [
    'parameters.speed.type: "double" is not one of float, int, bool, trigger',
    (g) => (g.parameters.speed.type = 'double'),
  ],
  ['parameters.speed.default: true is not a finite number', (g) => (g.parameters.speed.default = true)],
  ['parameters.wave.default: a trigger has no default', (g) => (g.parameters.wave.default = false)],
  [
    'parameters.count.default: 1.5 is not an integer',
    (g) => (g.parameters.count = { type: 'int', default: 1.5 }),
  ],
  ['layers[1].name: "base" names layers[0] too', (g) => (g.layers[1].name = 'base')],
  ['layers[0].name: "" is not a non-empty string', (g) => (g.layers[0].name = '')],
  ['layers[0].entry: no state "idel"', (g) => (g.layers[0].entry = 'idel')],
  [
    'layers[0].states.any: "any" is reserved for transitions from every state',
    (g) => (g.layers[0].states.any = { clip: 'Idle' }),
  ],
  [
    'layers[0].states.none: layer 0 (the base layer) always shows a pose',
    (g) => (g.layers[0].states.none = {}),
  ],
  ['layers[0].states.jump.clip: no clip named "Jmp"', (g) => (g.layers[0].states.jump.clip = 'Jmp')],
  [
    'layers[0].states.jump.loop: "twice" is not one of once, repeat, pingpong',
    (g) => (g.layers[0].states.jump.loop = 'twice'),
  ],
  ['layers[0].states.jump: has no key "fade"', (g) => (g.layers[0].states.jump.fade = 1)],
  [
    'layers[0].states.jump: a state plays a clip or a blend space, not both',
    (g) => (g.layers[0].states.jump.blendSpace = {}),
  ],
  ['layers[1].states.none: play options need a clip', (g) => (g.layers[1].states.none = { speed: 2 })],
  [
    'layers[0].states.move.blendSpace.parameter: no parameter "pace"',
    (g) => (g.layers[0].states.move.blendSpace.parameter = 'pace'),
  ],
  [
    'parameter "grounded" is a bool; a blend space needs a float or int',
    (g) => (g.layers[0].states.move.blendSpace.parameter = 'grounded'),
  ],
  [
    'layers[0].states.move.blendSpace.points[1].at: 1 repeats another point',
    (g) => (g.layers[0].states.move.blendSpace.points[1].at = 1),
  ],
  [
    'layers[0].states.move.blendSpace.points[1].clip: no clip named "Sprint"',
    (g) => (g.layers[0].states.move.blendSpace.points[1].clip = 'Sprint'),
  ],
  ['layers[0].transitions[0].from: no state "walk"', (g) => (g.layers[0].transitions[0].from = 'walk')],
  ['layers[0].transitions[0].to: no state "any"', (g) => (g.layers[0].transitions[0].to = 'any')],
  ['layers[0].transitions[0].duration: -1 s must be ≥ 0', (g) => (g.layers[0].transitions[0].duration = -1)],
  [
    'layers[0].transitions[0].exitTime: NaN is not a finite number',
    (g) => (g.layers[0].transitions[0].exitTime = NaN),
  ],
  [
    'layers[0].transitions[0].interruption: "previous" is not one of none, current, next, both',
    (g) => (g.layers[0].transitions[0].interruption = 'previous'),
  ],
  [
    'layers[0].transitions[0].when[0][1]: "=>" is not one of > < >= <= == !=',
    (g) => (g.layers[0].transitions[0].when = [['speed', '=>', 1]]),
  ],
  [
    'layers[0].transitions[0].when[0][2]: "1" is not a finite number',
    (g) => (g.layers[0].transitions[0].when = [['speed', '>', '1']]),
  ],
  [
    'layers[0].transitions[0].when[0]: parameter "speed" is a float: compare it',
    (g) => (g.layers[0].transitions[0].when = [['speed']]),
  ],
  [
    'layers[0].transitions[0].when[0]: parameter "wave" is a trigger: write ["wave"]',
    (g) => (g.layers[0].transitions[0].when = [['wave', '==', true]]),
  ],
  [
    'layers[0].transitions[2].when[0][1]: a bool compares with == or !=, not >',
    (g) => (g.layers[0].transitions[2].when = [['grounded', '>', false]]),
  ],
  [
    'layers[0].transitions[2].when[0][2]: 0 is not true or false',
    (g) => (g.layers[0].transitions[2].when = [['grounded', '==', 0]]),
  ],
  [
    'layers[0].mode: layer 0 is the base layer; an additive layer needs one below it',
    (g) => (g.layers[0].mode = 'additive'),
  ],
  ['layers[1].weight: 2 must be in [0, 1]', (g) => (g.layers[1].weight = 2)],
  ['layers[1].mask[0]', (g) => (g.layers[1].mask = ['Abdomn'])],
]

describe('setGraph checks', () => {
  it('names the path of every mistake, and a failed call changes nothing', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 512 })
    const [a, b] = [p.addCharacter(robot), p.addCharacter(robot)]
    p.setGraph(a, ROBOT_GRAPH)
    p.play(b, 'Dance')
    for (let i = 0; i < 5; i++) p.step()
    const hash = p.hash()
    const bytes = p.snapshot()
    for (const [message, edit] of MISTAKES) {
      for (const eid of [a, b]) {
        let error: unknown
        try {
          p.setGraph(eid, broken(edit))
        } catch (e) {
          error = e
        }
        expect(error, message).toBeInstanceOf(AnimationError)
        expect((error as AnimationError).message, message).toContain(message)
        expect((error as AnimationError).message).toMatch(/^setGraph\(\d+\): /)
      }
      expect(p.hash(), message).toBe(hash)
      expect(Buffer.from(p.snapshot()).equals(Buffer.from(bytes)), message).toBe(true)
    }
  })

  it('each mistake above fails on its own: the unedited graph is accepted', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 512 })
    expect(() =>
      p.setGraph(
        p.addCharacter(robot),
        broken(() => {}),
      ),
    ).not.toThrow()
  })

  it('refuses graphs that need more layers or pose slots than the plugin has, changing nothing', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 512, maxLayers: 1 })
    const eid = p.addCharacter(robot)
    const hash = p.hash()
    expect(() => p.setGraph(eid, ROBOT_GRAPH)).toThrow(/need more layer slots than are free/)
    expect(p.hash()).toBe(hash)
    expect(p.getLayers(eid)).toHaveLength(1)
  })
})

describe('parameters, triggers and states', () => {
  function character(): { p: AnimationPlugin; eid: number } {
    const p = createAnimationPlugin(createWorld(), { capacity: 512 })
    const eid = p.addCharacter(robot)
    p.setGraph(eid, { ...ROBOT_GRAPH, parameters: { ...ROBOT_GRAPH.parameters, count: { type: 'int' } } })
    return { p, eid }
  }

  it('refuses a name, type or value that does not fit, changing nothing', () => {
    const { p, eid } = character()
    const other = p.addCharacter(robot)
    const hash = p.hash()
    const refused: [() => void, RegExp][] = [
      [() => p.setParameter(eid, 'sped', 1), /setParameter: no parameter "sped" \(the graph has "speed", /],
      [() => p.setParameter(eid, 'speed', NaN), /"speed" is a float: a finite number, not NaN/],
      [() => p.setParameter(eid, 'speed', true), /"speed" is a float/],
      [() => p.setParameter(eid, 'count', 1.5), /"count" is an int: an integer, not 1.5/],
      [() => p.setParameter(eid, 'grounded', 1), /"grounded" is a bool, not 1/],
      [() => p.setParameter(eid, 'wave', true), /"wave" is a trigger: set it with trigger\(\)/],
      [() => p.trigger(eid, 'speed'), /trigger: "speed" is a float, not a trigger/],
      [() => p.trigger(eid, 'wav'), /no parameter "wav"/],
      [() => p.setParameter(other, 'speed', 1), /character \d+ has no graph \(setGraph gives it one\)/],
      [
        () => p.getState(eid, 'bas'),
        /getState: no graph layer "bas" \(the graph has "base", "emotes", "nods"\)/,
      ],
      [() => p.getState(other, 'base'), /has no graph/],
      [() => p.trigger(9999, 'wave'), /is not a character/],
    ]
    for (const [call, message] of refused) {
      expect(call).toThrow(AnimationError)
      expect(call).toThrow(message)
    }
    expect(p.hash()).toBe(hash)
  })

  it('are in the hash: a parameter or a pending trigger changes it', () => {
    const { p, eid } = character()
    const before = p.hash()
    p.setParameter(eid, 'speed', 1)
    const speed = p.hash()
    p.trigger(eid, 'wave')
    expect(new Set([before, speed, p.hash()]).size).toBe(3)
  })
})

describe('one graph, many characters', () => {
  it('is compiled once per asset and shared by every character of it', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 2048 })
    const test = makeTestAsset()
    const graph: AnimationGraph = {
      layers: [{ name: 'base', entry: 'a', states: { a: { clip: 'Walking' } } }],
    }
    const robots = Array.from({ length: 4 }, () => p.addCharacter(robot))
    for (const eid of robots) p.setGraph(eid, ROBOT_GRAPH)
    const ctx = contextOf(p)
    const plans = new Set(robots.map((eid) => ctx.graphs[eid]!.plan))
    expect(plans.size).toBe(1)
    // The same graph as a different object (a copy, keys in another order) is the same plan.
    const copy = JSON.parse(JSON.stringify(ROBOT_GRAPH))
    copy.layers[0] = { transitions: copy.layers[0].transitions, ...copy.layers[0] }
    const fifth = p.addCharacter(robot)
    p.setGraph(fifth, copy)
    expect(ctx.graphs[fifth]!.plan).toBe([...plans][0])
    // Another asset compiles its own (its clips are found by name: "Walking" is RobotExpressive's too).
    p.addAsset(test)
    const t = p.addCharacter(test)
    expect(() => p.setGraph(t, graph)).not.toThrow()
    p.setGraph(robots[0]!, graph)
    expect(ctx.graphs[t]!.plan).not.toBe(ctx.graphs[robots[0]!]!.plan)
    expect(ctx.graphPlans.size).toBe(2)
    // Per character, only small typed arrays: parameters, triggers, and a few numbers per layer.
    const run = ctx.graphs[robots[1]!]!
    expect([run.params.length, run.triggers.length, run.i.length, run.f.length]).toEqual([4, 4, 9, 21])
  })
})

describe('replacing and removing a graph', () => {
  it('reports the states it leaves, mid-transition too, and hands the layers back as they play', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 512 })
    const eid = p.addCharacter(robot)
    p.setGraph(eid, ROBOT_GRAPH)
    p.setParameter(eid, 'speed', 2)
    p.step()
    p.step()
    p.events.length = 0
    p.setGraph(eid, null)
    expect(p.events.filter(isGraphEvent).map((e) => `${e.layerName} ${e.kind} ${e.from}→${e.to}`)).toEqual([
      'base state-exit idle→move',
      'base transition-end idle→move',
      'base state-exit move→',
      'emotes state-exit none→',
      'nods state-exit still→',
    ])
    expect(() => p.getState(eid, 'base')).toThrow(/has no graph/)
    const shown = p.getLayer(eid, 0)
    p.step()
    expect(p.getLayer(eid, 0).fade?.blend).toBeGreaterThan(shown.fade!.blend)
    expect(() => p.crossFade(eid, 'Dance', 0.2)).not.toThrow()
  })

  it('a new graph cuts every layer to its entry; a removed character takes its graph with it', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 512 })
    const eid = p.addCharacter(robot)
    p.setGraph(eid, ROBOT_GRAPH)
    p.setParameter(eid, 'speed', 2)
    for (let i = 0; i < 30; i++) p.step()
    p.setGraph(eid, ROBOT_GRAPH)
    expect(p.getState(eid, 'base')).toEqual({ state: 'idle', time: 0, normalizedTime: 0, transition: null })
    expect(p.getLayer(eid, 0)).toMatchObject({ clip: 'Idle', fade: null })
    p.removeCharacter(eid)
    expect(contextOf(p).graphs[eid]).toBeUndefined()
    p.step()
  })
})

describe('a graph whose layer is not as setGraph made it', () => {
  it('leaves that layer alone and steps on (a snapshot forged to lack a layer restores to this)', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 512 })
    const eid = p.addCharacter(robot)
    p.setGraph(eid, ROBOT_GRAPH)
    const run = contextOf(p).graphs[eid]!
    run.blendSpaces[0]![1] = null // move's blend space, as attachGraph leaves it for a missing layer
    p.setParameter(eid, 'speed', 2)
    for (let i = 0; i < 40; i++) p.step()
    expect(p.getState(eid, 'base').state).toBe('move')
    expect(p.getLayer(eid, 0)).toMatchObject({ source: 'clip', clip: 'Idle' })
  })
})
