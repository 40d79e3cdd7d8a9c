import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * The examples import the library by its package name, as a game would: these send the names to the sources
 * (tsconfig.json's `paths` say the same for tsc and tsx).
 */
const packageNames = [
  { find: /^ecs-anim$/, replacement: fileURLToPath(new URL('./entry/index.ts', import.meta.url)) },
  { find: /^ecs-anim\/node$/, replacement: fileURLToPath(new URL('./entry/node.ts', import.meta.url)) },
  { find: /^ecs-anim\/three$/, replacement: fileURLToPath(new URL('./adapters/three.ts', import.meta.url)) },
  {
    find: /^ecs-anim\/r3f$/,
    replacement: fileURLToPath(new URL('./adapters/r3f/index.ts', import.meta.url)),
  },
]

// Two projects, both run by `vitest run` (and so by `npm test`):
//   unit  test/** and examples/**   Node, fast
//   e2e   e2e/**    Node driving Debian's headless Chromium through playwright-core: builds the demo with vite,
//                   serves it with `vite preview`, clicks through it (needs /usr/bin/chromium; .ci/run installs it)
// Run one with `npx vitest run --project unit` (or e2e).
export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias: packageNames },
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx', 'examples/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
