/**
 * One random public call of a sequence (calls.ts): which call, by weight, and its arguments, each either a
 * value that makes sense (a character, a joint name, a clip, a duration) or, now and then, any JavaScript value
 * (values.ts). Draws only from `random`, so a seed replays the sequence.
 */
import {
  generateRagdollDescription,
  type AnimationAsset,
  type AnimationPlugin,
  type AssetHandle,
} from '../../entry/index.ts'
import { flaky, flakyVector, oddValue, type Random, type Value } from './values.ts'

/** The state a sequence draws sensible values from. */
export interface World {
  plugin: AnimationPlugin
  asset: AnimationAsset
  handle: AssetHandle | null
  characters: number[]
  snapshots: Uint8Array[]
}

/** A call: what it is called in the report, and how it runs. */
export interface Call {
  text: string
  run: () => unknown
}

/** Draws one call. */
export function drawCall(random: Random, w: World): Call {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  const chance = (p: number): boolean => random() < p
  const { plugin, asset } = w
  const show = (x: unknown): string =>
    typeof x === 'string' ? JSON.stringify(x.length > 20 ? `${x.slice(0, 17)}...` : x) : String(x)
  const sensible = (make: () => unknown): Value => {
    const v = make()
    return { v, text: show(v) }
  }
  /** A sensible value most of the time, an odd one otherwise. */
  const arg = (make: () => unknown, odd = 0.2): Value => (chance(odd) ? oddValue(random) : sensible(make))
  const character = (): Value =>
    arg(() =>
      w.characters.length > 0 && chance(0.85)
        ? pick(w.characters)
        : pick([0, 1, 2, 3, plugin.stores.SceneNode.world.length / 16, (w.characters[0] ?? 1) + 1]),
    )
  const clips = asset.clips
  const clip = (): Value =>
    arg(() =>
      clips.length === 0
        ? pick([0, 'Walk'])
        : chance(0.5)
          ? Math.floor(random() * (clips.length + 1))
          : chance(0.8)
            ? pick(clips).name
            : 'no such clip',
    )
  const node = (): Value =>
    arg(() =>
      chance(0.5)
        ? Math.floor(random() * (asset.nodes.length + 1))
        : chance(0.9) && asset.nodes.length > 0
          ? pick(asset.nodes).name
          : 'no such node',
    )
  const seconds = (): Value => arg(() => pick([0, 0.1, 0.2, 0.5, 1, 3, 1e-9, 1e9, 1e300]))
  const vector = (): Value =>
    chance(0.1)
      ? { v: flakyVector(), text: 'flaky vector' }
      : arg(() => [random() * 10 - 5, random() * 10, random() * 10 - 5].map((x) => Math.round(x * 100) / 100))
  const playOptions = (): Value => {
    if (chance(0.4)) return { v: undefined, text: 'undefined' }
    if (chance(0.1)) return { v: flaky('speed', 1, NaN), text: '{speed: 1 then NaN}' }
    if (chance(0.2)) return oddValue(random)
    const o: Record<string, unknown> = {}
    const parts: string[] = []
    const field = (name: string, v: Value): void => {
      o[name] = v.v
      parts.push(`${name}: ${v.text}`)
    }
    if (chance(0.5))
      field(
        'speed',
        arg(() => pick([1, 0, -1, 2, 0.5, 1e6])),
      )
    if (chance(0.5))
      field(
        'loop',
        arg(() => pick(['once', 'repeat', 'pingpong', 'bounce'])),
      )
    if (chance(0.4))
      field(
        'time',
        arg(() => pick([0, 0.3, -2, 100, 1e12])),
      )
    if (chance(0.3))
      field(
        'rotation',
        arg(() => pick(['slerp', 'squad', 'nlerp'])),
      )
    return { v: o, text: `{${parts.join(', ')}}` }
  }
  const ragdollOptions = (): Value => {
    if (chance(0.35)) return { v: undefined, text: 'undefined' }
    if (chance(0.15)) return oddValue(random)
    if (chance(0.08)) return { v: flaky('rate', 5, -1), text: '{rate: 5 then -1}' }
    const o: Record<string, unknown> = {}
    const parts: string[] = []
    if (chance(0.4)) {
      const rate = arg(() => pick([5, 1, 100, 1e-6, 0]))
      o['rate'] = rate.v
      parts.push(`rate: ${rate.text}`)
    }
    if (chance(0.5)) {
      const j = node()
      const v = vector()
      o['impulse'] = chance(0.1) ? oddValue(random).v : { joint: j.v, impulse: v.v }
      parts.push(`impulse: {joint: ${j.text}, impulse: ${v.text}}`)
    }
    if (chance(0.3)) {
      let description: unknown
      let text: string
      try {
        const generated = generateRagdollDescription(asset)
        const bodies = generated.bodies.map((b) => ({ ...b }))
        const b = bodies[Math.floor(random() * bodies.length)]
        // A generated description, sometimes with one body field made odd.
        if (b && chance(0.6)) {
          const key = pick([
            'mass',
            'radius',
            'length',
            'coneAngle',
            'twistAngle',
            'joint',
            'shape',
            'axis',
          ] as const)
          const odd = oddValue(random)
          ;(b as Record<string, unknown>)[key] = odd.v
          text = `generated, a body's ${key} = ${odd.text}`
        } else text = 'generated'
        description = { bodies }
      } catch {
        description = { bodies: [{ joint: asset.nodes[0]?.name ?? 'x', shape: 'box' }] }
        text = '{bodies: [a box at node 0]}'
      }
      o['description'] = description
      parts.push(`description: ${text}`)
    }
    return { v: o, text: `{${parts.join(', ')}}` }
  }

  const calls: [number, () => Call][] = [
    [8, () => ({ text: 'step()', run: () => plugin.step() })],
    [
      3,
      () => {
        const a = chance(0.15) ? oddValue(random) : { v: w.handle ?? asset, text: 'the handle' }
        const o = chance(0.7)
          ? { v: undefined, text: 'undefined' }
          : chance(0.5)
            ? { v: { parent: character().v }, text: '{parent: …}' }
            : oddValue(random)
        return {
          text: `addCharacter(${a.text}, ${o.text})`,
          run: () => {
            const c = plugin.addCharacter(a.v as never, o.v as never)
            w.characters.push(c)
            return c
          },
        }
      },
    ],
    [
      1,
      () => {
        const a = chance(0.6) ? { v: asset, text: 'the asset' } : oddValue(random)
        return { text: `addAsset(${a.text})`, run: () => (w.handle = plugin.addAsset(a.v as never)) }
      },
    ],
    [
      5,
      () => {
        const [c, k, o] = [character(), clip(), playOptions()]
        return {
          text: `play(${c.text}, ${k.text}, ${o.text})`,
          run: () => plugin.play(c.v as never, k.v as never, o.v as never),
        }
      },
    ],
    [
      5,
      () => {
        const [c, k, d, o] = [character(), clip(), seconds(), playOptions()]
        return {
          text: `crossFade(${c.text}, ${k.text}, ${d.text}, ${o.text})`,
          run: () => plugin.crossFade(c.v as never, k.v as never, d.v as never, o.v as never),
        }
      },
    ],
    [
      4,
      () => {
        const [c, o] = [character(), ragdollOptions()]
        return {
          text: `ragdoll(${c.text}, ${o.text})`,
          run: () => plugin.ragdoll(c.v as never, o.v as never),
        }
      },
    ],
    [
      3,
      () => {
        const [c, j, v] = [character(), node(), vector()]
        return {
          text: `applyImpulse(${c.text}, ${j.text}, ${v.text})`,
          run: () => plugin.applyImpulse(c.v as never, j.v as never, v.v as never),
        }
      },
    ],
    [
      3,
      () => {
        const c = character()
        const o: Value = chance(0.4)
          ? { v: undefined, text: 'undefined' }
          : chance(0.2)
            ? oddValue(random)
            : (() => {
                const [k, f, r] = [clip(), seconds(), arg(() => pick([5, 2, 0.5]))]
                return {
                  v: { clip: k.v, fadeSeconds: f.v, rate: r.v, play: playOptions().v },
                  text: `{clip: ${k.text}, fadeSeconds: ${f.text}, rate: ${r.text}, play: …}`,
                }
              })()
        return { text: `getUp(${c.text}, ${o.text})`, run: () => plugin.getUp(c.v as never, o.v as never) }
      },
    ],
    [
      1,
      () => {
        const c = character()
        return {
          text: `removeCharacter(${c.text})`,
          run: () => {
            plugin.removeCharacter(c.v as never)
            w.characters = w.characters.filter((x) => x !== c.v)
          },
        }
      },
    ],
    [
      2,
      () => {
        const [c, j] = [character(), node()]
        return {
          text: `jointEntity(${c.text}, ${j.text})`,
          run: () => plugin.jointEntity(c.v as never, j.v as never),
        }
      },
    ],
    [
      1,
      () => {
        const c = character()
        return { text: `joints(${c.text})`, run: () => plugin.joints(c.v as never) }
      },
    ],
    [
      2,
      () => {
        const owner = chance(0.3) && w.handle ? { v: w.handle, text: 'the handle' } : character()
        const k = clip()
        return {
          text: `clipId(${owner.text}, ${k.text})`,
          run: () => plugin.clipId(owner.v as never, k.v as never),
        }
      },
    ],
    [
      2,
      () => {
        // The bytes are its own snapshot (a restore in place changes nothing), an older one (it rewinds), or not
        // a snapshot (refused).
        const s: Value =
          w.snapshots.length > 0 && chance(0.6)
            ? { v: pick(w.snapshots), text: 'an earlier snapshot' }
            : chance(0.3)
              ? { v: plugin.snapshot(), text: 'its own snapshot' }
              : oddValue(random)
        return { text: `restore(${s.text})`, run: () => plugin.restore(s.v as never) }
      },
    ],
    [
      2,
      () => {
        const c = character()
        const o: Value = chance(0.2)
          ? oddValue(random)
          : (() => {
              const t: Record<string, unknown> = {}
              const parts: string[] = []
              const field = (name: string, v: Value): void => {
                t[name] = v.v
                parts.push(`${name}: ${v.text}`)
              }
              if (chance(0.6)) field('position', vector())
              if (chance(0.3))
                field(
                  'rotation',
                  arg(() =>
                    pick([
                      [0, 0, 0, 1],
                      [0, 1, 0, 1],
                      [0, 0, 0, 0],
                    ]),
                  ),
                )
              if (chance(0.4))
                field(
                  'scale',
                  arg(() =>
                    pick([
                      [1, 1, 1],
                      [0.01, 0.01, 0.01],
                      [-1, 1, 1],
                      [1e20, 1e20, 1e20],
                      [1e-50, 1, 1],
                    ]),
                  ),
                )
              return { v: t, text: `{${parts.join(', ')}}` }
            })()
        return {
          text: `setTransform(${c.text}, ${o.text})`,
          run: () => plugin.setTransform(c.v as never, o.v as never),
        }
      },
    ],
    [
      1,
      () => {
        const c = character()
        return { text: `getTransform(${c.text})`, run: () => plugin.getTransform(c.v as never) }
      },
    ],
    [
      1,
      () => ({
        text: 'snapshot()',
        run: () => {
          const s = plugin.snapshot()
          if (w.snapshots.length < 4) w.snapshots.push(s)
          return s
        },
      }),
    ],
  ]
  let total = 0
  for (const [weight] of calls) total += weight
  let roll = random() * total
  for (const [weight, make] of calls) {
    roll -= weight
    if (roll < 0) return make()
  }
  return calls[0]![1]()
}
