import { defineConfig } from 'vite'

// Library build (npm run build:lib): ES modules for the package's entries; dependencies stay external.
// Type declarations come from `tsc -p tsconfig.build.json`.
export default defineConfig({
  // Warnings and errors only: `npm pack --json` runs this build (prepack) and its stdout must stay pure JSON.
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    sourcemap: true,
    minify: false,
    lib: {
      entry: {
        index: 'entry/index.ts',
        node: 'entry/node.ts',
        kernels: 'entry/kernels.ts',
        three: 'adapters/three.ts',
      },
      formats: ['es'],
    },
    rollupOptions: {
      external: [/^bitecs/, /^three/, /^cannon-es/, /^gl-matrix/, /^@gltf-transform\//, /^node:/],
    },
  },
})
