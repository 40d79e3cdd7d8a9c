/**
 * The one error class the project throws for a user's mistake: a bad file, bad clip data, a bad call.
 *
 * The message names what and where, with the numbers involved, e.g.
 * `clip "Walk" channel 3 (hips.rotation): key 17 time 0.5 is not after key 16 time 0.5`.
 * `kind` lets callers branch without parsing the message.
 *
 * Internal invariant failures are bugs and surface as plain `Error`s.
 */
export type AnimationErrorKind =
  'clip' | 'gltf' | 'skeleton' | 'argument' | 'capacity' | 'ragdoll' | 'snapshot'

export class AnimationError extends Error {
  readonly kind: AnimationErrorKind

  constructor(kind: AnimationErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'AnimationError'
    this.kind = kind
  }
}
