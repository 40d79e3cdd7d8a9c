/**
 * Babylon.js's side of the benchmark (`--peers babylon`), as a Babylon.js game animates the crowd: a NullEngine
 * scene (no GPU, no DOM), the file read by @babylonjs/loaders' glTF loader into an AssetContainer, and per
 * character `instantiateModelsToScene` (its own nodes and its own clones of the file's AnimationGroups). A step
 * is the scene's animation pass, `scene._animate(dt)` (what `scene.render()` runs first; the name is internal, but
 * it is the call Babylon's own deterministic lock-step makes with its fixed step), then every node's world
 * matrix (`computeWorldMatrix`, which recomputes only what changed since the last render id).
 *
 * The scene is right-handed, so the loader's `__root__` node adds no handedness flip and world matrices compare
 * with the project's as they are. Babylon samples a glTF clip in frames at 60 per second and slerps LINEAR
 * rotations between keys, as the project does; weighted groups blend by slerp at the normalized weight (two
 * groups) or by a chain of slerps (more), additive groups as slerp(pose, pose·delta, weight).
 *
 * Each crowd kind, per character:
 *   playing/moving/idle: clip A's group looping from its phase (paused: pause() after goToFrame, since a speed
 *     ratio of 0 drops the jump; finished: played once from its end). A fading character also plays clip B's group from its phase, and the bench sets both
 *     groups' weights every step, 1 − m·dt/D and m·dt/D after m steps (Babylon has no weight fade of its own;
 *     a game ramps `weight` itself);
 *   layered: not compared. Built as three.ts builds it (clip A's group with an AnimationGroupMask excluding the
 *     upper body at weight 1, clip A's again including it at 1 − w, clip B's including it at w, clip C's made
 *     additive by `AnimationGroup.MakeAnimationAdditive`, reference frame 0, at its weight), the masked
 *     override alone agrees with the project to 1e-6, but the additive layer does not (world error ~1 on the
 *     rig, growing with its weight; its delta keys are right), for a reason not found yet: `--peers` skips it;
 *   blend-space: each point's group at the point's weight with the speed ratio durationₚ / cycle (three.ts);
 *     a point at weight 0 is not started (started at 0, its first step leaves the node at a wrong pose);
 *   lod: not expressed. Babylon advances every animatable on the scene's one clock; updating a character every
 *     2nd or 4th step means driving each of its groups by hand (goToFrame), which is no longer Babylon's
 *     animation pass.
 */
import type * as BabylonCore from '@babylonjs/core'
import type { AnimationGroup, Scene, TransformNode } from '@babylonjs/core'
import type { CrowdPlan } from './crowd.ts'
import type { Peer, PeerCrowd } from './peers.ts'

type Babylon = typeof BabylonCore

let loaded: Promise<Babylon> | null = null

/** @babylonjs/core with the glTF loader registered, and its console output off (stdout carries the result). */
function babylon(): Promise<Babylon> {
  loaded ??= (async () => {
    const core = await import('@babylonjs/core')
    await import('@babylonjs/loaders/glTF/2.0/index.js')
    core.Logger.LogLevels = core.Logger.ErrorLogLevel
    return core
  })()
  return loaded
}

export const babylonPeer: Peer = {
  name: 'babylon',
  unsupported: (kind) =>
    kind === 'lod'
      ? "Babylon advances every animation group on the scene's one clock; a per-character update rate is not part of its animation pass"
      : kind === 'layered'
        ? 'its additive AnimationGroup does not agree with the project (see babylon.ts), so it is not timed'
        : null,
  create: createBabylonCrowd,
}

/** glTF node index of a node the loader made, from the pointer it records ('/nodes/N'). */
function gltfNodeIndex(node: TransformNode): number {
  const pointers = (node as unknown as { _internalMetadata?: { gltf?: { pointers?: string[] } } })
    ._internalMetadata?.gltf?.pointers
  const match = /^\/nodes\/(\d+)$/.exec(pointers?.[0] ?? '')
  return match ? Number(match[1]) : -1
}

export async function createBabylonCrowd(plan: CrowdPlan, file: Uint8Array): Promise<PeerCrowd> {
  const B = await babylon()
  if (plan.lod !== null) throw new Error(`babylon: ${babylonPeer.unsupported('lod')}`)
  const engine = new B.NullEngine()
  const scene = new B.Scene(engine)
  scene.useRightHandedSystem = true
  // No group started by the loader (its default starts the first clip's on the container's own nodes).
  const container = await B.LoadAssetContainerAsync(file, scene, {
    pluginExtension: '.glb',
    pluginOptions: { gltf: { animationStartMode: 0 } },
  })
  // Nodes named by glTF node index, as three.ts names its objects: the clones keep the names, and masks use them.
  for (const node of container.transformNodes) {
    const index = gltfNodeIndex(node)
    if (index >= 0) node.name = `n${index}`
  }
  const { asset, dt, layered, blend } = plan
  const groupNames = container.animationGroups.map((g) => g.name)
  const clipNames = asset.clips.map((c) => c.name)
  if (groupNames.join('\n') !== clipNames.join('\n'))
    throw new Error(
      `babylon: the file's animation groups ${groupNames.join(', ')} are not the clips ${clipNames.join(', ')}`,
    )
  if (layered !== null)
    B.AnimationGroup.MakeAnimationAdditive(container.animationGroups[layered.additiveClip]!, {
      referenceFrame: 0,
    })
  const upperBody =
    layered === null ? [] : asset.nodes.filter((n) => layered.inMask[n.index]).map((n) => `n${n.index}`)

  const fps = container.animationGroups[0]!.targetedAnimations[0]!.animation.framePerSecond
  const frame = (seconds: number): number => seconds * fps
  const count = plan.roles.length
  const nodes: TransformNode[][] = []
  const allNodes: TransformNode[] = []
  /** The fading characters' groups, A then B, whose weights the bench ramps. */
  const fades: AnimationGroup[] = []
  const duration = (clip: number): number => asset.clips[clip]!.duration

  for (let i = 0; i < count; i++) {
    const entries = container.instantiateModelsToScene((name) => name, false, { doNotInstantiate: true })
    const byIndex: TransformNode[] = []
    for (const root of entries.rootNodes) {
      for (const node of [root, ...root.getDescendants(false)]) {
        const match = /^n(\d+)$/.exec(node.name)
        if (match) byIndex[Number(match[1])] = node as TransformNode
      }
    }
    nodes.push(byIndex)
    for (const n of asset.nodes) if (byIndex[n.index]) allNodes.push(byIndex[n.index]!)
    const groups = entries.animationGroups
    // A clip's group, looping over the whole clip from time t: Babylon's first step after start() samples the
    // frame goToFrame set, without advancing (so clip A starts at phase + dt, as the project shows it then).
    const start = (clip: number, t: number, weight: number, speed = 1): AnimationGroup => {
      const g = groups[clip]!
      g.weight = weight
      g.start(true, speed, 0, frame(duration(clip)))
      g.goToFrame(frame(t))
      return g
    }
    if (blend !== null) {
      const m = blend.clips.length
      for (let p = 0; p < m; p++) {
        if (!(blend.weights[i * m + p]! > 0)) continue
        const d = duration(blend.clips[p]!)
        start(
          blend.clips[p]!,
          (blend.phase[i]! + dt / blend.cycle[i]!) * d,
          blend.weights[i * m + p]!,
          d / blend.cycle[i]!,
        )
      }
      continue
    }
    if (layered !== null) {
      const mask = (include: boolean) =>
        new B.AnimationGroupMask(
          upperBody,
          include ? B.AnimationGroupMaskMode.Include : B.AnimationGroupMaskMode.Exclude,
        )
      const outside = start(plan.clipA, plan.phaseA[i]! + dt, 1)
      outside.mask = mask(false)
      const inside = groups[plan.clipA]!.clone(`inside${i}`, undefined, false)
      const w = layered.overrideWeight
      inside.mask = mask(true)
      inside.weight = 1 - w
      inside.start(true, 1, 0, frame(duration(plan.clipA)))
      inside.goToFrame(frame(plan.phaseA[i]! + dt))
      start(layered.overrideClip, layered.phaseOverride[i]! + dt, w).mask = mask(true)
      start(layered.additiveClip, layered.phaseAdditive[i]! + dt, layered.additiveWeight)
      continue
    }
    const role = plan.roles[i]!
    if (role === 'finished') {
      const g = groups[plan.clipA]!
      g.start(false, 1, frame(duration(plan.clipA)), frame(duration(plan.clipA)))
    } else if (role === 'paused') start(plan.clipA, plan.phaseA[i]!, -1).pause()
    else if (role === 'play') start(plan.clipA, plan.phaseA[i]! + dt, -1)
    else fades.push(start(plan.clipA, plan.phaseA[i]! + dt, 1), start(plan.clipB, plan.phaseB[i]!, 0))
  }

  let fadeSteps = 0
  const step = (force = false): void => {
    fadeSteps++
    const x = Math.min(1, (fadeSteps * dt) / plan.fadeSeconds)
    for (let k = 0; k < fades.length; k += 2) {
      fades[k]!.weight = 1 - x
      fades[k + 1]!.weight = x
    }
    scene.incrementRenderId()
    ;(scene as Scene & { _animate(ms: number): void })._animate(dt * 1000)
    for (let k = 0; k < allNodes.length; k++) allNodes[k]!.computeWorldMatrix(force)
  }
  step(true)
  return {
    run(steps: number): void {
      for (let s = 0; s < steps; s++) step()
    },
    worldMatrix(c: number, node: number, out: Float64Array, o: number): void {
      const m = nodes[c]![node]!.getWorldMatrix().m
      for (let k = 0; k < 16; k++) out[o + k] = m[k]!
    },
  }
}
