import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { AnimationError } from '../src/errors.ts'
import type { CliIO, Command } from './command.ts'
import { graphCommand } from './graph.ts'
import { inspectCommand } from './inspect.ts'
import { sampleCommand } from './sample.ts'
import { simulateCommand } from './simulate.ts'

/**
 * `npm run anim -- <command> ...` (scripts/anim.mjs bundles cli/main.ts). A new command is a `Command` in its own file, added
 * to COMMANDS.
 *
 * Exit status: 0 done; 2 the user's mistake (bad arguments, unreadable or invalid file: one line on stderr,
 * `anim: ...`); 1 an internal error (a bug: stack trace on stderr).
 */
const COMMANDS: readonly Command[] = [inspectCommand, sampleCommand, simulateCommand, graphCommand]

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return [
    'usage: anim <command> [arguments]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "anim <command> --help shows the command's arguments.",
  ].join('\n')
}

const processIO: CliIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
}

/** Runs one command line (without the `node main.ts` part); resolves to the exit status. Never rejects. */
export async function main(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  const [name, ...args] = argv
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage() + '\n')
    return 0
  }
  if (name === undefined) {
    io.stderr(usage() + '\n')
    return 2
  }
  const command = COMMANDS.find((c) => c.name === name)
  if (!command) {
    io.stderr(
      `anim: unknown command "${name}" (commands: ${COMMANDS.map((c) => c.name).join(', ')}; see anim --help)\n`,
    )
    return 2
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(command.usage + '\n')
    return 0
  }
  try {
    await command.run(args, io)
    return 0
  } catch (error) {
    if (error instanceof AnimationError) {
      io.stderr(`anim: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`)
      return 2
    }
    io.stderr(
      `anim: internal error\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    return 1
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2))
}
