import { defineConfig } from 'vite'

// `npx vite examples/three-page` serves this folder. The Fox comes from the repo's assets/ (served at
// /Fox/glTF-Binary/Fox.glb), and 'ecs-anim' / 'ecs-anim/three' resolve to the sources through the repo's
// tsconfig.json `paths`, as they would to the installed package in a game.
export default defineConfig({
  publicDir: '../../assets',
  // Its own pre-bundled dependencies, so its dev server and the demo's do not rebuild each other's.
  cacheDir: '../../node_modules/.vite/three-page',
  resolve: { tsconfigPaths: true },
  build: { chunkSizeWarningLimit: 2048 },
})
