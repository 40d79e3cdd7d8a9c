/**
 * State machines in snapshots: a restore at any step — mid-transition, with triggers pending, a blend space
 * following its parameter — into a fresh plugin or in place replays the same states, events and hashes as the
 * run it was taken from; forged graph numbers and texts are refused, changing nothing.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { RUN_FLOATS, RUN_INTS } from '../../systems/graphState.ts'
import { ROBOT_GRAPH } from '../helpers/graphs.ts'
import { forge, reseal } from '../helpers/forge.ts'
import { rejects, sectionBody } from '../helpers/snapshot.ts'

let robot: AnimationAsset
beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

function plugin(): AnimationPlugin {
  const p = createAnimationPlugin(createWorld(), { capacity: 1024, physics: { ground: false } })
  p.addAsset(robot)
  return p
}

/** The game's inputs at step s to characters [a, b] (c has no graph). */
function inputs(p: AnimationPlugin, s: number, [a, b]: readonly number[]): void {
  if (s === 3) p.setParameter(a!, 'speed', 2)
  if (s === 9) p.trigger(b!, 'wave')
  if (s % 7 === 0) p.setParameter(a!, 'speed', 0.5 + (s % 5))
  if (s === 20) p.trigger(a!, 'nod')
  if (s === 31) p.setParameter(b!, 'grounded', false)
  if (s === 33) p.setParameter(b!, 'grounded', true)
  if (s === 40) p.setParameter(a!, 'speed', 0)
  if (s === 41) p.trigger(a!, 'wave')
}

function scene(): { p: AnimationPlugin; ids: number[] } {
  const p = plugin()
  const ids = [p.addCharacter(robot), p.addCharacter(robot), p.addCharacter(robot)]
  p.setGraph(ids[0]!, ROBOT_GRAPH)
  p.setGraph(ids[1]!, ROBOT_GRAPH)
  p.play(ids[2]!, 'Dance')
  return { p, ids }
}

const events = (p: AnimationPlugin): string[] => p.events.map((e) => JSON.stringify(e))

describe('graphs in snapshots', () => {
  it('restore at any step, fresh or in place, replays the same hashes and events', () => {
    const STEPS = 70
    const original = scene()
    const snaps: Uint8Array[] = []
    const hashes: string[] = []
    const queue: string[][] = []
    for (let s = 0; s < STEPS; s++) {
      snaps.push(original.p.snapshot())
      inputs(original.p, s, original.ids)
      original.p.step()
      hashes.push(original.p.hash())
      queue.push(events(original.p))
    }
    // The run went through transitions of every layer, some mid-way at a snapshot.
    const kinds = new Set(
      original.p.events.flatMap((e) => ('layerName' in e ? [`${e.layerName} ${e.kind}`] : [])),
    )
    expect(kinds.size).toBe(12)
    const inPlace = scene()
    for (const from of [2, 10, 11, 21, 32, 42, 55]) {
      const fresh = plugin()
      fresh.restore(snaps[from]!)
      inPlace.p.restore(snaps[from]!)
      for (let s = from; s < STEPS; s++) {
        for (const copy of [fresh, inPlace.p]) {
          inputs(copy, s, original.ids)
          copy.step()
          expect(copy.hash(), `restored at ${from}, step ${s}`).toBe(hashes[s])
          expect(events(copy), `restored at ${from}, step ${s}`).toEqual(queue[s])
        }
      }
      expect(fresh.getState(original.ids[1]!, 'emotes')).toEqual(
        original.p.getState(original.ids[1]!, 'emotes'),
      )
    }
  })

  it('refuses forged graph numbers and texts, changing nothing', () => {
    const { p, ids } = scene()
    p.setParameter(ids[0]!, 'speed', 2)
    p.step()
    const bytes = p.snapshot()
    const body = sectionBody(bytes, 'GRPH')
    const view = new DataView(bytes.buffer, bytes.byteOffset)
    const textLength = view.getUint32(body + 8, true)
    const text = body + 12
    const run = (text + textLength + 3) & ~3
    // count, eid, graph, then (aligned) params, f, i, triggers.
    const params = (run + 12 + 7) & ~7
    const P = Object.keys(ROBOT_GRAPH.parameters).length
    const L = ROBOT_GRAPH.layers.length
    const f = params + 8 * P
    const i = f + 8 * RUN_FLOATS * L
    const triggers = i + 4 * RUN_INTS * L
    const hash = p.hash()
    const cases: [Uint8Array, RegExp][] = [
      [forge(bytes, [{ offset: i, kind: 'i32', value: 3 }]), /graphs", character \d+, layer 0: state is 3/],
      [
        forge(bytes, [{ offset: i + 8, kind: 'i32', value: -1 }]),
        /transition is -1; must be running exactly/,
      ],
      [
        forge(bytes, [{ offset: params + 8, kind: 'f64', value: 0.5 }]),
        /parameter "grounded" is 0.5; must be 0 or 1/,
      ],
      [forge(bytes, [{ offset: params, kind: 'f64', value: Infinity }]), /parameters/],
      [forge(bytes, [{ offset: triggers, kind: 'u8', value: 1 }]), /parameter "speed"'s trigger is 1/],
      [forge(bytes, [{ offset: run + 8, kind: 'u32', value: 1 }]), /graph is 1; must be in \[0, 0\]/],
      [forge(bytes, [{ offset: body + 4, kind: 'u32', value: 1 }]), /asset is 1/],
    ]
    // A clip name in the text changed: the graph no longer compiles on the asset.
    const renamed = bytes.slice()
    const at = new TextDecoder().decode(bytes.subarray(text, text + textLength)).indexOf('"Idle"')
    renamed[text + at + 1] = 'J'.charCodeAt(0)
    cases.push([reseal(renamed), /graph 0: restore: layers\[0\]\.states\.idle\.clip: no clip named "Jdle"/])
    // The same graph with two keys swapped (the same length): a graph, but not its canonical text.
    const swapped = bytes.slice()
    const json = new TextDecoder().decode(bytes.subarray(text, text + textLength))
    const from = '{"type":"float","default":0}'
    swapped.set(new TextEncoder().encode('{"default":0,"type":"float"}'), text + json.indexOf(from))
    cases.push([reseal(swapped), /graph 0: its text is not a graph's canonical form/])
    // Not JSON at all.
    const garbled = bytes.slice()
    garbled[text] = '!'.charCodeAt(0)
    cases.push([reseal(garbled), /graph 0: .*JSON/])
    for (const [forged, message] of cases) {
      rejects(() => p.restore(forged), message)
      expect(p.hash()).toBe(hash)
    }
  })
})
