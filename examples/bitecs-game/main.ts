/**
 * Runs the game of game.ts and prints its story. From the repo root: `npx tsx examples/bitecs-game/main.ts`
 * (tsx maps 'ecs-anim' and 'ecs-anim/node' to the sources through tsconfig.json's `paths`).
 */
import { runGame } from './game.ts'

const started = performance.now()
const result = await runGame()
for (const line of result.lines) console.log(line)
console.log(`(${(performance.now() - started).toFixed(0)} ms, asset loading included)`)
