/**
 * Two peers over a network that delays every input by 2 to 8 steps: each runs the scene (scene.ts) with its own
 * inputs at once and the other's when they arrive, rolling back (rollback.ts) for every one that arrives late.
 * Next to them, a run that gets every input in time. Returns what each computed for every step.
 */
import type { AnimationAsset } from 'ecs-anim'
import { createRollback } from './rollback.ts'
import { createPeer, gameOf, inputOrder, random, script, apply, type Input, type Peer } from './scene.ts'

export const MIN_DELAY = 2
export const MAX_DELAY = 8

export interface PeerResult {
  /** The state hash after each step as the peer last computed it (a re-run overwrites a prediction). */
  readonly hashes: string[]
  /** The hash right after each step was first run: a prediction where an input was still on its way. */
  readonly live: string[]
  /** The step whose first run came after the peer's last rollback. */
  readonly settledFrom: number
  readonly rollbacks: number
  readonly resimulated: number
  readonly health: readonly number[]
}

export interface SessionResult {
  /** The run with every input in time: its hash after each step, its health at the end. */
  readonly reference: string[]
  readonly referenceHealth: readonly number[]
  readonly peers: readonly [PeerResult, PeerResult]
  readonly inputs: number
}

/** `steps` steps of the session; inputs come up to MAX_DELAY steps before the end, so all arrive in it. */
export function runSession(
  fox: AnimationAsset,
  robot: AnimationAsset,
  steps: number,
  seed: number,
): SessionResult {
  const inputs = script(steps - MAX_DELAY, seed)
  const delay = random(seed ^ 0x5eed)
  // When each input reaches the other peer.
  const arrival = inputs.map(() => MIN_DELAY + Math.floor(delay() * (MAX_DELAY - MIN_DELAY + 1)))

  const reference = createPeer(fox, robot)
  const referenceHashes: string[] = []
  const byStep = new Map<number, Input[]>()
  for (const input of inputs)
    byStep.set(input.step, [...(byStep.get(input.step) ?? []), input].sort(inputOrder))
  for (let s = 0; s < steps; s++) {
    for (const input of byStep.get(s) ?? []) apply(reference, input)
    reference.plugin.step()
    referenceHashes.push(reference.plugin.hash())
  }

  const window = MAX_DELAY + 2
  const peers = [0, 1].map((id) => {
    const peer: Peer = createPeer(fox, robot)
    const hashes: string[] = []
    const live: string[] = []
    let lastRollback = -1
    const rollback = createRollback(peer.plugin, gameOf(peer, window), {
      window,
      order: inputOrder,
      after: (s) => (hashes[s] = peer.plugin.hash()),
    })
    return { id, peer, hashes, live, rollback, lastRollback }
  })
  for (let t = 0; t < steps; t++) {
    for (const p of peers) {
      // What reaches this peer before step t: its own inputs for t, the other's sent `arrival` steps ago.
      const before = p.rollback.rollbacks
      inputs.forEach((input, i) => {
        if (input.peer === p.id ? input.step === t : input.step + arrival[i]! === t)
          p.rollback.add(input.step, input)
      })
      if (p.rollback.rollbacks !== before) p.lastRollback = t
      p.rollback.advance()
      p.live[t] = p.peer.plugin.hash()
    }
  }
  const result = (p: (typeof peers)[number]): PeerResult => ({
    hashes: p.hashes,
    live: p.live,
    settledFrom: p.lastRollback + 1,
    rollbacks: p.rollback.rollbacks,
    resimulated: p.rollback.resimulated,
    health: Array.from(p.peer.health),
  })
  return {
    reference: referenceHashes,
    referenceHealth: Array.from(reference.health),
    peers: [result(peers[0]!), result(peers[1]!)],
    inputs: inputs.length,
  }
}
