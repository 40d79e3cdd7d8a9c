/**
 * The engine-specific measures of the hot path that can be switched off, in one place, so a benchmark can show
 * what each one still buys (`npm run bench -- --v8-measures`). They change speed only, never results: the same
 * inputs give the same bits with any setting. The measures that are the code's shape rather than a switch
 * (float scratch instead of call arguments, constants read into locals, one object literal per channel kind,
 * closures over one store's arrays) are listed in ARCHITECTURE.md.
 *
 * V8 compiles a function either as a whole, once it has been called often enough, or "on stack" (OSR) inside a
 * loop that ran long in the unoptimized tiers; a function left with only on-stack code then runs every call from
 * its unoptimized entry into the loop. The hot kernels meet crowds in long loops, so:
 * - primeSampler: the clip sampler is called a few thousand times on a small clip of every channel kind when the
 *   first sampling system is made (src/clip/sample.ts primeSampler), and that clip is kept alive (its squad
 *   holders keep a hidden class the optimized code checks);
 * - primeWriter: each scene graph's pose writer is called a few thousand times on two joints when it is made
 *   (systems/blendPoses.ts);
 * - chunkPropagation: world-matrix propagation runs in calls of PROPAGATION_CHUNK nodes rather than one loop
 *   over the whole graph (systems/propagateTransforms.ts).
 */
export interface V8Measures {
  primeSampler: boolean
  primeWriter: boolean
  chunkPropagation: boolean
}

export const V8_MEASURE_NAMES: readonly (keyof V8Measures)[] = [
  'primeSampler',
  'primeWriter',
  'chunkPropagation',
]

/** Nodes per propagation call while chunkPropagation is on. */
export const PROPAGATION_CHUNK = 1024

const measures: V8Measures = { primeSampler: true, primeWriter: true, chunkPropagation: true }

/** The measures in force: each is read when the system or writer it shapes is made. */
export function v8Measures(): Readonly<V8Measures> {
  return measures
}

/**
 * Switches measures on or off for systems made afterwards (all on by default). For benchmarks: call it before
 * the first plugin of the process is created (priming happens once per process).
 */
export function setV8Measures(changes: Partial<V8Measures>): void {
  for (const name of V8_MEASURE_NAMES) {
    const value = changes[name]
    if (value !== undefined) measures[name] = value
  }
}
