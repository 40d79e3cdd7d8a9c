/**
 * The physics boundary (src/physics/api.ts), checked on the sources: only src/physics/ knows cannon-es, and the
 * rest of the library reaches ragdoll physics through api.ts, importing from src/physics/ nothing else that
 * knows cannon-es (plain-data modules, such as descriptions and kinematics, are fine). Type imports count: a
 * cannon-es type is knowledge of cannon-es too. The cannon-es world itself is public (`plugin.physics`, the
 * `physics.world` option): its type comes through api.ts as PhysicsWorld.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { imports as importsOf, sources } from '../helpers/sources.ts'

const imports = (file: string) => importsOf(file, true)

const LIBRARY = [
  'src',
  'components',
  'systems',
  'plugin',
  'snapshot',
  'characterData',
  'entry',
  'cli',
  'adapters',
]

/** Whether `file` reaches cannon-es through its imports, transitively. */
function knowsCannon(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false
  seen.add(file)
  return imports(file).some((m) => m === 'cannon-es' || (m.endsWith('.ts') && knowsCannon(m, seen)))
}

const inPhysics = (path: string) => path.startsWith('src/physics/')

describe('the physics boundary', () => {
  const files = LIBRARY.flatMap((dir) => sources(dir))

  it('only src/physics/ imports cannon-es', () => {
    const outside = files.filter((f) => !inPhysics(f) && imports(f).includes('cannon-es'))
    expect(outside).toEqual([])
    // The check sees the imports it is about (a broken pattern would make it vacuous).
    expect(files.filter((f) => imports(f).includes('cannon-es')).length).toBeGreaterThan(10)
  })

  it('outside src/physics/, only api.ts and modules that know no cannon-es are imported from it', () => {
    const crossings = files.flatMap((f) =>
      inPhysics(f)
        ? []
        : imports(f)
            .filter((m) => inPhysics(m))
            .map((m) => ({ from: f, to: m })),
    )
    expect(crossings.length).toBeGreaterThan(20)
    const through = crossings.filter((c) => c.to === 'src/physics/api.ts')
    expect(through.length).toBeGreaterThan(5)
    const leaks = crossings
      .filter((c) => c.to !== 'src/physics/api.ts' && knowsCannon(c.to))
      .map((c) => `${c.from} → ${c.to}`)
    expect(leaks).toEqual([])
  })

  it('api.ts itself imports nothing but types, and its factory', () => {
    const text = readFileSync('src/physics/api.ts', 'utf8')
    const values = [...text.matchAll(/^import\s+(?!type\b)[^'"]*?from\s+'([^']+)'/gms)].map((m) => m[1])
    expect(values).toEqual([])
    expect([...text.matchAll(/^export\s+\{[^}]*\}\s+from\s+'([^']+)'/gms)].map((m) => m[1])).toEqual([
      './cannonBackend.ts',
    ])
  })
})
