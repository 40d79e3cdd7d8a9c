import { defineConfig } from 'vite'

// The WebGPU page of e2e/webgpu.e2e.test.ts: the crowd and the adapter under WebGPURenderer and WebGLRenderer.
export default defineConfig({
  publicDir: '../../assets',
  cacheDir: '../../node_modules/.vite/webgpu',
  resolve: { tsconfigPaths: true },
  oxc: { jsx: { runtime: 'automatic' } },
  build: { chunkSizeWarningLimit: 8192 },
})
