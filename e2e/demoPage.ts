/**
 * The page driver of e2e/demo.e2e.test.ts: builds the demo with vite's JS API into a temporary folder, serves
 * it with `vite preview`, opens it in Debian's headless Chromium (WebGL 2 on SwiftShader), and reads and drives
 * it through `window.__demo` (demo/main.ts). The story itself, in order, is in the test file.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { build, preview, type PreviewServer } from 'vite'
import { expect } from 'vitest'
import { launchChromium, SWIFTSHADER_ARGS } from './chromium.ts'

let outDir = ''
/** The preview server and the browser, from `openDemo` to `closeDemo`. */
export let server: PreviewServer | undefined
export let browser: Browser | undefined
/** The demo's page, open from `openDemo` to `closeDemo`. */
export let page: Page
/** Console errors, page errors and failed requests seen since the page opened. */
export const problems: string[] = []
const started = performance.now()

/**
 * How long a wait for the page may take before the test fails: a hang guard, not a speed check. SwiftShader
 * draws a frame in tens of ms on an idle machine and many times that on a busy one.
 */
export const WAIT_MS = 120_000

const ARTIFACTS = 'artifacts'
export const ASSETS = 'assets'

/** What plugin.getLayer returns (the fields the test reads). */
interface LayerState {
  layer: number
  weight: number
  targetWeight: number
  mode: string
  masked: boolean
  source: 'none' | 'clip' | 'blend-space'
  clip: string | null
  time: number
  paused: boolean
  fade: { from: string | null; blend: number } | null
  blendSpace: { clips: string[]; weights: number[]; parameter: number[] } | null
}

/** The part of `window.__demo` the test reads (see demo/main.ts). */
interface DemoHook {
  ready: boolean
  error: string | null
  source: string
  events: string[]
  hash: string
  statsUpdates: number
  timings: Record<string, number>
  frames: number
  steps: number
  hero(): number
  model(): string | null
  assetId(): number
  clipNames(): string[]
  currentClip(): string | null
  blend(): number | null
  weight(): number
  layer(k: number): LayerState
  ragdollState(): string
  crowdCount(): number
  crowdInstanced(): boolean
  drawCalls(): number
  probeCrowd(): {
    visible: number
    sample: number[]
    single: { instanced: number; cloned: number; iou: number; colour: number }
  }
  maxJointHeight(): number
  nodePosition(node: number | string): number[]
  probeHero(): { pixels: number; differing: number; mean: number[]; box: Record<string, number> }
  probeFlashes(): { pixels: number; differing: number; mean: number[]; box: Record<string, number> }
  footsteps(): number
  transform(): { position: [number, number, number]; rotation: number[]; scale: number[] }
  ik: { look: number[]; ball: number[]; groundAt(x: number, z: number): number }
  nodeMatrix(node: number | string): number[]
  screenOf(node: number): { x: number; y: number }
  plugin: {
    stores: { Sampler: { rotation: Uint8Array } }
    sceneGraph: { kernels: string; stats: { recomputed: number } }
    systems: readonly { name: string }[]
    pause(character: number, options?: { layer?: number }): void
    resume(character: number, options?: { layer?: number }): void
    setTime(character: number, seconds: number, options?: { layer?: number }): void
    getMorphWeights(character: number, node: string | number): number[]
  }
  stage: { renderer: { getContext(): WebGLRenderingContext | WebGL2RenderingContext } }
}
declare global {
  interface Window {
    __demo: DemoHook
  }
}

/**
 * Lowest and highest value of the hero's top joint height over `ms` of play: a run cycle bobs the head,
 * so one reading depends on the phase it lands on.
 */
export async function heightRange(ms = 1200): Promise<{ lo: number; hi: number }> {
  return page.evaluate(async (ms) => {
    let lo = Infinity
    let hi = -Infinity
    for (let t = 0; t <= ms; t += 50) {
      const y = window.__demo.maxJointHeight()
      lo = Math.min(lo, y)
      hi = Math.max(hi, y)
      await new Promise((r) => setTimeout(r, 50))
    }
    return { lo, hi }
  }, ms)
}

/** What the page shows of the model on stage: the description line, the credit line and its link, the picker. */
export async function modelState() {
  return page.evaluate(() => ({
    source: window.__demo.source,
    model: window.__demo.model(),
    line: document.querySelector('#panel .source')?.textContent ?? '',
    credit: document.getElementById('credit')?.textContent ?? '',
    license: document.querySelector<HTMLAnchorElement>('#credit a')?.href ?? null,
    picked: [...document.querySelectorAll<HTMLElement>('button[data-model].active')].map(
      (b) => b.dataset.model,
    ),
    clips: window.__demo.clipNames(),
    buttons: [...document.querySelectorAll('button[data-clip]')].map((b) => b.textContent),
    clip: window.__demo.currentClip(),
  }))
}

/** The canvas as last drawn (preserveDrawingBuffer), kept in the page under `name` for `change`. */
export async function grab(name: string): Promise<void> {
  await page.evaluate((name) => {
    const gl = window.__demo.stage.renderer.getContext()
    const px = new Uint8Array(gl.drawingBufferWidth * gl.drawingBufferHeight * 4)
    gl.readPixels(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight, gl.RGBA, gl.UNSIGNED_BYTE, px)
    const w = window as unknown as { __grabs?: Record<string, Uint8Array> }
    ;(w.__grabs ??= {})[name] = px
  }, name)
}

/**
 * For each pair of grabs, the share of the canvas's pixels whose colour differs (sum of |ΔRGB| > 24). One
 * round trip for all: the page answers slowly while SwiftShader draws.
 */
export async function changes(pairs: [string, string][]): Promise<number[]> {
  return page.evaluate((pairs) => {
    const grabs = (window as unknown as { __grabs: Record<string, Uint8Array> }).__grabs
    return pairs.map(([a, b]) => {
      const x = grabs[a]!
      const y = grabs[b]!
      let differing = 0
      for (let i = 0; i < x.length; i += 4) {
        const d = Math.abs(x[i]! - y[i]!) + Math.abs(x[i + 1]! - y[i + 1]!) + Math.abs(x[i + 2]! - y[i + 2]!)
        if (d > 24) differing++
      }
      return differing / (x.length / 4)
    })
  }, pairs)
}

/** The page serves the credit's licence file (it is in the build, under the site root). */
export async function expectServed(url: string | null): Promise<void> {
  expect(url).not.toBeNull()
  const r = await page.request.get(url!)
  expect(r.status(), url!).toBe(200)
}

/** Sets sliders (by id: fade, rate, …) as dragging them would. */
export async function setSliders(values: Record<string, number>): Promise<void> {
  await page.evaluate((values) => {
    for (const [id, value] of Object.entries(values)) {
      const el = document.getElementById(id) as HTMLInputElement
      el.value = `${value}`
      el.dispatchEvent(new Event('input'))
    }
  }, values)
}

/**
 * What the Layers panel shows: hidden or not, its state and emote buttons, its blend slider (shown or not: laid
 * out on the page), and whether its additive toggle and face sliders are shown.
 */
export async function layersPanel() {
  return page.evaluate(() => {
    const shown = (el: Element | null) => el !== null && (el as HTMLElement).offsetParent !== null
    const blend = document.getElementById('blend') as HTMLInputElement
    const row = blend.closest('.row') as HTMLElement
    return {
      hidden: document.getElementById('layers')!.hidden,
      states: [...document.querySelectorAll<HTMLElement>('button[data-state]')].map((b) => b.dataset.state),
      emotes: [...document.querySelectorAll<HTMLElement>('button[data-emote]')].map((b) => b.dataset.emote),
      blend: { shown: shown(row), max: blend.max, hint: row.nextElementSibling?.textContent ?? '' },
      additive: shown(document.getElementById('additive')),
      face: [...document.querySelectorAll('#layers input[id^=face-]')].filter(shown).map((el) => el.id),
    }
  })
}

/** A clip button of the Clips section (the Layers panel has buttons of the same names). */
export function clipButton(name: string) {
  return page.locator('.clips').getByRole('button', { name, exact: true })
}

/** Waits until the page has drawn `n` more frames. */
export async function afterFrames(n: number, timeout = WAIT_MS): Promise<void> {
  const f = await page.evaluate(() => window.__demo.frames)
  await page.waitForFunction((f) => window.__demo.frames >= f, f + n, { timeout, polling: 20 })
}

export async function shot(name: string): Promise<Buffer> {
  return page.screenshot({ path: join(ARTIFACTS, `demo-${name}.png`) })
}

/**
 * Waits until `predicate` (run in the page, given `arg`) is truthy; fails with `what` and the page's state
 * otherwise.
 */
export async function until(
  what: string,
  predicate: (arg: readonly (string | number)[]) => unknown,
  timeout = WAIT_MS,
  arg: readonly (string | number)[] = [],
): Promise<void> {
  try {
    await page.waitForFunction(predicate, arg, { timeout, polling: 50 })
  } catch {
    const state = await page.evaluate(() => ({
      error: window.__demo.error,
      clip: window.__demo.currentClip(),
      blend: window.__demo.blend(),
      weight: window.__demo.weight(),
      ragdoll: window.__demo.ragdollState(),
      top: window.__demo.maxJointHeight(),
      frames: window.__demo.frames,
      status: document.getElementById('status')?.textContent,
    }))
    throw new Error(`timed out after ${timeout} ms waiting for: ${what}; page state ${JSON.stringify(state)}`)
  }
}

/** The hero's layer `k`, as plugin.getLayer shows it. */
export function layer(k: number): Promise<LayerState> {
  return page.evaluate((k) => window.__demo.layer(k), k)
}

/**
 * Holds (or lets run again) the hero's layer `k`: a test aid, not a control. With the base layer held nothing
 * else on stage moves, so what a picture change shows is the layer under test.
 */
export async function hold(paused: boolean, k = 0): Promise<void> {
  await page.evaluate(
    ([paused, k]) => {
      const d = window.__demo
      if (paused) d.plugin.pause(d.hero(), { layer: k })
      else d.plugin.resume(d.hero(), { layer: k })
    },
    [paused, k] as const,
  )
}

/** World positions of the hero's nodes, by names no other node of the file has. */
export function positions(names: readonly string[]): Promise<number[][]> {
  return page.evaluate((names) => names.map((n) => window.__demo.nodePosition(n)), names)
}

/** Largest distance between the same node in two `positions` readings. */
export function moved(a: number[][], b: number[][]): number {
  return Math.max(...a.map((p, i) => Math.hypot(...p.map((x, k) => x - b[i]![k]!))))
}

/** One `startTrace` reading: the traced layer and the traced nodes' positions (x, y, z each, in order). */
interface TraceSample {
  source: string
  clip: string | null
  weight: number
  target: number
  time: number
  masked: boolean
  nodes: number[]
}

/**
 * Starts recording, once per drawn frame, the hero's layer `k` and the positions of `nodes`, until the layer has
 * shown something and is empty again (then `window.__trace.done`); `trace()` reads the samples.
 */
export async function startTrace(k: number, nodes: readonly string[]): Promise<void> {
  await page.evaluate(
    ([k, nodes]) => {
      const trace = { samples: [] as TraceSample[], done: false }
      ;(window as unknown as { __trace: typeof trace }).__trace = trace
      let shown = false
      const tick = () => {
        const l = window.__demo.layer(k)
        const at = nodes.flatMap((n) => window.__demo.nodePosition(n))
        trace.samples.push({
          source: l.source,
          clip: l.clip,
          weight: l.weight,
          target: l.targetWeight,
          time: l.time,
          masked: l.masked,
          nodes: at,
        })
        shown ||= l.source !== 'none'
        if ((shown && l.source === 'none') || trace.samples.length > 5000) trace.done = true
        else requestAnimationFrame(tick)
      }
      requestAnimationFrame(tick)
    },
    [k, nodes] as const,
  )
}

export async function trace(): Promise<TraceSample[]> {
  await until(
    'the traced layer to play and empty again',
    () => (window as unknown as { __trace: { done: boolean } }).__trace.done,
    60_000,
  )
  return page.evaluate(() => (window as unknown as { __trace: { samples: TraceSample[] } }).__trace.samples)
}

/** Builds the demo into a temporary folder, serves it, opens it in Chromium and waits for the Fox (beforeAll). */
export async function openDemo(): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true })
  outDir = mkdtempSync(join(tmpdir(), 'ecs-anim-e2e-'))
  await build({ logLevel: 'error', build: { outDir, emptyOutDir: true } })
  server = await preview({ logLevel: 'error', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } })
  const url = server.resolvedUrls?.local[0]
  if (!url) throw new Error('vite preview reported no local URL')
  browser = await launchChromium(SWIFTSHADER_ARGS)
  page = await browser.newPage({ viewport: { width: 800, height: 500 } })
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`))
  await page.goto(url)
  await until(
    'the Fox loaded and 5 frames drawn',
    () => window.__demo?.ready && window.__demo.frames > 5,
    20_000,
  )
}

/** Closes the browser and the server and removes the build (afterAll). */
export async function closeDemo(): Promise<void> {
  await browser?.close()
  await server?.close()
  if (outDir) rmSync(outDir, { recursive: true, force: true })
  console.log(
    `e2e: ${((performance.now() - started) / 1000).toFixed(1)} s including build, preview and launch`,
  )
}
