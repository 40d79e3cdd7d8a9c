import { defineConfig } from 'vite'

// `npx vite examples/r3f` serves this folder: a React app with react-three-fiber. The Fox comes from the repo's
// assets/ (served at /Fox/glTF-Binary/Fox.glb), and 'ecs-anim/r3f' resolves to the sources through the repo's
// tsconfig.json `paths`, as it would to the installed package in an app. JSX uses React's automatic runtime
// (tsconfig's "jsx": "react-jsx"); @vitejs/plugin-react would add fast refresh, which the example does without.
export default defineConfig({
  publicDir: '../../assets',
  cacheDir: '../../node_modules/.vite/r3f',
  resolve: { tsconfigPaths: true },
  oxc: { jsx: { runtime: 'automatic' } },
  build: { chunkSizeWarningLimit: 4096 },
})
