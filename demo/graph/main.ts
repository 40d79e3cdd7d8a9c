import { createWorld } from 'bitecs'
import {
  createAnimationPlugin,
  createFixedStepper,
  isGraphEvent,
  type GraphStateInfo,
} from '../../entry/index.ts'
import { createThreeAdapter } from '../../adapters/three.ts'
import { createStage } from '../stage.ts'
import { loadModel, spawn } from '../characters.ts'
import { el } from '../ui.ts'
import { createStatus } from '../status.ts'
import { ROBOT_GRAPH } from './robotGraph.ts'
import { KEYS, keysToInput, METRES_PER_SPEED } from './keys.ts'
import { createGraphView } from './graphView.ts'

/**
 * The state machine page: RobotExpressive on a graph (robotGraph.ts), driven from the keyboard (keys.ts) the way
 * a game drives it — each fixed step the keys held become the graph's parameters (setParameter), E a trigger —
 * and moved over the ground by the game; the graph picks the states and their cross-fades. The panel shows the
 * graph live (graphView.ts) and its last events. Everything goes through the public entry.
 */

const MODEL = 'RobotExpressive/RobotExpressive.glb'
const EVENTS_SHOWN = 8

const stage = createStage(document.getElementById('view')!)
const plugin = createAnimationPlugin(createWorld(), { capacity: 4096 })
const adapter = createThreeAdapter(plugin)
const stepper = createFixedStepper({ dt: plugin.dt, maxStepsPerFrame: 5 })
const panel = document.getElementById('panel')!
const status = el('p', { id: 'status', className: 'hint' })
const params = el('pre', { id: 'params' })
const events = el('pre', { id: 'graph-events' })
const graphRoot = el('div', { id: 'graph' })
panel.append(
  el('h1', {}, 'State machine'),
  el(
    'p',
    { className: 'hint' },
    'Click the view, then: ',
    el('kbd', {}, 'W A S D'),
    ' walk, ',
    el('kbd', {}, 'Shift'),
    ' run, ',
    el('kbd', {}, 'Space'),
    ' jump, ',
    el('kbd', {}, 'E'),
    ' wave.',
  ),
  params,
  graphRoot,
  el('h2', {}, 'Events'),
  events,
  status,
)
const view = createGraphView(graphRoot, ROBOT_GRAPH)
const { guarded, report } = createStatus((text, error) => {
  status.textContent = text
  status.classList.toggle('error', error === true)
})

const held = new Set<string>()
const eventLog: string[] = []
let hero = -1
let frames = 0
let steps = 0
/** Where the character stands (x, z, metres) and the height its root is lifted to. */
const place = { x: 0, z: 0, y: 0, yaw: 0 }

window.addEventListener('keydown', (e) => {
  if (!(KEYS as readonly string[]).includes(e.code)) return
  e.preventDefault() // Space would scroll the panel
  if (e.code === 'KeyE' && !e.repeat && hero >= 0) plugin.trigger(hero, 'wave')
  held.add(e.code)
})
window.addEventListener('keyup', (e) => held.delete(e.code))
window.addEventListener('blur', () => held.clear())

/** One fixed step: the keys become parameters and a move over the ground, then the plugin steps. */
function stepOnce(): void {
  const input = keysToInput(held)
  plugin.setParameter(hero, 'speed', input.speed)
  plugin.setParameter(hero, 'grounded', input.grounded)
  if (input.speed > 0) {
    const [dx, dz] = input.direction
    const metres = input.speed * METRES_PER_SPEED * plugin.dt
    place.x += dx * metres
    place.z += dz * metres
    place.yaw = Math.atan2(dx, dz)
  }
  const half = place.yaw / 2
  plugin.setTransform(hero, {
    position: [place.x, place.y, place.z],
    rotation: [0, Math.sin(half), 0, Math.cos(half)],
  })
  plugin.step()
  adapter.capture()
  steps++
  for (const e of plugin.events) {
    if (isGraphEvent(e)) eventLog.push(`${e.step} ${e.layerName}: ${e.kind} ${e.from}→${e.to}`)
  }
  plugin.events.length = 0
  if (eventLog.length > 64) eventLog.splice(0, eventLog.length - 64)
}

/** Where each graph layer is, by name. */
function states(): Record<string, GraphStateInfo> {
  return Object.fromEntries(ROBOT_GRAPH.layers.map((l) => [l.name, plugin.getState(hero, l.name)]))
}

let last = performance.now()
function frame(now: number): void {
  requestAnimationFrame(frame)
  const elapsed = Math.min((now - last) / 1000, 0.25)
  last = now
  guarded('simulate', () => stepper.advance(elapsed, stepOnce))
  guarded('draw', () => {
    adapter.render(stepper.alpha)
    // The camera follows the character: target and camera move by the same offset.
    const target = stage.controls.target
    const dx = place.x - target.x
    const dz = place.z - target.z
    target.x += dx
    target.z += dz
    stage.camera.position.x += dx
    stage.camera.position.z += dz
    stage.draw()
    view.update(states())
    const input = keysToInput(held)
    params.textContent = `speed ${input.speed}  grounded ${input.grounded}`
    events.textContent = eventLog.slice(-EVENTS_SHOWN).join('\n')
  })
  frames++
}

/** The e2e test's hook (e2e/stateMachine.e2e.test.ts), and the curious's from the console. */
const hook = {
  ready: false,
  error: null as string | null,
  plugin,
  stage,
  hero: () => hero,
  frames: () => frames,
  steps: () => steps,
  state: (layer: string) => plugin.getState(hero, layer),
  events: () => [...eventLog],
  place: () => ({ ...place }),
}
;(window as unknown as { __graphDemo: typeof hook }).__graphDemo = hook
window.addEventListener('error', (e) => (hook.error = String(e.message)))
window.addEventListener('unhandledrejection', (e) => (hook.error = String(e.reason)))

async function start(): Promise<void> {
  const response = await fetch(new URL(MODEL, document.baseURI))
  if (!response.ok) throw new Error(`${MODEL}: HTTP ${response.status}`)
  const model = await loadModel(
    plugin,
    new Uint8Array(await response.arrayBuffer()),
    'RobotExpressive.glb',
    1,
  )
  hero = spawn(plugin, adapter, stage.scene, model, { x: 0, z: 0, original: true, castShadow: true }).eid
  place.y = model.lift
  plugin.setGraph(hero, ROBOT_GRAPH)
  stage.fitShadows(model.radius)
  stage.frame(model.height, model.radius)
  stage.backOff(model.height * 2.4)
  document.getElementById('credit')!.textContent =
    'RobotExpressive (CC0 1.0): model by Tomás Laulhé, morph-target expressions by Don McCurdy'
  hook.ready = true
  requestAnimationFrame(frame)
}

start().catch((error: unknown) => (hook.error = report(error)))
