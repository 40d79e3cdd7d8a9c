/**
 * Clip events through the plugin (issue 16): loops, 'finished' and markers in `plugin.events`, for every loop
 * mode and direction, a step crossing several markers, speed 0, a cross-fade's outgoing clip, snapshot and
 * restore mid-clip, determinism, and no allocation in a step where no event fires.
 *
 * The plugins run at dt = 1/64 s, so every phase is an exact binary fraction and each crossing lands on a known
 * step: after play(), step 0 shows the start and step s (s ≥ 1) shows phase start + s·speed/64.
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { isClipEvent, type AnimationEvent, type ClipEvent } from '../../systems/state.ts'
import { makeTestAsset, stepN } from '../helpers/ecs.ts'
import { AnimationError } from '../../src/errors.ts'
import { execFileSync } from 'node:child_process'
import { HANG_MS } from '../helpers/hang.ts'
import { ALLOCATION_NODE_FLAGS } from '../helpers/heapWindows.ts'

const DT = 1 / 64

function setup(markers = true) {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, {
    capacity: 512,
    dt: DT,
    physics: { gravity: [0, 0, 0], ground: false },
  })
  const asset = makeTestAsset()
  const handle = plugin.addAsset(asset)
  if (markers) {
    // Turn (1 s): a step at 0.25 and one at 0.75; Nod (0.5 s): one at its start and one at its end; Wag (2 s):
    // one in its middle.
    plugin.addMarker(handle, 'Turn', 0.75, 'right')
    plugin.addMarker(handle, 'Turn', 0.25, 'left')
    plugin.addMarker(handle, 'Nod', 0, 'down')
    plugin.addMarker(handle, 'Nod', 0.5, 'up')
    plugin.addMarker(handle, 'Wag', 1, 'middle')
  }
  return { world, plugin, asset, handle }
}

/** A clip event as a short line: `step character kind[:name]` (+ `~weight` for a fading clip). */
function line(e: AnimationEvent): string {
  if (!isClipEvent(e)) return `${e.step} ${e.character} ${e.kind}`
  const name = e.kind === 'marker' ? `:${e.name}` : ''
  return `${e.step} ${e.character} ${e.clip} ${e.kind}${name}${e.fading ? `~${e.weight}` : ''}`
}

function lines(plugin: AnimationPlugin): string[] {
  return plugin.events.map(line)
}

describe('clip events: loop modes and directions', () => {
  it('repeat: a marker per pass and a loop per wrap, stamped with the step, for two characters', () => {
    const { plugin, handle } = setup()
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    plugin.play(a, 'Turn') // 1 s: markers at 16, 48; wraps at 64, 128
    plugin.play(b, 'Turn', { speed: 2, time: 0.5 }) // from 0.5 at 2×: 0.75 at step 8, wrap at 16, 0.25 at 24, …
    stepN(plugin, 130)
    expect(lines(plugin).filter((l) => l.includes(` ${a} `))).toEqual([
      `16 ${a} Turn marker:left`,
      `48 ${a} Turn marker:right`,
      `64 ${a} Turn loop`,
      `80 ${a} Turn marker:left`,
      `112 ${a} Turn marker:right`,
      `128 ${a} Turn loop`,
    ])
    const bs = lines(plugin).filter((l) => l.includes(` ${b} `))
    expect(bs.slice(0, 5)).toEqual([
      `8 ${b} Turn marker:right`,
      `16 ${b} Turn loop`,
      `24 ${b} Turn marker:left`,
      `40 ${b} Turn marker:right`,
      `48 ${b} Turn loop`,
    ])
    expect(bs.filter((l) => l.endsWith('loop'))).toHaveLength(4) // steps 16, 48, 80, 112
    // The record: kind, character (and entity, as before), layer, clip and its id, step, time, weight.
    const first = plugin.events[0] as ClipEvent
    expect({ ...first }).toEqual({
      kind: 'marker',
      step: 8,
      character: b,
      entity: b,
      layer: 0,
      clip: 'Turn',
      clipId: plugin.clipId(handle, 'Turn'),
      name: 'right',
      time: 0.75,
      weight: 1,
      fading: false,
    })
    expect(first.message).toBe(`character ${b} layer 0: clip "Turn" met marker "right" at 0.75 s`)
    // In step order throughout.
    const steps = plugin.events.map((e) => e.step)
    expect(steps).toEqual([...steps].sort((x, y) => x - y))
  })

  it('repeat backwards: markers in reverse order, the loop when the start is reached', () => {
    const { plugin, handle } = setup()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { speed: -1, time: 0.5 }) // 0.25 at step 16, 0 at 32 (the wrap), 0.75 at 48
    stepN(plugin, 100)
    expect(lines(plugin)).toEqual([
      `16 ${a} Turn marker:left`,
      `32 ${a} Turn loop`,
      `48 ${a} Turn marker:right`,
      `80 ${a} Turn marker:left`,
      `96 ${a} Turn loop`,
    ])
    expect((plugin.events[1] as ClipEvent).time).toBe(0) // the end reached: the start
  })

  it('ping-pong: a loop at each turn, a marker at an end once per turn, inner markers both ways', () => {
    const { plugin, handle } = setup()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Nod', { loop: 'pingpong' }) // 0.5 s: turns at steps 32 (end) and 64 (start)
    stepN(plugin, 70)
    expect(lines(plugin)).toEqual([
      `0 ${a} Nod marker:down`, // the marker at the start time, on the step that shows the start
      `32 ${a} Nod marker:up`,
      `32 ${a} Nod loop`,
      `64 ${a} Nod marker:down`,
      `64 ${a} Nod loop`,
    ])
    expect(plugin.events.map((e) => (e as ClipEvent).time)).toEqual([0, 0.5, 0.5, 0, 0])
  })

  it("once: 'finished' exactly once at the end; backwards at the start; play() re-arms it", () => {
    const { plugin, handle } = setup()
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    const c = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { loop: 'once' }) // ends at step 64
    plugin.play(b, 'Turn', { loop: 'once', speed: -2, time: 1 }) // 0.75 at step 8, the start at step 32
    plugin.play(c, 'Turn', { loop: 'once', time: 1 }) // starts at its end: finished on its first step
    stepN(plugin, 200)
    expect(lines(plugin)).toEqual([
      `1 ${c} Turn finished`,
      `8 ${b} Turn marker:right`,
      `16 ${a} Turn marker:left`,
      `24 ${b} Turn marker:left`,
      `32 ${b} Turn finished`,
      `48 ${a} Turn marker:right`,
      `64 ${a} Turn finished`,
    ])
    expect(plugin.events.filter((e) => e.kind === 'finished').map((e) => (e as ClipEvent).time)).toEqual([
      1, 0, 1,
    ])
    plugin.events.length = 0
    plugin.play(a, 'Turn', { loop: 'once', time: 0.5 })
    stepN(plugin, 40)
    expect(lines(plugin)).toEqual([`216 ${a} Turn marker:right`, `232 ${a} Turn finished`])
  })

  it('one step crossing several markers and wraps reports each, in order', () => {
    const { plugin, handle } = setup()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Nod', { speed: 80 }) // 1.25 s per step: 2.5 clip lengths
    stepN(plugin, 2)
    expect(lines(plugin)).toEqual([
      `0 ${a} Nod marker:down`,
      // 0 → 1.25: up, wrap, down; up, wrap, down; then 0.25 into the third pass
      `1 ${a} Nod marker:up`,
      `1 ${a} Nod loop`,
      `1 ${a} Nod marker:down`,
      `1 ${a} Nod marker:up`,
      `1 ${a} Nod loop`,
      `1 ${a} Nod marker:down`,
    ])
  })

  it('speed 0 reports nothing, and a paused character costs no events', () => {
    const { plugin, handle } = setup()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { speed: 0, time: 0.25 }) // on a marker: met at the start, then never
    stepN(plugin, 200)
    expect(lines(plugin)).toEqual([`0 ${a} Turn marker:left`])
  })

  it("a cross-fade: the outgoing clip's markers and loops fire, flagged, with its weight", () => {
    const { plugin, handle } = setup()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { time: 0.5 })
    stepN(plugin, 8) // steps 0..7: phase 0.609375
    plugin.crossFade(a, 'Wag', 0.5, { time: 0.75 }) // 32 steps; Turn goes on: 0.75 at step 16, wrap at 32
    stepN(plugin, 40)
    expect(lines(plugin)).toEqual([
      // step 16: 9 fade steps of 32 done (the fade advanced 9 times by then)
      `16 ${a} Turn marker:right~${1 - 9 / 32}`,
      `24 ${a} Wag marker:middle`,
      `32 ${a} Turn loop~${1 - 25 / 32}`,
    ])
    const wag = plugin.events[1] as ClipEvent
    expect([wag.fading, wag.weight]).toEqual([false, 17 / 32]) // the incoming clip: its blend
    expect(plugin.events[0]!.message).toMatch(/fading out \(weight 0\.71875\)/)
  })
})

describe('clip events: snapshot, restore, determinism', () => {
  /** Three characters in different states, markers on every clip they play; `k` is the step about to run. */
  function script(plugin: AnimationPlugin, chars: number[], k: number): void {
    if (k === 0) {
      plugin.play(chars[0]!, 'Turn', { speed: 1.5 })
      plugin.play(chars[1]!, 'Nod', { loop: 'pingpong', speed: -1 })
      plugin.play(chars[2]!, 'Turn', { loop: 'once', time: 0.5 })
    }
    if (k === 20) plugin.crossFade(chars[0]!, 'Wag', 0.5)
    if (k === 90) plugin.play(chars[2]!, 'Nod', { loop: 'once', speed: -1, time: 0.5 })
  }

  function build() {
    const s = setup()
    const chars = [0, 1, 2].map(() => s.plugin.addCharacter(s.handle))
    return { ...s, chars }
  }

  it('restored mid-clip (during a fade, before and after a finish): no event lost or repeated', () => {
    for (const at of [17, 31, 40, 64, 95]) {
      const whole = build()
      for (let k = 0; k < 160; k++) {
        script(whole.plugin, whole.chars, k)
        whole.plugin.step()
      }
      const first = build()
      for (let k = 0; k < at; k++) {
        script(first.plugin, first.chars, k)
        first.plugin.step()
      }
      const bytes = first.plugin.snapshot()
      const second = setup()
      second.plugin.restore(bytes)
      expect(second.plugin.hash()).toBe(first.plugin.hash())
      for (let k = at; k < 160; k++) {
        script(second.plugin, first.chars, k)
        second.plugin.step()
      }
      // The restored queue, then what the restored plugin reported: exactly the uninterrupted run's events.
      expect(lines(second.plugin), `restored at step ${at}`).toEqual(lines(whole.plugin))
      expect(second.plugin.hash()).toBe(whole.plugin.hash())
      expect(lines(whole.plugin).filter((l) => l.endsWith('finished'))).toHaveLength(2)
    }
  })

  it('a restored queue holds the same records; the game may clear it before or after', () => {
    const first = build()
    for (let k = 0; k < 50; k++) {
      script(first.plugin, first.chars, k)
      first.plugin.step()
    }
    const second = setup()
    second.plugin.restore(first.plugin.snapshot())
    expect(second.plugin.events).toEqual(first.plugin.events)
    expect(second.plugin.events.map((e) => e.message)).toEqual(first.plugin.events.map((e) => e.message))
    // Clearing changes the hash (the queue is state) the same way on both sides.
    first.plugin.events.length = 0
    second.plugin.events.length = 0
    expect(second.plugin.hash()).toBe(first.plugin.hash())
  })

  it('same inputs, same events at the same steps; the queue is in hash()', () => {
    const runs = [build(), build()]
    for (const r of runs) {
      for (let k = 0; k < 200; k++) {
        script(r.plugin, r.chars, k)
        r.plugin.step()
      }
    }
    expect(lines(runs[1]!.plugin)).toEqual(lines(runs[0]!.plugin))
    expect(runs[1]!.plugin.hash()).toBe(runs[0]!.plugin.hash())
    expect(runs[0]!.plugin.events.length).toBeGreaterThan(10)
    const before = runs[0]!.plugin.hash()
    runs[0]!.plugin.events.pop()
    expect(runs[0]!.plugin.hash()).not.toBe(before)
  })

  it("refuses a snapshot whose assets' markers differ from the restoring plugin's", () => {
    const first = build()
    stepN(first.plugin, 5)
    const bytes = first.plugin.snapshot()
    const bare = setup(false)
    expect(() => bare.plugin.restore(bytes)).toThrow(
      /asset 0's clip markers .* differ from those of this plugin's asset 0, synthetic-rig \(0 markers.*add the same markers \(addMarker\) before restoring/,
    )
    const extra = setup()
    extra.plugin.addMarker(extra.handle, 'Still', 0, 'one more')
    expect(() => extra.plugin.restore(bytes)).toThrow(AnimationError)
    expect(extra.plugin.hash()).toBe(setupHashWithExtra())
  })
})

/** The hash of a fresh setup() plus the 'one more' marker: a refused restore changed nothing. */
function setupHashWithExtra(): string {
  const s = setup()
  s.plugin.addMarker(s.handle, 'Still', 0, 'one more')
  return s.plugin.hash()
}

describe('addMarker', () => {
  it('validates before changing anything', () => {
    const { plugin, handle, asset } = setup(false)
    const other = makeTestAsset('other')
    const bad: [unknown, unknown, unknown, unknown, RegExp][] = [
      [
        other,
        'Turn',
        0.5,
        'x',
        /^addMarker\("Turn", 0\.5, "x"\): asset "other" is not added to this plugin \(add it first: addAsset\(asset\) or addCharacter\(asset\)\)$/,
      ],
      [{ ...handle }, 'Turn', 0.5, 'x', /the asset handle of "synthetic-rig" is a copy of its handle/],
      [createAnimationPlugin(createWorld()).addAsset(other), 'Turn', 0.5, 'x', /handle of another plugin/],
      [{ source: 7 }, 'Turn', 0.5, 'x', /: an object is not an asset or asset handle$/],
      [handle, 'Nope', 0.5, 'x', /no clip named "Nope"/],
      [handle, 9, 0.5, 'x', /clip index 9 is out of range/],
      [handle, 'Turn', 1.5, 'x', /1\.5 s is not a time on clip "Turn" \(a number in \[0, 1\] s\)/],
      [handle, 'Turn', -0.1, 'x', /-0\.1 s is not a time on clip "Turn"/],
      [handle, 'Turn', Number.NaN, 'x', /NaN s is not a time/],
      [handle, 'Turn', '0.5', 'x', /"0\.5" s is not a time/],
      [handle, 'Turn', 0.5, '', /name "" is not a non-empty string/],
      [handle, 'Turn', 0.5, 7, /name 7 is not a non-empty string/],
    ]
    const hash = plugin.hash()
    for (const [owner, clip, seconds, name, message] of bad) {
      expect(() => plugin.addMarker(owner as never, clip as never, seconds as never, name as never)).toThrow(
        message,
      )
      expect(plugin.hash()).toBe(hash)
    }
    // By asset or by handle, by clip name or index; a time just past the duration (float32) is the duration.
    plugin.addMarker(asset, 0, 1 + 1e-9, 'end')
    plugin.addMarker(handle, 'Turn', 0.5, 'mid')
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    stepN(plugin, 65)
    expect(lines(plugin)).toEqual([`32 ${a} Turn marker:mid`, `64 ${a} Turn marker:end`, `64 ${a} Turn loop`])
    expect((plugin.events[1] as ClipEvent).time).toBe(1)
  })

  it('markers lists a clip’s markers, the file’s and the added ones, in time order; names what it refuses', () => {
    const { plugin, handle, asset } = setup()
    expect(plugin.markers(handle, 'Turn')).toEqual([
      { name: 'left', time: 0.25 },
      { name: 'right', time: 0.75 },
    ])
    // By asset or by clip index, as addMarker; a copy (changing it changes nothing).
    const nod = plugin.markers(
      asset,
      asset.clips.findIndex((c) => c.name === 'Nod'),
    )
    expect(nod).toEqual([
      { name: 'down', time: 0 },
      { name: 'up', time: 0.5 },
    ])
    ;(nod[0] as { time: number }).time = 9
    expect(plugin.markers(handle, 'Nod')[0]).toEqual({ name: 'down', time: 0 })
    expect(plugin.markers(handle, 'Still')).toEqual([])
    expect(() => plugin.markers(makeTestAsset('other'), 'Turn')).toThrow(
      /^markers\("Turn"\): asset "other" is not added to this plugin/,
    )
    expect(() => plugin.markers(handle, 'Nope')).toThrow(/^markers\("Nope"\): no clip named "Nope"/)
  })

  it('setTime jumps over markers and ends without reporting them; playback from there reports again', () => {
    const { plugin, handle } = setup()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn') // markers at 0.25 (left) and 0.75 (right)
    stepN(plugin, 8) // to 0.125
    plugin.events.length = 0
    plugin.setTime(a, 0.5) // over 'left'
    stepN(plugin, 1)
    plugin.setTime(a, 0.95) // over 'right'
    stepN(plugin, 1)
    plugin.setTime(a, 0.1) // back over both
    stepN(plugin, 1)
    expect(lines(plugin)).toEqual([])
    stepN(plugin, 10) // 0.1 → 0.27: the play head meets 'left' itself
    expect(lines(plugin)).toEqual([expect.stringMatching(/ Turn marker:left$/)])
  })

  it('markers at one time fire in the order they were added, after the clip’s own', () => {
    const { plugin, handle } = setup(false)
    plugin.addMarker(handle, 'Turn', 0.5, 'b')
    plugin.addMarker(handle, 'Turn', 0.5, 'c')
    plugin.addMarker(handle, 'Turn', 0.25, 'a')
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { speed: -1, time: 0.75 })
    stepN(plugin, 20)
    expect(plugin.events.map((e) => (e as ClipEvent).name)).toEqual(['b', 'c'])
  })
})

describe('clip events: memory', () => {
  it('no step allocates when the game clears the queue; a queue nobody clears costs its records', () => {
    // Measured in a process of its own (test/helpers/clipEventsAllocation.ts says why and how).
    const out = execFileSync(
      process.execPath,
      [...ALLOCATION_NODE_FLAGS, '--import', 'tsx', 'test/helpers/clipEventsAllocation.ts'],
      { encoding: 'utf8', timeout: HANG_MS },
    )
    const { quiet, busy, cleared } = JSON.parse(out) as Record<'quiet' | 'busy' | 'cleared', number[]>
    // A negative window is the sweeper finishing the warm-up's garbage: it says nothing about the steps.
    const clean = quiet.filter((b) => b >= 0).sort((x, y) => x - y)
    expect(clean.length, `windows ${quiet.join(', ')}`).toBeGreaterThanOrEqual(3)
    // Zero bytes in 200 steps: anything allocated per step (a boxed float, a closure) shows in every window.
    expect(clean[0], `windows ${quiet.join(', ')}`).toBe(0)
    expect(clean[clean.length >> 1], `windows ${quiet.join(', ')}`).toBe(0)
    // The control: the same measurement sees the records of a character that meets a marker every step
    // (300 records per window), and not much more than the records (a record is ~150 bytes).
    const records = busy.filter((b) => b >= 0).sort((x, y) => x - y)
    expect(records[0]).toBeGreaterThan(300 * 64)
    expect(records[0]).toBeLessThan(300 * 400)
    // The same events in a game that removes them from the queue every step: the pool's records are reused.
    const reused = cleared.filter((b) => b >= 0).sort((x, y) => x - y)
    expect(reused.length, `windows ${cleared.join(', ')}`).toBeGreaterThanOrEqual(3)
    expect(reused[reused.length >> 1], `windows ${cleared.join(', ')}`).toBe(0)
  })

  it('reuses a record only once the game removed it from the queue', () => {
    const { plugin, handle } = setup(false)
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Nod', { speed: 16 }) // 0.25 s a step: a loop every other step
    stepN(plugin, 8)
    const kept = [...plugin.events]
    const copies = kept.map((e) => ({ ...e }))
    expect(kept.length).toBeGreaterThan(2)
    stepN(plugin, 8) // the queue was not cleared: no record of it is overwritten
    expect(kept.map((e) => ({ ...e }))).toEqual(copies)
    expect(plugin.events.slice(0, kept.length)).toEqual(kept)
    // Keep the first record queued, remove the rest: only the removed ones come back, with new contents.
    const first = plugin.events[0]!
    const removed = plugin.events.slice(1)
    plugin.events.length = 1
    stepN(plugin, 8)
    expect(plugin.events[0]).toBe(first)
    expect({ ...first }).toEqual(copies[0])
    const reusedRecords = plugin.events.slice(1)
    expect(reusedRecords.length).toBeGreaterThan(0)
    expect(reusedRecords.every((e) => removed.includes(e))).toBe(true)
    expect(reusedRecords.every((e) => e.step >= 16)).toBe(true)
  })

  it(`holds at most MAX_QUEUED_EVENTS clip events, counting the rest`, () => {
    const { plugin, handle } = setup(false)
    // 8 s a step: 16 wraps of 0.5 s (MAX_BOUNDARIES_PER_STEP), 16 loop events, for each of 8 characters.
    for (let i = 0; i < 8; i++) plugin.play(plugin.addCharacter(handle), 'Nod', { speed: 512 })
    stepN(plugin, 514) // the first shows the start; 512 steps of 128 fill the queue; the last step's 128 are dropped
    expect(plugin.events).toHaveLength(65536)
    expect(plugin.droppedEvents).toBe(128)
    const copy = setup(false)
    copy.plugin.restore(plugin.snapshot())
    expect(copy.plugin.droppedEvents).toBe(128)
    expect(copy.plugin.hash()).toBe(plugin.hash())
  })
})
