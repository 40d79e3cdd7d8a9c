/**
 * Clip events of blend spaces (issue 16): every point of nonzero weight reports its clip's loops and markers,
 * with its layer and weight = the point's weight × the layer's. Synchronized, a point's clip time is the shared
 * phase × its duration, so all points loop at the step the phase wraps; unsynchronized, each at its own end.
 *
 * dt = 1/64 s and the layer's speed chosen so that the phase moves by exact binary fractions: every crossing
 * lands on a known step. Turn (1 s) has markers at 0.25 ('left') and 0.75 ('right'); Nod (0.5 s) at 0 ('down')
 * and at its end ('up').
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { isClipEvent } from '../../systems/state.ts'
import { makeTestAsset, stepN } from '../helpers/ecs.ts'

function setup() {
  const plugin = createAnimationPlugin(createWorld(), {
    capacity: 512,
    dt: 1 / 64,
    physics: { gravity: [0, 0, 0], ground: false },
  })
  const handle = plugin.addAsset(makeTestAsset())
  plugin.addMarker(handle, 'Turn', 0.75, 'right')
  plugin.addMarker(handle, 'Turn', 0.25, 'left')
  plugin.addMarker(handle, 'Nod', 0, 'down')
  plugin.addMarker(handle, 'Nod', 0.5, 'up')
  return { plugin, handle }
}

const POINTS = [
  { clip: 'Turn', at: 0 },
  { clip: 'Nod', at: 1 },
]

/** `step clip kind[:name] layer weight` for each clip event of character `c`. */
function lines(plugin: AnimationPlugin, c: number): string[] {
  return plugin.events.flatMap((e) =>
    isClipEvent(e) && e.character === c
      ? [`${e.step} ${e.clip} ${e.kind}${e.kind === 'marker' ? `:${e.name}` : ''} ${e.layer} ${e.weight}`]
      : [],
  )
}

describe('blend spaces report clip events', () => {
  it('synchronized: every point loops when the shared phase wraps; markers at its own clip time', () => {
    const { plugin, handle } = setup()
    const c = plugin.addCharacter(handle)
    plugin.playBlendSpace(c, POINTS, { parameter: 0.5 })
    // The cycle lasts 0.5·1 + 0.5·0.5 = 0.75 s; at speed 0.75 the phase moves 1/64 a step: Turn at s/64 s, Nod
    // at s/128 s.
    plugin.setSpeed(c, 0.75)
    stepN(plugin, 130)
    expect(lines(plugin, c)).toEqual([
      // The first step shows the start: Nod's marker at 0.
      '0 Nod marker:down 0 0.5',
      '16 Turn marker:left 0 0.5',
      '48 Turn marker:right 0 0.5',
      '64 Turn loop 0 0.5',
      '64 Nod marker:up 0 0.5',
      '64 Nod loop 0 0.5',
      '64 Nod marker:down 0 0.5',
      '80 Turn marker:left 0 0.5',
      '112 Turn marker:right 0 0.5',
      '128 Turn loop 0 0.5',
      '128 Nod marker:up 0 0.5',
      '128 Nod loop 0 0.5',
      '128 Nod marker:down 0 0.5',
    ])
  })

  it("unsynchronized: each point loops at its own clip's end; on a layer, weight × the layer's", () => {
    const { plugin, handle } = setup()
    const c = plugin.addCharacter(handle)
    plugin.play(c, 'Wag') // layer 0: Wag has no markers and loops at 128
    plugin.setLayer(c, 1, { weight: 0.5 })
    plugin.playBlendSpace(c, POINTS, { parameter: 0.25, sync: false, layer: 1 })
    stepN(plugin, 70)
    expect(lines(plugin, c)).toEqual([
      '0 Nod marker:down 1 0.125',
      '16 Turn marker:left 1 0.375',
      '32 Nod marker:up 1 0.125',
      '32 Nod loop 1 0.125',
      '32 Nod marker:down 1 0.125',
      '48 Turn marker:right 1 0.375',
      '64 Turn loop 1 0.375',
      '64 Nod marker:up 1 0.125',
      '64 Nod loop 1 0.125',
      '64 Nod marker:down 1 0.125',
    ])
  })

  it('a point of weight 0 reports nothing; backwards, a loop is met arriving at the start, not leaving it', () => {
    const { plugin, handle } = setup()
    const c = plugin.addCharacter(handle)
    plugin.playBlendSpace(c, POINTS, { parameter: 0 })
    plugin.setSpeed(c, -1)
    stepN(plugin, 70)
    expect(lines(plugin, c)).toEqual([
      '16 Turn marker:right 0 1',
      '48 Turn marker:left 0 1',
      '64 Turn loop 0 1',
    ])
  })

  it('across snapshot and restore, no event is lost or repeated', () => {
    const run = (split: number | null): string[] => {
      const { plugin, handle } = setup()
      const c = plugin.addCharacter(handle)
      plugin.playBlendSpace(c, POINTS, { parameter: 0.5 })
      plugin.setSpeed(c, 0.75)
      let p = plugin
      const out: string[] = []
      for (let s = 0; s < 140; s++) {
        if (s === split) {
          const copy = setup().plugin
          copy.restore(p.snapshot())
          p = copy
        }
        p.step()
        out.push(...lines(p, c))
        p.events.length = 0
      }
      return out
    }
    const whole = run(null)
    expect(whole.length).toBe(13)
    for (const split of [40, 63, 64, 65]) expect(run(split)).toEqual(whole)
  })
})
