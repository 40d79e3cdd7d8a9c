import { createWorld } from 'bitecs'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { loadAsset } from '../src/gltf/load.ts'
import { composeMatrix, multiplyMatrices } from '../src/math/transform.ts'
// The public entry, not systems/ directly: src/ reaches the ECS layer only through it.
import {
  ANIMATION_EVENT_KINDS,
  createAnimationPlugin,
  isClipEvent,
  isGraphEvent,
  type AnimationPlugin,
  type GetUpEvent,
  type ProblemEvent,
} from '../entry/index.ts'
import type { CliIO, Command } from './command.ts'
import {
  argumentError,
  COMPRESS_ARGS,
  COMPRESS_USAGE,
  compressOption,
  formatJson,
  parseCommandArgs,
  singleFile,
} from './command.ts'
import { table } from './inspect.ts'
import { findClip } from './sample.ts'
import {
  actionStep,
  needs,
  nodeIndex,
  parseCount,
  parseImpulse,
  parseNumber,
  parseSeconds,
} from './simulateArgs.ts'

/** Character i starts its clips `i · STAGGER_SECONDS` in, so the characters are not all in the same pose. */
const STAGGER_SECONDS = 0.1
/** Largest entity capacity a plugin accepts (SceneNode's MAX_SCENE_CAPACITY: ids live in 24 bits). */
const MAX_CAPACITY = 2 ** 24

/**
 * `anim simulate FILE ...`: the whole pipeline, headless: N characters of one asset in one bitecs world with the
 * plugin, K fixed steps, optional cross-fade, ragdoll hand-off (with a hit) and get-up at given times. Prints the
 * final state hash, so two runs with the same arguments can be compared, the wall time per step, the events by
 * kind, and how each character ends: ragdoll state, and how high its root joint and its highest joint are.
 */
export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'run N characters for K fixed steps headless; print the state hash, time per step, end state',
  usage: [
    'usage: anim simulate FILE [--clip NAME|INDEX] [--characters N] [--steps K] [--dt S]',
    '                          [--crossfade-to NAME|INDEX --at S [--duration S]]',
    '                          [--ragdoll-at S [--impulse JOINT:x,y,z]] [--getup-at S [--getup-clip NAME|INDEX]]',
    '                          [--scale X] [--json] [--compress [--tolerance T] [--distance D]]',
    '',
    'Runs N characters (default 1) of the file in one bitecs world with the animation plugin for K fixed steps',
    '(default 600) of S seconds (default 1/60; a number or a fraction A/B), then prints the state hash, the steps',
    'and the wall time per step, the events by kind, and for each character at the end its ragdoll state',
    '(off, falling, getting-up) and weight, and the world height (y) of its root joint and of its highest joint.',
    'The same arguments give the same hash, run after run.',
    '',
    '  --clip          the clip every character plays, repeating (default: the first clip). Character i starts',
    '                  it i·0.1 s in, so the characters differ.',
    '  --crossfade-to  cross-fades every character to this clip (also staggered) at --at S, over --duration S',
    '                  seconds (default 0.3).',
    '  --ragdoll-at    hands every character to the ragdoll at that time; --impulse hits each one at the joint',
    '                  (node name or index) with the world impulse x,y,z (N·s).',
    '  --getup-at      blends every character back from the ragdoll, cross-fading into --getup-clip if given.',
    '  --scale         uniform scale of every character root (default 1). Physics works in metres (gravity',
    '                  9.82 m/s², ground plane at y = 0): a file in centimetres, such as Fox, needs --scale 0.01.',
    '',
    'Characters stand on a square grid on the ground, 2 rest-pose radii apart. An action at time T happens before',
    'the first step that starts at or after T, and must fall within the run (0 ≤ T < K·S).',
    "The root joint is the skin's first joint with two or more child joints, where the generated ragdoll's root",
    "body is (Fox: b_Hip_01, the pelvis; the offsets above it, _rootJoint and b_Root_00, stay at the character's",
    'origin. RobotExpressive: Bone, at its feet). Without a branching joint it is the first joint, without a',
    'skin the first scene root. The highest joint is the highest skin joint (of any node, without a skin).',
    "Heights are world y in world units (the file's units times --scale).",
    '--json prints {"hash", "steps", "characters", "msPerStep", "events": [{"step", "character", "entity", "kind",',
    '"message"}], "eventsByKind": {KIND: count}, "final": [{"entity", "ragdoll", "ragdollWeight", "root": {"node",',
    '"name", "height"}, "highest": {"node", "name", "height"}}]} (events: what the step caught and handled, such',
    "as an exploded ragdoll; eventsByKind also counts the clips' loop, finished and marker events).",
    ...COMPRESS_USAGE,
  ].join('\n'),
  async run(args: string[], io: CliIO): Promise<void> {
    const { values, positionals } = parseCommandArgs('simulate', args, {
      ...COMPRESS_ARGS,
      clip: { type: 'string' },
      characters: { type: 'string', default: '1' },
      steps: { type: 'string', default: '600' },
      dt: { type: 'string', default: '1/60' },
      'crossfade-to': { type: 'string' },
      at: { type: 'string' },
      duration: { type: 'string' },
      'ragdoll-at': { type: 'string' },
      impulse: { type: 'string' },
      'getup-at': { type: 'string' },
      'getup-clip': { type: 'string' },
      scale: { type: 'string', default: '1' },
      json: { type: 'boolean' },
    })
    const file = singleFile('simulate', positionals)
    const characters = parseCount('--characters', values.characters)
    const steps = parseCount('--steps', values.steps)
    const dt = parseSeconds('--dt', values.dt)
    if (!(dt > 0)) throw argumentError(`simulate: --dt ${dt} s must be > 0`)
    const scale = parseNumber('--scale', values.scale)
    if (!(scale > 0)) throw argumentError(`simulate: --scale ${scale} must be > 0`)
    const stepAt = (option: string, text: string): number => actionStep(option, text, steps, dt)

    needs('--at', values.at, '--crossfade-to', values['crossfade-to'])
    needs('--duration', values.duration, '--crossfade-to', values['crossfade-to'])
    needs('--impulse', values.impulse, '--ragdoll-at', values['ragdoll-at'])
    needs('--getup-at', values['getup-at'], '--ragdoll-at', values['ragdoll-at'])
    needs('--getup-clip', values['getup-clip'], '--getup-at', values['getup-at'])
    if (values['crossfade-to'] !== undefined && values.at === undefined) {
      throw argumentError('simulate: --crossfade-to needs --at S (seconds into the run)')
    }
    const fadeStep = values.at === undefined ? -1 : stepAt('--at', values.at)
    const fadeSeconds = values.duration === undefined ? 0.3 : parseSeconds('--duration', values.duration)
    const ragdollStep = values['ragdoll-at'] === undefined ? -1 : stepAt('--ragdoll-at', values['ragdoll-at'])
    const getUpStep = values['getup-at'] === undefined ? -1 : stepAt('--getup-at', values['getup-at'])
    if (getUpStep >= 0 && getUpStep <= ragdollStep) {
      throw argumentError(
        `simulate: --getup-at ${values['getup-at']} s (step ${getUpStep}) must come after --ragdoll-at ` +
          `${values['ragdoll-at']} s (step ${ragdollStep})`,
      )
    }
    const hit = values.impulse === undefined ? null : parseImpulse(values.impulse)

    const asset = await loadAsset(file, { compress: compressOption('simulate', values) })
    if (asset.clips.length === 0) throw argumentError(`${asset.source} has no clips to play`)
    const clipIndex = (wanted: string | undefined): number | undefined =>
      wanted === undefined ? undefined : asset.clips.indexOf(findClip(asset, wanted))
    const plan: SimulationPlan = {
      characters,
      steps,
      dt,
      scale,
      clip: clipIndex(values.clip) ?? 0,
      crossFade:
        fadeStep < 0
          ? null
          : { step: fadeStep, clip: clipIndex(values['crossfade-to'])!, seconds: fadeSeconds },
      ragdoll:
        ragdollStep < 0
          ? null
          : { step: ragdollStep, hit: hit && { joint: nodeIndex(asset, hit.joint), impulse: hit.impulse } },
      getUp: getUpStep < 0 ? null : { step: getUpStep, clip: clipIndex(values['getup-clip']) },
    }
    const result = runSimulation(asset, plan)
    io.stdout(values.json ? formatJson(result) + '\n' : formatResult(asset, plan, result))
  },
}

/** What to run; clips and joints are indices into the asset, steps count from 0. */
export interface SimulationPlan {
  characters: number
  steps: number
  /** Seconds per fixed step. */
  dt: number
  /** Uniform scale of each character root. */
  scale: number
  clip: number
  crossFade: { step: number; clip: number; seconds: number } | null
  ragdoll: { step: number; hit: { joint: number; impulse: [number, number, number] } | null } | null
  getUp: { step: number; clip: number | undefined } | null
}

export interface SimulationResult {
  /** `plugin.hash()` after the last step. */
  hash: string
  steps: number
  characters: number
  /** Wall-clock milliseconds per step (the step loop only, actions included), from performance.now(). */
  msPerStep: number
  /** The problem reports (what the step caught and handled); clip events are only counted, in eventsByKind. */
  events: (ProblemEvent | GetUpEvent)[]
  /** How many events of each kind the run reported, clip events included; every kind is listed, 0 included. */
  eventsByKind: Record<EventKind, number>
  /** Each character after the last step, in the order they were added. */
  final: CharacterEnd[]
}

type EventKind = AnimationPlugin['events'][number]['kind']

export interface CharacterEnd {
  /** The character's root entity. */
  entity: number
  ragdoll: RagdollState
  /** ragdoll_weight in [0, 1]: how much of the pose comes from physics. */
  ragdollWeight: number
  /** World y of the root joint (see rootJoint) and of the highest joint, in world units. */
  root: NodeHeight
  highest: NodeHeight
}

export interface NodeHeight {
  node: number
  name: string
  height: number
}

type RagdollState = 'off' | 'falling' | 'getting-up'

/** Ragdoll.active values (components/Ragdoll.ts: RAGDOLL_OFF, RAGDOLL_FALLING, RAGDOLL_GETTING_UP). */
const RAGDOLL_STATES: readonly RagdollState[] = ['off', 'falling', 'getting-up']

/**
 * Runs the plan in a fresh world. Deterministic apart from msPerStep: the clock is read only around the loop,
 * never inside the simulation. Throws AnimationError when the plugin rejects a call (e.g. a joint outside the
 * scene), and for a run too large for one plugin.
 */
export function runSimulation(asset: AnimationAsset, plan: SimulationPlan): SimulationResult {
  // Every character is one entity per scene node plus its root; a character uses 5 pose slots per joint.
  const capacity = (asset.nodes.length + 1) * plan.characters + 1
  if (capacity > MAX_CAPACITY) {
    throw argumentError(
      `simulate: ${plan.characters} characters of ${asset.nodes.length + 1} entities each need ${capacity} entity ids; ` +
        `one plugin holds at most ${MAX_CAPACITY - 1}`,
    )
  }
  const plugin = createAnimationPlugin(createWorld(), {
    capacity: Math.max(capacity, 2),
    dt: plan.dt,
    maxPoseSlots: 5 * capacity,
  })
  const nodes = plugin.stores.SceneNode
  const columns = Math.ceil(Math.sqrt(plan.characters))
  const spacing = 2 * Math.max(restRadius(asset), 1e-3) * plan.scale
  const handle = plugin.addAsset(asset)
  const characters: number[] = []
  for (let i = 0; i < plan.characters; i++) {
    const eid = plugin.addCharacter(handle)
    nodes.translation[eid * 3] = (i % columns) * spacing
    nodes.translation[eid * 3 + 2] = Math.floor(i / columns) * spacing
    nodes.scale.fill(plan.scale, eid * 3, eid * 3 + 3)
    nodes.dirty[eid] = 1
    plugin.play(eid, plan.clip, { time: i * STAGGER_SECONDS })
    characters.push(eid)
  }
  const { crossFade, ragdoll, getUp } = plan
  const start = performance.now()
  for (let step = 0; step < plan.steps; step++) {
    if (step === crossFade?.step) {
      characters.forEach((eid, i) =>
        plugin.crossFade(eid, crossFade.clip, crossFade.seconds, { time: i * STAGGER_SECONDS }),
      )
    }
    if (step === ragdoll?.step) {
      for (const eid of characters) plugin.ragdoll(eid, ragdoll.hit ? { impulse: ragdoll.hit } : {})
    }
    if (step === getUp?.step) {
      for (const eid of characters) plugin.getUp(eid, getUp.clip === undefined ? {} : { clip: getUp.clip })
    }
    plugin.step()
  }
  const msPerStep = (performance.now() - start) / plan.steps
  const hash = plugin.hash()
  // Read after the hash and only read: the summary cannot change what the hash covers.
  const eventsByKind = Object.fromEntries(ANIMATION_EVENT_KINDS.map((k) => [k, 0])) as Record<
    EventKind,
    number
  >
  for (const event of plugin.events) eventsByKind[event.kind] += 1
  const problems = plugin.events.filter(
    (e): e is ProblemEvent | GetUpEvent => !isClipEvent(e) && !isGraphEvent(e),
  )
  const { scene, tracked } = heightNodes(asset)
  // Only scene nodes are entities; a skin outside the scene (a broken file, but loadable) falls back to a root.
  const root = scene.has(rootJoint(asset)) ? rootJoint(asset) : asset.roots[0]!
  const world = nodes.world
  const final = characters.map((eid): CharacterEnd => {
    // SceneNode.world: 16 floats per entity, column-major; y of the translation is element 13.
    const height = (node: number): NodeHeight => ({
      node,
      name: asset.nodes[node]!.name,
      height: world[plugin.jointEntity(eid, node) * 16 + 13]!,
    })
    let highest = height(tracked[0]!)
    for (const node of tracked.slice(1)) {
      const h = height(node)
      if (h.height > highest.height) highest = h
    }
    const active = plugin.stores.Ragdoll.active[eid]!
    const state = RAGDOLL_STATES[active]
    if (state === undefined) {
      throw new Error(`character ${eid}: Ragdoll.active is ${active}, not a state RAGDOLL_STATES knows`)
    }
    return {
      entity: eid,
      ragdoll: state,
      ragdollWeight: plugin.stores.Ragdoll.weight[eid]!,
      root: height(root),
      highest,
    }
  })
  const result = {
    hash,
    steps: plan.steps,
    characters: plan.characters,
    msPerStep,
    events: problems,
    eventsByKind,
    final,
  }
  plugin.dispose()
  return result
}

/**
 * The joint reported as the character's root: the first joint of skin 0 (parents first) with two or more child
 * joints, where the generated ragdoll's root body is (generateRagdollDescription gives the joints above it no
 * body). On Fox that is the pelvis, b_Hip_01, whose height tells standing from fallen; the skin root and the
 * character root above it stay at the character's origin whatever the pose. The skin's first joint when none
 * branches; without a skin, the first scene root.
 */
export function rootJoint(asset: AnimationAsset): number {
  const skeleton = asset.skeletons[0]
  if (!skeleton) return asset.roots[0]!
  const children = new Int32Array(skeleton.joints.length)
  for (const parent of skeleton.parents) if (parent >= 0) children[parent]!++
  const branching = children.findIndex((n) => n >= 2)
  return branching >= 0 ? skeleton.joints[branching]! : skeleton.joints[0]!
}

/**
 * The scene's nodes (those a character has entities for), and the ones the highest joint is looked for among:
 * every skin's joints in the scene, else every scene node; ascending, so a tie goes to the lowest index.
 */
function heightNodes(asset: AnimationAsset): { scene: Set<number>; tracked: number[] } {
  const scene = new Set<number>()
  const visit = (node: number): void => {
    scene.add(node)
    for (const child of asset.nodes[node]!.children) visit(child)
  }
  for (const root of asset.roots) visit(root)
  const joints = new Set(asset.skeletons.flatMap((skeleton) => [...skeleton.joints]))
  const inSkins = [...scene].filter((node) => joints.has(node))
  return { scene, tracked: (inSkins.length > 0 ? inSkins : [...scene]).sort((a, b) => a - b) }
}

/** Largest distance from the scene origin to a node origin in the rest pose, in the asset's units. */
function restRadius(asset: AnimationAsset): number {
  const world = new Float64Array(asset.nodes.length * 16)
  let radius = 0
  const visit = (node: number, parent: number): void => {
    const n = asset.nodes[node]!
    const o = node * 16
    composeMatrix(
      world,
      o,
      new Float64Array(n.translation),
      0,
      new Float64Array(n.rotation),
      0,
      new Float64Array(n.scale),
      0,
    )
    if (parent >= 0) multiplyMatrices(world, o, world, parent * 16, world, o)
    radius = Math.max(radius, Math.hypot(world[o + 12]!, world[o + 13]!, world[o + 14]!))
    for (const child of n.children) visit(child, node)
  }
  for (const root of asset.roots) visit(root, -1)
  return radius
}

function round(x: number): number {
  return Number(x.toPrecision(6))
}

function formatResult(asset: AnimationAsset, plan: SimulationPlan, result: SimulationResult): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`
  const byKind = Object.entries(result.eventsByKind)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ')
  const describeNode = (node: { node: number; name: string }): string => `${node.name} (node ${node.node})`
  const root = result.final[0]!.root
  const lines = [
    `${asset.source}: ${plural(plan.characters, 'character')} playing "${asset.clips[plan.clip]!.name}", ` +
      `${plural(plan.steps, 'step')} of ${round(plan.dt)} s (${round(plan.steps * plan.dt)} s)`,
    `hash    ${result.hash}`,
    `time    ${result.msPerStep.toFixed(3)} ms per step (${(result.msPerStep * plan.steps).toFixed(1)} ms in all)`,
    `events  ${byKind === '' ? 'none' : `${Object.values(result.eventsByKind).reduce((a, b) => a + b)}: ${byKind}`}`,
    ...result.events.map((e) => `  step ${e.step}, entity ${e.entity}: ${e.kind}: ${e.message}`),
    '',
    `at the end (y: world height in world units; root: ${describeNode(root)}):`,
    ...table(
      ['entity', 'ragdoll', 'weight', 'root y', 'highest', 'y'],
      result.final.map((c) => [
        String(c.entity),
        c.ragdoll,
        c.ragdollWeight.toFixed(3),
        c.root.height.toFixed(3),
        describeNode(c.highest),
        c.highest.height.toFixed(3),
      ]),
      [true, false, true, true, false, true],
    ),
  ]
  return lines.join('\n') + '\n'
}
