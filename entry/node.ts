/**
 * ecs-anim for Node: the public entry plus the file loader (reads .glb, and .gltf with external or embedded
 * buffers, from disk). Browsers use `readAsset(bytes)` from the main entry instead.
 *
 * @module
 */
export * from './index.ts'
export { loadAsset } from '../src/gltf/load.ts'
