/**
 * The rollback example's test: two peers whose inputs reach each other 2–8 steps late, each rolling back for
 * every late input, end with the hash of a run that got every input in time after every step, and their live
 * hash equals it from their last rollback on. Run alone with `npx vitest run examples/rollback`.
 */
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from 'ecs-anim'
import { loadAsset } from 'ecs-anim/node'
import { runSession, type SessionResult } from './session.ts'
import { apply, createPeer, inputOrder, script } from './scene.ts'

const asset = (path: string) => loadAsset(fileURLToPath(new URL(`../../assets/${path}`, import.meta.url)))
const STEPS = 600
let fox: AnimationAsset
let robot: AnimationAsset
let session: SessionResult

beforeAll(async () => {
  ;[fox, robot] = await Promise.all([
    asset('Fox/glTF-Binary/Fox.glb'),
    asset('RobotExpressive/RobotExpressive.glb'),
  ])
  session = runSession(fox, robot, STEPS, 1)
})

describe('examples/rollback', () => {
  it('two peers rolling back every late input end where a run without delay does, step by step', () => {
    expect(session.reference).toHaveLength(STEPS)
    for (const [i, peer] of session.peers.entries()) {
      // Every step as the peer last computed it.
      const first = peer.hashes.findIndex((h, s) => h !== session.reference[s])
      expect(first, `peer ${i} parts from the run without delay at step ${first}`).toBe(-1)
      expect(peer.hashes).toHaveLength(STEPS)
      // Every step it ran after its last rollback, as it ran it.
      for (let s = peer.settledFrom; s < STEPS; s++)
        expect(peer.live[s], `peer ${i} step ${s}`).toBe(session.reference[s])
      // The game's own state, rewound with the plugin's.
      expect(peer.health).toEqual(session.referenceHealth)
      // It really rolled back, often, and its predictions really were wrong for a while.
      expect(peer.rollbacks).toBeGreaterThan(20)
      expect(peer.resimulated).toBeGreaterThan(3 * peer.rollbacks)
      expect(peer.live.filter((h, s) => h !== session.reference[s]).length).toBeGreaterThan(10)
    }
    // The scene's state kept changing (a constant hash would prove nothing), and it knocked Foxes over.
    expect(new Set(session.reference).size).toBeGreaterThan(STEPS - 10)
    expect(session.referenceHealth.some((h) => h < 100)).toBe(true)
  })

  it('notices an input applied two steps late without a rollback', () => {
    const inputs = script(STEPS, 1)
    const late = inputs.findIndex((x) => x.command === 'knock-over')
    const peer = createPeer(fox, robot)
    const hashes: string[] = []
    for (let s = 0; s < 200; s++) {
      for (const input of inputs.filter((x, i) => (i === late ? x.step + 2 : x.step) === s).sort(inputOrder))
        apply(peer, input)
      peer.plugin.step()
      hashes.push(peer.plugin.hash())
    }
    const at = inputs[late]!.step
    expect(hashes.slice(0, at)).toEqual(session.reference.slice(0, at))
    expect(hashes[at]).not.toBe(session.reference[at])
  })

  it('the command prints the same as the session', async () => {
    const out = await new Promise<string>((done, fail) => {
      execFile(resolve('node_modules/.bin/tsx'), ['examples/rollback/main.ts'], (error, stdout, stderr) => {
        if (error) fail(new Error(`tsx examples/rollback/main.ts failed:\n${stdout}\n${stderr}`))
        else done(stdout)
      })
    })
    const lines = out.trimEnd().split('\n')
    expect(lines[0]).toBe(
      `600 steps, ${session.inputs} inputs, each delayed 2–8 steps on its way to the other peer`,
    )
    session.peers.forEach((peer, i) =>
      expect(lines[1 + i]).toBe(
        `peer ${i}: ${peer.rollbacks} rollbacks, ${peer.resimulated} steps simulated again; every step's hash ` +
          `equals the run without delay, and so does every step from ${peer.settledFrom} (after its last rollback)`,
      ),
    )
    expect(lines[3]).toMatch(new RegExp(`^final hash ${session.reference[STEPS - 1]} \\(\\d+ ms\\)$`))
  })
})
