import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { build, preview, type PreviewServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, launchChromium, SWIFTSHADER_ARGS } from './chromium.ts'

/**
 * examples/three-page, as `npx vite examples/three-page` serves it: built with vite's JS API from its own folder
 * and config (examples/three-page/vite.config.ts: the repo's assets/ as public files, 'ecs-anim' and
 * 'ecs-anim/three' through tsconfig paths) into a temporary folder, served by `vite preview`, and loaded in
 * Debian's headless Chromium (WebGL on SwiftShader) when /usr/bin/chromium exists. The page is the user's code
 * and knows nothing of this test; it only leaves `window.example` ({ plugin, fox, stepper }) for the console.
 */

const PAGE_ROOT = resolve('examples/three-page')
const ARTIFACTS = 'artifacts'
/** The page's background (scene.background 0xa9c4dc). */
const SKY = [0xa9, 0xc4, 0xdc]

interface ExampleHook {
  plugin: {
    jointEntity(c: number, n: string): number
    lodRate(c: number): number
    stores: { SceneNode: { world: Float32Array } }
  }
  fox: number
  stepper: { steps: number }
  herd: { characters: number[]; meshes: unknown[]; object: { visible: boolean } }
  renderer: { info: { render: { calls: number } } }
}
declare global {
  interface Window {
    example?: ExampleHook
  }
}

/** What the canvas shows, read in the frame it was drawn (the page renders first in each animation frame). */
interface Probe {
  pixels: number
  /** Pixels that are not the sky's colour, the Fox's orange, the hat's blue. */
  notSky: number
  orange: number
  blue: number
  /** The 160 × 100 copy it counted, RGB, to compare two moments. */
  rgb: number[]
}

let outDir = ''
let built = false
let server: PreviewServer | undefined
let browser: Browser | undefined
let page: Page
const problems: string[] = []
const started = performance.now()
const hasChromium = existsSync(CHROMIUM)

function probe(): Promise<Probe> {
  return page.evaluate(
    (sky) =>
      new Promise<Probe>((done) =>
        requestAnimationFrame(() => {
          const canvas = document.querySelector('canvas')!
          const copy = document.createElement('canvas')
          copy.width = 160
          copy.height = 100
          const g = copy.getContext('2d', { willReadFrequently: true })!
          g.drawImage(canvas, 0, 0, copy.width, copy.height)
          const d = g.getImageData(0, 0, copy.width, copy.height).data
          const out: Probe = { pixels: d.length / 4, notSky: 0, orange: 0, blue: 0, rgb: [] }
          for (let i = 0; i < d.length; i += 4) {
            const [r, gr, b] = [d[i]!, d[i + 1]!, d[i + 2]!]
            if (Math.abs(r - sky[0]!) + Math.abs(gr - sky[1]!) + Math.abs(b - sky[2]!) > 30) out.notSky++
            if (r > 120 && r > gr + 40 && gr > b + 20) out.orange++
            if (b > 100 && b > r + 60 && b > gr + 40) out.blue++
            out.rgb.push(r, gr, b)
          }
          done(out)
        }),
      ),
    SKY,
  )
}

/** World position (m) of one of the Fox's joints. */
function jointPosition(name: string): Promise<number[]> {
  return page.evaluate((name) => {
    const { plugin, fox } = window.example!
    const e = plugin.jointEntity(fox, name)
    return Array.from(plugin.stores.SceneNode.world.subarray(e * 16 + 12, e * 16 + 15))
  }, name)
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'ecs-anim-three-page-'))
  await build({ root: PAGE_ROOT, logLevel: 'error', build: { outDir, emptyOutDir: true } })
  built = true
  if (!hasChromium) return
  server = await preview({
    root: PAGE_ROOT,
    logLevel: 'error',
    build: { outDir },
    preview: { port: 0, host: '127.0.0.1' },
  })
  const url = server.resolvedUrls?.local[0]
  if (!url) throw new Error('vite preview reported no local URL')
  browser = await launchChromium(SWIFTSHADER_ARGS)
  page = await browser.newPage({ viewport: { width: 640, height: 400 } })
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`))
  await page.goto(url)
  try {
    await page.waitForFunction(() => (window.example?.stepper.steps ?? 0) > 20, undefined, {
      timeout: 120_000, // a hang guard: SwiftShader on a busy machine is slow
      polling: 50,
    })
  } catch {
    throw new Error(`the page did not start stepping in 20 s: ${problems.join('; ') || 'no errors seen'}`)
  }
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (outDir) rmSync(outDir, { recursive: true, force: true })
  console.log(
    `examples e2e: ${((performance.now() - started) / 1000).toFixed(1)} s including build` +
      (hasChromium ? ', preview and launch' : ' (no Chromium: build only)'),
  )
})

describe('examples/three-page', () => {
  it('builds with vite from its own folder and config, the package names resolved to the sources', () => {
    expect(built).toBe(true)
    const html = readFileSync(join(outDir, 'index.html'), 'utf8')
    const scripts = [...html.matchAll(/src="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!)
    expect(scripts).toHaveLength(1)
    const js = readdirSync(join(outDir, 'assets'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(outDir, 'assets', f), 'utf8'))
      .join('\n')
    expect(js).not.toMatch(/from\s*["']ecs-anim/) // bundled, not left as a bare import
    expect(js).toContain('ThreeAdapter.bindObject') // the adapter's own messages came along
    expect(existsSync(join(outDir, 'Fox/glTF-Binary/Fox.glb'))).toBe(true)
  })

  it.skipIf(!hasChromium)('shows the Fox and its hat, walking, with no errors', async () => {
    const first = await probe()
    const head = await jointPosition('b_Head_05')
    // The head over the next ~400 ms, several times: one gap alone can land a whole bob later (the Walk clip is
    // 0.7 s long, and the page's frames come when SwiftShader is done), where the head is back where it was.
    let moved = 0
    for (let k = 0; k < 5; k++) {
      await page.waitForTimeout(80)
      const later = await jointPosition('b_Head_05')
      moved = Math.max(moved, Math.hypot(...head.map((x, i) => x - later[i]!)))
    }
    const second = await probe()
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, 'examples-three-page.png') })
    expect(problems).toEqual([])
    // Not blank: ground and Fox cover a good part of the view; the Fox's orange and the hat's blue are there.
    expect(first.notSky / first.pixels).toBeGreaterThan(0.2)
    expect(first.orange / first.pixels).toBeGreaterThan(0.01)
    expect(first.blue).toBeGreaterThan(3)
    // It moves: the head joint (walking in place bobs it) and the picture.
    expect(moved).toBeGreaterThan(1e-3)
    let changed = 0
    for (let i = 0; i < first.rgb.length; i += 3) {
      const d = [0, 1, 2].reduce((sum, c) => sum + Math.abs(first.rgb[i + c]! - second.rgb[i + c]!), 0)
      if (d > 30) changed++
    }
    expect(changed).toBeGreaterThan(20)
  })
  it.skipIf(!hasChromium)('draws its herd of 24 Foxes with one draw call, sampled by distance', async () => {
    const frame = () =>
      page.evaluate(() => new Promise<number>((done) => requestAnimationFrame(() => done(0))))
    const herd = await page.evaluate(() => {
      const { herd, plugin, renderer } = window.example!
      return {
        characters: herd.characters.length,
        meshes: herd.meshes.length,
        calls: renderer.info.render.calls,
        rates: herd.characters.map((c) => plugin.lodRate(c)),
      }
    })
    await page.evaluate(() => (window.example!.herd.object.visible = false))
    await frame()
    const without = await probe()
    const callsWithout = await page.evaluate(() => window.example!.renderer.info.render.calls)
    await page.evaluate(() => (window.example!.herd.object.visible = true))
    await frame()
    const withHerd = await probe()
    expect(problems).toEqual([])
    expect(herd.characters).toBe(24)
    expect(herd.meshes).toBe(1)
    // The whole herd is one draw call: the frame draws one more with it than without.
    expect(herd.calls - callsWithout).toBe(1)
    expect(withHerd.orange).toBeGreaterThan(without.orange + 20)
    // Near the camera every step, the far side of the herd every 4th.
    expect(herd.rates).toContain(1)
    expect(herd.rates).toContain(4)
  })
})
