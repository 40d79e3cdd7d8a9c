import { readFileSync } from 'node:fs'
import { defineConfig } from 'vite'

// Library build (npm run build:lib): ES modules for the package's entries; dependencies stay external.
// Type declarations come from `tsc -p tsconfig.build.json`.
//
// The entries are package.json's "exports", the one list of them (a new export is built with nothing to change
// here): an export whose `import` is ./dist/NAME.js is built to that file from the source its `types` target is
// emitted from (./dist/types/entry/node.d.ts ← entry/node.ts; tsconfig.build.json has rootDir '.').
type Target = string | { types?: string; import?: string }
const manifest = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, Target>
}
const entry: Record<string, string> = {}
for (const t of Object.values(manifest.exports)) {
  if (typeof t !== 'object' || !t.import || !t.types) continue
  entry[t.import.replace(/^\.\/dist\/(.*)\.js$/, '$1')] = t.types.replace(
    /^\.\/dist\/types\/(.*)\.d\.ts$/,
    '$1.ts',
  )
}

export default defineConfig({
  // Warnings and errors only: `npm pack --json` runs this build (prepack) and its stdout must stay pure JSON.
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    sourcemap: true,
    minify: false,
    lib: { entry, formats: ['es'] },
    rollupOptions: {
      external: [
        /^bitecs/,
        /^three/,
        /^cannon-es/,
        /^@gltf-transform\//,
        /^node:/,
        /^react/,
        /^@react-three\//,
      ],
    },
  },
})
