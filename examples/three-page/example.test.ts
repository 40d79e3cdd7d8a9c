import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { codeBlock, guide } from '../../test/helpers/markdown.ts'

/**
 * The three.js guide shows this page's main.ts whole, as the page to copy: it must be the file that
 * e2e/examples.e2e.test.ts builds and runs in Chromium, not a copy that drifted.
 */
describe('examples/three-page', () => {
  it("the three.js guide's page is examples/three-page/main.ts, character for character", () => {
    const main = readFileSync('examples/three-page/main.ts', 'utf8')
    expect(codeBlock(guide('three'), 'A complete page')).toBe(main)
  })
})
