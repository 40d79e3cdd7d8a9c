// Declarations keep the sources' `.ts` import specifiers; consumers resolve `./x.js` to `./x.d.ts`, so rewrite.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (path.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8')
      const fixed = text.replace(/(from\s+['"]\.{1,2}\/[^'"]*?)\.ts(['"])/g, '$1.js$2')
      if (fixed !== text) writeFileSync(path, fixed)
    }
  }
}
walk(process.argv[2] ?? 'dist/types')
