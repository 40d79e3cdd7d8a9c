import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'

/** The architecture tests' view of the sources (test/architecture/). */

/** Every .ts and .tsx file under `dir`, recursively. */
export function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(path) ? [path] : []
  })
}

/**
 * The modules `file` imports or re-exports from (types too): relative ones as paths from the repository root,
 * packages by name (with `packages`; else relative ones only).
 */
export function imports(file: string, packages = false): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'([^']+)'/gms)].flatMap((m) =>
    m[1]!.startsWith('.') ? [normalize(join(dirname(file), m[1]!))] : packages ? [m[1]!] : [],
  )
}
