/**
 * Any JavaScript value a caller can pass to a public call gets an AnimationError or works; a failed call
 * changes nothing (hash() and snapshot() bytes equal before and after). Issue 13 #5 and #6.
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError } from '../../src/errors.ts'
import { makeTestAsset } from '../helpers/ecs.ts'

const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error('hostile getter')
    },
    has() {
      throw new Error('hostile has')
    },
    ownKeys() {
      throw new Error('hostile keys')
    },
  },
)

/** Values a JavaScript caller can pass where a number, string, object or array is expected. */
const WEIRD: readonly unknown[] = [
  undefined,
  null,
  0,
  -1,
  1.5,
  NaN,
  Infinity,
  -Infinity,
  2 ** 31,
  1e300,
  '',
  'x',
  '1',
  Symbol('s'),
  10n,
  true,
  {},
  [],
  [null],
  [1, 2],
  [NaN, 0, 0],
  { joint: Symbol('j'), impulse: [1, 2, 3] },
  { bodies: [null] },
  { bodies: [{ joint: Symbol('j') }] },
  () => 0,
  { valueOf: () => 3 },
  { toString: () => 'Walk' },
  hostile,
]

function expectAnimationErrorOrOk(call: () => unknown, label: string): boolean {
  try {
    call()
    return true
  } catch (error) {
    if (!(error instanceof AnimationError)) {
      throw new Error(`${label}: threw ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`)
    }
    return false
  }
}

/** A second asset, registered by setup (so calls that use it register nothing). */
const OTHER = makeTestAsset('other')

function setup() {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, { capacity: 256 })
  const asset = makeTestAsset()
  const handle = plugin.addAsset(asset)
  plugin.addAsset(OTHER)
  const a = plugin.addCharacter(handle)
  const b = plugin.addCharacter(handle)
  plugin.play(a, 0)
  plugin.play(b, 1)
  for (let i = 0; i < 3; i++) plugin.step()
  plugin.ragdoll(b)
  const c = plugin.addCharacter(handle)
  plugin.setGraph(c, GRAPH)
  plugin.step()
  return { world, plugin, asset, handle, a, b, c }
}

/** A graph (on character c) for the state machine calls. */
const GRAPH = {
  parameters: { speed: { type: 'float' }, on: { type: 'bool' }, go: { type: 'trigger' } },
  layers: [
    {
      name: 'base',
      entry: 'a',
      states: {
        a: { clip: 'Turn' },
        b: { blendSpace: { points: [{ clip: 'Nod', at: 0 }], parameter: 'speed' } },
      },
      transitions: [{ from: 'a', to: 'b', when: [['go']], duration: 0.1 }],
    },
  ],
} as const

type Call = (p: AnimationPlugin, v: unknown, ids: { a: number; b: number; c: number }) => unknown
const CALLS: Record<string, Call> = {
  'addAsset(v)': (p, v) => p.addAsset(v as never),
  'addMarker(v, 0, 0.5, "m")': (p, v) => p.addMarker(v as never, 0, 0.5, 'm'),
  'addMarker(handle, v, 0.5, "m")': (p, v) => p.addMarker(p.addAsset(OTHER), v as never, 0.5, 'm'),
  'addMarker(handle, 0, v, "m")': (p, v) => p.addMarker(p.addAsset(OTHER), 0, v as never, 'm'),
  'addMarker(handle, 0, 0.5, v)': (p, v) => p.addMarker(p.addAsset(OTHER), 0, 0.5, v as never),
  'markers(v, 0)': (p, v) => p.markers(v as never, 0),
  'markers(handle, v)': (p, v) => p.markers(p.addAsset(OTHER), v as never),
  'addClip(v, clip)': (p, v) => p.addClip(v as never, OTHER.clips[0]!),
  'addClip(handle, v)': (p, v) => p.addClip(p.addAsset(OTHER), v as never),
  'retarget(v, other)': (p, v) => p.retarget(v as never, p.addAsset(OTHER)),
  'retarget(other, v)': (p, v) => p.retarget(p.addAsset(OTHER), v as never),
  'retarget(other, other, v)': (p, v) => p.retarget(p.addAsset(OTHER), p.addAsset(OTHER), v as never),
  'retarget(other, other, { map: v })': (p, v) =>
    p.retarget(p.addAsset(OTHER), p.addAsset(OTHER), { map: v as never, prefix: 'm' }),
  'retarget(other, other, { clips: v })': (p, v) =>
    p.retarget(p.addAsset(OTHER), p.addAsset(OTHER), { clips: v as never, prefix: 'c' }),
  'retarget(other, other, { clips: [v] })': (p, v) =>
    p.retarget(p.addAsset(OTHER), p.addAsset(OTHER), { clips: [v as never], prefix: 'd' }),
  'retarget(other, other, { prefix: v })': (p, v) =>
    p.retarget(p.addAsset(OTHER), p.addAsset(OTHER), { prefix: v as never }),
  'retarget(other, other, { translation: v })': (p, v) =>
    p.retarget(p.addAsset(OTHER), p.addAsset(OTHER), { translation: v as never, prefix: 't' }),
  'retargetMap(v, other)': (p, v) => p.retargetMap(v as never, p.addAsset(OTHER)),
  'retargetMap(other, v)': (p, v) => p.retargetMap(p.addAsset(OTHER), v as never),
  'addCharacter(v)': (p, v) => p.addCharacter(v as never),
  'addCharacter(handle, v)': (p, v) => p.addCharacter(p.addAsset(OTHER), v as never),
  'addCharacter(handle, { parent: v })': (p, v, { a }) =>
    p.addCharacter(p.addAsset(OTHER), { parent: v as never }),
  'joints(v)': (p, v) => p.joints(v as never),
  'jointEntity(a, v)': (p, v, { a }) => p.jointEntity(a, v as never),
  'jointEntity(v, 0)': (p, v) => p.jointEntity(v as never, 0),
  'clipId(v, 0)': (p, v) => p.clipId(v as never, 0),
  'clipId(a, v)': (p, v, { a }) => p.clipId(a, v as never),
  'play(a, v)': (p, v, { a }) => p.play(a, v as never),
  'play(a, 0, v)': (p, v, { a }) => p.play(a, 0, v as never),
  'play(a, 0, { speed: v })': (p, v, { a }) => p.play(a, 0, { speed: v as never }),
  'play(a, 0, { loop: v })': (p, v, { a }) => p.play(a, 0, { loop: v as never }),
  'play(a, 0, { time: v })': (p, v, { a }) => p.play(a, 0, { time: v as never }),
  'play(a, 0, { rotation: v })': (p, v, { a }) => p.play(a, 0, { rotation: v as never }),
  'crossFade(a, 1, v)': (p, v, { a }) => p.crossFade(a, 1, v as never),
  'crossFade(a, v, 0.2)': (p, v, { a }) => p.crossFade(a, v as never, 0.2),
  'crossFade(a, 1, 0.2, v)': (p, v, { a }) => p.crossFade(a, 1, 0.2, v as never),
  'removeCharacter(v)': (p, v) => p.removeCharacter(v as never),
  'ragdoll(a, v)': (p, v, { a }) => p.ragdoll(a, v as never),
  'ragdoll(a, { description: v })': (p, v, { a }) => p.ragdoll(a, { description: v as never }),
  'ragdoll(a, { rate: v })': (p, v, { a }) => p.ragdoll(a, { rate: v as never }),
  'ragdoll(a, { impulse: v })': (p, v, { a }) => p.ragdoll(a, { impulse: v as never }),
  'ragdoll(a, { root: v })': (p, v, { a }) => p.ragdoll(a, { root: v as never }),
  'ragdoll(b, { root: v })': (p, v, { b }) => p.ragdoll(b, { root: v as never }),
  'applyImpulse(b, v, [1, 0, 0])': (p, v, { b }) => p.applyImpulse(b, v as never, [1, 0, 0]),
  'applyImpulse(b, 0, v)': (p, v, { b }) => p.applyImpulse(b, 0, v as never),
  'getUp(b, v)': (p, v, { b }) => p.getUp(b, v as never),
  'hit(a, v, [1, 0, 0])': (p, v, { a }) => p.hit(a, v as never, [1, 0, 0]),
  'hit(a, 0, v)': (p, v, { a }) => p.hit(a, 0, v as never),
  'hit(a, 0, [1, 0, 0], v)': (p, v, { a }) => p.hit(a, 0, [1, 0, 0], v as never),
  'hit(a, 0, [1, 0, 0], { recoverSeconds: v })': (p, v, { a }) =>
    p.hit(a, 0, [1, 0, 0], { recoverSeconds: v as never }),
  'hit(a, 0, [1, 0, 0], { root: v })': (p, v, { a }) => p.hit(a, 0, [1, 0, 0], { root: v as never }),
  'hit(b, v, [1, 0, 0])': (p, v, { b }) => p.hit(b, v as never, [1, 0, 0]),
  'setRagdollMotors(b, v)': (p, v, { b }) => p.setRagdollMotors(b, v as never),
  'setRagdollMotors(b, { strength: v })': (p, v, { b }) => p.setRagdollMotors(b, { strength: v as never }),
  'setRagdollMotors(b, { joints: v })': (p, v, { b }) => p.setRagdollMotors(b, { joints: v as never }),
  'setRagdollMotors(b, { holdRoot: v })': (p, v, { b }) => p.setRagdollMotors(b, { holdRoot: v as never }),
  'ragdoll(a, { motors: v })': (p, v, { a }) => p.ragdoll(a, { motors: v as never }),
  'setRagdollWeight(b, v)': (p, v, { b }) => p.setRagdollWeight(b, v as never),
  'setRagdollWeight(b, { weight: v })': (p, v, { b }) => p.setRagdollWeight(b, { weight: v as never }),
  'setRagdollWeight(b, { weight: 0.5, joints: v })': (p, v, { b }) =>
    p.setRagdollWeight(b, { weight: 0.5, joints: v as never }),
  'setRagdollWeight(a, { weight: 0.5 })': (p, v, { a }) => p.setRagdollWeight(a, { weight: 0.5 }),
  'getUp(b, { clip: v })': (p, v, { b }) => p.getUp(b, { clip: v as never }),
  'getUp(b, { fadeSeconds: v, clip: 0 })': (p, v, { b }) => p.getUp(b, { fadeSeconds: v as never, clip: 0 }),
  'getUp(b, { rate: v })': (p, v, { b }) => p.getUp(b, { rate: v as never }),
  'getUp(b, { clip: 0, play: v })': (p, v, { b }) => p.getUp(b, { clip: 0, play: v as never }),
  'getUp(b, { prone: v })': (p, v, { b }) => p.getUp(b, { prone: v as never }),
  'getUp(b, { supine: v, clip: 0 })': (p, v, { b }) => p.getUp(b, { supine: v as never, clip: 0 }),
  'setTransform(a, v)': (p, v, { a }) => p.setTransform(a, v as never),
  'setTransform(a, { position: v })': (p, v, { a }) => p.setTransform(a, { position: v as never }),
  'setTransform(a, { rotation: v })': (p, v, { a }) => p.setTransform(a, { rotation: v as never }),
  'getTransform(v)': (p, v) => p.getTransform(v as never),
  'setRootMotion(a, v)': (p, v, { a }) => p.setRootMotion(a, v as never),
  'setRootMotion(v, { mode: horizontal })': (p, v) => p.setRootMotion(v as never, { mode: 'horizontal' }),
  'setRootMotion(a, { mode: v })': (p, v, { a }) => p.setRootMotion(a, { mode: v as never }),
  'setRootMotion(a, { mode: full, joint: v })': (p, v, { a }) =>
    p.setRootMotion(a, { mode: 'full', joint: v as never }),
  'setRootMotion(a, { mode: horizontal, apply: v })': (p, v, { a }) =>
    p.setRootMotion(a, { mode: 'horizontal', apply: v as never }),
  'rootMotionDelta(v)': (p, v) => p.rootMotionDelta(v as never),
  'restore(v)': (p, v) => p.restore(v as never),
  'snapshotInto(v)': (p, v) => p.snapshotInto(v as never),
  'play(a, 0, { layer: v })': (p, v, { a }) => p.play(a, 0, { layer: v as never }),
  'crossFade(a, 1, 0.2, { layer: v })': (p, v, { a }) => p.crossFade(a, 1, 0.2, { layer: v as never }),
  'setLayer(a, v, {})': (p, v, { a }) => p.setLayer(a, v as never, {}),
  'setLayer(a, 1, v)': (p, v, { a }) => p.setLayer(a, 1, v as never),
  'setLayer(a, 1, { weight: v })': (p, v, { a }) => p.setLayer(a, 1, { weight: v as never }),
  'setLayer(a, 1, { mode: v })': (p, v, { a }) => p.setLayer(a, 1, { mode: v as never }),
  'setLayer(a, 1, { mask: v })': (p, v, { a }) => p.setLayer(a, 1, { mask: v as never }),
  'setLayer(a, 1, { mask: [v] })': (p, v, { a }) => p.setLayer(a, 1, { mask: [v as never] }),
  'setLayer(a, 1, { weight: 0.5, fadeSeconds: v })': (p, v, { a }) =>
    p.setLayer(a, 1, { weight: 0.5, fadeSeconds: v as never }),
  'setLayer(a, 1, { mode: additive, reference: v })': (p, v, { a }) =>
    p.setLayer(a, 1, { mode: 'additive', reference: v as never }),
  'stopLayer(a, v)': (p, v, { a }) => p.stopLayer(a, v as never),
  'stopLayer(a, 1, v)': (p, v, { a }) => p.stopLayer(a, 1, v as never),
  'playBlendSpace(a, v, { parameter: 0 })': (p, v, { a }) =>
    p.playBlendSpace(a, v as never, { parameter: 0 }),
  'playBlendSpace(a, points, v)': (p, v, { a }) =>
    p.playBlendSpace(
      a,
      [
        { clip: 0, at: 0 },
        { clip: 1, at: 1 },
      ],
      v as never,
    ),
  'playBlendSpace(a, points, { parameter: v })': (p, v, { a }) =>
    p.playBlendSpace(
      a,
      [
        { clip: 0, at: 0 },
        { clip: 1, at: 1 },
      ],
      { parameter: v as never },
    ),
  'playBlendSpace(a, [{ clip: v, at: 0 }], …)': (p, v, { a }) =>
    p.playBlendSpace(a, [{ clip: v as never, at: 0 }], { parameter: 0 }),
  'playBlendSpace(a, [{ clip: 0, at: v }], …)': (p, v, { a }) =>
    p.playBlendSpace(a, [{ clip: 0, at: v as never }], { parameter: 0 }),
  'playBlendSpace(a, points, { sync: v, layer: v })': (p, v, { a }) =>
    p.playBlendSpace(a, [{ clip: 0, at: 0 }], { parameter: 0, sync: v as never, layer: v as never }),
  'setBlendParameter(a, v)': (p, v, { a }) => p.setBlendParameter(a, v as never),
  'setSpeed(a, v)': (p, v, { a }) => p.setSpeed(a, v as never),
  'setSpeed(a, 1, v)': (p, v, { a }) => p.setSpeed(a, 1, v as never),
  'setTime(a, v)': (p, v, { a }) => p.setTime(a, v as never),
  'pause(a, v)': (p, v, { a }) => p.pause(a, v as never),
  'resume(v)': (p, v) => p.resume(v as never),
  'getLayer(a, v)': (p, v, { a }) => p.getLayer(a, v as never),
  'getLayers(v)': (p, v) => p.getLayers(v as never),
  'setMorphWeights(a, v, [0])': (p, v, { a }) => p.setMorphWeights(a, v as never, [0]),
  'setMorphWeights(a, 0, v)': (p, v, { a }) => p.setMorphWeights(a, 0, v as never),
  'getMorphWeights(a, v)': (p, v, { a }) => p.getMorphWeights(a, v as never),
  'morphWeights(v)': (p, v) => p.morphWeights(v as never),
  'setLod(v)': (p, v) => p.setLod(v as never),
  'setLod({ near: v, far: 10 })': (p, v) => p.setLod({ near: v as never, far: 10 }),
  'setLod({ near: 1, far: v })': (p, v) => p.setLod({ near: 1, far: v as never }),
  'setLod({ near: 1, far: 2, camera: v })': (p, v) => p.setLod({ near: 1, far: 2, camera: v as never }),
  'setLodCamera(v)': (p, v) => p.setLodCamera(v as never),
  'lodRate(v)': (p, v) => p.lodRate(v as never),
  'setTimeScale(v)': (p, v) => p.setTimeScale(v as never),
  'setGraph(v, graph)': (p, v) => p.setGraph(v as never, GRAPH),
  'setGraph(a, v)': (p, v, { a }) => p.setGraph(a, v as never),
  'setGraph(a, { layers: v })': (p, v, { a }) => p.setGraph(a, { layers: v as never }),
  'setGraph(a, { parameters: v, layers })': (p, v, { a }) =>
    p.setGraph(a, { ...GRAPH, parameters: v as never } as never),
  'setGraph(a, graph with state v)': (p, v, { a }) =>
    p.setGraph(a, { layers: [{ name: 'x', entry: 's', states: { s: v as never } }] }),
  'setGraph(a, graph with transition v)': (p, v, { a }) =>
    p.setGraph(a, { layers: [{ ...GRAPH.layers[0], transitions: [v as never] }] } as never),
  'setGraph(a, graph with condition v)': (p, v, { a }) =>
    p.setGraph(a, {
      ...GRAPH,
      layers: [{ ...GRAPH.layers[0], transitions: [{ from: 'a', to: 'b', when: [v] }] }],
    } as never),
  'setParameter(c, v, 1)': (p, v, { c }) => p.setParameter(c, v as never, 1),
  'setParameter(c, "speed", v)': (p, v, { c }) => p.setParameter(c, 'speed', v as never),
  'setParameter(c, "on", v)': (p, v, { c }) => p.setParameter(c, 'on', v as never),
  'setParameter(a, "speed", 1)': (p, v, { a }) => p.setParameter(a, 'speed', 1),
  'trigger(c, v)': (p, v, { c }) => p.trigger(c, v as never),
  'trigger(v, "go")': (p, v) => p.trigger(v as never, 'go'),
  'getState(c, v)': (p, v, { c }) => p.getState(c, v as never),
  'paletteLayout(v)': (p, v) => p.paletteLayout(v as never),
  'writePalette(v, a)': (p, v, { a }) => p.writePalette(v as never, a),
  'writePalette(out, v)': (p, v) => p.writePalette(new Float32Array(64), v as never),
  'writePalette(out, a, v)': (p, v, { a }) => p.writePalette(new Float32Array(64), a, v as never),
  'addPoseStage(v)': (p, v) => p.addPoseStage(v as never),
  'setIK(v, "x", two-bone)': (p, v) =>
    p.setIK(v as never, 'x', { kind: 'two-bone', joint: 'head', target: [0, 1, 0] }),
  'setIK(a, v, two-bone)': (p, v, { a }) =>
    p.setIK(a, v as never, { kind: 'two-bone', joint: 'head', target: [0, 1, 0] }),
  'setIK(a, "x", v)': (p, v, { a }) => p.setIK(a, 'x', v as never),
  'setIK(a, "x", { two-bone, joint: v })': (p, v, { a }) =>
    p.setIK(a, 'x', { kind: 'two-bone', joint: v as never, target: [0, 1, 0] }),
  'setIK(a, "x", { two-bone, target: v })': (p, v, { a }) =>
    p.setIK(a, 'x', { kind: 'two-bone', joint: 'head', target: v as never }),
  'setIK(a, "x", { two-bone, pole: v, weight: v })': (p, v, { a }) =>
    p.setIK(a, 'x', {
      kind: 'two-bone',
      joint: 'head',
      target: [0, 1, 0],
      pole: v as never,
      weight: v as never,
    }),
  'setIK(a, "x", { aim, axis: v })': (p, v, { a }) =>
    p.setIK(a, 'x', { kind: 'aim', joint: 'head', target: [0, 1, 0], axis: v as never }),
  'setIK(a, "x", { aim, limits: v, chain: v })': (p, v, { a }) =>
    p.setIK(a, 'x', {
      kind: 'aim',
      joint: 'head',
      target: [0, 1, 0],
      axis: [0, 0, 1],
      limits: v as never,
      chain: v as never,
    }),
  'setIK(a, "x", { chain, joints: v })': (p, v, { a }) =>
    p.setIK(a, 'x', { kind: 'chain', joints: v as never, target: [0, 1, 0] }),
  'setIK(a, "x", { chain, iterations: v, tolerance: v })': (p, v, { a }) =>
    p.setIK(a, 'x', {
      kind: 'chain',
      joints: ['hips', 'spine', 'head'],
      target: [0, 1, 0],
      iterations: v as never,
      tolerance: v as never,
    }),
  'setIK(a, "x", { feet, ground: v })': (p, v, { a }) =>
    p.setIK(a, 'x', { kind: 'feet', left: 'head', right: 'tail', ground: v as never }),
}

describe('public calls with any JavaScript value', () => {
  it('createAnimationPlugin refuses a non-world and bad options with AnimationError, before allocating', () => {
    for (const v of WEIRD) {
      expectAnimationErrorOrOk(
        () => createAnimationPlugin(v as never),
        `createAnimationPlugin(${String(typeof v)})`,
      )
      expectAnimationErrorOrOk(
        () => createAnimationPlugin(createWorld(), v as never),
        'createAnimationPlugin(world, v)',
      )
      for (const key of ['capacity', 'dt', 'maxPoseSlots', 'kernels', 'workers', 'physics']) {
        expectAnimationErrorOrOk(
          () => createAnimationPlugin(createWorld(), { [key]: v } as never),
          `createAnimationPlugin(world, { ${key} })`,
        )
      }
      for (const key of ['gravity', 'ground', 'world']) {
        expectAnimationErrorOrOk(
          () => createAnimationPlugin(createWorld(), { capacity: 64, physics: { [key]: v } } as never),
          `createAnimationPlugin(world, { physics: { ${key} } })`,
        )
      }
    }
    // Sizes that would allocate gigabytes are refused by the option check itself.
    for (const capacity of [2 ** 28, 2 ** 30, 1e15]) {
      expect(() => createAnimationPlugin(createWorld(), { capacity })).toThrow(AnimationError)
    }
    expect(() => createAnimationPlugin(createWorld(), { maxPoseSlots: 1e15 })).toThrow(AnimationError)
  })

  for (const [name, call] of Object.entries(CALLS)) {
    it(`${name}: AnimationError or success; a failure changes neither hash() nor snapshot()`, () => {
      const { plugin, a, b, c } = setup()
      for (const v of WEIRD) {
        const hash = plugin.hash()
        const bytes = plugin.snapshot()
        const ok = expectAnimationErrorOrOk(() => call(plugin, v, { a, b, c }), `${name} with ${typeof v}`)
        if (!ok) {
          expect(plugin.hash(), `${name}: hash after a failed call`).toBe(hash)
          expect(
            Buffer.from(plugin.snapshot()).equals(Buffer.from(bytes)),
            `${name}: snapshot after a failed call`,
          ).toBe(true)
        }
        // Whatever happened, the next step does not throw.
        plugin.step()
        if (!plugin.joints) throw new Error('unreachable')
        if (ok && name.startsWith('removeCharacter')) return
      }
    })
  }
})
