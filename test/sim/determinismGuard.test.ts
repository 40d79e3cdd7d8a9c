import { readFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadAsset } from '../../src/gltf/load.ts'
import { simulateCrossEngine } from './crossEngine.ts'

/**
 * Determinism across engines, guarded at the source (issue 7). Math.sin, cos, acos, exp, pow (non-integer
 * exponent), atan2… differ in the last bit between Node 20's V8 and Chromium 156's (e2e/determinism.e2e.test.ts), and a
 * ragdoll amplifies a last-bit difference into a different fall (e2e/determinism.e2e.test.ts). So:
 * 1. the project's fixed-step sources — every file the step systems import, transitively — call no such
 *    function (the deterministic ones are in src/math/detmath.ts);
 * 2. cannon-es's own uses are audited: each is off the ragdoll step path, or replaced by the project (a new
 *    cannon-es version that adds one fails here until someone looks);
 * 3. at run time, the cross-engine scenario's 600 steps, ragdolls included, call none of them, bar the
 *    Math.pow(1, dt) that cannon-es's damping still evaluates on bodies whose cannon-es damping is 0.
 */

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..')

/** Math members that are exact, hence the same in every engine (IEEE 754 operations, rounding, constants). */
const EXACT = new Set([
  'abs',
  'ceil',
  'floor',
  'round',
  'trunc',
  'sign',
  'sqrt',
  'fround',
  'min',
  'max',
  'imul',
])
const CONSTANT = /^[A-Z][A-Z0-9_]*$/ // Math.PI, Math.SQRT1_2, …

/**
 * Every way `source` (comments blanked, line numbers kept) reaches an engine-dependent Math function, a pow
 * through `**` other than squaring (x ** 2 is x·x in every engine: fdlibm's pow returns x*x for y = 2, and
 * the cross-engine probe finds Math.pow(x, 2) identical), Math.random, or a clock. As `line: text`.
 */
function forbiddenUses(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/\/\/.*$/gm, '')
  const found: string[] = []
  code.split('\n').forEach((line, i) => {
    const at = (what: string) => found.push(`${i + 1}: ${what}`)
    for (const m of line.matchAll(/\bMath\s*\.\s*([A-Za-z0-9_$]+)/g))
      if (!EXACT.has(m[1]!) && !CONSTANT.test(m[1]!)) at(m[0])
    for (const m of line.matchAll(/\bMath\s*\[|[=(,]\s*Math\b(?!\s*\.)|\{[^}]*\}\s*=\s*Math\b/g)) at(m[0])
    for (const m of line.matchAll(/\*\*\s*(\S+)/g)) if (!/^2\b/.test(m[1]!)) at(m[0])
    for (const m of line.matchAll(/\bperformance\s*\.\s*now\b|\bDate\s*\.\s*now\b|\bnew\s+Date\b/g)) at(m[0])
  })
  return found
}

/**
 * The files one fixed step runs: the step systems, the ragdoll physics backend, the plugin's functions the plugin
 * passes to a system (evaluateGraphs' GraphPlayback), and every module they import, transitively (not types).
 */
function fixedStepFiles(): string[] {
  return importClosure(systemRoots())
}

/**
 * What makes data the step plays, outside it: the retarget baking (src/retarget/), whose clips' bits must be
 * the same on every engine as much as the step's.
 */
function bakingFiles(): string[] {
  return importClosure(
    ['bake', 'map', 'names', 'plan', 'pose', 'solve'].map((f) => resolve(ROOT, 'src/retarget', `${f}.ts`)),
  )
}

function systemRoots(): string[] {
  const systems = [
    'evaluateGraphs',
    'scheduleLod',
    'advanceTracks',
    'sampleTracks',
    'sampleMorphWeights',
    'extractRootMotion',
    'poseStages',
    'stepRagdolls',
    'blendPoses',
    'propagateTransforms',
  ]
  // The ragdoll physics the step calls through its RagdollPhysics (src/physics/api.ts), and what that imports.
  return [
    ...systems.map((s) => resolve(ROOT, 'systems', `${s}.ts`)),
    resolve(ROOT, 'src/physics/cannonBackend.ts'),
    resolve(ROOT, 'plugin/graphPlayback.ts'),
  ]
}

function importClosure(roots: string[]): string[] {
  const seen = new Set<string>()
  const stack = [...roots]
  while (stack.length > 0) {
    const file = stack.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const source = readFileSync(file, 'utf8')
    for (const m of source.matchAll(/^import\s+(?!type\b)[^'"]*?from\s+'(\.[^']+\.ts)'/gms))
      stack.push(resolve(dirname(file), m[1]!))
  }
  return [...seen].map((f) => relative(ROOT, f)).sort()
}

describe("the project's fixed-step sources", () => {
  it('call no engine-dependent Math function, no pow but squaring, no Math.random, no clock', () => {
    const files = fixedStepFiles()
    // The walk found the step (a renamed folder or a broken regex would make this test vacuous).
    for (const f of [
      'systems/stepRagdolls.ts',
      'systems/evaluateGraphs.ts',
      'plugin/playback.ts',
      'systems/rootMotion.ts',
      'src/math/rigid.ts',
      'src/engine/sample.ts',
      'src/engine/sampleCompact.ts',
      'src/math/quat.ts',
      'src/physics/joint.ts',
      'src/physics/damping.ts',
      'src/physics/ragdoll.ts',
      'src/physics/readback.ts',
      'src/physics/motors.ts',
      'src/physics/cannonPatches/solver.ts',
      'components/sceneNodeStore.ts',
      'systems/ik.ts',
      'systems/ikFeet.ts',
      'src/ik/twoBone.ts',
      'src/ik/aim.ts',
      'src/ik/chain.ts',
    ])
      expect(files).toContain(f)
    const found = files.flatMap((f) => {
      const uses = forbiddenUses(readFileSync(resolve(ROOT, f), 'utf8'))
      return uses.map((u) => `${f}:${u}`)
    })
    // Known exceptions, not step math: exact powers of two bounding sizes — SceneNode's capacity, and the option
    // and glTF limits the plugin's call files (reached through graphPlayback's imports) check at load.
    expect(found.map((f) => f.replace(/:\d+:/, ':'))).toEqual([
      'components/sceneNodeStore.ts: ** 24',
      'plugin/options.ts: ** 26',
      'src/gltf/limits.ts: ** 24',
      'src/gltf/limits.ts: ** 28',
      'src/gltf/limits.ts: ** 18',
      'src/gltf/limits.ts: ** 21',
    ])
  })

  it('nor does the retarget baking, whose clips the step plays', () => {
    const files = bakingFiles()
    for (const f of ['src/retarget/solve.ts', 'src/retarget/names.ts', 'src/clip/sample.ts'])
      expect(files).toContain(f)
    const found = files.flatMap((f) =>
      forbiddenUses(readFileSync(resolve(ROOT, f), 'utf8')).map((u) => `${f}:${u}`),
    )
    // Known, not math: the loader's limits (exact powers of two) that the rig's joint bound comes from.
    expect(found.map((f) => f.replace(/:\d+:/, ':'))).toEqual([
      'src/gltf/limits.ts: ** 24',
      'src/gltf/limits.ts: ** 28',
      'src/gltf/limits.ts: ** 18',
      'src/gltf/limits.ts: ** 21',
    ])
  })

  it('the check catches each way a transcendental, a pow, randomness or a clock could come in', () => {
    for (const line of [
      'const s = Math.sin(x)',
      'return Math.atan2 (y, x)',
      'const f = Math.exp; f(x)',
      'const l = Math.log1p(x)',
      "const c = Math['cos'](x)",
      'const { hypot } = Math',
      'call(Math)',
      'const p = x ** 0.5',
      'const q = Math.pow(x, 2)',
      'const r = Math.random()',
      'const t = performance.now()',
      'const d = Date.now()',
    ])
      expect(forbiddenUses(line), line).not.toEqual([])
    expect(
      forbiddenUses('// Math.sin\nconst r = Math.sqrt(Math.abs(x)) * Math.PI + y ** 2 /* Math.cos */'),
    ).toEqual([])
  })
})

describe("cannon-es 0.20's engine-dependent Math", () => {
  /**
   * Each use in dist/cannon-es.js as `Class.method Math.fn`, found by the same check, named by the nearest
   * class and method header above it (the dist keeps one class per `class X` line and 2-space methods);
   * `(module)` for top-level code.
   */
  function cannonUses(): string[] {
    const source = readFileSync(resolve(ROOT, 'node_modules/cannon-es/dist/cannon-es.js'), 'utf8')
    const lines = source.split('\n')
    const owner: string[] = []
    let cls = ''
    let method = ''
    for (const line of lines) {
      const c = /^class (\w+)/.exec(line)
      if (c) [cls, method] = [c[1]!, '']
      else if (/^[^\s}]/.test(line)) [cls, method] = ['(module)', '']
      const m = /^ {2}(?:static )?(\w+)\(.*\) \{$/.exec(line)
      if (m && !['if', 'for', 'while', 'switch', 'catch'].includes(m[1]!)) method = m[1]!
      owner.push(method ? `${cls}.${method}` : cls)
    }
    return forbiddenUses(source).map((u) => {
      const colon = u.indexOf(':')
      return `${owner[Number(u.slice(0, colon)) - 1]} ${u.slice(colon + 2)}`
    })
  }

  it('are all off the ragdoll step path, or replaced by the project', () => {
    const uses = [...new Set(cannonUses())].sort()
    expect(uses).toEqual(
      [
        // On the step path, replaced: RagdollJoint's ConeLimitEquation and TwistLimitEquation take the
        // cosine from detCos (src/physics/joint.ts); DampedRagdollBody keeps cannon-es's damping at 0, so
        // the pow is pow(1, dt) = 1, and damps with dampingScale (src/physics/damping.ts).
        'ConeEquation.computeB Math.cos',
        'RotationalEquation.computeB Math.cos',
        'World.internalStep Math.pow',
        // pow(r, 2) of the bounding-sphere test (squaring, exact everywhere); only NaiveBroadphase's
        // doBoundingSphereBroadphase uses it, and the plugin's RagdollBroadphase is a sweep and prune.
        'Broadphase.boundingSphereCheck Math.pow',
        // Setup and user API, never called by World.step for spheres, boxes and planes. setFromVectors
        // reaches setFromAxisAngle for opposite vectors, which spawnRagdoll's box shapes avoid.
        'Quaternion.setFromAxisAngle Math.sin',
        'Quaternion.setFromAxisAngle Math.cos',
        'Quaternion.toAxisAngle Math.acos',
        'Quaternion.toEuler Math.atan2',
        'Quaternion.toEuler Math.asin',
        'Quaternion.setFromEuler Math.cos',
        'Quaternion.setFromEuler Math.sin',
        'Quaternion.slerp Math.acos',
        'Quaternion.slerp Math.sin',
        'Sphere.volume Math.pow',
        'RigidVehicle.setSteeringValue Math.cos',
        'RigidVehicle.setSteeringValue Math.sin',
        'Cylinder.constructor Math.cos',
        'Cylinder.constructor Math.sin',
        'Trimesh.createTorus Math.cos',
        'Trimesh.createTorus Math.sin',
        // Clock reads: the accumulator forms step(dt, elapsed) and fixedStep(), which the plugin never calls
        // (they read the wall clock); profiling, only with doProfiling; the performance.now fallback for old engines.
        'World.step performance.now',
        'World.fixedStep performance.now',
        'World.internalStep performance.now',
        '(module) performance.now',
        '(module) Date.now',
        // SPH fluid kernels, not used.
        'SPHSystem.w ** 9)',
        'SPHSystem.w ** 3;',
        'SPHSystem.gradw ** 9)',
        'SPHSystem.nablaw ** 9)',
      ].sort(),
    )
  })
})

describe('at run time', () => {
  const SPIED = [
    'sin',
    'cos',
    'tan',
    'asin',
    'acos',
    'atan',
    'atan2',
    'sinh',
    'cosh',
    'tanh',
    'asinh',
    'acosh',
    'atanh',
    'exp',
    'expm1',
    'log',
    'log1p',
    'log2',
    'log10',
    'pow',
    'cbrt',
    'hypot',
    'random',
  ] as const

  /** Runs `fn` with every engine-dependent Math function recording its calls (`name(args)`); restores them. */
  function recordMath<T>(fn: () => T): { result: T; calls: Map<string, number> } {
    const math = Math as unknown as Record<string, (...args: number[]) => number>
    const originals = SPIED.map((name) => [name, math[name]!] as const)
    const calls = new Map<string, number>()
    for (const [name, f] of originals) {
      math[name] = (...args: number[]) => {
        const key = `${name}(${args.join(', ')})`
        calls.set(key, (calls.get(key) ?? 0) + 1)
        return f(...args)
      }
    }
    try {
      return { result: fn(), calls }
    } finally {
      for (const [name, f] of originals) math[name] = f
    }
  }

  it('the cross-engine scenario (6 Foxes, fades, squad, ragdolls whole, partial, powered and hit, get-ups, 600 steps) calls none of them', async () => {
    const fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    const { result, calls } = recordMath(() => simulateCrossEngine(fox, ''))
    // No problem report: its clips' loops and the two get-ups' choices are reported as events.
    expect(result.events.filter((e) => !/^step \d+ (loop|finished|marker|ragdoll-get-up):/.test(e))).toEqual(
      [],
    )
    expect(result.events.length).toBeGreaterThan(0)
    // cannon-es still evaluates pow(1 − damping, dt) for every dynamic body each step; with its damping at 0
    // that is pow(1, 1/60), exactly 1 in every engine (before the fix: pow(0.95, …), pow(0.9, …) and
    // cos(0.7), cos(0.35), cos(0.77), cos(0.44) every step).
    const pow1 = `pow(1, ${1 / 60})`
    expect([...calls.keys()]).toEqual([pow1])
    // 16 bodies × the steps each ragdoll lives: the recording saw the ragdolls step.
    expect(calls.get(pow1)).toBeGreaterThan(16 * 300)
  })

  it('the recording sees a transcendental called inside a step', () => {
    const { calls } = recordMath(() => [1, 2].map((x) => Math.cos(x) + Math.pow(x, 0.5)))
    expect([...calls.keys()]).toEqual(['cos(1)', 'pow(1, 0.5)', 'cos(2)', 'pow(2, 0.5)'])
  })
})
