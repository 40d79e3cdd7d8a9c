import { defineConfig } from 'vite'

// The demo app (index.html → demo/main.ts). Library build settings live in the package scripts.
export default defineConfig({
  build: { chunkSizeWarningLimit: 1024 },
})
