// `npm run anim`: the CLI (cli/main.ts) bundled and run by plain node, not under tsx (see bundle.mjs for why).
// The bundle is rebuilt on every run (~0.1 s; tsx took longer to start) into node_modules/.cache, under this
// process's own name (runs in parallel must not read each other's half-written file), and removed once loaded.
import { rmSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { bundleForNode } from './bundle.mjs'

const root = new URL('../', import.meta.url)
const outfile = fileURLToPath(new URL(`node_modules/.cache/ecs-anim-cli/main-${process.pid}.mjs`, root))
await bundleForNode(fileURLToPath(new URL('cli/main.ts', root)), outfile)
let main
try {
  ;({ main } = await import(pathToFileURL(outfile).href))
} finally {
  rmSync(outfile, { force: true })
}
process.exitCode = await main(process.argv.slice(2))
