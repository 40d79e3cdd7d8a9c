// TypeDoc's options for `npm run docs`: the API reference of every entry in package.json's "exports", from
// the sources' doc comments, and the guides of docs/guides/, into docs/api/ (gitignored).
// test/package/docs.test.ts runs it on every `npm test`.
//
// This file is also a TypeDoc plugin (`load` below, listed in `plugin`): it names each entry's module by its
// import specifier ('ecs-anim/node'), where TypeDoc would name it by its path ('entry/node').
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// TypeDoc's Converter.EVENT_CREATE_DECLARATION and ReflectionKind.Module, written out rather than imported: a work
// tree whose node_modules is a symlink to another checkout's runs that checkout's TypeDoc (package.json's `docs`
// goes through node_modules/ecs-anim-docs, the workspace's link) and has no docs/node_modules to import from.
const EVENT_CREATE_DECLARATION = 'createDeclaration'
const MODULE = 2

const root = fileURLToPath(new URL('..', import.meta.url))
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/**
 * The package's entries: each export with a `types` target, and the source that target is emitted from
 * (./dist/types/entry/node.d.ts ← entry/node.ts: tsconfig.build.json has rootDir '.'). An entry added to "exports"
 * is documented from then on, with nothing to change here.
 */
export const entries = Object.entries(manifest.exports).flatMap(([subpath, target]) => {
  const types = typeof target === 'object' ? target.types : undefined
  if (!types) return []
  const source = join(root, types.replace(/^\.\/dist\/types\//, '').replace(/\.d\.ts$/, '.ts'))
  const name = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`
  return [{ name, source }]
})

/** @param {import('typedoc').Application} app */
export function load(app) {
  const names = new Map(entries.map((e) => [e.source, e.name]))
  app.converter.on(EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(MODULE)) return
    const file = context.getSymbolFromReflection(reflection)?.declarations?.[0]?.getSourceFile().fileName
    const name = file && names.get(join(file))
    if (name) reflection.name = name
  })
}

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: manifest.name,
  includeVersion: true,
  // The program is the entries and what they reach (tsconfig.build.json), not the tests: a third fewer files.
  tsconfig: join(root, 'tsconfig.build.json'),
  entryPoints: entries.map((e) => e.source),
  out: join(root, 'docs/api'),
  readme: join(root, 'README.md'),
  // The guides the README links to, published beside the API reference (their links resolve to these pages).
  projectDocuments: [join(root, 'docs/guides/*.md')],
  plugin: [fileURLToPath(import.meta.url)],
  excludeInternal: true,
  // `npm run check` (tsc 7) is the type check; TypeDoc's TypeScript 6 only reads the program.
  skipErrorChecking: true,
  // Reported, not fatal (treatWarningsAsErrors stays off): exports without a doc comment (notDocumented), types
  // the API names but no entry exports (notExported), {@link}s that resolve to nothing. Errors fail the run.
  validation: {
    notExported: true,
    invalidLink: true,
    invalidPath: true,
    rewrittenLink: true,
    notDocumented: true,
  },
}
