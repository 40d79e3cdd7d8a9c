/**
 * How a graph moves between states, with PlayCanvas's anim controller tests ported
 * (test/framework/anim/controller/anim-controller.test.mjs of playcanvas/engine: progress of a state, priority,
 * conditions, transitions from the active state and ANY, interruption sources, the state a transition makes
 * active) — PlayCanvas's priorities become list order, its PREV_STATE / NEXT_STATE / PREV_STATE_NEXT_STATE the
 * interruptions 'current', 'next' and 'both' — and this library's rules: exit time (≥), triggers used up or
 * cleared, events and their order, two characters in different states. dt is 1/64 s so times are exact.
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { isGraphEvent, type AnimationGraph, type GraphTransition } from '../../entry/index.ts'
import { makeTestAsset } from '../helpers/ecs.ts'

const DT = 1 / 64

/** PlayCanvas's fixture: three states of 1 s clips (Turn, Wag at 2 s), a float parameter at 0.5. */
function fixture(transitions: GraphTransition[], more: Partial<AnimationGraph> = {}) {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 256, dt: DT })
  const asset = makeTestAsset()
  const graph: AnimationGraph = {
    parameters: { param: { type: 'float', default: 0.5 }, go: { type: 'trigger' }, on: { type: 'bool' } },
    layers: [
      {
        name: 'base',
        entry: 'initial',
        states: { initial: { clip: 'Turn' }, other1: { clip: 'Turn' }, other2: { clip: 'Wag' } },
        transitions,
      },
    ],
    ...more,
  }
  const eid = plugin.addCharacter(asset)
  plugin.setGraph(eid, graph)
  return { plugin, eid, asset, graph }
}

function steps(plugin: AnimationPlugin, n: number): void {
  for (let i = 0; i < n; i++) plugin.step()
}

/** The graph events since the last call, as "step kind from→to". */
function graphEvents(plugin: AnimationPlugin): string[] {
  const out = plugin.events.filter(isGraphEvent).map((e) => `${e.step} ${e.kind} ${e.from}→${e.to}`)
  plugin.events.length = 0
  return out
}

describe('a state (PlayCanvas #_getActiveStateProgressForTime)', () => {
  it('has progress 0 at the start of its clip, 0.5 halfway and 1 at its end', () => {
    const { plugin, eid } = fixture([])
    expect(plugin.getState(eid, 'base')).toEqual({
      state: 'initial',
      time: 0,
      normalizedTime: 0,
      transition: null,
    })
    plugin.step() // shows the start
    expect(plugin.getState(eid, 'base').normalizedTime).toBe(0)
    steps(plugin, 32)
    expect(plugin.getState(eid, 'base')).toMatchObject({ time: 0.5, normalizedTime: 0.5 })
    steps(plugin, 32)
    expect(plugin.getState(eid, 'base')).toMatchObject({ time: 1, normalizedTime: 1 })
    // Not wrapped at the loop: a repeating clip's normalized time counts its loops.
    steps(plugin, 64)
    expect(plugin.getState(eid, 'base').normalizedTime).toBe(2)
    expect(plugin.getLayer(eid, 0).time).toBe(0)
  })
})

describe('transition order (PlayCanvas #_findTransitionsFromState: sorted by priority)', () => {
  const pair: GraphTransition[] = [
    { from: 'initial', to: 'other2', when: [['param', '<', 0.25]], duration: 0.5 },
    { from: 'initial', to: 'other2', when: [['param', '<', 1]], duration: 0.25 },
  ]

  it('takes the first transition in list order whose conditions hold', () => {
    const { plugin, eid } = fixture(pair, { parameters: { param: { type: 'float', default: 0.1 } } })
    plugin.step()
    // Both hold; the first (0.5 s) went: a step of it is 1/32.
    expect(plugin.getState(eid, 'base').transition).toEqual({ to: 'other2', progress: 1 / 32 })
  })

  it('skips one whose conditions do not hold (#_transitionHasConditionsMet)', () => {
    const { plugin, eid } = fixture(pair)
    plugin.step()
    expect(plugin.getState(eid, 'base').transition).toEqual({ to: 'other2', progress: 1 / 16 })
  })

  it('takes a transition with no conditions at once, and none whose conditions never hold', () => {
    const always = fixture([{ from: 'initial', to: 'other1' }])
    always.plugin.step()
    expect(always.plugin.getState(always.eid, 'base').state).toBe('other1')
    const never = fixture([{ from: 'initial', to: 'other1', when: [['param', '>', 1]] }])
    steps(never.plugin, 10)
    expect(never.plugin.getState(never.eid, 'base').state).toBe('initial')
  })
})

describe('transitions from the state and from any (PlayCanvas #_findTransition, not transitioning)', () => {
  it('takes transitions from the state it is in and from any, in list order', () => {
    const { plugin, eid } = fixture([
      { from: 'other1', to: 'other2' },
      { from: 'any', to: 'other1', when: [['go']] },
    ])
    graphEvents(plugin)
    plugin.trigger(eid, 'go')
    plugin.step()
    plugin.step()
    expect(graphEvents(plugin)).toEqual([
      '0 transition-start initial→other1',
      '0 state-enter initial→other1',
      '0 state-exit initial→other1',
      '0 transition-end initial→other1',
      '1 transition-start other1→other2',
      '1 state-enter other1→other2',
      '1 state-exit other1→other2',
      '1 transition-end other1→other2',
    ])
  })

  it('never goes from any to the state it is in, unless canTransitionToSelf', () => {
    const stay = fixture([{ from: 'any', to: 'initial' }])
    graphEvents(stay.plugin)
    steps(stay.plugin, 5)
    expect(graphEvents(stay.plugin)).toEqual([])
    const self = fixture([{ from: 'any', to: 'initial', when: [['go']], canTransitionToSelf: true }])
    graphEvents(self.plugin)
    self.plugin.trigger(self.eid, 'go')
    steps(self.plugin, 3)
    expect(graphEvents(self.plugin)).toEqual([
      '0 transition-start initial→initial',
      '0 state-enter initial→initial',
      '0 state-exit initial→initial',
      '0 transition-end initial→initial',
    ])
  })

  it('goes from a named state to itself (a restart of its state)', () => {
    const { plugin, eid } = fixture([{ from: 'initial', to: 'initial', when: [['go']] }])
    steps(plugin, 20)
    plugin.trigger(eid, 'go')
    plugin.step()
    expect(plugin.getState(eid, 'base')).toMatchObject({ state: 'initial', time: 0 })
  })
})

/** initial → other1 over 1 s (with `interruption`), then, mid-way, `go` is set. */
function interrupted(interruption: GraphTransition['interruption'], extra: GraphTransition[]) {
  const f = fixture([{ from: 'initial', to: 'other1', when: [['on']], duration: 1, interruption }, ...extra])
  f.plugin.setParameter(f.eid, 'on', true)
  steps(f.plugin, 10)
  graphEvents(f.plugin)
  f.plugin.trigger(f.eid, 'go')
  f.plugin.step()
  return { ...f, events: graphEvents(f.plugin), state: f.plugin.getState(f.eid, 'base') }
}

describe('interruption (PlayCanvas #_findTransition while transitioning)', () => {
  const fromPrevious: GraphTransition = { from: 'initial', to: 'other2', when: [['go']] }
  const fromNext: GraphTransition = { from: 'other1', to: 'other2', when: [['go']], duration: 0.5 }
  const fromAny: GraphTransition = { from: 'any', to: 'other2', when: [['go']], duration: 0.25 }

  it("'none' (the default): nothing interrupts, not even any", () => {
    for (const extra of [fromPrevious, fromNext, fromAny]) {
      const r = interrupted('none', [extra])
      expect(r.events).toEqual([])
      expect(r.state).toMatchObject({ state: 'initial', transition: { to: 'other1', progress: 11 / 64 } })
    }
  })

  it("'current' (PREV_STATE): a transition from the state it leaves, or from any", () => {
    const r = interrupted('current', [fromNext, fromPrevious])
    expect(r.events).toEqual([
      '10 state-exit initial→other1',
      '10 transition-end initial→other1',
      '10 transition-start other1→other2',
      '10 state-enter other1→other2',
      '10 state-exit other1→other2',
      '10 transition-end other1→other2',
    ])
    expect(interrupted('current', [fromNext]).events).toEqual([])
    expect(interrupted('current', [fromAny]).state.transition).toEqual({ to: 'other2', progress: 1 / 16 })
  })

  it("'next' (NEXT_STATE): a transition from the state it goes to, or from any", () => {
    expect(interrupted('next', [fromPrevious]).events).toEqual([])
    expect(interrupted('next', [fromPrevious, fromNext]).state).toMatchObject({
      state: 'other1',
      transition: { to: 'other2', progress: 1 / 32 },
    })
    expect(interrupted('next', [fromAny]).state.transition).toEqual({ to: 'other2', progress: 1 / 16 })
  })

  it("'both' (PREV_STATE_NEXT_STATE): from either, in list order", () => {
    expect(interrupted('both', [fromNext, fromPrevious]).state.transition).toEqual({
      to: 'other2',
      progress: 1 / 32,
    })
    expect(interrupted('both', [fromPrevious, fromNext]).state).toMatchObject({
      state: 'other2',
      transition: null,
    })
  })
})

describe('starting a transition (PlayCanvas #updateStateFromTransition)', () => {
  it('heads to its destination from the state it was in, which it leaves when the fade ends', () => {
    const { plugin, eid } = fixture([{ from: 'initial', to: 'other2', when: [['go']], duration: 0.25 }])
    steps(plugin, 8)
    plugin.trigger(eid, 'go')
    plugin.step()
    expect(plugin.getState(eid, 'base')).toEqual({
      state: 'initial',
      time: 8 / 64,
      normalizedTime: 8 / 64,
      transition: { to: 'other2', progress: 1 / 16 },
    })
    expect(plugin.getLayer(eid, 0).fade).toEqual({ from: 'Turn', blend: 1 / 16 })
    steps(plugin, 15)
    expect(plugin.getState(eid, 'base')).toEqual({
      state: 'other2',
      time: 15 / 64,
      normalizedTime: 15 / 128,
      transition: null,
    })
    expect(plugin.getLayer(eid, 0).fade).toBeNull()
  })
})

describe('exit time', () => {
  it('lets a transition go once the normalized time of the state it leaves has reached it', () => {
    const { plugin, eid } = fixture([{ from: 'initial', to: 'other1', exitTime: 0.5 }])
    plugin.step()
    steps(plugin, 31)
    expect(plugin.getState(eid, 'base').state).toBe('initial')
    plugin.step()
    expect(plugin.getState(eid, 'base')).toMatchObject({ state: 'other1', time: 0 })
  })

  it('needs the conditions too, and still goes later (≥, not a crossing)', () => {
    const { plugin, eid } = fixture([{ from: 'initial', to: 'other1', exitTime: 0.25, when: [['on']] }])
    steps(plugin, 100)
    expect(plugin.getState(eid, 'base').state).toBe('initial')
    plugin.setParameter(eid, 'on', true)
    plugin.step()
    expect(plugin.getState(eid, 'base').state).toBe('other1')
  })

  it("of a 'once' clip stops at 1: exit time 1 goes at the step its clip ends", () => {
    const f = fixture([{ from: 'other1', to: 'initial', exitTime: 1 }])
    const graph = {
      ...f.graph,
      layers: [
        {
          ...f.graph.layers[0]!,
          entry: 'other1',
          states: { ...f.graph.layers[0]!.states, other1: { clip: 'Nod', loop: 'once' as const } },
        },
      ],
    }
    f.plugin.setGraph(f.eid, graph)
    steps(f.plugin, 32)
    expect(f.plugin.getState(f.eid, 'base')).toMatchObject({ state: 'other1', time: 31 / 64 })
    f.plugin.step()
    expect(f.plugin.getState(f.eid, 'base')).toMatchObject({ state: 'initial' })
  })
})

describe('triggers', () => {
  it('are used up by the transition that uses them, and cleared at the end of the step otherwise', () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256, dt: DT })
    const asset = makeTestAsset()
    const layer = (name: string) => ({
      name,
      entry: 'a',
      states: { a: { clip: 'Turn' }, b: { clip: 'Wag' } },
      transitions: [
        { from: 'a', to: 'b', when: [['go']] },
        { from: 'b', to: 'a', when: [['go']] },
      ] as GraphTransition[],
    })
    const eid = plugin.addCharacter(asset)
    plugin.setGraph(eid, { parameters: { go: { type: 'trigger' } }, layers: [layer('one'), layer('two')] })
    plugin.trigger(eid, 'go')
    plugin.step()
    // Layer one used it; layer two never saw it.
    expect([plugin.getState(eid, 'one').state, plugin.getState(eid, 'two').state]).toEqual(['b', 'a'])
    plugin.step()
    expect([plugin.getState(eid, 'one').state, plugin.getState(eid, 'two').state]).toEqual(['b', 'a'])
  })

  it('set while no transition can use it are gone after that step', () => {
    const { plugin, eid } = fixture([{ from: 'initial', to: 'other1', when: [['go'], ['on']] }])
    plugin.trigger(eid, 'go')
    plugin.step()
    plugin.setParameter(eid, 'on', true)
    plugin.step()
    expect(plugin.getState(eid, 'base').state).toBe('initial')
    plugin.trigger(eid, 'go')
    plugin.step()
    expect(plugin.getState(eid, 'base').state).toBe('other1')
  })
})

describe('two characters on one graph', () => {
  it('run apart: each its own parameters, states and events', () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256, dt: DT })
    const asset = makeTestAsset()
    const graph: AnimationGraph = {
      parameters: { speed: { type: 'float' } },
      layers: [
        {
          name: 'base',
          entry: 'still',
          states: { still: { clip: 'Turn' }, moving: { clip: 'Wag', speed: 2 } },
          transitions: [
            { from: 'still', to: 'moving', when: [['speed', '>', 0]], duration: 0.125 },
            { from: 'moving', to: 'still', when: [['speed', '==', 0]], duration: 0.125 },
          ],
        },
      ],
    }
    const [a, b] = [plugin.addCharacter(asset), plugin.addCharacter(asset)]
    plugin.setGraph(a, graph)
    plugin.setGraph(b, graph)
    plugin.setParameter(b, 'speed', 1)
    steps(plugin, 20)
    expect(plugin.getState(a, 'base')).toMatchObject({ state: 'still', time: 19 / 64 })
    expect(plugin.getState(b, 'base')).toMatchObject({ state: 'moving', time: 38 / 64, transition: null })
    expect(plugin.getLayer(a, 0).clip).toBe('Turn')
    expect(plugin.getLayer(b, 0)).toMatchObject({ clip: 'Wag', speed: 2 })
    const enters = plugin.events.filter(isGraphEvent).map((e) => [e.character, e.kind, e.state])
    expect(enters).toEqual([
      [a, 'state-enter', 'still'],
      [b, 'state-enter', 'still'],
      [b, 'transition-start', 'moving'],
      [b, 'state-enter', 'moving'],
      [b, 'state-exit', 'still'],
      [b, 'transition-end', 'moving'],
    ])
  })
})

describe('the time scale (setTimeScale)', () => {
  it('runs state times and transitions by animation time, as the fades they start', () => {
    const { plugin, eid } = fixture([{ from: 'initial', to: 'other2', when: [['go']], duration: 0.25 }])
    plugin.setTimeScale(0.5)
    plugin.step() // shows the start
    for (let i = 0; i < 16; i++) plugin.step()
    expect(plugin.getState(eid, 'base')).toMatchObject({ time: 0.125, normalizedTime: 0.125 })
    plugin.trigger(eid, 'go')
    plugin.step()
    expect(plugin.getState(eid, 'base').transition).toEqual({ to: 'other2', progress: 1 / 32 })
    expect(plugin.getLayer(eid, 0).fade!.blend).toBe(1 / 32)
    // 0.25 s at half rate: 32 steps; the transition ends with the fade, in the same step.
    for (let i = 0; i < 30; i++) plugin.step()
    expect(plugin.getState(eid, 'base').transition).toEqual({ to: 'other2', progress: 31 / 32 })
    plugin.step()
    expect(plugin.getState(eid, 'base')).toMatchObject({ state: 'other2', transition: null })
    expect(plugin.getLayer(eid, 0).fade).toBeNull()
  })
})
