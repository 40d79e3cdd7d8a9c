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

/**
 * A caller's value as text for a message, whatever it is: numbers and strings as JSON, symbols, bigints,
 * functions and objects by kind. Never throws (a Symbol in a template literal, or an object whose toString
 * throws, would), so checks can name any value they refuse.
 */
export function showValue(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return String(value)
    case 'string':
      return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)
    case 'boolean':
    case 'undefined':
      return String(value)
    case 'bigint':
      return `${value.toString()}n`
    case 'symbol':
      return 'a symbol'
    case 'function':
      return 'a function'
    default:
      if (value === null) return 'null'
      if (Array.isArray(value)) {
        // Short arrays of plain values as JSON (NaN and ±∞ show as null, as JSON writes them).
        const plain =
          value.length <= 16 &&
          value.every((x) => x === null || ['number', 'string', 'boolean'].includes(typeof x))
        return plain ? JSON.stringify(value) : `an array of ${value.length}`
      }
      return 'an object'
  }
}
