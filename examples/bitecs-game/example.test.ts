import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runGame } from './game.ts'

const TSX = resolve('node_modules/.bin/tsx')

/** What `tsx examples/bitecs-game/main.ts` prints (the README's command, minus npx's lookup). */
function runMain(): Promise<string[]> {
  return new Promise((done, fail) => {
    execFile(TSX, ['examples/bitecs-game/main.ts'], (error, stdout, stderr) => {
      if (error) fail(new Error(`tsx examples/bitecs-game/main.ts failed:\n${stdout}\n${stderr}`))
      else done(stdout.trimEnd().split('\n'))
    })
  })
}

describe('examples/bitecs-game', () => {
  it('walks, runs, knocks Blue over and gets it up; the command prints the same story and hash', async () => {
    // The one-command run (its own process, tsconfig paths for the package names) alongside this one.
    const [printed, game] = await Promise.all([runMain(), runGame()])
    const story = game.lines.map((l) =>
      l
        .replace(/^t=[\d.]+s\s+/, '')
        .replace(/\(.*\)$/, '')
        .trim(),
    )
    expect(story.filter((l) => /→|knocked|gets up|standing|lies/.test(l))).toEqual([
      'Red  Survey → Walk',
      'Red  Walk → Run',
      'Blue hit by Red: health 100 → 0',
      'Blue knocked over',
      'Red  Run → Survey',
      'Blue lies on the ground',
      'Blue gets up',
      'Blue standing again',
    ])
    // A standing Fox's head is ~0.6 m up; lying, it is near the ground.
    expect(game.blueHead.before).toBeGreaterThan(0.5)
    expect(game.blueHead.down).toBeLessThan(0.3)
    expect(game.blueHead.after).toBeGreaterThan(0.5)
    expect(game.events).toBe(0)
    // Same lines, hash included, in another process: the simulation is deterministic.
    expect(printed.slice(0, -1)).toEqual(game.lines)
    expect(printed.at(-1)).toMatch(/^\(\d+ ms, asset loading included\)$/)
  })
})
