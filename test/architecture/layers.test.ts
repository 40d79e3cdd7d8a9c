/**
 * The layers of ARCHITECTURE.md, checked on the sources: every relative import points down (or within its
 * own layer). A new folder must be given a layer here.
 */
import { relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { imports, sources } from '../helpers/sources.ts'

/** Lower number = lower layer. src/ is one layer seen from outside; inside it, its own order. */
const LAYERS: Record<string, number> = {
  src: 0,
  components: 1,
  systems: 2,
  plugin: 3,
  snapshot: 4,
  characterData: 5,
  entry: 6,
  cli: 7,
  adapters: 7,
}
/** Inside src/: the folders in order; a folder may import its own and lower ones. */
const SRC: Record<string, number> = {
  'errors.ts': 0,
  math: 1,
  sim: 1,
  clip: 2,
  ik: 2,
  gltf: 3,
  skeleton: 4,
  physics: 4,
  engine: 5,
  retarget: 5,
}

const top = (path: string) => path.split('/')[0]!
const srcPart = (path: string) => path.split('/')[1]!

describe('layers', () => {
  it('every import in the library points down: src < components < systems < plugin < snapshot < characterData < entry < cli, adapters', () => {
    const upward: string[] = []
    for (const layer of Object.keys(LAYERS)) {
      for (const file of sources(layer)) {
        for (const target of imports(file)) {
          const from = top(file)
          const to = top(target)
          expect(LAYERS[to], `${file} imports ${target}: ${to}/ has no layer`).toBeDefined()
          if (LAYERS[to]! > LAYERS[from]!) upward.push(`${file} → ${relative('.', target)}`)
          if (from === 'src' && to === 'src') {
            const a = SRC[srcPart(file)]
            const b = SRC[srcPart(target)]
            expect(a, `${file}: src/${srcPart(file)} has no place in SRC`).toBeDefined()
            expect(b, `${target}: src/${srcPart(target)} has no place in SRC`).toBeDefined()
            if (b! > a!) upward.push(`${file} → ${relative('.', target)}`)
          }
        }
      }
    }
    expect(upward).toEqual([])
  })
})
