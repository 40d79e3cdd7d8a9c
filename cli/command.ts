import { parseArgs } from 'node:util'
import type { ParseArgsConfig } from 'node:util'
import { AnimationError } from '../src/errors.ts'
import type { LoadAssetOptions } from '../src/gltf/read.ts'

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
 * AnimationError 'argument' prefixed with the command name. A negative number may follow an option that takes
 * a value (`--time -0.1`, see joinNegativeValues).
 */
export function parseCommandArgs<T extends Options>(command: string, args: string[], options: T) {
  try {
    return parseArgs({
      args: joinNegativeValues(args, options),
      options,
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw argumentError(`${command}: ${message.replace(/\s*\n\s*/g, ' ')}`)
  }
}

/**
 * parseArgs refuses `--time -0.1` ("argument is ambiguous": a value that starts with `-` might be a forgotten
 * value followed by an option). No option is named like a number, so an argument that starts with `-` and a
 * digit (or `-.` and a digit), right after an option that takes a value, is that option's value: it is passed
 * on as `--time=-0.1`, which parseArgs accepts. Arguments after `--` are left alone.
 */
export function joinNegativeValues(args: readonly string[], options: Options): string[] {
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') {
      joined.push(...args.slice(i))
      break
    }
    const long = arg.startsWith('--')
      ? arg.slice(2)
      : /^-[^-]$/.test(arg)
        ? Object.keys(options).find((name) => options[name]!.short === arg.slice(1))
        : undefined
    const next = args[i + 1]
    if (
      long !== undefined &&
      options[long]?.type === 'string' &&
      next !== undefined &&
      /^-\.?\d/.test(next)
    ) {
      joined.push(`--${long}=${next}`)
      i++
    } else joined.push(arg)
  }
  return joined
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

/** The options that make a command load compact clips (loadAsset's `compress`); see compressOption. */
export const COMPRESS_ARGS = {
  compress: { type: 'boolean' },
  tolerance: { type: 'string' },
  distance: { type: 'string' },
} as const

/** Usage lines of COMPRESS_ARGS. */
export const COMPRESS_USAGE = [
  '--compress loads compact clips (keys interpolation reproduces removed, the rest quantized to 16 bits):',
  "within --tolerance T (default 0.0001, in the file's units: metres) of world space at --distance D (default 1)",
  'from each joint; either option implies --compress. Clips with STEP or CUBICSPLINE channels stay exact.',
]

/** loadAsset's `compress` from COMPRESS_ARGS' values; AnimationError 'argument' for a bad number. */
export function compressOption(
  command: string,
  values: { compress?: boolean; tolerance?: string; distance?: string },
): LoadAssetOptions['compress'] {
  if (!values.compress && values.tolerance === undefined && values.distance === undefined) return false
  const number = (text: string | undefined, what: string, min: number): number | undefined => {
    if (text === undefined) return undefined
    const n = Number(text)
    if (!(Number.isFinite(n) && (min === 0 ? n >= 0 : n > 0)) || text.trim() === '') {
      throw argumentError(`${command}: --${what} ${text} is not a number ${min === 0 ? '≥ 0' : '> 0'}`)
    }
    return n
  }
  return {
    tolerance: number(values.tolerance, 'tolerance', 1),
    distance: number(values.distance, 'distance', 0),
  }
}
