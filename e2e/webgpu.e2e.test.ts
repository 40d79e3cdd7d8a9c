import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser } from 'playwright-core'
import { build, preview, type PreviewServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, launchChromium, WEBGPU_ARGS } from './chromium.ts'

/**
 * The adapter and the instanced crowd under three's WebGPURenderer (its WebGPU backend on SwiftShader's Vulkan,
 * and its WebGL 2 backend) and under WebGLRenderer: e2e/webgpu draws one Fox character three ways, each alone
 * (a clone the adapter drives, the same character in a crowd, a clone in the rest pose), and reads the pictures
 * back. The crowd must draw what the adapter draws, and not the rest pose; a crowd from 'ecs-anim/three' (WebGL
 * shaders only) must be refused by WebGPURenderer with an AnimationError.
 */

const hasChromium = existsSync(CHROMIUM)
let outDir = ''
let server: PreviewServer | undefined
let browser: Browser | undefined
let url = ''

interface Result {
  backend?: string
  foreground?: number
  crowdForeground?: number
  crowdVsAdapter?: number
  restVsAdapter?: number
  refused?: string
  error?: string
}

async function load(query: string): Promise<Result> {
  const page = await browser!.newPage()
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(e.message))
  try {
    await page.goto(url + query)
    await page.waitForFunction(() => 'result' in window, undefined, { timeout: 60_000 })
    const result = await page.evaluate(() => (window as unknown as { result: Result }).result)
    expect(problems).toEqual([])
    return result
  } finally {
    await page.close()
  }
}

beforeAll(async () => {
  const root = resolve('e2e/webgpu')
  outDir = mkdtempSync(join(tmpdir(), 'ecs-anim-webgpu-'))
  await build({ root, logLevel: 'error', build: { outDir, emptyOutDir: true } })
  if (!hasChromium) return
  server = await preview({
    root,
    logLevel: 'error',
    build: { outDir },
    preview: { port: 0, host: '127.0.0.1' },
  })
  url = server.resolvedUrls!.local[0]!
  browser = await launchChromium(WEBGPU_ARGS)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (outDir) rmSync(outDir, { recursive: true, force: true })
})

describe.skipIf(!hasChromium)('the instanced crowd and the adapter under WebGPURenderer and WebGL', () => {
  it.each([
    ['webgpu', 'webgpu'],
    ['webgpu-gl', 'webgl2'],
    ['webgl', 'webgl'],
  ])('?renderer=%s: the crowd draws the adapter’s picture, not the rest pose', async (renderer, backend) => {
    const r = await load(`?renderer=${renderer}`)
    console.log(renderer, JSON.stringify(r))
    expect(r.error).toBeUndefined()
    expect(r.backend).toBe(backend)
    expect(r.foreground).toBeGreaterThan(1000) // the Fox covers part of the 128 × 128 picture
    expect(r.crowdForeground).toBe(r.foreground)
    expect(r.crowdVsAdapter).toBeLessThan(20)
    expect(r.restVsAdapter).toBeGreaterThan(500) // it is skinned: the rest pose looks different
  })

  it("refuses a crowd from 'ecs-anim/three' under WebGPURenderer, naming the entry that works", async () => {
    const r = await load('?renderer=webgpu&crowd=plain')
    expect(r.refused).toBe(
      "AnimationError: createInstancedCrowd: this crowd skins in WebGL shaders (onBeforeCompile), which WebGPURenderer never runs; make it with the createInstancedCrowd of 'ecs-anim/three/webgpu' to draw it with WebGPURenderer",
    )
    const gl = await load('?renderer=webgl&crowd=plain')
    expect(gl.crowdVsAdapter).toBeLessThan(20)
  })
})
