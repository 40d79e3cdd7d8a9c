/**
 * The state machine page (state-machine.html, demo/graph/): RobotExpressive on the graph, driven from the
 * keyboard in headless Chromium. W walks (the graph fades idle into the move blend space), Shift runs (the blend
 * space's parameter follows), letting go stands (back to idle), Space jumps, E waves on the upper body; the live
 * view marks the state each layer is in, the one it heads to and the transition running; the picture is drawn.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { build, preview, type PreviewServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, SWIFTSHADER_ARGS } from './chromium.ts'

interface StateInfo {
  state: string
  time: number
  normalizedTime: number
  transition: { to: string; progress: number } | null
}
interface GraphDemoHook {
  ready: boolean
  error: string | null
  frames(): number
  hero(): number
  state(layer: string): StateInfo
  events(): string[]
  place(): { x: number; z: number; yaw: number }
  plugin: {
    getLayer(c: number, k: number): { blendSpace: { parameter: number[]; weights: number[] } | null }
  }
  stage: { renderer: { getContext(): WebGLRenderingContext | WebGL2RenderingContext } }
}
declare global {
  interface Window {
    __graphDemo: GraphDemoHook
  }
}

let outDir = ''
let server: PreviewServer | undefined
let browser: Browser | undefined
let page: Page
const problems: string[] = []

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'ecs-anim-graph-e2e-'))
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
  await page.goto(`${url}state-machine.html`)
  await until(
    'the robot loaded and 5 frames drawn',
    () => window.__graphDemo?.ready && window.__graphDemo.frames() > 5,
    30_000,
  )
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (outDir) rmSync(outDir, { recursive: true, force: true })
})

async function until(what: string, predicate: () => unknown, timeout = 10_000): Promise<void> {
  try {
    await page.waitForFunction(predicate, undefined, { timeout, polling: 50 })
  } catch {
    const state = await page.evaluate(() => ({
      error: window.__graphDemo?.error,
      base: window.__graphDemo?.ready ? window.__graphDemo.state('base') : null,
      emotes: window.__graphDemo?.ready ? window.__graphDemo.state('emotes') : null,
    }))
    throw new Error(`timed out after ${timeout} ms waiting for: ${what}; page state ${JSON.stringify(state)}`)
  }
}

/** The live view's marks: per layer the state chips marked current and next, and the active transition. */
function marks() {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll<HTMLElement>('.graph-layer')].map((layer) => [
        layer.dataset.layer,
        {
          current: [...layer.querySelectorAll<HTMLElement>('.state.current')].map((s) => s.dataset.state),
          next: [...layer.querySelectorAll<HTMLElement>('.state.next')].map((s) => s.dataset.state),
          active: [...layer.querySelectorAll<HTMLElement>('li.active')].map(
            (li) => `${li.dataset.from}→${li.dataset.to}`,
          ),
        },
      ]),
    ),
  )
}

describe('the state machine page', () => {
  it('starts idle, shows both layers of the graph, and draws the robot', async () => {
    expect(await page.evaluate(() => window.__graphDemo.state('base').state)).toBe('idle')
    expect(await marks()).toEqual({
      base: { current: ['idle'], next: [], active: [] },
      emotes: { current: ['none'], next: [], active: [] },
    })
    const drawn = await page.evaluate(() => {
      const gl = window.__graphDemo.stage.renderer.getContext()
      const px = new Uint8Array(gl.drawingBufferWidth * gl.drawingBufferHeight * 4)
      gl.readPixels(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight, gl.RGBA, gl.UNSIGNED_BYTE, px)
      const colours = new Set<number>()
      for (let i = 0; i < px.length; i += 4 * 97) colours.add((px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!)
      return colours.size
    })
    expect(drawn).toBeGreaterThan(20)
  })

  it('W walks: the graph fades idle into the move blend space, and the view marks the transition', async () => {
    await page.locator('#view canvas').click()
    const start = await page.evaluate(() => window.__graphDemo.place())
    await page.keyboard.down('KeyW')
    // The view, as drawn at some frame of the fade (0.25 s): idle current, move next, idle→move running.
    await until('the view marks the fade into move', () => {
      const base = document.querySelector('[data-layer="base"]')!
      return (
        base.querySelector<HTMLElement>('.state.current')?.dataset.state === 'idle' &&
        base.querySelector<HTMLElement>('.state.next')?.dataset.state === 'move' &&
        base.querySelector<HTMLElement>('li.active')?.dataset.to === 'move'
      )
    })
    await until('in move', () => window.__graphDemo.state('base').state === 'move')
    expect((await marks()).base).toEqual({ current: ['move'], next: [], active: [] })
    const walked = await page.evaluate(() => window.__graphDemo.place())
    expect(walked.z).toBeLessThan(start.z - 0.2)
    const blend = await page.evaluate(
      () => window.__graphDemo.plugin.getLayer(window.__graphDemo.hero(), 0).blendSpace,
    )
    expect(blend?.parameter).toEqual([1.5])
  })

  it('Shift runs: the blend space follows the speed parameter to Running', async () => {
    await page.keyboard.down('Shift')
    await until('running', () => {
      const d = window.__graphDemo
      return d.plugin.getLayer(d.hero(), 0).blendSpace?.parameter[0] === 4
    })
    const blend = await page.evaluate(
      () => window.__graphDemo.plugin.getLayer(window.__graphDemo.hero(), 0).blendSpace,
    )
    expect(blend!.weights).toEqual([0, 1])
    await page.keyboard.up('Shift')
    await page.keyboard.up('KeyW')
    await until(
      'idle again',
      () => window.__graphDemo.state('base').state === 'idle' && !window.__graphDemo.state('base').transition,
    )
  })

  it('Space jumps (from any state), and the jump hands back to idle at its exit time', async () => {
    await page.keyboard.down('Space')
    await until('heading to jump', () => {
      const s = window.__graphDemo.state('base')
      return s.transition?.to === 'jump' || s.state === 'jump'
    })
    await page.keyboard.up('Space')
    await until('jumping', () => window.__graphDemo.state('base').state === 'jump')
    await until(
      'the view marks the fade back to idle',
      () => document.querySelector('[data-layer="base"] li.active')?.textContent?.startsWith('jump → idle'),
      15_000,
    )
    await until('idle', () => window.__graphDemo.state('base').state === 'idle')
  })

  it('E waves on the upper body once, then the emote layer empties again', async () => {
    await page.keyboard.press('KeyE')
    await until('waving', () => window.__graphDemo.state('emotes').state === 'wave')
    await until(
      'the view marks wave',
      () =>
        document.querySelector<HTMLElement>('[data-layer="emotes"] .state.current')?.dataset.state === 'wave',
    )
    await until('done waving', () => window.__graphDemo.state('emotes').state === 'none', 20_000)
    const events = await page.evaluate(() => window.__graphDemo.events())
    expect(events.some((e) => e.endsWith(' emotes: state-enter none→wave'))).toBe(true)
    expect(events.some((e) => e.endsWith(' emotes: state-exit wave→none'))).toBe(true)
    expect(await page.locator('#graph-events').textContent()).toContain('emotes')
  })

  it('reported no errors', async () => {
    expect(await page.evaluate(() => window.__graphDemo.error)).toBeNull()
    expect(problems).toEqual([])
  })
})
