import { chromium, type Browser } from 'playwright-core'

/** Debian's Chromium, which .ci/run installs with apt when it is missing. */
export const CHROMIUM = '/usr/bin/chromium'

/** Flags for a quiet headless run in a container: no sandbox, GPU, network chatter, or extensions. */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-dev-shm-usage',
]

/** WebGL on the CPU (SwiftShader), for pages that render (no GPU on CI). */
export const SWIFTSHADER_ARGS = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader']

/** Headless Chromium with ARGS plus `extra`. */
export function launchChromium(extra: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...ARGS, ...extra] })
}

/**
 * WebGPU on the CPU: SwiftShader's Vulkan backend for Dawn, headless, with no window surface (this machine's
 * Debian Chromium offers an adapter with these; without the Vulkan ones its device was lost mid-frame).
 */
export const WEBGPU_ARGS = [
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader',
  '--disable-vulkan-surface',
  ...SWIFTSHADER_ARGS,
]
