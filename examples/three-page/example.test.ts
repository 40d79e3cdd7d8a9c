import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

/**
 * The README's three.js section shows this page's main.ts whole, as the page to copy: it must be the file that
 * e2e/examples.e2e.test.ts builds and runs in Chromium, not a copy that drifted.
 */
describe('examples/three-page', () => {
  it("the README's three.js page is examples/three-page/main.ts, character for character", () => {
    const readme = readFileSync('README.md', 'utf8')
    const main = readFileSync('examples/three-page/main.ts', 'utf8')
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
    const shown = blocks.filter((b) => b.startsWith('// examples/three-page/main.ts'))
    expect(shown, 'README blocks that start with "// examples/three-page/main.ts"').toHaveLength(1)
    expect(shown[0]).toBe(main)
  })
})
