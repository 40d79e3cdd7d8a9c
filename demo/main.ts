import { createWorld } from 'bitecs'
import { Vector3 } from 'three'
import { AnimationError, createAnimationPlugin, createFixedStepper, type LoopMode } from '../entry/index.ts'
import { createThreeAdapter } from '../adapters/three.ts'
import { createStage } from './stage.ts'
import { despawn, disposeModel, loadModel, spawn, type Character, type Model } from './characters.ts'
import { createCrowd, CROWD_SPACING } from './crowd.ts'
import { createPlot } from './plot.ts'
import { createStatsWindow, wrapSystems } from './timing.ts'
import { centroid, nearestJoint, pick } from './picking.ts'
import { createUi } from './ui.ts'
import { createLayersPanel } from './layers.ts'
import { layerDemoFor, morphTargetNames } from './layerSetup.ts'
import { createMotionPanel } from './motion.ts'
import { createFootsteps } from './footsteps.ts'
import { createHook } from './hook.ts'
import { createStatus } from './status.ts'
import { withTravel } from './travel.ts'
import { fileName, SHIPPED, type ShippedModel } from './shipped.ts'
import { createRagdollPanel } from './ragdolls.ts'
import { createReadout } from './readout.ts'
import { createRetargetPanel } from './retarget.ts'
import { createIKPanel } from './ik.ts'

/**
 * The demo: one hero character (a shipped model from the picker, the Fox first, or any .glb you drop) you can
 * play, cross-fade, knock over and help up, plus an optional crowd. The simulation runs on the fixed stepper
 * (1/60 s steps, deterministic); the adapter interpolates the last two steps for display at whatever rate the
 * browser draws.
 */

const CAPACITY = 1 << 16 // entity ids: a 1000-Fox crowd needs ~27k (a character node + 26 glTF nodes each)
// ?kernels=js or ?kernels=wasm; without it, the library's default ('wasm' where WebAssembly SIMD validates).
const KERNELS_PARAM = new URLSearchParams(location.search).get('kernels')
const KERNELS = KERNELS_PARAM === 'js' || KERNELS_PARAM === 'wasm' ? KERNELS_PARAM : undefined
// ?workers=N: worker threads for the step (shared memory: the dev and preview servers isolate the page).
const WORKERS =
  crossOriginIsolated && KERNELS !== 'wasm'
    ? Math.max(0, Math.min(8, Math.floor(Number(new URLSearchParams(location.search).get('workers'))) || 0))
    : 0
const PLOT_SAMPLES = 360 // 6 s of fixed steps
const LOOP_MODES = ['once', 'repeat', 'pingpong'] as const satisfies readonly LoopMode[] // Sampler.loop values
const MODEL_NAMES = SHIPPED.map((m) => m.name) // the picker's buttons
const STATS_MS = 500 // the readout (timings averaged per frame, state hash) refreshes twice a second

const stage = createStage(document.getElementById('view')!)
const plugin = createAnimationPlugin(createWorld(), {
  capacity: CAPACITY,
  ...(KERNELS === undefined ? {} : { kernels: KERNELS }),
  workers: WORKERS,
})
const adapter = createThreeAdapter(plugin)
const stepper = createFixedStepper({ dt: plugin.dt, maxStepsPerFrame: 5 })
const timer = wrapSystems(plugin, ['three sync', 'draw'])
const stats = createStatsWindow(timer, STATS_MS)
const { Sampler, CrossFade, Ragdoll } = plugin.stores

let model: Model | null = null
/** The picker's entry of the model on stage; null for a file of the user's. */
let shipped: ShippedModel | null = null
let hero: Character | null = null
/** glTF node indices a hit can land on: the skin's joints, or every node of an unskinned file. */
let hitJoints: number[] = []
/** The looping clip chosen last: a one-shot hands back to it, and getting up fades into it. */
let selectedClip = 0
/** Clip indices of the model on stage that play once (the shipped model's one-shots; a user's file has none). */
let onceClips = new Set<number>()
/** Model loads started: a load that finishes after a later one started is dropped (the latest wins). */
let loads = 0

const crowd = createCrowd(
  plugin,
  adapter,
  stage.scene,
  () => model!,
  () => crowdMax(),
)

const ui = createUi(document.getElementById('panel')!, document.getElementById('credit')!, MODEL_NAMES, {
  onClip(i) {
    act(() => playClip(i))
  },
  onRotation(mode) {
    // Replays every character's clip at its current phase with the new rotation curves (no pop: same time).
    act(() => {
      for (const c of hero ? [hero, ...crowd.members] : []) {
        const clip = clipIndexOf(c.eid)
        if (clip < 0 || CrossFade.active[c.eid] === 1) continue
        plugin.play(c.eid, clip, {
          time: Sampler.time[c.eid]!,
          speed: Sampler.speed[c.eid]!,
          loop: LOOP_MODES[Sampler.loop[c.eid]!],
          rotation: mode,
        })
      }
    })
  },
  onRagdoll() {
    act(() => {
      const id = heroId()
      const center = centroid(plugin, id, hitJoints)
      // Push away from the viewer, horizontally, at the joint nearest the body's middle.
      const dir = center.clone().sub(stage.camera.position).setY(0).normalize()
      const joint = nearestJoint(plugin, id, hitJoints, center)
      knock(joint, dir)
    })
  },
  onGetUp() {
    act(() => {
      const id = heroId()
      if (Ragdoll.active[id] === 0) throw new AnimationError('argument', 'Get up: the character is standing')
      const clip =
        model!.clipNames.length > 0 ? { clip: selectedClip, play: { loop: 'repeat' as const } } : {}
      plugin.getUp(id, { ...clip, ...ragdolls.getUpClips(), rate: ui.rampRate })
    })
  },
  onModel(name) {
    const entry = SHIPPED.find((m) => m.name === name)
    if (entry) void pickModel(entry)
  },
  onFile(file) {
    void useModel(async () => new Uint8Array(await file.arrayBuffer()), file.name, null)
  },
  onCrowd(n) {
    act(() => {
      crowd.setCount(n)
      fitCrowd()
    })
  },
})
const { act, report, guarded } = createStatus((text, error) => ui.setStatus(text, error))
crowd.mountToggle(document.getElementById('crowd')!.closest('label')!, (on) =>
  act(() => {
    crowd.setInstanced(on)
    fitCrowd()
  }),
)
const plot = createPlot(ui.plotCanvas, PLOT_SAMPLES)
/** Plays a clip of the model on stage by name, as its Clips button does. */
const playNamed = (name: string): void => playClip(model ? model.clipNames.indexOf(name) : -1)
const layers = createLayersPanel(ui.layersPanel, plugin, { act, playState: playNamed })
const motion = createMotionPanel(ui.motionPanel, plugin, stage, { act, playClip: playNamed })
const footsteps = createFootsteps(stage.scene, plugin)
const ragdollRoot = document.createElement('section')
document.getElementById('ragdoll')!.parentElement!.after(ragdollRoot)
const ragdolls = createRagdollPanel(ragdollRoot, plugin, { act, hero: () => hero?.eid ?? -1 })
const retarget = createRetargetPanel(ui.retargetPanel, plugin, {
  act,
  report: (error) => void report(error),
  retargeted(names) {
    if (!model) return
    // Retargeted clips are clips of the model's asset, after its own: the Clips buttons grow by them.
    model = { ...model, clipNames: [...model.clipNames, ...names] }
    showModel()
    playClip(model.clipNames.indexOf(names[0]!))
  },
})
/** The model line, the picker, the credit and the Clips buttons of the model on stage. */
function showModel(): void {
  if (!model) return
  ui.setModel(
    `${model.source} · scale ${model.scale} · ${model.handle.asset.nodes.length} nodes`,
    model.clipNames,
    shipped?.name ?? null,
    // A file of the user's: its name, and no credit claimed for it.
    shipped
      ? { text: shipped.credit, license: shipped.license }
      : { text: `${model.source} (your own file)` },
  )
}
const ikRoot = document.createElement('section')
ikRoot.id = 'ik'
ikRoot.hidden = true
ui.motionPanel.after(ikRoot)
const ik = createIKPanel(ikRoot, plugin, stage, { act })

/** Cross-fades the hero's base layer into clip `i`: once for a one-shot, else looping (and remembered). */
function playClip(i: number): void {
  const once = onceClips.has(i)
  plugin.crossFade(heroId(), i, ui.fadeSeconds, {
    rotation: ui.rotation,
    loop: once ? 'once' : 'repeat',
  })
  if (!once) selectedClip = i
}

function heroId(): number {
  if (!hero) throw new AnimationError('argument', 'no character loaded yet')
  return hero.eid
}

function crowdMax(): number {
  const perCharacter = (model?.handle.asset.nodes.length ?? 26) + 1
  return Math.min(1000, Math.floor((CAPACITY - 64) / perCharacter) - 1)
}

/** Index of the character's current clip in its model's clip list, or -1. */
function clipIndexOf(eid: number): number {
  return model ? model.handle.clips.indexOf(Sampler.clip[eid]!) : -1
}

/**
 * A hit at a joint along `dir`: starts the ragdoll (with the hit at the hand-off, motors at the panel's strength)
 * or hits the fallen body; a `reaction` is a hit reaction instead (the Ragdoll panel's click mode).
 */
function knock(joint: number, dir: Vector3, reaction = false): void {
  const s = ui.hitStrength
  const impulse = [dir.x * s, dir.y * s, dir.z * s] as const
  if (reaction) plugin.hit(heroId(), joint, impulse)
  else plugin.ragdoll(heroId(), { rate: ui.rampRate, impulse: { joint, impulse }, motors: ragdolls.motors() })
}

/** A shipped model, fetched from the site and loaded as a dropped file is (with its known unit and clips). */
function pickModel(entry: ShippedModel): Promise<string | null> {
  const url = new URL(entry.path, document.baseURI)
  const read = async (): Promise<Uint8Array> => {
    const r = await fetch(url)
    if (!r.ok) throw new Error(`${url.pathname}: HTTP ${r.status}`)
    return new Uint8Array(await r.arrayBuffer())
  }
  return useModel(read, fileName(entry.path), entry)
}

/**
 * Reads a .glb and puts it on stage in place of the current model (the crowd keeps its size). Resolves null
 * once it is on stage, else with the reason it is not (also in the status line); the current model then stays.
 */
async function useModel(
  read: () => Promise<Uint8Array>,
  source: string,
  entry: ShippedModel | null,
): Promise<string | null> {
  const ticket = ++loads
  ui.setStatus(`loading ${source}…`)
  let next: Model
  try {
    const travel = entry?.travel
    next = await loadModel(plugin, await read(), source, entry?.scale, (a) =>
      travel ? withTravel(a, travel) : a,
    )
  } catch (error) {
    // A file that is not a model is the user's mistake, not the page's: a warning, not an error.
    return ticket === loads ? report(error, true) : 'replaced by a later load'
  }
  if (ticket !== loads) {
    disposeModel(next) // another model was asked for while this one loaded
    return 'replaced by a later load'
  }
  try {
    const count = crowd.members.length
    crowd.clear()
    layers.show(null)
    motion.show(null)
    ik.show(null)
    footsteps.clear()
    retarget.show(null)
    if (hero) despawn(plugin, adapter, hero)
    if (model) disposeModel(model)
    hero = null
    model = next
    shipped = entry
    const clips = model.clipNames
    onceClips = new Set(entry?.once.map((n) => clips.indexOf(n)).filter((i) => i >= 0))
    hero = spawn(plugin, adapter, stage.scene, model, { x: 0, z: 0, original: true, castShadow: true })
    selectedClip = Math.max(0, entry ? clips.indexOf(entry.firstClip) : 0)
    if (clips.length > 0) plugin.play(hero.eid, selectedClip, { rotation: ui.rotation })
    if (entry?.footsteps) footsteps.addMarkers(model.handle, entry.footsteps)
    const travelled = entry?.travel ? { clip: entry.travel.name, hint: entry.travel.hint } : null
    motion.show({ eid: hero.eid, travel: travelled, shipped: entry !== null })
    ik.show(entry?.ik ? { eid: hero.eid, ik: entry.ik } : null)
    const skin = model.handle.asset.skeletons[0]
    hitJoints = skin ? Array.from(skin.joints) : model.handle.asset.nodes.map((n) => n.index)
    showModel()
    retarget.show(model.handle)
    const asset = model.handle.asset
    const gltf = model.gltf
    const setup = entry?.layers ?? layerDemoFor(asset, (node) => morphTargetNames(gltf, node))
    const duration = (name: string) => asset.clips.find((c) => c.name === name)?.duration ?? Infinity
    layers.show(setup ? { eid: hero.eid, setup, duration } : null)
    ragdolls.setModel(entry?.getUp ?? null)
    ui.setCrowdMax(crowdMax())
    crowd.setCount(count)
    stage.fitShadows(model.radius)
    stage.frame(model.height, model.radius)
    fitCrowd()
    plot.clear()
    ui.setStatus('')
    hook.source = source
    return null
  } catch (error) {
    return report(error)
  }
}

/**
 * A one-shot that has played to its end hands back to the looping clip chosen before it (as three.js's
 * RobotExpressive example does with its emotes). Not while a fade runs or the ragdoll has the character.
 */
function endOneShot(): void {
  if (!hero || !model) return
  const eid = hero.eid
  const clip = clipIndexOf(eid)
  if (!onceClips.has(clip) || CrossFade.active[eid] === 1 || Ragdoll.active[eid] !== 0) return
  const duration = model.handle.asset.clips[clip]!.duration
  if (LOOP_MODES[Sampler.loop[eid]!] !== 'once' || Sampler.time[eid]! < duration) return
  plugin.crossFade(eid, selectedClip, ui.fadeSeconds, { rotation: ui.rotation })
}

/** Backs the camera off along its view line until the crowd's outer ring fits (never moves it closer). */
function fitCrowd(): void {
  const n = crowd.members.length
  if (n === 0 || !model) return
  const rings = Math.ceil((Math.sqrt(n + 1) - 1) / 2) // ring r holds 8r cells around the hero
  const radius = rings * model.footprint * CROWD_SPACING * Math.SQRT2
  stage.backOff(2.2 * radius + model.size * 1.5)
}

// Picking: a click (not a drag, nor with Shift: that drags the character, demo/motion.ts) hits it there.
const canvas = stage.renderer.domElement
let down: { x: number; y: number } | null = null
canvas.addEventListener('pointerdown', (e) => (down = { x: e.clientX, y: e.clientY }))
canvas.addEventListener('pointerup', (e) => {
  if (!down || e.button !== 0 || e.shiftKey || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) return
  if (!hero) return
  const r = canvas.getBoundingClientRect()
  const p = { x: e.clientX - r.left, y: e.clientY - r.top, width: r.width, height: r.height }
  const hit = pick(plugin, hero.eid, hero.view.scene, stage.camera, p, hitJoints)
  if (hit) act(() => knock(hit.node, hit.direction, ragdolls.clickMode === 'hit'))
})

// The loop: fixed steps for the simulation, one interpolated display per animation frame.
let last = performance.now()
let frames = 0
let steps = 0
let captureMs = 0

function stepOnce(): void {
  ik.beforeStep()
  plugin.step()
  const t0 = performance.now()
  adapter.capture()
  crowd.capture()
  captureMs += performance.now() - t0
  steps++
  stats.countStep()
  if (hero)
    plot.push(Ragdoll.weight[hero.eid]!, CrossFade.active[hero.eid] === 1 ? CrossFade.blend[hero.eid]! : NaN)
}

function frame(now: number): void {
  requestAnimationFrame(frame) // first: a frame that throws must not stop the loop
  const elapsed = now - last
  last = now
  // The simulation, then the picture, each guarded: a step that throws (a bug) shows in the status line and the
  // frame is still drawn.
  guarded('simulate', () => {
    stepper.advance(Math.min(elapsed / 1000, 0.25), stepOnce)
    readout.showEvents()
    endOneShot()
    layers.afterSteps()
  })
  guarded('draw', () => drawFrame(elapsed))
}

function drawFrame(elapsed: number): void {
  const t0 = performance.now()
  adapter.render(stepper.alpha)
  crowd.render(stepper.alpha)
  const t1 = performance.now()
  stage.draw()
  const t2 = performance.now()
  timer.add('three sync', t1 - t0 + captureMs)
  timer.add('draw', t2 - t1)
  captureMs = 0
  footsteps.update(elapsed / 1000)
  motion.afterFrame()
  ik.afterFrame()
  frames++
  stats.countFrame(elapsed)
  if (frames % 6 === 0) {
    plot.draw()
    if (hero) ui.setActiveClip(clipIndexOf(hero.eid))
    layers.refresh()
  }
  if (stats.due) readout.updateStats()
}

// Test hook for the e2e test (and the curious, from the console): demo/hook.ts.
const hook = createHook({
  plugin,
  adapter,
  stepper,
  stage,
  footsteps,
  hero: () => hero,
  model: () => model,
  shipped: () => shipped,
  hitJoints: () => hitJoints,
  crowdCount: () => crowd.members.length,
  crowd: () => crowd,
  frames: () => frames,
  steps: () => steps,
  ik: ik.probe,
})
;(window as unknown as { __demo: typeof hook }).__demo = hook
const readout = createReadout({
  plugin,
  adapter,
  stage,
  ui,
  stats,
  footsteps,
  ragdolls,
  crowd,
  hook,
  hero: () => hero,
  model: () => model,
  steps: () => steps,
})
window.addEventListener('error', (e) => (hook.error = String(e.message)))
window.addEventListener('unhandledrejection', (e) => (hook.error = String(e.reason)))

// The first shipped model (the Fox) on stage, then the loop starts.
void pickModel(SHIPPED[0]!).then((failure) => {
  if (failure !== null) {
    hook.error = failure
    return
  }
  hook.ready = true
  requestAnimationFrame(frame)
})
