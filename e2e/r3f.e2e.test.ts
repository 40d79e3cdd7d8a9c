import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { build, preview, type PreviewServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, launchChromium, SWIFTSHADER_ARGS } from './chromium.ts'

/**
 * ecs-anim/r3f in Chromium: examples/r3f (the app, as `npx vite examples/r3f` builds it) and e2e/r3f (a harness
 * of the example's components in a Canvas whose frames the test drives: frameloop "never", 1/60 s a frame),
 * each built with vite's JS API, served by `vite preview`, and opened in headless Chromium (WebGL on SwiftShader).
 */

const started = performance.now()
const hasChromium = existsSync(CHROMIUM)
const problems: string[] = []
let browser: Browser | undefined
const servers: PreviewServer[] = []
const outDirs: string[] = []

interface Harness {
  ready: boolean
  advance(frames: number): void
  counts(): Record<string, number>
  setMounted(on: boolean): void
  mounted: { fox: number | null; ported: number | null; crowd: number }
  twins: { a: number | null; b: number | null }
  setClip(clip: string): void
  bones(root: 'drei' | 'ported' | 'a' | 'b'): Record<string, number[]>
  drift(name: 'a' | 'b'): number
}
declare global {
  interface Window {
    harness?: Harness
  }
}

/** Builds `root` with its own vite config, serves it, and opens it in a new page. */
async function open(root: string): Promise<Page> {
  const outDir = mkdtempSync(join(tmpdir(), 'ecs-anim-r3f-'))
  outDirs.push(outDir)
  await build({ root, logLevel: 'error', build: { outDir, emptyOutDir: true } })
  const server = await preview({
    root,
    logLevel: 'error',
    build: { outDir },
    preview: { port: 0, host: '127.0.0.1' },
  })
  servers.push(server)
  browser ??= await launchChromium(SWIFTSHADER_ARGS)
  const page = await browser.newPage({ viewport: { width: 480, height: 320 } })
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  await page.goto(server.resolvedUrls!.local[0]!)
  return page
}

let harness: Page
beforeAll(async () => {
  if (!hasChromium) return
  harness = await open(resolve('e2e/r3f'))
  await harness.waitForFunction(() => window.harness?.ready === true, undefined, { timeout: 30_000 })
  // Frames until both twins exist (the file loads, the effects run).
  await harness.waitForFunction(
    () => {
      window.harness!.advance(1)
      return window.harness!.twins.a !== null && window.harness!.twins.b !== null
    },
    undefined,
    { timeout: 30_000, polling: 50 },
  )
}, 180_000)

afterAll(async () => {
  await browser?.close()
  for (const s of servers) await s.close()
  for (const d of outDirs) rmSync(d, { recursive: true, force: true })
  console.log(`r3f e2e: ${((performance.now() - started) / 1000).toFixed(1)} s including builds`)
})

describe.skipIf(!hasChromium)('ecs-anim/r3f in Chromium', () => {
  it('mount, unmount and remount 50 times: entities, pose slots, layer slots, bodies and bindings return to the start', async () => {
    const counts = () => harness.evaluate(() => window.harness!.counts())
    const start = await counts()
    let peak: Record<string, number> = {}
    for (let round = 0; round < 50; round++) {
      await harness.evaluate(() => window.harness!.setMounted(true))
      await harness.waitForFunction(
        () => {
          window.harness!.advance(1)
          return window.harness!.mounted.fox !== null && window.harness!.mounted.crowd === 3
        },
        undefined,
        { timeout: 10_000, polling: 20 },
      )
      // The ragdoll's bodies appear at the next step.
      await harness.evaluate(() => window.harness!.advance(3))
      if (round === 0) peak = await counts()
      await harness.evaluate(() => window.harness!.setMounted(false))
      await harness.waitForFunction(
        () => {
          window.harness!.advance(1)
          return window.harness!.mounted.fox === null
        },
        undefined,
        { timeout: 10_000, polling: 20 },
      )
    }
    await harness.evaluate(() => window.harness!.advance(2))
    const end = await counts()
    expect(problems).toEqual([])
    // While mounted there was more of everything (the test can fail): a Fox, a ragdoll, a crowd of 3, the port.
    for (const key of ['entities', 'poseSlots', 'layerSlots', 'bodies', 'bound']) {
      expect(peak[key], key).toBeGreaterThan(start[key]!)
    }
    expect(end).toEqual(start)
  })

  it('two clones of one file animate independently, each showing its own character', async () => {
    const a1 = await harness.evaluate(() => window.harness!.bones('a'))
    const b1 = await harness.evaluate(() => window.harness!.bones('b'))
    await harness.evaluate(() => window.harness!.advance(7))
    const a2 = await harness.evaluate(() => window.harness!.bones('a'))
    const b2 = await harness.evaluate(() => window.harness!.bones('b'))
    const drift = await harness.evaluate(() => [window.harness!.drift('a'), window.harness!.drift('b')])
    const differ = (x: Record<string, number[]>, y: Record<string, number[]>) =>
      Math.max(...Object.keys(x).map((n) => Math.max(...x[n]!.map((v, k) => Math.abs(v - y[n]![k]!)))))
    expect(Object.keys(a1).length).toBeGreaterThan(20)
    // Both move, they do not move alike (Walk and Run), and each clone's bones are its own character's joints.
    expect(differ(a1, a2)).toBeGreaterThan(0.5)
    expect(differ(b1, b2)).toBeGreaterThan(0.5)
    expect(differ(a2, b2)).toBeGreaterThan(0.5)
    expect(drift).toEqual([0, 0])
  })

  it("a drei-style component ported by its import animates as it does with drei's useAnimations", async () => {
    // Frame by frame through a fade in and a cross-fade: ours after frame n + 1 is drei's after frame n (the
    // plugin shows a clip played now at its time 0 at the next step, drei's mixer at dt).
    const record = () =>
      harness.evaluate(() => ({
        drei: window.harness!.bones('drei'),
        ported: window.harness!.bones('ported'),
      }))
    const frames: { drei: Record<string, number[]>; ported: Record<string, number[]> }[] = []
    for (let f = 0; f < 90; f++) {
      if (f === 45) await harness.evaluate(() => window.harness!.setClip('Run'))
      await harness.evaluate(() => window.harness!.advance(1))
      frames.push(await record())
    }
    let worst = 0
    let unshifted = 0
    for (let f = 1; f + 1 < frames.length; f++) {
      for (const [name, m] of Object.entries(frames[f]!.drei)) {
        const later = frames[f + 1]!.ported[name]!
        const same = frames[f]!.ported[name]!
        for (const k of [12, 13, 14]) {
          worst = Math.max(worst, Math.abs(m[k]! - later[k]!))
          unshifted = Math.max(unshifted, Math.abs(m[k]! - same[k]!))
        }
      }
    }
    console.log(
      `drei vs ported: worst ${worst.toExponential(2)} m one frame apart, ${unshifted.toFixed(4)} m same frame`,
    )
    expect(problems).toEqual([])
    expect(Object.keys(frames[0]!.drei).length).toBeGreaterThan(20)
    expect(unshifted).toBeGreaterThan(1e-3) // it animates: a frame's difference is visible
    expect(worst).toBeLessThan(1e-5)
  })

  it('examples/r3f builds and shows its Foxes, with no errors', async () => {
    const page = await open(resolve('examples/r3f'))
    await page.waitForFunction(() => 'example' in window, undefined, { timeout: 30_000 })
    await page.waitForTimeout(2000)
    const orange = await page.evaluate(() => {
      const canvas = document.querySelector('canvas')!
      const copy = document.createElement('canvas')
      copy.width = 160
      copy.height = 100
      const g = copy.getContext('2d')!
      g.drawImage(canvas, 0, 0, 160, 100)
      const d = g.getImageData(0, 0, 160, 100).data
      let n = 0
      for (let i = 0; i < d.length; i += 4)
        if (d[i]! > 120 && d[i]! > d[i + 1]! + 40 && d[i + 1]! > d[i + 2]! + 20) n++
      return n / (d.length / 4)
    })
    expect(problems).toEqual([])
    expect(orange).toBeGreaterThan(0.01)
  })
})
