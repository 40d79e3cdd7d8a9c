import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { HANG_MS } from './test/helpers/hang.ts'

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

// Three projects, all run by `vitest run` (and so by `npm test`):
//   unit   test/** and examples/** but test/bench/**   Node: `npm run test:unit`
//   bench  test/bench/**   keeps the benchmarks running: their scenarios on tiny sizes, in child processes,
//                          checked for agreement with three.js and for the shape of their reports (no timing)
//   e2e    e2e/**          Node driving Debian's headless Chromium through playwright-core: builds the demo with
//                          vite, serves it with `vite preview`, clicks through it (/usr/bin/chromium; .ci/run
//                          installs it)
// Run one with `npx vitest run --project unit` (or bench, e2e). No test has a time limit but HANG_MS, a hang
// guard: a busy machine makes the suite slower, never red.
//
// Workers: vitest's default is one less than the cores, which is one on a 2-core machine, while a test file
// mostly waits on nothing but its own CPU: two keep both cores busy (the main process only schedules and
// transforms, a few seconds in all).
const maxWorkers = Math.max(2, availableParallelism() - 1)
const timeouts = { testTimeout: HANG_MS, hookTimeout: HANG_MS }

export default defineConfig({
  test: {
    maxWorkers,
    projects: [
      {
        resolve: { alias: packageNames },
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx', 'examples/**/*.test.ts'],
          exclude: ['test/bench/**'],
          setupFiles: ['test/helpers/setup.ts'],
          // Files share a worker's modules (each still gets its own plugins): the library is loaded and
          // optimized by V8 once per worker, not once per file, which took ~40 % of the project's CPU time.
          isolate: false,
          environment: 'node',
          ...timeouts,
        },
      },
      {
        test: {
          name: 'bench',
          include: ['test/bench/**/*.test.ts'],
          setupFiles: ['test/helpers/setup.ts'],
          environment: 'node',
          ...timeouts,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          environment: 'node',
          ...timeouts,
        },
      },
    ],
  },
})
