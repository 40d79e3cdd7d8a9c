import { defineConfig } from 'vitest/config'

// Two projects, both run by `vitest run` (and so by `npm test`):
//   unit  test/**   Node, fast
//   e2e   e2e/**    Node driving Debian's headless Chromium through playwright-core: builds the demo with vite,
//                   serves it with `vite preview`, clicks through it (needs /usr/bin/chromium; .ci/run installs it)
// Run one with `npx vitest run --project unit` (or e2e).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
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
