import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser } from 'playwright-core'
import { build, preview, type PreviewServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from './chromium.ts'
import type { DeterminismHook } from './determinism/main.ts'
import {
  CROSS_ENGINE_EVERY,
  CROSS_ENGINE_STEPS,
  firstDifference,
  MATH_PROBE_FUNCTIONS,
  MATH_PROBE_INPUTS,
  mathProbe,
  runCrossEngineScenario,
  type CrossEngineRun,
} from '../test/sim/crossEngine.ts'

/**
 * Determinism across engines (issue 7): the same simulation — six Foxes with clips, slerp and squad, cross-fades,
 * two ragdolls with hits, a get-up, a hit reaction, a partial ragdoll that grows, a powered one
 * (test/sim/crossEngine.ts) — gives the same state hash every 10 steps in Node
 * (this vitest worker's V8) and in Debian's headless Chromium (a newer V8, whose Math.sin, acos, exp, pow… differ
 * from Node's in the last bit on a few % of inputs; this test's math probe shows it).
 *
 * What it catches: an engine-dependent value on the ragdoll path parts the runs within a few steps, because
 * the physics is in doubles and chaotic (measured with deliberate sabotage: Math.cos in the joint limits, first
 * difference at step 210; Math.atan2 in the hand-off velocity, step 100). A last-bit difference in the
 * animation path is usually rounded away by the Float32 pose and scene-graph stores (Math.sin driving a root
 * translation or a clip speed went unseen), which is why test/sim/determinismGuard.test.ts also checks the
 * sources and records every Math call a step makes.
 *
 * The page (e2e/determinism/index.html + main.ts) is built with vite's JS API from its own root, with assets/ as
 * its public folder (/Fox/glTF-Binary/Fox.glb), into a temporary folder — the demo's build and config are not
 * involved.
 */

const PAGE_ROOT = resolve('e2e/determinism')
/** The bytes the page fetches as /Fox/glTF-Binary/Fox.glb (the shipped assets/Fox). */
const FOX = resolve('assets/Fox/glTF-Binary/Fox.glb')

let outDir = ''
let server: PreviewServer | undefined
let browser: Browser | undefined
let page: DeterminismHook
let node: CrossEngineRun
let browserVersion = ''
const problems: string[] = []
const started = performance.now()

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'ecs-anim-determinism-'))
  const shared = { configFile: false as const, root: PAGE_ROOT, logLevel: 'error' as const }
  await build({
    ...shared,
    publicDir: resolve('assets'),
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 2048 },
  })
  // Cross-origin isolated (shared memory for the run with workers).
  const headers = {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
  }
  server = await preview({ ...shared, build: { outDir }, preview: { port: 0, host: '127.0.0.1', headers } })
  const url = server.resolvedUrls?.local[0]
  if (!url) throw new Error('vite preview reported no local URL')
  browser = await launchChromium()
  browserVersion = browser.version()
  const tab = await browser.newPage()
  tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  tab.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`))
  await tab.goto(url)
  // Node's run goes while the page's runs in the browser process.
  node = await runCrossEngineScenario(new Uint8Array(readFileSync(FOX)))
  await tab.waitForFunction(() => window.__determinism?.done, undefined, { timeout: 120_000, polling: 50 })
  page = await tab.evaluate(() => window.__determinism)
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (outDir) rmSync(outDir, { recursive: true, force: true })
  console.log(
    `determinism e2e: Node ${process.version} (V8 ${process.versions.v8}) vs Chromium ${browserVersion}; ` +
      `page run ${page?.ms.toFixed(0)} ms; ${((performance.now() - started) / 1000).toFixed(1)} s in all`,
  )
})

describe('the same simulation in Node and in headless Chromium', () => {
  it('ran the whole scenario on the same Fox.glb bytes in both engines, ragdolls, get-up and fades included', () => {
    expect(problems).toEqual([])
    expect(page.error).toBeNull()
    const run = page.run!
    expect(run.assetHash).toBe(node.assetHash)
    for (const r of [node, run]) {
      expect(r.checkpoints.map((c) => c.step)).toEqual(
        Array.from(
          { length: CROSS_ENGINE_STEPS / CROSS_ENGINE_EVERY },
          (_, i) => (i + 1) * CROSS_ENGINE_EVERY,
        ),
      )
      // No problem report in either engine (clip events and the get-up choices aside), and the same events.
      expect(r.events.filter((e) => !/^step \d+ (loop|finished|marker|ragdoll-get-up)/.test(e))).toEqual([])
      expect(r.events).toEqual(node.events)
    }
    // The scenario does what it says (else equal hashes would prove less): characters 1 and 2 ragdoll with live
    // bodies, both get up, character 1 falls again; character 0 takes a hit reaction (its arm's 2 bodies) that
    // recovers on its own; character 4 is a partial ragdoll (the neck's body), grown by a foreleg (3 bodies),
    // that gets up; character 5 is powered throughout; cross-fades are under way at some checkpoints.
    const at = (step: number) => node.checkpoints[step / CROSS_ENGINE_EVERY - 1]!
    expect(at(80).ragdoll[0]).toBe(1)
    expect(at(80).bodies[0]!.length).toBe(2)
    expect(at(150).ragdoll[0]).toBe(0)
    expect(at(250).ragdoll).toEqual([0, 1, 1, 0, 1, 1])
    expect(at(250).bodies.map((b) => b.length)).toEqual([0, 16, 16, 0, 1, 16])
    expect(at(310).bodies[4]!.length).toBe(3)
    expect(at(340).ragdoll[1]).toBe(2) // getting up
    expect(at(430).ragdoll[2]).toBe(2)
    expect(at(430).ragdoll[4]).toBe(2)
    expect(at(600).ragdoll).toEqual([0, 1, 0, 0, 0, 1])
    expect(node.checkpoints.filter((c) => c.fading.some((f) => f === 1)).length).toBeGreaterThan(3)
    // Root motion carries character 1 along its travelling walk (0.7 m a loop, turned 45°) until it falls at 90
    // and holds it while it lies; character 3's only reports (apply: false).
    const moved = (a: number, b: number, c: number) =>
      Math.hypot(at(b).placed[c]![0] - at(a).placed[c]![0], at(b).placed[c]![1] - at(a).placed[c]![1])
    expect(moved(10, 90, 1)).toBeGreaterThan(0.6)
    expect(moved(100, 250, 1)).toBe(0)
    expect(at(600).placed[3]).toEqual([3, 0])
  })

  it('the engines do disagree on Math.* in the last bit (so equal simulation hashes are not a given)', () => {
    const theirs = page.math!
    const ours = mathProbe()
    expect(theirs.length).toBe(ours.length)
    const differing = MATH_PROBE_FUNCTIONS.map((name, f) => {
      let n = 0
      for (let i = f * MATH_PROBE_INPUTS; i < (f + 1) * MATH_PROBE_INPUTS; i++)
        if (!Object.is(ours[i], theirs[i])) n++
      return `${name} ${n}`
    })
    console.log(
      `Math.* outputs differing between Node and Chromium, of ${MATH_PROBE_INPUTS} each: ${differing}`,
    )
    // Were this 0, the two engines would agree on Math and this file would no longer test anything.
    expect(ours.some((x, i) => !Object.is(x, theirs[i]))).toBe(true)
  })

  it('gives the same state hash at every 10th step of 600, characters and ragdoll bodies alike', () => {
    expect(firstDifference(node, page.run!)).toBeNull()
    expect(page.run!.checkpoints.map((c) => c.hash)).toEqual(node.checkpoints.map((c) => c.hash))
  })

  it("gives the same hashes with kernels 'wasm' in Chromium (WebAssembly world matrices) as Node's JavaScript", () => {
    expect(page.wasmForm).toBe('simd') // the f64x2 pass (src/engine/propagateSimd.wat)
    expect(firstDifference(node, page.wasmRun!)).toBeNull()
    expect(page.wasmRun!.checkpoints.map((c) => c.hash)).toEqual(node.checkpoints.map((c) => c.hash))
    expect(page.wasmRun!.events).toEqual(node.events)
  })

  it("gives the same hashes with workers: 2 in Chromium (Web Workers over shared memory) as Node's one thread", () => {
    expect(page.isolated).toBe(true)
    expect(firstDifference(node, page.workersRun!)).toBeNull()
    expect(page.workersRun!.checkpoints.map((c) => c.hash)).toEqual(node.checkpoints.map((c) => c.hash))
    expect(page.workersRun!.events).toEqual(node.events)
    expect(page.workersRun!.workerItems).toBeGreaterThan(0)
  })
})
