/**
 * The scene of the rollback example: two Foxes and a robot, driven by two peers' inputs (peer 0 plays Fox A and
 * the robot, peer 1 Fox B): clips, cross-fades, an upper-body layer, knock-overs with hits, get-ups. The inputs
 * are data drawn from a seed, so every peer, and a run without network delay, applies the same ones.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationAsset, type AnimationPlugin } from 'ecs-anim'
import type { RollbackGame } from './rollback.ts'

/** What a peer asks of one of its characters. */
export type Command = 'walk' | 'run' | 'survey' | 'wave' | 'stop-waving' | 'knock-over' | 'hit' | 'get-up'

export interface Input {
  /** The fixed step it belongs to. */
  readonly step: number
  readonly peer: number
  /** Its number among the peer's inputs (with `peer`, an order every peer agrees on). */
  readonly seq: number
  /** 0 Fox A, 1 Fox B, 2 the robot. */
  readonly character: number
  readonly command: Command
}

/** One peer's world: the plugin, its three characters, and the game's own state (a health per character). */
export interface Peer {
  readonly plugin: AnimationPlugin
  readonly characters: readonly [number, number, number]
  readonly health: Float64Array
}

export function createPeer(fox: AnimationAsset, robot: AnimationAsset): Peer {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 512 })
  plugin.addAsset(fox)
  plugin.addAsset(robot)
  const a = plugin.addCharacter(fox)
  const b = plugin.addCharacter(fox)
  const r = plugin.addCharacter(robot)
  plugin.setTransform(a, { position: [-0.8, 0, 0], scale: [0.01, 0.01, 0.01] })
  plugin.setTransform(b, { position: [0.8, 0, 0], scale: [0.01, 0.01, 0.01] })
  plugin.setTransform(r, { position: [0, 0, -2], scale: [0.4, 0.4, 0.4] })
  plugin.play(a, 'Walk')
  plugin.play(b, 'Survey')
  plugin.play(r, 'Idle')
  plugin.setLayer(r, 1, { mask: ['Abdomen'], weight: 0 })
  return { plugin, characters: [a, b, r], health: Float64Array.of(100, 100, 100) }
}

/** Applies an input; a command that does not fit the character's state (a hit while standing) does nothing. */
export function apply(peer: Peer, input: Input): void {
  const { plugin, health } = peer
  const c = peer.characters[input.character]!
  const state = plugin.stores.Ragdoll.active[c] // 0 standing, 1 falling or lying, 2 getting up
  const down = state === 1
  const robot = input.character === 2
  switch (input.command) {
    case 'walk':
      if (!down) plugin.crossFade(c, robot ? 'Walking' : 'Walk', 0.3)
      break
    case 'run':
      if (!down) plugin.crossFade(c, robot ? 'Running' : 'Run', 0.3)
      break
    case 'survey':
      if (!down) plugin.crossFade(c, robot ? 'Idle' : 'Survey', 0.5)
      break
    case 'wave':
      if (robot) {
        plugin.play(c, 'Wave', { layer: 1 })
        plugin.setLayer(c, 1, { weight: 1, fadeSeconds: 0.2 })
      }
      break
    case 'stop-waving':
      if (robot) plugin.stopLayer(c, 1, 0.3)
      break
    case 'knock-over':
      if (robot || state !== 0) break
      plugin.ragdoll(c, { impulse: { joint: 'b_Spine02_03', impulse: [input.seq % 2 ? 3 : -3, 1, 0] } })
      health[input.character]! -= 10
      break
    case 'hit':
      if (!down) break
      plugin.applyImpulse(c, 'b_Head_05', [0, 1.5, (input.seq % 3) - 1])
      health[input.character]! -= 5
      break
    case 'get-up':
      if (down) plugin.getUp(c, { clip: 'Survey', play: { loop: 'repeat' } })
      break
  }
}

/** The order of a step's inputs on every peer: by peer, then by their number. */
export function inputOrder(a: Input, b: Input): number {
  return a.peer - b.peer || a.seq - b.seq
}

/** The rollback's view of a peer: the game's health saved and rewound with the plugin. */
export function gameOf(peer: Peer, window: number): RollbackGame<Input> {
  const saved = new Float64Array(3 * window)
  return {
    save: (slot) => saved.set(peer.health, 3 * slot),
    load: (slot) => peer.health.set(saved.subarray(3 * slot, 3 * slot + 3)),
    apply: (input) => apply(peer, input),
  }
}

/** A seeded generator (mulberry32): the same numbers on every peer. */
export function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const COMMANDS: readonly Command[] = ['walk', 'run', 'survey', 'knock-over', 'hit', 'hit', 'get-up']
const ROBOT: readonly Command[] = ['walk', 'run', 'survey', 'wave', 'stop-waving']

/** Every input of both peers for steps [0, steps): each peer acts every 6 to 25 steps. */
export function script(steps: number, seed: number): Input[] {
  const next = random(seed)
  const out: Input[] = []
  for (let peer = 0; peer < 2; peer++) {
    let seq = 0
    for (let step = 1 + Math.floor(next() * 10); step < steps; step += 6 + Math.floor(next() * 20)) {
      const character = peer === 1 ? 1 : next() < 0.7 ? 0 : 2
      const list = character === 2 ? ROBOT : COMMANDS
      out.push({ step, peer, seq: seq++, character, command: list[Math.floor(next() * list.length)]! })
    }
  }
  return out
}
