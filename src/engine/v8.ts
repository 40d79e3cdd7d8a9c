/**
 * src/engine/ holds the fast forms of the hot kernels, and this is where why they look the way they do is said,
 * once. Every kernel is written once plainly in src/ (src/clip/sample.ts, blendPoses.ts, layerBlend.ts,
 * src/skeleton/…): out first, arrays and offsets, scalar weights and times. That form is the reference and the
 * public one ('ecs-anim/kernels'); the systems call the twin here, which test/engine/ holds to it bit for bit.
 * The twins are shaped for V8 (Node, Chromium), measured on the benchmark's crowds:
 *
 * - No float crosses a call V8 may not inline. Arguments and results are tagged values: a double passed to or
 *   returned from a call that is not inlined is boxed (a heap number, 16 bytes), per call, so per channel or
 *   joint a crowd step allocates megabytes. Twins take a weight or a time as `(array, index)`
 *   (`CrossFade.blend, eid`), hand floats between their parts through a scratch array (sampleScratch.ts
 *   `reg`), write small functions out inline, and keep integers int32 (`| 0`: a uint32 past 2³¹ is a double).
 * - Module constants are read into locals, or written as literals: V8 reads a module-level binding from its
 *   context at every use, with a type check (an import also a dead-zone check), ~8 % of a sampling loop.
 * - Per-store kernels are closures over one store's arrays (the pose writer, the propagation pass): with one
 *   plugin in the process V8 specializes a closure to the arrays it closed over.
 * - Priming and chunks, the switches below: V8 compiles a function either as a whole, once it has been called
 *   often enough, or "on stack" (OSR) inside a loop that ran long in the unoptimized tiers; a function left with
 *   only on-stack code runs every later call from its unoptimized entry into the loop. The hot kernels meet
 *   crowds in long loops, so:
 *   - primeSampler: the clip sampler is called a few thousand times on a small clip of every channel kind when
 *     the first sampling system is made, and that clip is kept alive (its squad holders keep a hidden class
 *     the optimized code checks);
 *   - primeWriter: each scene graph's pose writer is called a few thousand times on two joints when it is made;
 *   - chunkPropagation: world-matrix propagation runs in calls of PROPAGATION_CHUNK nodes rather than one loop
 *     over the whole graph.
 *
 * The switches change speed only, never results (`npm run bench -- --v8-measures` shows what each still buys).
 */
import type { Clip } from '../clip/clip.ts'
import { buildClip, prepareSquad } from '../clip/clip.ts'
import { sampleClipChannels } from './sample.ts'
import { JOINT_STRIDE } from '../math/poseLayout.ts'
import type { SceneNodeStore } from '../skeleton/sceneNodes.ts'
import type { PoseWriter } from './poseWriter.ts'

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

const measures: V8Measures = {
  primeSampler: true,
  primeWriter: true,
  chunkPropagation: true,
}

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

/**
 * Gets the sampler compiled as a whole before a crowd runs it, once per process (later calls return at once;
 * sampleTracks calls it when created): a small clip of every channel kind sampled a few thousand times (short
 * loops, type feedback for every kind). No state is touched but a private scratch pose.
 */
export function primeSampler(): void {
  if (primeClip !== null || !measures.primeSampler) return
  const half = Math.SQRT1_2
  const clip = buildClip({
    name: 'prime',
    channels: [
      {
        node: 0,
        path: 'translation',
        interpolation: 'LINEAR',
        times: [0, 1, 2],
        values: [0, 0, 0, 1, 2, 3, 0, 1, 0],
      },
      {
        node: 0,
        path: 'rotation',
        interpolation: 'LINEAR',
        // Segments of every slerp path: short arc, equal keys (nlerp), long arc.
        times: [0, 0.5, 1, 1.5, 2],
        values: [0, 0, 0, 1, 0, 0.1, 0, 0.995, 0, 0.1, 0, 0.995, 0, half, 0, half, 0, 0.8, 0, 0.6],
      },
      {
        node: 0,
        path: 'scale',
        interpolation: 'STEP',
        times: [0, 1, 2],
        values: [1, 1, 1, 2, 2, 2, 1, 1, 1],
      },
      {
        node: 1,
        path: 'translation',
        interpolation: 'CUBICSPLINE',
        times: [0, 2],
        values: [0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0],
      },
      {
        node: 1,
        path: 'rotation',
        interpolation: 'CUBICSPLINE',
        times: [0, 2],
        values: [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0.1, 0, 0, 0, 0, 0, 0, 0, half, half, 0, 0, 0, 0],
      },
    ],
  })
  // Built here rather than by the loop's first squad call, so the sampler's build call stays cold (never run
  // while V8 profiles it, it is not compiled into the hot loop).
  prepareSquad(clip)
  primeClip = clip
  const pose = new Float32Array(20)
  const binding = Int32Array.of(0, 3, 7, 10, 13)
  const cursors = new Uint32Array(clip.channels.length)
  const time = new Float64Array(1)
  for (let i = 0; i < PRIME_CALLS; i++) {
    // Mostly small steps forward (playback), every 16th call a jump anywhere (a seek: the binary search), some
    // before the first key and after the last, and exactly on keys (every 0.05 s step from 0 lands on them).
    time[0] = (i & 15) === 15 ? ((i * 0.6180339887498949) % 1) * 2.6 - 0.3 : (i % 45) * 0.05
    sampleClipChannels(pose, 0, clip, binding, time, 0, cursors, 0, (i & 3) === 3)
  }
}
/**
 * The clip primeSampler sampled, kept for the process's life: its squad holders keep their hidden class alive.
 * The sampler's optimized squad path checks that class; were the last holder collected, V8 would throw the
 * sampler's optimized code away and the unoptimized sampler would box floats until optimized again.
 */
let primeClip: Clip | null = null
const PRIME_CALLS = 4000

/**
 * Gets a new writer compiled as a whole before a crowd runs it: a few thousand calls on two joints (short loops), through every path (changed, unchanged, a joint with NaN, entity 0, with
 * and without the `nonFinite` counter). The writes go to one entity slot, which is put back bit for bit.
 */
export function primeWriter(writer: PoseWriter, nodes: SceneNodeStore): void {
  if (!measures.primeWriter) return
  const e = nodes.dirty.length - 1
  const saved = {
    t: nodes.translation.slice(e * 3, e * 3 + 3),
    r: nodes.rotation.slice(e * 4, e * 4 + 4),
    s: nodes.scale.slice(e * 3, e * 3 + 3),
    dirty: nodes.dirty[e]!,
  }
  const pose = new Float32Array(2 * JOINT_STRIDE)
  const joints = Int32Array.of(0, e)
  const counter = new Uint32Array(1)
  for (let i = 0; i < PRIME_WRITES; i++) {
    // Joint 1 changes every other call (rotation, or every 4th also translation), holds still in between, and
    // is NaN every 16th; joint 0 (entity 0) is skipped.
    pose[JOINT_STRIDE + 3 + (i & 1)] = (i >> 1) & 1
    if ((i & 3) === 3) pose[JOINT_STRIDE] = i
    pose[JOINT_STRIDE + 9] = (i & 15) === 15 ? Number.NaN : 1
    writer(pose, joints, 0, 0, 2, (i & 1) === 0 ? counter : null)
  }
  nodes.translation.set(saved.t, e * 3)
  nodes.rotation.set(saved.r, e * 4)
  nodes.scale.set(saved.s, e * 3)
  nodes.dirty[e] = saved.dirty
}

const PRIME_WRITES = 3000
