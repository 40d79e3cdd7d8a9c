/**
 * Random call sequences: from a seed (mulberry32), `count` public calls of a plugin holding the case's asset,
 * each argument either a value that makes sense (a character, a joint name, a clip, a duration) or any
 * JavaScript value (null, a Symbol, a BigInt, NaN, a Proxy whose traps throw, a getter that answers
 * differently each time it is read, an object of the wrong shape), with steps in between. Every failed call
 * must throw an AnimationError and change neither hash() nor snapshot(); no step throws; every world matrix
 * stays finite; and the snapshot of whatever state the sequence leaves restores into a fresh plugin, which then
 * steps on with the same hash. The sequence is a function of the seed and the asset, so a seed replays it.
 */
import { createWorld } from 'bitecs'
import { mulberry32 } from '../random.ts'
import {
  createAnimationPlugin,
  generateRagdollDescription,
  type AnimationAsset,
  type AnimationPlugin,
  type AssetHandle,
} from '../../entry/index.ts'
import { capacityFor, freshPlugin, Judge, type RunReport } from './pipeline.ts'

type Random = () => number

/** A value with the text that names it in a report. */
interface Value {
  v: unknown
  text: string
}

const throwing = (what: string): never => {
  throw new Error(`hostile ${what}`)
}
/** A Proxy every trap of which throws. */
const hostile = (): unknown =>
  new Proxy(
    {},
    {
      get: () => throwing('get'),
      has: () => throwing('has'),
      ownKeys: () => throwing('ownKeys'),
      getOwnPropertyDescriptor: () => throwing('descriptor'),
      getPrototypeOf: () => throwing('prototype'),
    },
  )
/** An object whose `key` is `first` on the first read and `then` on every later one (check, then use). */
function flaky(key: string, first: unknown, then: unknown): unknown {
  let reads = 0
  return {
    get [key]() {
      return reads++ === 0 ? first : then
    },
  }
}
/** An array-like whose elements change after they are read once. */
function flakyVector(): unknown {
  let reads = 0
  return new Proxy([1, 2, 3], {
    get(target, p, receiver) {
      if (p === '0' || p === '1' || p === '2') return reads++ < 3 ? 1 : NaN
      return Reflect.get(target, p, receiver)
    },
  })
}

/** Values that are wrong for nearly every argument. */
function oddValue(random: Random): Value {
  const odd: (() => Value)[] = [
    () => ({ v: undefined, text: 'undefined' }),
    () => ({ v: null, text: 'null' }),
    () => ({ v: NaN, text: 'NaN' }),
    () => ({ v: Infinity, text: 'Infinity' }),
    () => ({ v: -Infinity, text: '-Infinity' }),
    () => ({ v: -0, text: '-0' }),
    () => ({ v: -1, text: '-1' }),
    () => ({ v: 0.5, text: '0.5' }),
    () => ({ v: 2 ** 31, text: '2**31' }),
    () => ({ v: 2 ** 53 + 2, text: '2**53+2' }),
    () => ({ v: 1e308, text: '1e308' }),
    () => ({ v: -1e308, text: '-1e308' }),
    () => ({ v: 5e-324, text: '5e-324' }),
    () => ({ v: '', text: "''" }),
    () => ({ v: '0', text: "'0'" }),
    () => ({ v: 'x'.repeat(100000), text: "'x'×100000" }),
    () => ({ v: '__proto__', text: "'__proto__'" }),
    () => ({ v: 'constructor', text: "'constructor'" }),
    () => ({ v: Symbol('s'), text: 'Symbol()' }),
    () => ({ v: 10n, text: '10n' }),
    () => ({ v: true, text: 'true' }),
    () => ({ v: {}, text: '{}' }),
    () => ({ v: [], text: '[]' }),
    () => ({ v: [null], text: '[null]' }),
    () => ({ v: [NaN, 0, 0], text: '[NaN,0,0]' }),
    () => ({ v: [1e308, 1e308, 1e308], text: '[1e308,1e308,1e308]' }),
    () => ({ v: [1, 2], text: '[1,2]' }),
    // A sparse array 2^24 long (dictionary elements: a few bytes, not 128 MiB).
    () => ({ v: Object.assign([], { [2 ** 24]: 1 }), text: 'a sparse array of length 2**24+1' }),
    () => ({
      v: new Proxy([], {
        get: (t, p) => (p === 'length' ? 3 : p === '0' || p === '1' || p === '2' ? 1 : Reflect.get(t, p)),
      }),
      text: 'Proxy([]) claiming [1,1,1]',
    }),
    () => ({ v: { length: 3 }, text: '{length:3}' }),
    () => ({ v: new Float64Array([1, 2, 3]), text: 'Float64Array[1,2,3]' }),
    () => ({ v: new Uint8Array(64), text: 'Uint8Array(64)' }),
    () => ({ v: () => 0, text: '() => 0' }),
    () => ({ v: { valueOf: () => 3 }, text: '{valueOf}' }),
    () => ({ v: { toString: () => 'Walk' }, text: '{toString}' }),
    () => ({ v: Object.create(null), text: 'Object.create(null)' }),
    () => ({ v: hostile(), text: 'hostile Proxy' }),
    () => ({ v: new Proxy([], {}), text: 'Proxy([])' }),
    () => ({ v: new Date(0), text: 'Date' }),
    () => ({ v: /x/, text: '/x/' }),
    () => ({ v: new Map(), text: 'Map' }),
    () => ({ v: Promise.resolve(1), text: 'Promise' }),
  ]
  return odd[Math.floor(random() * odd.length)]!()
}

/** The state a sequence draws sensible values from. */
interface World {
  plugin: AnimationPlugin
  asset: AnimationAsset
  handle: AssetHandle | null
  characters: number[]
  snapshots: Uint8Array[]
}

/** A call: what it is called in the report, and how it runs. */
interface Call {
  text: string
  run: () => unknown
}

/** Draws one call. */
function drawCall(random: Random, w: World): Call {
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

export interface CallsReport extends RunReport {
  /** The calls as made, with what each did ('ok', or the AnimationError's kind). */
  log: string[]
  ok: number
  refused: number
}

/** Runs `count` random calls (steps not counted) on a fresh plugin holding the asset and one character. */
export function runCalls(asset: AnimationAsset, seed: number, count: number): CallsReport {
  const judge = new Judge()
  judge.stage = 'calls'
  const random = mulberry32(seed)
  const log: string[] = []
  let ok = 0
  let refused = 0
  // Room for a few characters; for a big rig one more (every call is observed: a snapshot per character).
  const options = { capacity: capacityFor(asset.nodes.length, asset.nodes.length > 1000 ? 2 : 4) }
  const made = judge.call(null, 'createAnimationPlugin', () => createAnimationPlugin(createWorld(), options))
  if (!made[0]) return { ...judge.report(), log, ok, refused }
  const plugin = made[1]
  const w: World = { plugin, asset, handle: null, characters: [], snapshots: [] }
  const added = judge.call(plugin, 'addCharacter(asset)', () => plugin.addCharacter(asset))
  if (added[0]) w.characters.push(added[1])
  for (let made = 0; made < count && judge.faults.length === 0;) {
    let call: Call
    try {
      call = drawCall(random, w)
    } catch (error) {
      // Drawing reads the plugin (snapshot()); a failure there is the plugin's, not the draw's.
      judge.fault('error', `preparing a call threw ${String(error)}`)
      break
    }
    if (call.text === 'step()') {
      judge.step(plugin, `step after ${log.length} calls`)
      log.push('step()')
      continue
    }
    made++
    const refusalsBefore = judge.refusals.length
    const [success] = judge.call(plugin, call.text, call.run)
    if (success) ok++
    else if (judge.refusals.length > refusalsBefore) refused++
    log.push(
      `${call.text} → ${success ? 'ok' : (judge.refusals[judge.refusals.length - 1]?.kind ?? 'FAULT')}`,
    )
  }
  // Steps after the last call: what the calls left must still step.
  for (let i = 0; i < 3 && judge.faults.length === 0; i++) judge.step(plugin, `final step ${i + 1}`)
  // And whatever state they left, the plugin's own snapshot of it restores: the same hash, stepping alike.
  if (added[0] && judge.faults.length === 0) restoresItself(judge, plugin, asset, options)
  return { ...judge.report(), log, ok, refused }
}

/**
 * Restores the plugin's snapshot into a fresh plugin holding the asset: refused, or a hash other than the
 * original's, after the restore or after either of two steps both take, is a `diverged` fault.
 */
function restoresItself(
  judge: Judge,
  plugin: AnimationPlugin,
  asset: AnimationAsset,
  options: { capacity: number },
): void {
  const taken = judge.call(plugin, 'snapshot() after the calls', () => plugin.snapshot())
  if (!taken[0]) return
  const copy = freshPlugin(judge, asset, options)
  if (!copy) return
  if (!judge.call(copy, 'restore(its snapshot)', () => copy.restore(taken[1]))[0]) {
    const last = judge.refusals[judge.refusals.length - 1]
    judge.fault('diverged', `a fresh plugin refused the snapshot the calls left: ${last?.message ?? '?'}`)
    return
  }
  for (let i = 0; i <= 2; i++) {
    if (i > 0 && !(judge.step(copy, `restored step ${i}`) && judge.step(plugin, `original step ${i}`))) return
    const [copied, original] = [judge.hash(copy), judge.hash(plugin)]
    if (copied !== original) {
      judge.fault('diverged', `${i} steps after the restore: hash ${copied}, the original ${original}`)
      return
    }
  }
}
