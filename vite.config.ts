import { defineConfig } from 'vite'

// The demo app: index.html (repo root) → demo/main.ts. Static files are the shipped models in assets/ (each with
// its licence), served at the site root (/Fox/glTF-Binary/Fox.glb). keepNames: the minified build keeps function
// names, so the demo's per-system timing rows (and profiles) read `sampleClips`, not `a`.
export default defineConfig({
  publicDir: 'assets',
  build: { chunkSizeWarningLimit: 1024, rolldownOptions: { output: { keepNames: true } } },
})
