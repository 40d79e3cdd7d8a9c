/**
 * What an AnimationError is about:
 * - 'gltf': a file that cannot be read (container, JSON, accessors, skins, the node tree, its animations);
 * - 'clip': clip data buildClip refuses;
 * - 'argument': a bad argument or option of a call, an unknown clip, joint or character, a disposed plugin;
 * - 'capacity': entity ids or pose slots ran out (the message names the limit and the option that raises it);
 * - 'ragdoll': a ragdoll description that does not fit the skeleton, or a skeleton with nothing to build from;
 * - 'snapshot': a snapshot of another version, assets or options, a truncated or corrupt one, or a used world;
 * - 'skeleton': reserved; not thrown at present (skins and node trees that cannot be read are 'gltf').
 */
export type AnimationErrorKind =
  'clip' | 'gltf' | 'skeleton' | 'argument' | 'capacity' | 'ragdoll' | 'snapshot'

/**
 * The one error class the project throws for a user's mistake: a bad file, bad clip data, a bad call. A call
 * that throws it has changed nothing.
 *
 * The message names what and where, with the numbers involved, e.g.
 * `clip "Walk" channel 3 (hips.rotation): key 17 time 0.5 is not after key 16 time 0.5`.
 * `kind` lets callers branch without parsing the message; `cause` holds what an argument threw when read.
 *
 * Internal invariant failures are bugs and surface as plain `Error`s.
 */
export class AnimationError extends Error {
  /** What the error is about (see AnimationErrorKind). */
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
        try {
          return showArray(value)
        } catch {
          return 'an array' // a Proxy whose traps throw
        }
      }
      return 'an object'
  }
}

/**
 * A short array of plain values as JSON, but numbers as numbers: NaN and ±Infinity by name, where JSON would
 * write null (`impulse [null,0,0]` hid the NaN a caller passed); a longer or deeper one by its length.
 */
function showArray(value: readonly unknown[]): string {
  const plain =
    value.length <= 16 && value.every((x) => x === null || ['number', 'string', 'boolean'].includes(typeof x))
  if (!plain) return `an array of ${value.length}`
  return `[${value.map((x) => (typeof x === 'number' ? String(x) : JSON.stringify(x))).join(',')}]`
}
