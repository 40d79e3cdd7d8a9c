import { parseArgs } from 'node:util'
import type { ParseArgsConfig } from 'node:util'
import { AnimationError } from '../src/errors.ts'

/** Where a command writes. Tests pass collectors; the process entry passes stdout/stderr. */
export interface CliIO {
  stdout(text: string): void
  stderr(text: string): void
}

/**
 * One CLI command, in its own file under cli/. `run` throws AnimationError for the user's mistakes (bad
 * arguments: kind 'argument'; bad files: whatever the loader throws); main turns those into one stderr line and
 * exit status 2. Anything else is a bug: stack trace, exit status 1.
 */
export interface Command {
  readonly name: string
  /** One line for the command list. */
  readonly summary: string
  /** Full usage text, printed by `anim <command> --help`. */
  readonly usage: string
  run(args: string[], io: CliIO): Promise<void>
}

export function argumentError(message: string): AnimationError {
  return new AnimationError('argument', message)
}

type Options = NonNullable<ParseArgsConfig['options']>

/**
 * node:util parseArgs, strict, with positionals; its errors (unknown option, missing value) become
 * AnimationError 'argument' prefixed with the command name.
 */
export function parseCommandArgs<T extends Options>(command: string, args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw argumentError(`${command}: ${message.replace(/\s*\n\s*/g, ' ')}`)
  }
}

/** The single FILE positional. */
export function singleFile(command: string, positionals: string[]): string {
  if (positionals.length !== 1) {
    throw argumentError(
      `${command} needs exactly one FILE (got ${positionals.length === 0 ? 'none' : positionals.map((p) => `"${p}"`).join(', ')})`,
    )
  }
  return positionals[0]!
}

/** JSON with 2-space indent, but arrays of numbers kept on one line: `"rotation": [0, 0, 0, 1]`. */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /\[\s*(-?[\d.e+-]+(?:,\s*-?[\d.e+-]+)*)\s*\]/g,
    (_, items: string) => {
      return `[${items.split(/,\s*/).join(', ')}]`
    },
  )
}
