import { mathProbe, runCrossEngineScenario, type CrossEngineRun } from '../../test/sim/crossEngine.ts'
import { kernelForm, type KernelForm } from '../../src/engine/wasmKernels.ts'

/**
 * The page side of e2e/determinism.e2e.test.ts: runs the cross-engine scenario (test/sim/crossEngine.ts) on the
 * shipped Fox (assets/Fox/glTF-Binary/Fox.glb, served at /Fox/glTF-Binary/Fox.glb) in this browser's engine and
 * exposes the result as `window.__determinism`, with the engine's own Math.* outputs on the probe inputs (mathProbe).
 */
export interface DeterminismHook {
  done: boolean
  error: string | null
  run: CrossEngineRun | null
  /** The same scenario with the plugin's `kernels: 'wasm'` (WebAssembly world-matrix propagation). */
  wasmRun: CrossEngineRun | null
  /** Which WebAssembly pass kernels 'wasm' ran here ('simd' where the engine has WebAssembly SIMD). */
  wasmForm: KernelForm | null
  /** The same scenario with the plugin's `workers: 2` (Web Workers over shared memory), and whether the page could. */
  workersRun: CrossEngineRun | null
  isolated: boolean
  math: number[] | null
  ms: number
}

declare global {
  interface Window {
    __determinism: DeterminismHook
  }
}

const hook: DeterminismHook = {
  done: false,
  error: null,
  run: null,
  wasmRun: null,
  wasmForm: null,
  workersRun: null,
  isolated: crossOriginIsolated,
  math: null,
  ms: 0,
}
window.__determinism = hook

async function main(): Promise<void> {
  const response = await fetch('/Fox/glTF-Binary/Fox.glb')
  if (!response.ok) throw new Error(`GET /Fox/glTF-Binary/Fox.glb: ${response.status}`)
  const bytes = new Uint8Array(await response.arrayBuffer())
  const start = performance.now()
  hook.run = await runCrossEngineScenario(bytes)
  hook.ms = performance.now() - start
  hook.wasmRun = await runCrossEngineScenario(bytes, 'wasm')
  hook.wasmForm = kernelForm()
  hook.workersRun = await runCrossEngineScenario(bytes, 'js', 2)
  hook.math = mathProbe()
}

main()
  .catch((e: unknown) => {
    hook.error = e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e)
  })
  .finally(() => {
    hook.done = true
    document.getElementById('status')!.textContent = hook.error ?? 'done'
  })
