// `npm run anim`: the CLI (src/cli/main.ts) bundled with esbuild and run by plain node, not under tsx. tsx's module
// loader detaches an ArrayBuffer, and from then on V8 checks for detachment at every typed-array access for the
// life of the process (the fixed step ran ~17 % slower; README, Performance). The bundle is rebuilt on every run
// (~0.1 s; tsx took longer to start) into node_modules/.cache, under this process's own name (runs in parallel
// must not read each other's half-written file), and removed once loaded.
import { build } from 'esbuild'
import { rmSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = new URL('../', import.meta.url)
const outfile = fileURLToPath(new URL(`node_modules/.cache/ecs-anim-cli/main-${process.pid}.mjs`, root))
await build({
  entryPoints: [fileURLToPath(new URL('src/cli/main.ts', root))],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
})
let main
try {
  ;({ main } = await import(pathToFileURL(outfile).href))
} finally {
  rmSync(outfile, { force: true })
}
process.exitCode = await main(process.argv.slice(2))
