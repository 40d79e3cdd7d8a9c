import { defineConfig } from 'vite'

// The e2e harness of ecs-anim/r3f (e2e/r3f.e2e.test.ts builds and serves it), configured as examples/r3f is.
export default defineConfig({
  publicDir: '../../assets',
  cacheDir: '../../node_modules/.vite/r3f-harness',
  resolve: { tsconfigPaths: true },
  oxc: { jsx: { runtime: 'automatic' } },
  build: { chunkSizeWarningLimit: 8192 },
})
