/**
 * The demo in a real headless Chromium (Debian's /usr/bin/chromium, WebGL 2 on SwiftShader), built with vite's
 * JS API into a temporary folder and served by `vite preview`. The page exposes `window.__demo` (demo/main.ts):
 * the plugin, the hero's entity, and helpers that read the scene graph and the canvas.
 *
 * One page, one story, in order: loaded and visible → frames advance → Run cross-fades → Ragdoll falls →
 * Get up stands → a click on the body knocks it over → the picker's RobotExpressive (credit, clips, a clip,
 * a one-shot, knocked over and up face-down or face-up, a click in hit mode as a hit reaction, a powered fall
 * and the motor slider) → its Layers panel (base states, upper-body emotes, the additive nod, the face
 * sliders, the walk↔run blend space) → the Mannequin's clips retargeted onto it (and the Fox's refused) → the
 * picker's Fox again (a Layers panel made from its clips): its footstep flashes, root motion on its travelling
 * walk, placement by the fields and by Shift-drag → files dropped in through the file field play, a Mixamo-style
 * one with Layers controls made from its clip names (idle ↔ walk ↔ run, its emotes), one playing clips from
 * another file → crowd → the Fox's crowd of 1000, instanced (one draw call) and not → the picker's RiggedFigure
 * with its IK panel.
 * A screenshot of every state goes to artifacts/. The page driver (build, serve, open, read) is e2e/demoPage.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mixamoStyleGlb } from '../test/helpers/mixamoStyle.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  server,
  browser,
  page,
  problems,
  ASSETS,
  heightRange,
  modelState,
  grab,
  changes,
  expectServed,
  setSliders,
  clipButton,
  afterFrames,
  shot,
  until,
  layer,
  hold,
  positions,
  moved,
  startTrace,
  trace,
  openDemo,
  closeDemo,
  layersPanel,
  WAIT_MS,
} from './demoPage.ts'

beforeAll(openDemo)
afterAll(closeDemo)

/** The hero's base layer paused at `seconds` into its clip: the world positions of `nodes` (index or name). */
async function heldAt(seconds: number, nodes: (number | string)[]): Promise<number[][]> {
  await page.evaluate((t) => {
    const d = window.__demo
    d.plugin.pause(d.hero())
    d.plugin.setTime(d.hero(), t)
  }, seconds)
  await afterFrames(2)
  return page.evaluate((nodes) => nodes.map((n) => window.__demo.nodePosition(n)), nodes)
}

describe('demo in headless Chromium', () => {
  let standing = 0

  it('loads with no console errors and shows the lit Fox', async () => {
    const state = await page.evaluate(() => ({
      error: window.__demo.error,
      source: window.__demo.source,
      clips: window.__demo.clipNames(),
      clip: window.__demo.currentClip(),
      buttons: [...document.querySelectorAll('button[data-clip]')].map((b) => b.textContent),
      probe: window.__demo.probeHero(),
    }))
    const shown = await modelState()
    await shot('1-loaded')
    expect(problems).toEqual([])
    expect(state.error).toBeNull()
    expect(state.source).toBe('Fox.glb')
    // The picker's first model, in centimetres, with its credit.
    expect(shown.model).toBe('Fox')
    expect(shown.picked).toEqual(['Fox'])
    expect(shown.line).toContain('scale 0.01 ·')
    expect(shown.credit).toContain('PixelMannen')
    expect(shown.credit).toContain('@tomkranis')
    expect(shown.license).toMatch(/\/Fox\/LICENSE\.md$/)
    await expectServed(shown.license)
    // The file's clips, and the travelling Walk the demo makes at load (demo/travel.ts).
    expect(state.clips).toEqual(['Survey', 'Walk', 'Run', 'Walk (travels)'])
    expect(state.buttons).toEqual(['Survey', 'Walk', 'Run', 'Walk (travels)'])
    expect(state.clip).toBe('Survey')
    // Inside the box the Fox's joints span on screen, a good share of pixels change when the Fox is drawn,
    // and they are the Fox's orange (red well above blue), lit (not black).
    expect(state.probe.pixels).toBeGreaterThan(2000)
    expect(state.probe.differing / state.probe.pixels).toBeGreaterThan(0.15)
    const [r, g, b] = state.probe.mean as [number, number, number]
    expect(r).toBeGreaterThan(b + 40)
    expect(r + g + b).toBeGreaterThan(150)
  })

  it('frames advance while a clip plays', async () => {
    const before = await page.evaluate(() => ({ frames: window.__demo.frames, steps: window.__demo.steps }))
    const a = await shot('2a-playing')
    await page.waitForFunction((f) => window.__demo.frames >= f + 10, before.frames, { timeout: WAIT_MS })
    const b = await shot('2b-playing')
    const after = await page.evaluate(() => ({ frames: window.__demo.frames, steps: window.__demo.steps }))
    expect(after.steps).toBeGreaterThan(before.steps)
    expect(a.equals(b)).toBe(false)
  })

  it('clicking Run starts a cross-fade, which ends on Run', async () => {
    // A 1 s fade, so the fade is easy to catch half way.
    await page.$eval('#fade', (el) => {
      ;(el as HTMLInputElement).value = '1'
      el.dispatchEvent(new Event('input'))
    })
    await clipButton('Run').click()
    await until('the fade to be under way', () => {
      const b = window.__demo.blend()
      return b !== null && b > 0.2 && b < 0.8
    })
    // Read before the screenshot: on a loaded machine the 1 s fade can end while it is taken.
    const mid = await page.evaluate(() => window.__demo.blend())
    await shot('3a-fading-to-run')
    expect(mid).toBeGreaterThan(0)
    await until(
      'the fade to end on Run',
      () => window.__demo.blend() === null && window.__demo.currentClip() === 'Run',
    )
    await shot('3b-running')
    // The rotation toggle replays the clip with squad curves (Sampler.rotation 1), still on Run.
    await page.selectOption('#rotation', 'squad')
    const rotation = () =>
      page.evaluate(() => window.__demo.plugin.stores.Sampler.rotation[window.__demo.hero()])
    expect(await rotation()).toBe(1)
    await page.selectOption('#rotation', 'slerp')
    expect(await rotation()).toBe(0)
    expect(await page.evaluate(() => window.__demo.currentClip())).toBe('Run')
    await page.$eval('#fade', (el) => {
      ;(el as HTMLInputElement).value = '0.3'
      el.dispatchEvent(new Event('input'))
    })
  })

  it('Ragdoll makes the Fox fall; Get up stands it back up', async () => {
    const run = await heightRange()
    standing = run.lo
    expect(standing).toBeGreaterThan(0.3) // metres: the Fox's head while running, at its lowest
    await page.click('#ragdoll')
    // Lying: its highest joint under 0.6 of its running head's lowest (how it lies, on its side with an ear
    // up or flat, depends on the pose the click caught).
    await until(
      'the Fox to lie on the ground',
      ([limit]) => {
        const d = window.__demo
        return d.ragdollState() === 'falling' && d.weight() === 1 && d.maxJointHeight() < (limit as number)
      },
      WAIT_MS,
      [standing * 0.6],
    )
    await page.waitForTimeout(400) // let it settle for the picture
    const down = await page.evaluate(() => ({
      top: window.__demo.maxJointHeight(),
      probe: window.__demo.probeHero(),
    }))
    console.log(`ragdoll: running head at least ${standing.toFixed(3)} m, lying top ${down.top.toFixed(3)} m`)
    await shot('4a-ragdoll')
    expect(down.top).toBeLessThan(standing * 0.6)
    expect(down.probe.differing).toBeGreaterThan(100) // still on screen, lying down

    await page.click('#getup')
    await until('the Fox to stand again', () => {
      const d = window.__demo
      return d.ragdollState() === 'off' && d.weight() === 0
    })
    await shot('4b-got-up')
    // Running again: over a cycle the top joint reaches at least the lowest it reached before the fall.
    const up = await heightRange()
    expect(up.hi).toBeGreaterThan(standing * 0.95)
    expect(up.lo).toBeGreaterThan(down.top)
  })

  it('a click on the body hits it there and knocks it over', async () => {
    // Page coordinates of the Fox's middle joint (Fox node 5, b_Spine01_02).
    const at = await page.evaluate(() => window.__demo.screenOf(5))
    await page.mouse.click(at.x, at.y)
    await until('the hit to start the ragdoll', () => window.__demo.ragdollState() === 'falling')
    await until('the Fox to go down', () => window.__demo.maxJointHeight() < 0.3)
    await shot('5-clicked')
  })

  it('the picker shows RobotExpressive: its credit, its clips, a clip that changes the picture', async () => {
    await page.click('button[data-model=RobotExpressive]')
    await until('RobotExpressive to load', () => window.__demo.source === 'RobotExpressive.glb')
    const shown = await modelState()
    expect(shown.model).toBe('RobotExpressive')
    expect(shown.picked).toEqual(['RobotExpressive'])
    expect(shown.line).toContain('scale 1 ·') // authored in metres
    expect(shown.credit).toContain('Tomás Laulhé')
    expect(shown.credit).toContain('Don McCurdy')
    expect(shown.credit).toContain('CC0')
    expect(shown.credit).not.toContain('Fox')
    expect(shown.license).toMatch(/\/RobotExpressive\/LICENSE\.md$/)
    await expectServed(shown.license)
    // Every clip as a button, in the file's order, the first shown being Idle.
    const looping = ['Idle', 'Walking', 'Running', 'Dance', 'Death', 'Sitting', 'Standing']
    const oneShots = ['Jump', 'Yes', 'No', 'Wave', 'Punch', 'ThumbsUp', 'WalkJump']
    expect([...shown.clips].sort()).toEqual([...looping, ...oneShots].sort())
    expect(shown.buttons).toEqual(shown.clips)
    expect(shown.clip).toBe('Idle')

    // Cuts instead of fades and a fast ragdoll ramp from here on: SwiftShader draws a few frames a second, and
    // the simulation runs at most 5 steps a frame, so every simulated second costs several here.
    await setSliders({ fade: 0, rate: 20 })
    // Dance moves the whole body where Idle only sways: the Dance picture differs from each of three Idle
    // pictures more than those differ from one another.
    const idle = ['idle-a', 'idle-b', 'idle-c']
    for (const [i, name] of idle.entries()) {
      if (i > 0) await page.waitForTimeout(300)
      await grab(name)
    }
    await clipButton('Dance').click()
    await until('Dance to play', () => window.__demo.currentClip() === 'Dance')
    await afterFrames(3)
    await grab('dance')
    await shot('6a-robot-dance')
    const [ab, bc, ac, ...across] = await changes([
      ['idle-a', 'idle-b'],
      ['idle-b', 'idle-c'],
      ['idle-a', 'idle-c'],
      ...idle.map((name): [string, string] => [name, 'dance']),
    ])
    const within = [ab!, bc!, ac!]
    const pct = (xs: number[]) => xs.map((x) => `${(x * 100).toFixed(1)} %`).join(', ')
    console.log(`picture change: Idle ↔ Idle ${pct(within)}; Idle → Dance ${pct(across)}`)
    expect(Math.min(...across)).toBeGreaterThan(0.03)
    expect(Math.min(...across)).toBeGreaterThan(1.5 * Math.max(...within))

    // A one-shot plays once and hands back to the looping clip before it.
    await clipButton('Jump').click()
    await until('Jump to play', () => window.__demo.currentClip() === 'Jump')
    await until('Jump to end and Dance to come back', () => window.__demo.currentClip() === 'Dance')
    expect(problems).toEqual([])
  })

  it('RobotExpressive is knocked over by Ragdoll and gets up, with no errors', async () => {
    const HEAD = 12 // RobotExpressive's Head joint (node 13 is the head mesh)
    const standing = await page.evaluate((n) => window.__demo.nodePosition(n)[1]!, HEAD)
    expect(standing).toBeGreaterThan(2) // metres: a 4.8 m robot
    await page.click('#ragdoll')
    await until('the robot to fall', () => window.__demo.ragdollState() === 'falling')
    // Down: its head below three quarters of its standing height.
    const low = standing * 0.75
    const fell = await page
      .waitForFunction(([n, y]) => window.__demo.nodePosition(n!)[1]! < y!, [HEAD, low], {
        timeout: WAIT_MS,
        polling: 50,
      })
      .then(() => true)
      .catch(() => false)
    const down = await page.evaluate(() => ({
      weight: window.__demo.weight(),
      probe: window.__demo.probeHero(),
      events: window.__demo.events,
      status: document.getElementById('status')!.textContent,
      error: document.getElementById('status')!.classList.contains('error'),
    }))
    await shot('6b-robot-ragdoll')
    // The step's handled faults (an exploded ragdoll would be one): printed, and named if it did not fall.
    if (down.events.length > 0) console.log(`RobotExpressive ragdoll events: ${down.events.join(' | ')}`)
    expect(fell, `the head stayed above ${low.toFixed(2)} m; events: ${down.events.join(' | ')}`).toBe(true)
    expect(down.error, down.status ?? '').toBe(false)
    expect(down.weight).toBe(1)
    expect(down.probe.differing).toBeGreaterThan(100) // still on screen
    expect(problems).toEqual([])

    await page.click('#getup')
    await until('the robot to stand again', () => {
      const d = window.__demo
      return d.ragdollState() === 'off' && d.weight() === 0
    })
    // It got up into the clip for the way it lay (demo/shipped.ts: face-down Standing, face-up Idle).
    const got = await gotUp()
    expect(await page.evaluate(() => window.__demo.currentClip())).toBe(got.clip)
    expect(problems).toEqual([])
  })

  /** How the hero lay at its last get-up and the clip chosen, as the Ragdoll panel shows them (#facing). */
  async function gotUp(): Promise<{ facing: string; clip: string; text: string }> {
    const shown = await page.evaluate(() => {
      const el = document.getElementById('facing')!
      return { facing: el.dataset.facing ?? '', text: el.textContent ?? '' }
    })
    expect(['prone', 'supine']).toContain(shown.facing)
    const clip = shown.facing === 'prone' ? 'Standing' : 'Idle'
    expect(shown.text).toBe(`got up ${shown.facing === 'prone' ? 'face-down' : 'face-up'} into ${clip}`)
    return { ...shown, clip }
  }

  it('the Ragdoll panel: a click in hit mode is a hit reaction; the motor slider powers a fall', async () => {
    const HEAD = 12
    await clipButton('Dance').click()
    await until('Dance to play', () => window.__demo.currentClip() === 'Dance')
    const standing = await page.evaluate((n) => window.__demo.nodePosition(n)[1]!, HEAD)
    // Hit mode: a click on the forearm is a hit reaction. The arm goes physical and blends back on its own,
    // while the robot stays on its feet (its head never drops below 90 % of its height).
    await page.click('button[data-click=hit]')
    // The robot dances, so its forearm can move between reading its place on screen and the click's ray (a
    // SwiftShader frame takes tens of ms, more on a busy machine): aimed afresh, up to three clicks.
    for (let tries = 1; tries <= 3; tries++) {
      const at = await page.evaluate(() => window.__demo.screenOf('LowerArm.L' as never))
      await page.mouse.click(at.x, at.y)
      const started = await page
        .waitForFunction(() => window.__demo.ragdollState() !== 'off', [], { timeout: 15_000, polling: 50 })
        .then(
          () => true,
          () => false,
        )
      if (started) break
    }
    await until('the hit reaction to start', () => window.__demo.ragdollState() !== 'off')
    // The head's lowest point until the reaction is over (15 s at most: SwiftShader steps slowly).
    const lowest = await page.evaluate(async (n) => {
      let y = Infinity
      for (let t = 0; t < 15_000 && window.__demo.ragdollState() !== 'off'; t += 50) {
        y = Math.min(y, window.__demo.nodePosition(n)[1]!)
        await new Promise((r) => setTimeout(r, 50))
      }
      return y
    }, HEAD)
    expect(await page.evaluate(() => window.__demo.ragdollState())).toBe('off')
    expect(lowest).toBeGreaterThan(standing * 0.9)
    await shot('6c-robot-hit-reaction')

    // Knock mode again, motors at full strength: the robot falls with its pose held; the slider, moved while
    // it lies, turns the motors down (no error), and Get up reports how it lay.
    await page.click('button[data-click=knock]')
    await setSliders({ motors: 1 })
    await page.click('#ragdoll')
    await until('the powered robot to fall', () => window.__demo.ragdollState() === 'falling')
    // As a drag ends: input events, then change.
    await page.$eval('#motors', (el) => {
      ;(el as HTMLInputElement).value = '0.2'
      el.dispatchEvent(new Event('input'))
      el.dispatchEvent(new Event('change'))
    })
    await afterFrames(5)
    const status = await page.evaluate(() => ({
      text: document.getElementById('status')!.textContent,
      error: document.getElementById('status')!.classList.contains('error'),
    }))
    expect(status.error, status.text ?? '').toBe(false)
    await shot('6d-robot-powered')
    await page.click('#getup')
    await until('the robot to stand again', () => window.__demo.ragdollState() === 'off')
    const got = await gotUp()
    expect(await page.evaluate(() => window.__demo.currentClip())).toBe(got.clip)
    expect(problems).toEqual([])
    await setSliders({ fade: 0.3, rate: 5, motors: 0 })
  })

  // RobotExpressive's Layers panel (demo/layers.ts, demo/shipped.ts). Leg and hand nodes by names no other node
  // of the file has: the ends of the lower legs, the middle fingers' tips and the top of the head.
  const LEGS = ['LowerLeg.L_end', 'LowerLeg.R_end']
  const UPPER = ['Head_end', 'Middle2.L_end', 'Middle2.R_end']
  /** The emotes and their clips' durations (s), in the panel's order. */
  const EMOTES = { Wave: 1.83, Yes: 1.67, No: 1.67, ThumbsUp: 1.58, Punch: 0.83 }
  /** Share of the canvas that differs between two pictures of the same pose: none (the same pixels). */
  const SAME = 0.001

  it('RobotExpressive has a Layers panel; an emote fades in over the walking legs and out at its end', async () => {
    const panel = await page.evaluate(() => ({
      hidden: document.getElementById('layers')!.hidden,
      states: [...document.querySelectorAll<HTMLElement>('button[data-state]')].map((b) => b.dataset.state),
      emotes: [...document.querySelectorAll<HTMLElement>('button[data-emote]')].map((b) => b.dataset.emote),
    }))
    expect(panel.hidden).toBe(false)
    expect(panel.states).toEqual(['Idle', 'Walking', 'Running', 'Dance', 'Sitting', 'Standing'])
    expect(panel.emotes).toEqual(Object.keys(EMOTES))

    // A state button cross-fades the base layer, as the Clips buttons do, and lights up.
    await page.click('button[data-state=Walking]')
    await until('Walking on the base layer', () => {
      const l = window.__demo.layer(0)
      return l.clip === 'Walking' && l.fade === null
    })
    await until('the Walking state lit', () =>
      document.querySelector('button[data-state=Walking]')!.classList.contains('active'),
    )
    expect(await page.evaluate(() => window.__demo.currentClip())).toBe('Walking')

    // Wave, traced frame by frame: the layer fades in, plays, and fades out once the clip is at its end.
    await startTrace(1, LEGS)
    await page.click('button[data-emote=Wave]')
    await until('Wave at full weight', () => window.__demo.layer(1).weight === 1)
    await shot('9a-wave-walking')
    const samples = await trace()
    const playing = samples.filter((x) => x.source === 'clip')
    expect(new Set(playing.map((x) => x.clip))).toEqual(new Set(['Wave']))
    expect(playing.every((x) => x.masked)).toBe(true)
    const full = playing.findIndex((x) => x.weight === 1)
    const stop = playing.findIndex((x) => x.target === 0)
    const rise = playing.slice(0, full).map((x) => x.weight)
    const fall = playing.slice(stop).map((x) => x.weight)
    console.log(
      `Wave: ${samples.length} frames; weight in ${rise.map((w) => w.toFixed(2)).join(' ')}, ` +
        `out ${fall.map((w) => w.toFixed(2)).join(' ')}`,
    )
    expect(full).toBeGreaterThan(0)
    expect(rise.some((w) => w > 0 && w < 1)).toBe(true) // seen half way in
    expect(rise).toEqual([...rise].sort((a, b) => a - b))
    expect(stop).toBeGreaterThan(full)
    expect(playing.slice(full, stop).every((x) => x.weight === 1)).toBe(true)
    // The way out starts at the clip's end (1.83 s; a once-clip holds its last pose there) and is seen half way.
    expect(playing.slice(stop).every((x) => x.time > 1.8)).toBe(true)
    expect(fall.some((w) => w > 0 && w < 1)).toBe(true)
    expect(fall).toEqual([...fall].sort((a, b) => b - a))
    // The legs keep walking while the upper body waves: the ends of the lower legs travel.
    const legs = playing.slice(full, stop).map((x) => x.nodes)
    const spread = Math.max(
      ...legs[0]!.map((_, c) => Math.max(...legs.map((p) => p[c]!)) - Math.min(...legs.map((p) => p[c]!))),
    )
    console.log(`legs under the wave: ${legs.length} frames, the feet travel ${spread.toFixed(2)} m`)
    expect(spread).toBeGreaterThan(0.2)
    expect((await layer(1)).source).toBe('none')
    expect(problems).toEqual([])
  })

  it('with the base layer held, each emote moves the upper body only and changes the picture', async () => {
    await hold(true)
    await afterFrames(2)
    await grab('base-a')
    const legs = await positions(LEGS)
    const upper = await positions(UPPER)
    await afterFrames(3)
    await grab('base-b')
    const pairs: [string, string][] = [['base-a', 'base-b']]
    const upperMoved: Record<string, number> = {}
    // One after another, each while the one before still plays (the layer cross-fades between them).
    for (const [name, seconds] of Object.entries(EMOTES)) {
      await page.click(`button[data-emote=${name}]`)
      await until(
        `${name} in full, a third of the way through`,
        ([name, seconds]) => {
          const l = window.__demo.layer(1)
          return l.clip === name && l.fade === null && l.weight === 1 && l.time >= (seconds as number) / 3
        },
        WAIT_MS,
        [name, seconds],
      )
      await grab(name)
      if (name === 'Wave') await shot('9b-wave-held')
      expect(await positions(LEGS), `${name}: the legs`).toEqual(legs) // bit for bit the base layer's
      upperMoved[name] = moved(upper, await positions(UPPER))
      pairs.push(['base-a', name])
    }
    await until(
      'the last emote to end and its layer to empty',
      () => window.__demo.layer(1).source === 'none',
    )
    await afterFrames(2)
    await grab('base-c')
    pairs.push(['base-a', 'base-c'])
    const [still, ...rest] = await changes(pairs)
    const back = rest.pop()!
    console.log(
      `picture change, base held: ${(still! * 100).toFixed(2)} %; emotes ` +
        Object.keys(EMOTES)
          .map((n, i) => `${n} ${(rest[i]! * 100).toFixed(1)} % (${upperMoved[n]!.toFixed(2)} m)`)
          .join(', ') +
        `; after ${(back * 100).toFixed(2)} %`,
    )
    expect(still).toBeLessThan(SAME)
    for (const [i, name] of Object.keys(EMOTES).entries()) {
      expect(upperMoved[name], name).toBeGreaterThan(0.1)
      expect(rest[i], name).toBeGreaterThan(0.03)
    }
    expect(back).toBeLessThan(SAME) // faded out and freed: the base layer's picture again
    expect(problems).toEqual([])
  })

  it('the additive nod adds the Yes clip over the held base at the weight slider', async () => {
    const legs = await positions(LEGS)
    await page.check('#additive')
    await until('the nod faded in at the slider weight (0.8)', () => {
      const l = window.__demo.layer(2)
      return l.clip === 'Yes' && l.mode === 'additive' && l.masked && Math.abs(l.weight - 0.8) < 1e-9
    })
    // Held where Yes is farthest (20°) from its first pose, the additive reference.
    await page.evaluate(() => {
      const d = window.__demo
      d.plugin.setTime(d.hero(), 0.63, { layer: 2 })
      d.plugin.pause(d.hero(), { layer: 2 })
    })
    await afterFrames(2)
    await grab('nod-0.8')
    await shot('9c-nod')
    expect(await positions(LEGS)).toEqual(legs) // masked to the neck and head
    const head = await positions(['Head_end'])
    const weights: [number, string][] = [
      [0, 'nod-0'],
      [1, 'nod-1'],
    ]
    for (const [w, name] of weights) {
      await setSliders({ 'additive-weight': w })
      await until(`the nod at weight ${w}`, ([w]) => window.__demo.layer(2).weight === w, WAIT_MS, [w])
      await afterFrames(2)
      await grab(name)
    }
    const headAt1 = moved(head, await positions(['Head_end']))
    await page.uncheck('#additive')
    await until('the nod to fade out and its layer to empty', () => window.__demo.layer(2).source === 'none')
    await afterFrames(2)
    await grab('nod-off')
    const [at08, at0, at1, between, off] = await changes([
      ['base-a', 'nod-0.8'],
      ['base-a', 'nod-0'],
      ['base-a', 'nod-1'],
      ['nod-0.8', 'nod-1'],
      ['base-a', 'nod-off'],
    ])
    const pct = (x: number) => `${(x * 100).toFixed(2)} %`
    console.log(
      `picture change, nod: weight 0.8 ${pct(at08!)}, 0 ${pct(at0!)}, 1 ${pct(at1!)}, 0.8 → 1 ${pct(between!)}, ` +
        `off ${pct(off!)}; the head moves ${headAt1.toFixed(2)} m from 0.8 to 1`,
    )
    expect(at08).toBeGreaterThan(0.03)
    expect(at0).toBeLessThan(SAME) // weight 0 changes nothing
    expect(at1).toBeGreaterThan(at08!)
    expect(between).toBeGreaterThan(0)
    expect(headAt1).toBeGreaterThan(0.03)
    expect(off).toBeLessThan(SAME)
    await hold(false)
    expect(problems).toEqual([])
  })

  it('the face sliders set the morph weights of the head over the clips', async () => {
    const face = () => page.evaluate(() => window.__demo.plugin.getMorphWeights(window.__demo.hero(), 'Head'))
    const ids = await page.evaluate(() =>
      [...document.querySelectorAll('input[id^=face-]')].map((input) => input.id),
    )
    expect(ids).toEqual(['face-Angry', 'face-Surprised', 'face-Sad'])
    expect(await face()).toEqual([0, 0, 0]) // RobotExpressive's clips drive its face at 0
    await hold(true)
    await afterFrames(2)
    await grab('face-none')
    const names = ['Angry', 'Surprised', 'Sad']
    for (const [i, name] of names.entries()) {
      await setSliders({ [`face-${name}`]: 1 })
      await until(
        `${name} at 1`,
        ([i]) => window.__demo.plugin.getMorphWeights(window.__demo.hero(), 'Head')[i as number] === 1,
        WAIT_MS,
        [i],
      )
      await afterFrames(2)
      await grab(`face-${name}`)
      if (name === 'Surprised') await shot('9d-face-surprised')
      await setSliders({ [`face-${name}`]: 0 }) // all at 0 again: the clips' face
    }
    await until('the face back to the clips', () =>
      window.__demo.plugin.getMorphWeights(window.__demo.hero(), 'Head').every((w) => w === 0),
    )
    expect(await face()).toEqual([0, 0, 0])
    await afterFrames(2)
    await grab('face-back')
    const [angry, surprised, sad, back] = await changes([
      ...names.map((n): [string, string] => ['face-none', `face-${n}`]),
      ['face-none', 'face-back'],
    ])
    const pct = (x: number) => `${(x * 100).toFixed(2)} %`
    console.log(
      `picture change, face: Angry ${pct(angry!)}, Surprised ${pct(surprised!)}, Sad ${pct(sad!)}; ` +
        `back ${pct(back!)}`,
    )
    for (const x of [angry, surprised, sad]) expect(x).toBeGreaterThan(0.005)
    expect(back).toBeLessThan(SAME)
    await hold(false)
    expect(problems).toEqual([])
  })

  it('the blend slider plays Walking ↔ Running as a blend space on the base layer', async () => {
    // The first move of the slider replaces the base layer's clip by the blend space.
    await setSliders({ blend: 0 })
    await until('the blend space on the base layer, all Walking', () => {
      const l = window.__demo.layer(0)
      return l.source === 'blend-space' && l.blendSpace!.weights[0] === 1
    })
    const bs = (await layer(0)).blendSpace!
    expect(bs.clips).toEqual(['Walking', 'Running'])
    expect(bs.parameter).toEqual([0])
    expect(await page.evaluate(() => window.__demo.currentClip())).toBeNull() // no clip alone on layer 0
    // Held at one phase (a quarter of the way through the shared cycle), so the pictures differ by the blend only.
    await page.evaluate(() => {
      const d = window.__demo
      d.plugin.pause(d.hero())
      d.plugin.setTime(d.hero(), 0.25)
    })
    await afterFrames(2)
    await grab('walk')
    const feet: number[][][] = [await positions(LEGS)]
    for (const [value, name] of [
      [1, 'run'],
      [0.5, 'walk-run'],
    ] as const) {
      await setSliders({ blend: value })
      await until(
        `the blend at ${value}`,
        ([v]) => {
          const w = window.__demo.layer(0).blendSpace?.weights ?? []
          return Math.abs(w[0]! - (1 - (v as number))) < 1e-9 && Math.abs(w[1]! - (v as number)) < 1e-9
        },
        WAIT_MS,
        [value],
      )
      await afterFrames(2)
      await grab(name)
      feet.push(await positions(LEGS))
      if (name === 'run') await shot('9e-blend-run')
    }
    await until('the readout to show the blend', () =>
      document.getElementById('layer-readout')!.textContent!.includes('Walking 0.50 + Running 0.50'),
    )
    expect(await page.evaluate(() => document.querySelector('#blend')!.closest('.row')!.className)).toContain(
      'active',
    )
    const [walkRun, walkHalf, runHalf] = await changes([
      ['walk', 'run'],
      ['walk', 'walk-run'],
      ['run', 'walk-run'],
    ])
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`
    console.log(
      `picture change, blend: Walking → Running ${pct(walkRun!)}, Walking → half ${pct(walkHalf!)}, ` +
        `Running → half ${pct(runHalf!)}; feet move ${moved(feet[0]!, feet[1]!).toFixed(2)} m`,
    )
    expect(walkRun).toBeGreaterThan(0.05)
    expect(walkHalf).toBeGreaterThan(0.03)
    expect(runHalf).toBeGreaterThan(0.03)
    expect(moved(feet[0]!, feet[1]!)).toBeGreaterThan(0.1)
    await hold(false)
    // A state button leaves the blend space for a clip again.
    await page.click('button[data-state=Idle]')
    await until('Idle on the base layer', () => {
      const l = window.__demo.layer(0)
      return l.clip === 'Idle' && l.blendSpace === null && l.fade === null && !l.paused
    })
    await shot('9f-layers-done')
    const status = await page.evaluate(() => document.getElementById('status')!.className)
    expect(status).not.toContain('error')
    expect(problems).toEqual([])
  })

  it("Retarget: RobotExpressive plays the Mannequin's Mixamo clips; the Fox's are refused, saying why", async () => {
    // A fresh robot (the ragdoll and layer steps above leave theirs in states of their own).
    const old = await page.evaluate(() => window.__demo.assetId())
    await page.click('button[data-model=RobotExpressive]')
    await until(
      'a fresh RobotExpressive',
      ([old]) => window.__demo.assetId() !== old && window.__demo.currentClip() === 'Idle',
      20_000,
      [old],
    )
    const before = await page.evaluate(() => window.__demo.clipNames().length)
    await page.selectOption('#retarget-source', 'Fox')
    await page.click('#retarget')
    await until('the refusal in the status line', () =>
      document.getElementById('status')!.textContent!.includes('finds no hips'),
    )
    expect(await page.evaluate(() => window.__demo.clipNames().length)).toBe(before)

    await page.selectOption('#retarget-source', 'Mannequin')
    await page.click('#retarget')
    await until('the Mannequin clips on the robot', () => window.__demo.currentClip() === 'Mannequin: Walk')
    const state = await page.evaluate(() => ({
      clips: window.__demo.clipNames(),
      buttons: [...document.querySelectorAll('button[data-clip]')].map((b) => b.textContent),
      line: document.getElementById('retarget-line')!.textContent,
      status: document.getElementById('status')!.className,
    }))
    expect(state.clips.slice(before)).toEqual([
      'Mannequin: Walk',
      'Mannequin: Run',
      'Mannequin: Idle',
      'Mannequin: Wave',
    ])
    expect(state.buttons).toEqual(state.clips)
    expect(state.line).toMatch(/^4 clips from Mannequin, 34 joints mapped: .*Body ← mixamorig:Hips/)
    expect(state.status).not.toContain('error')
    // The robot walks the Mannequin's walk: its body bobs, its legs and (pinned) IK feet swing.
    await afterFrames(20) // past the cross-fade
    // Body, the left knee and the left IK foot at ten times through the walk (1 s), held at each.
    const walk: number[][][] = []
    for (let i = 0; i < 10; i++) {
      walk.push(await heldAt(i / 10, [6, 57, 3]))
    }
    await hold(false)
    await shot('9g-retarget-walk')
    const range = (k: number, axis: number) => {
      const v = walk.map((p) => p[k]![axis]!)
      return Math.max(...v) - Math.min(...v)
    }
    expect(range(0, 1)).toBeGreaterThan(0.01) // Body's height
    expect(range(1, 2)).toBeGreaterThan(0.1) // the left knee, forward and back
    expect(range(2, 2)).toBeGreaterThan(0.1) // the left foot
    await grab('retarget-walk')
    await clipButton('Mannequin: Wave').click()
    await until('the wave', () => window.__demo.currentClip() === 'Mannequin: Wave')
    await afterFrames(40)
    await grab('retarget-wave')
    await shot('9h-retarget-wave')
    const [change] = await changes([['retarget-walk', 'retarget-wave']])
    expect(change).toBeGreaterThan(0.02)
    expect(problems).toEqual([])
  })

  it('the picker brings the Fox back, with its credit', async () => {
    await page.click('button[data-model=Fox]')
    await until('the Fox to load', () => window.__demo.source === 'Fox.glb')
    const shown = await modelState()
    expect(shown.model).toBe('Fox')
    expect(shown.picked).toEqual(['Fox'])
    expect(shown.line).toContain('scale 0.01 ·')
    expect(shown.credit).toContain('PixelMannen')
    expect(shown.credit).not.toContain('RobotExpressive')
    expect(shown.license).toMatch(/\/Fox\/LICENSE\.md$/)
    expect(shown.buttons).toEqual(['Survey', 'Walk', 'Run', 'Walk (travels)'])
    expect(shown.clip).toBe('Survey')
    // Its Layers panel is made from its clips (demo/layerSetup.ts): no emotes, a Walk ↔ Run blend space.
    const panel = await layersPanel()
    expect(panel.hidden).toBe(false)
    expect(panel.states).toEqual(['Survey', 'Walk', 'Run', 'Walk (travels)'])
    expect(panel.emotes).toEqual([])
    expect(panel.blend).toEqual({
      shown: true,
      max: '1',
      hint: 'Walk at 0 ↔ Run at 1, phase-locked (blend space)',
    })
    expect([panel.additive, panel.face]).toEqual([false, []]) // neither an additive clip nor morph targets
    expect(problems).toEqual([])
  })

  it("the Fox's footstep markers flash a ring at each paw that lands", async () => {
    const before = await page.evaluate(() => window.__demo.footsteps())
    await clipButton('Walk').click()
    await until('Walk to play', () => window.__demo.currentClip() === 'Walk')
    // Four paws a loop (0.71 s of simulation; SwiftShader runs it slower than real time).
    await until('four footsteps', (b) => window.__demo.footsteps() >= Number(b[0]) + 4, WAIT_MS, [before])
    // A ring on the ground, drawn: the pixels the rings change when shown. A ring lasts 0.45 s of display time
    // and fades: from the first read that shows one, the brightest of the next few (a slow, loaded machine may
    // first catch one fading out).
    const flashes = await page.evaluate(async () => {
      type Probe = ReturnType<typeof window.__demo.probeFlashes>
      const brightness = (p: Probe) => (p.mean as number[]).reduce((a, b) => a + b, 0)
      let best: Probe | null = null
      let after = 0
      for (let tries = 0; tries < 300 && after < 12; tries++) {
        const probe = window.__demo.probeFlashes()
        if (probe.differing > 30) {
          if (best === null || brightness(probe) > brightness(best)) best = probe
          after++
        }
        await new Promise((r) => setTimeout(r, 50))
      }
      return best ?? window.__demo.probeFlashes()
    })
    await shot('10a-footsteps')
    expect(flashes.differing).toBeGreaterThan(30)
    // Pale yellow: bright, blue below red and green.
    const [r, g, b] = flashes.mean as [number, number, number]
    expect(r + g + b).toBeGreaterThan(400)
    expect(b).toBeLessThan(Math.min(r, g))
    // No marker event goes to the status line or the console as a problem.
    expect(problems).toEqual([])
  })

  it('root motion: the travelling walk carries the Fox off; off, it walks on the spot', async () => {
    await page.click('button[data-travel]')
    await until('the travelling walk to play', () => window.__demo.currentClip() === 'Walk (travels)')
    const hint = await page.evaluate(() => document.querySelector('#motion .hint')?.textContent ?? '')
    expect(hint).toContain('walk in place')
    // Off: the entity stays where it is, the hips go back and forth over it.
    const stay = await page.evaluate(() => window.__demo.transform().position)
    await page.waitForTimeout(800)
    expect(await page.evaluate(() => window.__demo.transform().position)).toEqual(stay)
    await grab('walking-in-place')
    await page.click('#root-motion')
    // On: the entity moves forward (+z, the way the Fox faces) with its hips, and the camera follows.
    await until(
      'the Fox to walk 0.5 m',
      (z) => window.__demo.transform().position[2] > Number(z[0]) + 0.5,
      WAIT_MS,
      [stay[2]],
    )
    const on = await page.evaluate(() => ({
      position: window.__demo.transform().position,
      hips: window.__demo.nodePosition('b_Hip_01'),
      probe: window.__demo.probeHero(),
    }))
    await grab('walking-off')
    await shot('10b-root-motion')
    // The hips stay over the entity (27 cm behind its origin), and the Fox is still on screen.
    expect(Math.abs(on.hips[2]! - on.position[2] + 0.27)).toBeLessThan(0.1)
    expect(on.probe.differing).toBeGreaterThan(100)
    const [change] = await changes([['walking-in-place', 'walking-off']])
    expect(change).toBeGreaterThan(0.02) // the ground slides by under the followed Fox
    await page.click('#root-motion')
    const stopped = await page.evaluate(() => window.__demo.transform().position)
    await page.waitForTimeout(800)
    expect(await page.evaluate(() => window.__demo.transform().position)).toEqual(stopped)
    expect(problems).toEqual([])
  })

  it('placement: the fields put the Fox where they say, Shift-drag moves it', async () => {
    // The Walk that stays in place (its hips sway a few centimetres over the entity).
    await clipButton('Walk').click()
    await until('Walk to play', () => window.__demo.currentClip() === 'Walk')
    await page.fill('#place-x', '1.5')
    await page.fill('#place-z', '-1')
    await page.fill('#place-heading', '90')
    await grab('before-placing')
    await page.click('#place')
    await afterFrames(3)
    const placed = await page.evaluate(() => ({
      t: window.__demo.transform(),
      hips: window.__demo.nodePosition('b_Hip_01'),
      readout: document.getElementById('place-readout')?.textContent ?? '',
    }))
    await grab('placed')
    await shot('10c-placed')
    expect(placed.t.position[0]).toBeCloseTo(1.5, 5)
    expect(placed.t.position[2]).toBeCloseTo(-1, 5)
    expect(placed.t.rotation[1]).toBeCloseTo(Math.SQRT1_2, 5) // 90° about +y: facing +x
    // The hips 27 cm behind, now along −x.
    expect(Math.hypot(placed.hips[0]! - 1.23, placed.hips[2]! + 1)).toBeLessThan(0.1)
    expect(placed.readout).toContain('x 1.50 z -1.00')
    expect(placed.readout).toContain('heading 90°')
    const [change] = await changes([['before-placing', 'placed']])
    expect(change).toBeGreaterThan(0.02)
    // Shift-drag from the Fox 120 px to the right: it follows the pointer on the ground, and is not hit.
    const from = await page.evaluate(() => window.__demo.screenOf(5))
    await page.keyboard.down('Shift')
    await page.mouse.move(from.x, from.y)
    await page.mouse.down()
    await page.mouse.move(from.x + 60, from.y, { steps: 4 })
    await page.mouse.move(from.x + 120, from.y, { steps: 4 })
    await page.mouse.up()
    await page.keyboard.up('Shift')
    await afterFrames(3)
    const dragged = await page.evaluate(() => ({
      t: window.__demo.transform(),
      ragdoll: window.__demo.ragdollState(),
    }))
    const moved = Math.hypot(dragged.t.position[0] - 1.5, dragged.t.position[2] + 1)
    expect(moved).toBeGreaterThan(0.2)
    expect(dragged.t.position[1]).toBeCloseTo(placed.t.position[1], 6) // still on the ground
    expect(dragged.ragdoll).toBe('off')
    await shot('10d-dragged')
    expect(problems).toEqual([])
  })

  it('a .glb without a skin, loaded through the file field, plays (BoxAnimated)', async () => {
    await page.setInputFiles('#file', join(ASSETS, 'BoxAnimated/glTF-Binary/BoxAnimated.glb'))
    await until('BoxAnimated to load', () => window.__demo.source === 'BoxAnimated.glb')
    const positions = () =>
      page.evaluate(() => [0, 1, 2, 3].map((n) => window.__demo.nodePosition(n).join()).join(';'))
    const first = await positions()
    await page.waitForTimeout(300)
    const second = await positions()
    const state = await page.evaluate(() => ({
      clips: window.__demo.clipNames(),
      clip: window.__demo.currentClip(),
      buttons: [...document.querySelectorAll('button[data-clip]')].map((b) => b.textContent),
      probe: window.__demo.probeHero(),
    }))
    const shown = await modelState()
    await shot('7-boxanimated')
    // A file of the user's: its name, no credit claimed, no picker button lit.
    expect(shown.model).toBeNull()
    expect(shown.credit).toBe('BoxAnimated.glb (your own file)')
    expect(shown.license).toBeNull()
    expect(shown.picked).toEqual([])
    expect(state.clips).toEqual(['animation0'])
    expect(state.buttons).toEqual(['animation0'])
    expect(state.clip).toBe('animation0')
    expect(second).not.toBe(first)
    expect(state.probe.differing).toBeGreaterThan(100)
  })

  it('a Mixamo-style file dropped in gets Layers controls from its clips: idle ↔ walk ↔ run and its emotes', async () => {
    // RobotExpressive renamed as a Mixamo export (test/helpers/mixamoStyle.ts): nothing shipped applies to it.
    const file = join(mkdtempSync(join(tmpdir(), 'ecs-anim-e2e-')), 'Robot (Mixamo).glb')
    writeFileSync(file, mixamoStyleGlb())
    await page.setInputFiles('#file', file)
    await until('the Mixamo-style file to load', () => window.__demo.source === 'Robot (Mixamo).glb')
    const panel = await layersPanel()
    expect(panel.hidden).toBe(false)
    expect(panel.emotes).toEqual(['Shaking Head No', 'Punching', 'Thumbs Up', 'Waving', 'Head Nod Yes'])
    expect(panel.states).toContain('Breathing Idle')
    expect(panel.blend).toEqual({
      shown: true,
      max: '2',
      hint: 'Breathing Idle at 0 ↔ Walking at 1 ↔ Running at 2, phase-locked (blend space)',
    })
    // No additive clip the names tell; the face's three morph targets, named as three's loader read them.
    expect(panel.additive).toBe(false)
    expect(panel.face).toEqual(['face-Angry', 'face-Surprised', 'face-Sad'])
    // Not a shipped model: no "the shipped clips walk in place" note, no credit claimed.
    const hint = await page.evaluate(() => document.querySelector('#motion .hint')?.textContent ?? '')
    expect(hint).not.toContain('walk in place')
    expect((await modelState()).credit).toBe('Robot (Mixamo).glb (your own file)')

    // The slider between walk and run: a three-point blend space on the base layer, half walk, half run.
    await setSliders({ blend: 1.5 })
    await until('the blend space half walk, half run', () => {
      const bs = window.__demo.layer(0).blendSpace
      return bs !== null && bs.weights.join() === '0,0.5,0.5'
    })
    expect((await layer(0)).blendSpace!.clips).toEqual(['Breathing Idle', 'Walking', 'Running'])
    // An emote plays once on the upper-body layer, masked to the spine's subtree, over the blend.
    await page.click('button[data-emote="Waving"]')
    await until('Waving at full weight', () => {
      const l = window.__demo.layer(1)
      return l.clip === 'Waving' && l.masked && l.weight === 1
    })
    await shot('7b-mixamo-style-waving')
    expect(problems).toEqual([])
  })

  it('a character of the user\'s plays clips from another file ("clips from…"): the Mannequin, RobotExpressive\'s', async () => {
    await page.setInputFiles('#file', join(ASSETS, 'Mannequin/Mannequin.glb'))
    await until('the Mannequin to load', () => window.__demo.source === 'Mannequin.glb')
    expect((await modelState()).credit).toBe('Mannequin.glb (your own file)')
    await page.setInputFiles('#retarget-file', join(ASSETS, 'RobotExpressive/RobotExpressive.glb'))
    await until('the robot clips on the Mannequin', () =>
      window.__demo.clipNames().includes('RobotExpressive.glb: Walking'),
    )
    await clipButton('RobotExpressive.glb: Running').click()
    await until('the run', () => window.__demo.currentClip() === 'RobotExpressive.glb: Running')
    await afterFrames(20)
    const hips: number[] = []
    const knee: number[] = []
    for (let i = 0; i < 10; i++) {
      const [h, k] = await heldAt((i / 10) * 0.96, ['mixamorig:Hips', 'mixamorig:LeftLeg']) // the run: 0.96 s
      hips.push(h![1]!)
      knee.push(k![2]!)
    }
    await hold(false)
    await shot('7b-mannequin-robot-run')
    expect(Math.max(...hips) - Math.min(...hips)).toBeGreaterThan(0.01)
    expect(Math.max(...knee) - Math.min(...knee)).toBeGreaterThan(0.05)
    const line = await page.evaluate(() => document.getElementById('retarget-line')!.textContent)
    expect(line).toMatch(/^14 clips from RobotExpressive\.glb, \d+ joints mapped: mixamorig:Hips ← Body/)
    expect((await page.evaluate(() => window.__demo.probeHero())).differing).toBeGreaterThan(100)
    expect(problems).toEqual([])
  })

  it('a skinned .glb loaded the same way plays (RiggedFigure), and a crowd of it runs', async () => {
    await page.setInputFiles('#file', join(ASSETS, 'RiggedFigure/glTF-Binary/RiggedFigure.glb'))
    await until('RiggedFigure to load', () => window.__demo.source === 'RiggedFigure.glb')
    const top = () => page.evaluate(() => window.__demo.maxJointHeight())
    const heights = new Set<number>()
    for (let i = 0; i < 4; i++) {
      heights.add(await top())
      await page.waitForTimeout(120)
    }
    expect(heights.size).toBeGreaterThan(1) // its one clip moves the joints
    const probe = await page.evaluate(() => window.__demo.probeHero())
    expect(probe.differing).toBeGreaterThan(100)
    await shot('8a-riggedfigure')

    await page.$eval('#crowd', (el) => {
      ;(el as HTMLInputElement).value = '12'
      el.dispatchEvent(new Event('change'))
    })
    await until('the crowd to appear', () => window.__demo.crowdCount() === 12)
    const updates = await page.evaluate(() => window.__demo.statsUpdates)
    // Two refreshes: the first may average frames from before the crowd came.
    await page.waitForFunction((u) => window.__demo.statsUpdates >= u + 2, updates, { timeout: WAIT_MS })
    // A small crowd's sampling takes microseconds and the page's clock ticks coarsely (Chromium: 100 µs, jittered),
    // so one half-second readout can average to 0; a later one shows it.
    await until(
      'sampling time to show in the readout',
      () => (window.__demo.timings.sampleTracks ?? 0) > 0,
      WAIT_MS,
    )
    const stats = await page.evaluate(() => ({
      text: document.getElementById('stats')?.textContent ?? '',
      timings: window.__demo.timings,
      systems: window.__demo.plugin.systems.map((s) => s.name),
      hash: window.__demo.hash,
    }))
    await shot('8b-crowd')
    expect(stats.text).toMatch(/sampleTracks\s+\d+\.\d{3} ms/)
    expect(stats.text).toContain('characters 13')
    // One row per system the plugin runs, in its order, then the demo's own rows. The library adds systems
    // (sampleMorphWeights came after sampleTracks), so the known ones are checked in order, not at fixed places.
    const known = ['advanceTracks', 'sampleTracks', 'stepRagdolls', 'blendPoses', 'propagateTransforms']
    expect(stats.systems.filter((name) => known.includes(name))).toEqual(known)
    expect(Object.keys(stats.timings)).toEqual([...stats.systems, 'three sync', 'draw'])
    expect(stats.hash).toMatch(/^[0-9a-f]{16}$/)
    expect(problems).toEqual([])
  })

  it('the Fox crowd of 1000 drawn instanced is one draw call, visible, animated, shaped as the clones', async () => {
    await page.click('button[data-model=Fox]')
    await until('the Fox to load', () => window.__demo.source === 'Fox.glb')
    const setCrowd = (n: number) =>
      page.$eval(
        '#crowd',
        (el, n) => {
          ;(el as HTMLInputElement).value = `${n}`
          el.dispatchEvent(new Event('change'))
        },
        n,
      )
    await setCrowd(0)
    await until('no crowd', () => window.__demo.crowdCount() === 0)
    const alone = await page.evaluate(() => window.__demo.drawCalls())

    // The check box by script: while SwiftShader draws a thousand Foxes (1–3 s a frame here), playwright's
    // actionability waits on a click time out.
    const instance = (on: boolean) =>
      page.$eval(
        '#crowd-instanced',
        (el, on) => {
          ;(el as HTMLInputElement).checked = on
          el.dispatchEvent(new Event('change'))
        },
        on,
      )
    await instance(true)
    await until('the crowd drawn instanced', () => window.__demo.crowdInstanced())
    await setCrowd(1000)
    await until('a crowd of 1000', () => window.__demo.crowdCount() === 1000)
    await afterFrames(2)
    const instanced = await page.evaluate(() => window.__demo.drawCalls())
    const first = await page.evaluate(() => window.__demo.probeCrowd())
    await afterFrames(2)
    const later = await page.evaluate(() => window.__demo.probeCrowd())
    await shot('9a-crowd-instanced')

    await instance(false)
    await until('the crowd drawn as clones', () => !window.__demo.crowdInstanced())
    await until('a crowd of 1000 clones', () => window.__demo.crowdCount() === 1000)
    await afterFrames(1)
    const cloned = await page.evaluate(() => window.__demo.drawCalls())
    await shot('9b-crowd-clones')
    await setCrowd(0)
    await until('no crowd', () => window.__demo.crowdCount() === 0)

    console.log(
      JSON.stringify({
        alone,
        instanced,
        cloned,
        visible: first.visible,
        changed: first.sample.filter((g, i) => Math.abs(g - later.sample[i]!) > 8).length,
        single: first.single,
      }),
    )
    // One draw call for the whole instanced crowd (the Fox has one mesh), one per character without it.
    expect(instanced - alone).toBe(1)
    expect(cloned - alone).toBe(1000)
    // Visible: the crowd covers many pixels of the picture (the hero hidden; measured ~23,000 of 270,000).
    expect(first.visible).toBeGreaterThan(5_000)
    // Animated: a later moment's picture differs in many places.
    const changed = first.sample.filter((g, i) => Math.abs(g - later.sample[i]!) > 8).length
    expect(changed).toBeGreaterThan(50)
    // Skinned right: member 0 alone, instanced and as a bound clone of the same pose, covers the same pixels in
    // nearly the same colours (measured: the same 26,556 pixels, mean colour difference 0.002 of 765).
    const single = first.single
    expect(single.instanced).toBeGreaterThan(5_000)
    expect(single.iou).toBeGreaterThan(0.97)
    expect(single.colour).toBeLessThan(12)
    expect(problems).toEqual([])
  })

  it("the picker's RiggedFigure and its IK panel: the head follows the pointer, feet on a step and a slope, a hand reaches the ball", async () => {
    await page.$eval('#crowd', (el) => {
      ;(el as HTMLInputElement).value = '0'
      el.dispatchEvent(new Event('change'))
    })
    await page.click('button[data-model=RiggedFigure]')
    await until('RiggedFigure to load', () => window.__demo.source === 'RiggedFigure.glb', 20_000)
    expect(await page.isVisible('#ik')).toBe(true)
    // Paused, so what IK changes is all that changes.
    await page.evaluate(() => window.__demo.plugin.pause(window.__demo.hero()))
    await afterFrames(5)
    const ankles = () =>
      page.evaluate(() => ['leg_joint_L_3', 'leg_joint_R_3'].map((n) => window.__demo.nodePosition(n)))
    const before = await ankles()

    // Feet: each ankle rises by the height of what is under it (three's own raycaster on the meshes).
    await page.check('#ik-feet')
    await afterFrames(10)
    const feet = await page.evaluate((before) => {
      const now = ['leg_joint_L_3', 'leg_joint_R_3'].map((n) => window.__demo.nodePosition(n))
      return now.map((p, i) => ({
        rise: p[1]! - before[i]![1]!,
        ground: window.__demo.ik.groundAt(before[i]![0]!, before[i]![2]!),
      }))
    }, before)
    for (const f of feet) {
      expect(f.ground).toBeGreaterThan(0.02)
      expect(Math.abs(f.rise - f.ground)).toBeLessThan(2e-3)
    }

    // The head follows the pointer: its forward (local −z) points at the look-at node, wherever the pointer goes.
    await page.check('#ik-look')
    const box = (await page.locator('#view canvas').boundingBox())!
    const forwardError = () =>
      page.evaluate(() => {
        const m = window.__demo.nodeMatrix('neck_joint_2')
        const f = [-m[8]!, -m[9]!, -m[10]!]
        const d = window.__demo.ik.look.map((x, k) => x - m[12 + k]!)
        const l = Math.hypot(...d) * Math.hypot(...f)
        return Math.acos(Math.min(1, (f[0]! * d[0]! + f[1]! * d[1]! + f[2]! * d[2]!) / l))
      })
    const looks: number[][] = []
    for (const x of [0.4, 0.6]) {
      await page.mouse.move(box.x + x * box.width, box.y + 0.35 * box.height)
      await afterFrames(40)
      expect(await forwardError()).toBeLessThan(0.02)
      looks.push(await page.evaluate(() => window.__demo.ik.look))
    }
    expect(Math.abs(looks[0]![0]! - looks[1]![0]!)).toBeGreaterThan(0.1)

    // The hand reaches the ball as it circles.
    await page.check('#ik-reach')
    await afterFrames(40)
    for (let i = 0; i < 3; i++) {
      const gap = await page.evaluate(() => {
        const hand = window.__demo.nodePosition('arm_joint_L_3')
        return Math.hypot(...hand.map((x, k) => x - window.__demo.ik.ball[k]!))
      })
      expect(gap).toBeLessThan(2e-3)
      await afterFrames(7)
    }
    await shot('9-ik')
    await page.uncheck('#ik-feet')
    await page.uncheck('#ik-look')
    await page.uncheck('#ik-reach')
    await afterFrames(5)
    expect(problems).toEqual([])
  })

  it('with ?kernels=wasm the page runs the WebAssembly kernel and shows the lit, playing Fox', async () => {
    const other = await browser!.newPage({ viewport: { width: 800, height: 500 } })
    const errors: string[] = []
    other.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`)
    })
    other.on('pageerror', (e) => errors.push(`page error: ${e.message}`))
    try {
      await other.goto(`${server!.resolvedUrls!.local[0]!}?kernels=wasm`)
      await other.waitForFunction(() => window.__demo?.ready && window.__demo.frames > 5, undefined, {
        timeout: WAIT_MS,
      })
      const state = () =>
        other.evaluate(() => ({
          kernels: window.__demo.plugin.sceneGraph.kernels,
          error: window.__demo.error,
          steps: window.__demo.steps,
          recomputed: window.__demo.plugin.sceneGraph.stats.recomputed,
          probe: window.__demo.probeHero(),
        }))
      const before = await state()
      await other.waitForFunction((s) => window.__demo.steps >= s + 10, before.steps, { timeout: WAIT_MS })
      const after = await state()
      expect(errors).toEqual([])
      expect([before.kernels, before.error]).toEqual(['wasm', null])
      expect(after.recomputed).toBeGreaterThan(10) // the Fox's joints move every step
      // As the first test's Fox: its joints span pixels on screen, in its lit orange.
      expect(after.probe.pixels).toBeGreaterThan(2000)
      expect(after.probe.differing / after.probe.pixels).toBeGreaterThan(0.15)
      const [r, g, b] = after.probe.mean as [number, number, number]
      expect(r).toBeGreaterThan(b + 40)
      expect(r + g + b).toBeGreaterThan(150)
    } finally {
      await other.close()
    }
  })
})
