import { defineConfig } from 'vite'

// The demo app: index.html (repo root) → demo/main.ts. Static files (the bundled Fox and its licence) come from
// demo/public and are served at the site root (/Fox/Fox.glb). keepNames: the minified build keeps function
// names, so the demo's per-system timing rows (and profiles) read `sampleClips`, not `a`.
export default defineConfig({
  publicDir: 'demo/public',
  build: { chunkSizeWarningLimit: 1024, rolldownOptions: { output: { keepNames: true } } },
})
