/**
 * Runs the rollback example's session (session.ts) and prints what happened. From the repo root:
 * `npx tsx examples/rollback/main.ts` (tsx maps 'ecs-anim' and 'ecs-anim/node' to the sources through
 * tsconfig.json's `paths`).
 */
import { fileURLToPath } from 'node:url'
import { loadAsset } from 'ecs-anim/node'
import { MAX_DELAY, MIN_DELAY, runSession } from './session.ts'

const asset = (path: string) => loadAsset(fileURLToPath(new URL(`../../assets/${path}`, import.meta.url)))
const [fox, robot] = await Promise.all([
  asset('Fox/glTF-Binary/Fox.glb'),
  asset('RobotExpressive/RobotExpressive.glb'),
])
const steps = 600
const started = performance.now()
const session = runSession(fox, robot, steps, 1)
console.log(
  `${steps} steps, ${session.inputs} inputs, each delayed ${MIN_DELAY}–${MAX_DELAY} steps on its way to the other peer`,
)
session.peers.forEach((peer, i) => {
  const same = peer.hashes.every((h, s) => h === session.reference[s])
  const settled = peer.live
    .slice(peer.settledFrom)
    .every((h, k) => h === session.reference[peer.settledFrom + k])
  console.log(
    `peer ${i}: ${peer.rollbacks} rollbacks, ${peer.resimulated} steps simulated again; every step's hash ` +
      `${same ? 'equals' : 'DIFFERS from'} the run without delay, ${settled ? 'and so does' : 'but NOT'} ` +
      `every step from ${peer.settledFrom} (after its last rollback)`,
  )
})
console.log(`final hash ${session.reference[steps - 1]} (${(performance.now() - started).toFixed(0)} ms)`)
