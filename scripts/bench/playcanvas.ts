/**
 * PlayCanvas's side of the benchmark (`--peers playcanvas`), as a PlayCanvas game animates the crowd: an AppBase
 * on a NullGraphicsDevice (no GPU, no DOM) with the anim component system, the file read by its glTF container
 * handler (the bytes handed over as the asset's contents), and per character `instantiateRenderEntity` (its own
 * entities) with an anim component whose states are the file's AnimTracks (`assignAnimation`). A step is
 * `app.update(dt)` (the components' animation pass among the app's systems), then `app.root.syncHierarchy()`
 * (the world matrices, what rendering a frame runs first).
 *
 * PlayCanvas samples LINEAR rotation keys by normalized lerp, not slerp (AnimCache, AnimBlend.blendQuat), and
 * blends states and layers the same way: it agrees with the project (slerp) only to PEER_TOLERANCES.playcanvas,
 * not to the bench's 1e-4 (see peers.ts). CUBICSPLINE keys: glTF's Hermite, normalized, as the project.
 *
 * Each crowd kind, per character:
 *   playing/moving/idle: clip A's state looping from its phase (paused: the layer paused after setting its time;
 *     finished: a non-looping state at its end). A fading character transitions to clip B's state over the fade
 *     (`layer.transition`, weights linear in time as the project's) starting at clip B's phase;
 *   blend-space, layered, lod: not expressed (see `unsupported`).
 */
import type * as PlayCanvas from 'playcanvas'
import type { AnimComponent, Entity, GraphNode } from 'playcanvas'
import type { CrowdKind, CrowdPlan } from './crowd.ts'
import type { Peer, PeerCrowd } from './peers.ts'

type PC = typeof PlayCanvas

const UNSUPPORTED: Partial<Record<CrowdKind, string>> = {
  layered:
    "PlayCanvas's additive layers add the track as it is (no reference pose taken out); a masked override plus an additive clip needs the clip rewritten as deltas first",
  'blend-space': 'a 1D blend tree needs an anim state graph asset with synchronized durations; not built yet',
  lod: "the anim component system updates every component at the app's rate; a per-character rate is not part of its pass",
}

export const playCanvasPeer: Peer = {
  name: 'playcanvas',
  unsupported: (kind) => UNSUPPORTED[kind] ?? null,
  create: createPlayCanvasCrowd,
}

/** A canvas as NullGraphicsDevice reads it (it draws nothing). */
function fakeCanvas(): HTMLCanvasElement {
  return {
    width: 1,
    height: 1,
    style: {},
    addEventListener() {},
    removeEventListener() {},
    getBoundingClientRect: () => ({ left: 0, top: 0, width: 1, height: 1 }),
  } as unknown as HTMLCanvasElement
}

export async function createPlayCanvasCrowd(plan: CrowdPlan, file: Uint8Array): Promise<PeerCrowd> {
  const reason = playCanvasPeer.unsupported(plan.kind)
  if (reason !== null) throw new Error(`playcanvas: ${reason}`)
  const pc: PC = await import('playcanvas')
  const canvas = fakeCanvas()
  const device = new pc.NullGraphicsDevice(canvas)
  const app = new pc.AppBase(canvas)
  const options = new pc.AppOptions()
  options.graphicsDevice = device
  options.componentSystems = [pc.AnimComponentSystem, pc.RenderComponentSystem]
  options.resourceHandlers = [pc.ContainerHandler, pc.AnimClipHandler]
  app.init(options)

  const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer
  // Images are not decoded (Node has no image decoder; nothing is drawn): each is a 1×1 texture.
  const placeholder = new pc.Asset('image', 'texture', undefined)
  placeholder.resource = new pc.Texture(device, { width: 1, height: 1 })
  placeholder.loaded = true
  const asset = new pc.Asset(
    'bench.glb',
    'container',
    { url: 'bench.glb', contents: buffer },
    undefined,
    // GlbParser's options, passed through the asset's options (typed there as the image loader's only).
    {
      image: {
        processAsync: (_image: unknown, done: (err: null, texture: PlayCanvas.Asset) => void) =>
          done(null, placeholder),
      },
    } as PlayCanvas.Asset['options'],
  )
  app.assets.add(asset)
  await new Promise<void>((resolve, reject) => {
    asset.once('load', () => resolve())
    asset.once('error', (err: unknown) => reject(new Error(`playcanvas: ${String(err)}`)))
    app.assets.load(asset)
  })
  const container = asset.resource as PlayCanvas.ContainerResource
  const tracks = container.animations.map((a) => a.resource as PlayCanvas.AnimTrack)
  const { asset: anim, dt } = plan
  const clipNames = anim.clips.map((c) => c.name)
  if (tracks.map((t) => t.name).join('\n') !== clipNames.join('\n'))
    throw new Error(`playcanvas: the file's animations are not the clips ${clipNames.join(', ')}`)

  const count = plan.roles.length
  const nodes: GraphNode[][] = []
  for (let i = 0; i < count; i++) {
    const root = container.instantiateRenderEntity()
    app.root.addChild(root)
    nodes.push(nodesByIndex(plan, root))
    root.addComponent('anim', { activate: true, speed: 1 })
    const component = root.anim as AnimComponent
    const role = plan.roles[i]!
    const loop = role !== 'finished'
    component.assignAnimation('A', tracks[plan.clipA]!, undefined, 1, loop)
    if (role === 'fade') component.assignAnimation('B', tracks[plan.clipB]!, undefined, 1, true)
    const layer = component.baseLayer!
    layer.play('A')
    // Paused before its time is set: setting it then evaluates the pose once (a paused layer is not updated).
    if (role === 'paused') layer.pause()
    layer.activeStateCurrentTime = role === 'finished' ? anim.clips[plan.clipA]!.duration : plan.phaseA[i]!
    // B one step early, as three.ts: the first step shows it at its phase, as the project does.
    if (role === 'fade')
      layer.transition('B', plan.fadeSeconds, (plan.phaseB[i]! - dt) / anim.clips[plan.clipB]!.duration)
  }
  const step = (): void => {
    app.update(dt)
    app.root.syncHierarchy()
  }
  step()
  return {
    run(steps: number): void {
      for (let s = 0; s < steps; s++) step()
    },
    worldMatrix(c: number, node: number, out: Float64Array, o: number): void {
      const m = nodes[c]![node]!.getWorldTransform().data
      for (let k = 0; k < 16; k++) out[o + k] = m[k]!
    },
  }
}

/**
 * The instantiated character's nodes by glTF node index, each node's children in glTF order (the container
 * keeps the file's hierarchy and order).
 */
function nodesByIndex(plan: CrowdPlan, root: Entity): GraphNode[] {
  const { nodes, roots } = plan.asset
  const out: GraphNode[] = []
  const visit = (index: number, node: GraphNode): void => {
    out[index] = node
    const children = nodes[index]!.children
    for (let k = 0; k < children.length; k++) visit(children[k]!, node.children[k]!)
  }
  // A scene of one root node is that node itself (GlbParser's createScenes), otherwise a node above the roots.
  if (roots.length === 1) visit(roots[0]!, root)
  else for (let r = 0; r < roots.length; r++) visit(roots[r]!, root.children[r]!)
  return out
}
