import { AnimationError } from '../errors.ts'

/** A loading error (kind 'gltf') whose message starts with the file it is about: `Fox.glb: node 3 ...`. */
export function gltfError(source: string, what: string, cause?: unknown): AnimationError {
  return new AnimationError('gltf', `${source}: ${what}`, cause === undefined ? undefined : { cause })
}

/** The message of anything thrown, on one line. */
export function describeThrown(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.replace(/\s*\n\s*/g, ' ')
}
