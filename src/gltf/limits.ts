/**
 * What the loader accepts at most. A file over a limit is rejected with an AnimationError (kind 'gltf') naming
 * the count and the limit, before any work proportional to it is done.
 */

/**
 * The most nodes a file may have: as many as one character holds (systems/plugin.ts), so the asset of any
 * file that loads can become a character as a whole.
 */
export const MAX_NODES = 65535
