import { defineConfig } from 'vite'

// The demo app: index.html (repo root) → demo/main.ts, and the state machine page, state-machine.html →
// demo/graph/main.ts. Static files are the shipped models in assets/ (each with
// its licence), served at the site root (/Fox/glTF-Binary/Fox.glb). keepNames: the minified build keeps function
// names, so the demo's per-system timing rows (and profiles) read `sampleTracks`, not `a`. The build goes to
// dist-demo/: dist/ is the library's (npm run build:lib), and a demo build there would wipe it.
// The dev and preview servers send the cross-origin isolation headers: shared memory (SharedArrayBuffer), which
// the plugin's `workers` option needs, is only given to isolated pages (the demo loads nothing cross-origin).
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
}

export default defineConfig({
  publicDir: 'assets',
  server: { headers: isolation },
  preview: { headers: isolation },
  // The dev server's dependency scan starts from the demo's page only: examples/three-page has its own config
  // (package-name aliases) and reported "could not be resolved" errors when scanned from here.
  optimizeDeps: { entries: ['index.html', 'state-machine.html'] },
  build: {
    outDir: 'dist-demo',
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      input: { main: 'index.html', graph: 'state-machine.html' },
      output: { keepNames: true },
    },
  },
})
