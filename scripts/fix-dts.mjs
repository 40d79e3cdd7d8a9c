// Fixes the declarations `tsc -p tsconfig.build.json` wrote into dist/types (the argument), after the build:
//
// 1. They keep the sources' `.ts` and `.tsx` import specifiers; consumers resolve `./x.js` to `./x.d.ts`, so
//    rewrite.
// 2. They reach the declarations of @gltf-transform/core and cannon-es, which name types that a consumer's `lib` may
//    not have: Float16Array and Float16ArrayConstructor (ES2025), RequestInit and HTMLImageElement (DOM; RequestInit
//    is in @types/node too). With `skipLibCheck: false` (TypeScript then checks every .d.ts in the program) a
//    consumer on, say, `lib: ["ES2022"]` would fail in node_modules/@gltf-transform/core. So write dist/types/
//    globals.d.ts with those names as empty interfaces, and reference it from every "exports" entry's types: an
//    empty interface merges into the real one where the consumer's lib has it and changes nothing there, and only
//    supplies the name where it does not (a type, never a value: nothing claims Node 20 has Float16Array).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

const types = process.argv[2] ?? 'dist/types'

const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (path.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8')
      const fixed = text.replace(/(from\s+['"]\.{1,2}\/[^'"]*?)\.tsx?(['"])/g, '$1.js$2')
      if (fixed !== text) writeFileSync(path, fixed)
    }
  }
}
walk(types)

// The type parameter is the lib's own (TypeScript ≥ 5.7): merged declarations must declare the same ones.
const GLOBALS = `// Written by scripts/fix-dts.mjs: names that the declarations of ecs-anim's dependencies use and that a
// consumer's \`lib\` may lack. Empty interfaces: where the lib has the type they merge into it and change nothing;
// where it does not they only supply the name (a type, not a value).
interface Float16Array<TArrayBuffer extends ArrayBufferLike = ArrayBufferLike> {}
interface Float16ArrayConstructor {}
interface RequestInit {}
interface HTMLImageElement {}
`
const globals = join(types, 'globals.d.ts')
writeFileSync(globals, GLOBALS)

// The entries' types files, from package.json's "exports" (the one list of entries).
const manifest = JSON.parse(readFileSync('package.json', 'utf8'))
for (const target of Object.values(manifest.exports)) {
  if (typeof target !== 'object' || !target.types) continue
  const entry = resolve(target.types)
  if (!entry.startsWith(resolve(types) + sep)) continue
  const reference = `/// <reference path="${relative(dirname(entry), globals).split(sep).join('/')}" />\n`
  const text = readFileSync(entry, 'utf8')
  if (!text.startsWith(reference)) writeFileSync(entry, reference + text)
}
