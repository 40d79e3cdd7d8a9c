import { defineConfig } from 'vite'

// The demo app: index.html (repo root) → demo/main.ts. Static files are the shipped models in assets/ (each with
// its licence), served at the site root (/Fox/glTF-Binary/Fox.glb). keepNames: the minified build keeps function
// names, so the demo's per-system timing rows (and profiles) read `sampleClips`, not `a`. The build goes to
// dist-demo/: dist/ is the library's (npm run build:lib), and a demo build there would wipe it.
export default defineConfig({
  publicDir: 'assets',
  build: {
    outDir: 'dist-demo',
    chunkSizeWarningLimit: 1024,
    rolldownOptions: { output: { keepNames: true } },
  },
})
