import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { main } from '../../cli/main.ts'

/**
 * The commands the README's CLI section and the CLI guide (docs/guides/cli.md) print, as a reader would copy
 * them: every line of their ```sh blocks,
 * with `\` continuations joined and `# comments` cut, split on spaces (the README uses no quotes, checked here,
 * so that split is what a shell does).
 */
function readmeCommands(): string[][] {
  const readme = readFileSync('README.md', 'utf8')
  const start = readme.indexOf('\n## The CLI\n')
  const end = readme.indexOf('\n## ', start + 1)
  expect(start).toBeGreaterThan(0)
  const section = readme.slice(start, end < 0 ? undefined : end) + readFileSync('docs/guides/cli.md', 'utf8')
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
  const lines = blocks.flatMap((block) => block.replace(/\\\n/g, ' ').split('\n'))
  return lines
    .map((line) => line.replace(/\s#.*$/, '').trim())
    .filter((line) => line !== '')
    .map((line) => {
      expect(line).not.toMatch(/['"`$|&;<>*?]/)
      return line.split(/\s+/)
    })
}

describe('README and docs/guides/cli.md, The CLI', () => {
  const commands = readmeCommands()

  it('prints npm run anim commands only', () => {
    expect(commands.length).toBeGreaterThanOrEqual(6)
    for (const command of commands) expect(command.slice(0, 4)).toEqual(['npm', 'run', 'anim', '--'])
  })

  it.each(commands.map((command) => [command.slice(4).join(' '), command.slice(4)]))(
    '%s',
    async (_, argv) => {
      let stdout = ''
      let stderr = ''
      const status = await main(argv, {
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
      })
      expect({ status, stderr }).toEqual({ status: 0, stderr: '' })
      if (argv.includes('--json')) expect(() => JSON.parse(stdout)).not.toThrow()
      else expect(stdout).not.toBe('')
    },
  )
})
