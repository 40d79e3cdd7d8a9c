/**
 * Ragdoll behaviour pinned bit for bit: fixed scenarios through the public API on the shipped Fox and
 * RobotExpressive (a whole-body ragdoll with a hit and getUp, hit reactions, a partial ragdoll grown whole,
 * per-joint weights, motors with a held root, a snapshot restored mid-way), each digested twice at checkpoints:
 * what the game sees (world matrices, events), recorded at af8285b before the physics boundary moved (issue 32),
 * and how the state is encoded (hash(), snapshot() bytes), recorded again after the time scale and the CRC-64
 * checksum joined the state (issues 36, 33). A refactor must keep both. A change of behaviour changes them on purpose, and its commit
 * says why. `RECORD_DIGESTS=1` prints the digests instead of checking them.
 */
import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

/**
 * Two digests every checkpoint adds to: what the game sees (`behaviour`: world matrices of the whole scene
 * graph, the events) and how the state is encoded (`state`: hash(), snapshot() bytes), which a change of the
 * state's shape may change on purpose while the behaviour stays.
 */
class Digest {
  private readonly behaviour = createHash('sha256')
  private readonly state = createHash('sha256')
  constructor(private readonly p: AnimationPlugin) {}
  checkpoint(snapshot: boolean): void {
    const w = this.p.stores.SceneNode.world
    this.behaviour.update(new Uint8Array(w.buffer, w.byteOffset, w.byteLength))
    this.behaviour.update(JSON.stringify(this.p.events.map((e) => [e.step, e.kind, e.entity, e.message])))
    this.state.update(this.p.hash())
    if (snapshot) this.state.update(this.p.snapshot())
  }
  hex(): string {
    return `${this.behaviour.digest('hex').slice(0, 16)}:${this.state.digest('hex').slice(0, 16)}`
  }
}

function place(p: AnimationPlugin, c: number, at: readonly number[], scale: number): void {
  const S = p.stores.SceneNode
  S.translation.set(at, c * 3)
  S.scale.fill(scale, c * 3, c * 3 + 3)
  S.dirty[c] = 1
}

/** Runs `steps` steps with `actions` at their steps; a checkpoint every 10 steps (with a snapshot every 40). */
function scenario(p: AnimationPlugin, steps: number, actions: Record<number, () => void>): string {
  const d = new Digest(p)
  for (let s = 0; s < steps; s++) {
    actions[s]?.()
    p.step()
    if (s % 10 === 9) d.checkpoint(s % 40 === 39)
  }
  return d.hex()
}

const plugin = () => createAnimationPlugin(createWorld(), { capacity: 4096 })

function foxes(p: AnimationPlugin, n: number): number[] {
  const cs: number[] = []
  for (let i = 0; i < n; i++) {
    const c = p.addCharacter(fox)
    place(p, c, [2 * i, 0, 0], 0.01)
    p.play(c, i % 2 === 0 ? 'Walk' : 'Run')
    cs.push(c)
  }
  return cs
}

function robots(p: AnimationPlugin, n: number): number[] {
  const cs: number[] = []
  for (let i = 0; i < n; i++) {
    const c = p.addCharacter(robot)
    place(p, c, [3 * i, 0, 1], 0.4)
    p.play(c, i % 2 === 0 ? 'Walking' : 'Running')
    cs.push(c)
  }
  return cs
}

const SCENARIOS: Record<string, () => string> = {
  'Fox: ragdoll with a hit, applyImpulse, getUp; a twin animating': () => {
    const p = plugin()
    const [a, b, c] = foxes(p, 3)
    return scenario(p, 240, {
      20: () => p.ragdoll(a!, { impulse: { joint: 'b_Head_05', impulse: [0, 1, -3] } }),
      30: () => p.ragdoll(b!, { rate: 8 }),
      45: () => p.applyImpulse(b!, 'b_Hip_01', [2, 0, 0]),
      150: () => p.getUp(a!, { prone: 'Survey', supine: 'Walk', fadeSeconds: 0.2 }),
      170: () => p.getUp(b!, { clip: 'Run', rate: 3 }),
      200: () => p.play(c!, 'Survey'),
    })
  },
  'Fox: hit reactions, a partial ragdoll grown whole, per-joint weights': () => {
    const p = plugin()
    const [a, b, c] = foxes(p, 3)
    return scenario(p, 200, {
      15: () => p.hit(a!, 'b_RightForeArm_07', [0, 3, 0], { recoverSeconds: 0.4 }),
      25: () => p.hit(a!, 'b_Head_05', [1, 0, 0]),
      20: () => p.ragdoll(b!, { root: 'b_Neck_04' }),
      60: () => p.ragdoll(b!),
      30: () => p.ragdoll(c!, { root: ['b_LeftUpperArm_09', 'b_Tail01_012'] }),
      35: () => p.setRagdollWeight(c!, { weight: 0.5, joints: 'b_Tail01_012' }),
      120: () => p.getUp(c!, { clip: 'Walk' }),
      130: () => p.getUp(b!),
    })
  },
  'Fox: motors with a held root, then limp, then strong; a snapshot restored mid-way': () => {
    const p = plugin()
    const [a, b] = foxes(p, 2)
    let saved: Uint8Array | null = null
    const first = scenario(p, 120, {
      10: () => p.ragdoll(a!, { motors: { strength: 1, holdRoot: true } }),
      20: () => p.ragdoll(b!, { motors: { strength: 0.5, joints: ['b_Spine01_02'] } }),
      50: () => {
        saved = p.snapshot()
        p.setRagdollMotors(a!, { strength: 0, holdRoot: false })
      },
      80: () => p.setRagdollMotors(b!, { strength: 4 }),
      100: () => p.hit(b!, 'b_Head_05', [0, 0, 3]),
    })
    p.restore(saved!)
    const second = scenario(p, 100, { 30: () => p.getUp(a!, { clip: 'Walk' }) })
    return `${first}/${second}`
  },
  'RobotExpressive: ragdoll, hit, getUp, motors, a partial ragdoll': () => {
    const p = plugin()
    const [a, b, c] = robots(p, 3)
    return scenario(p, 220, {
      15: () => p.ragdoll(a!, { impulse: { joint: 'Head', impulse: [0, 0, 20] } }),
      20: () => p.hit(b!, 'Palm1.L', [6, 0, 0], { recoverSeconds: 0.5 }),
      40: () => p.ragdoll(c!, { root: 'UpperArm.R', motors: { strength: 2 } }),
      70: () => p.hit(c!, 'LowerArm.R', [0, 4, 0]),
      90: () => p.setRagdollMotors(c!, { strength: 0 }),
      130: () => p.getUp(a!, { prone: 'Standing', supine: 'Idle' }),
      140: () => p.getUp(c!, { clip: 'Idle' }),
    })
  },
}

/** `behaviour:state` per scenario (see the header); the restore scenario's two halves separated by a slash. */
const EXPECTED: Record<string, string> = {
  'Fox: ragdoll with a hit, applyImpulse, getUp; a twin animating': '0324ac382f4a36c8:67cf4f67bf7a9a28',
  'Fox: hit reactions, a partial ragdoll grown whole, per-joint weights': 'e0bb93af336bc9ac:a005b1f700fee62f',
  'Fox: motors with a held root, then limp, then strong; a snapshot restored mid-way':
    'd8bbd376be98fb2e:bbc904716ddff266/a839283dfc3ccbe2:dee055664b1266cf',
  'RobotExpressive: ragdoll, hit, getUp, motors, a partial ragdoll': '1b6e2e8cab21e53a:189f360a9bff5fa0',
}

describe('ragdoll digests', () => {
  for (const [name, run] of Object.entries(SCENARIOS)) {
    it(name, () => {
      const got = run()
      if (process.env.RECORD_DIGESTS) console.log(`  ${JSON.stringify(name)}: '${got}',`)
      else expect(got).toBe(EXPECTED[name])
    })
  }
})
