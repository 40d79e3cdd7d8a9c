import { Plane, Raycaster, Vector2, Vector3 } from 'three'
import type { AnimationPlugin } from '../entry/index.ts'
import type { Stage } from './stage.ts'
import { el } from './ui.ts'

/**
 * The Root motion and Placement panels, for the hero:
 *
 * - `#root-motion` turns root motion on ('horizontal', or 'full' from `#root-motion-mode`) and off
 *   (setRootMotion); `button[data-travel]` plays the model's travelling clip (the Fox's Walk made to travel at
 *   load, demo/travel.ts), since the shipped clips walk in place (which the hint says for a shipped model
 *   only: a file of the user's may travel); `#follow` keeps the camera on the hero;
 * - `#place-x`, `#place-z` (metres) and `#place-heading` (its turn, degrees about +y) with `#place` put the hero there
 *   (setTransform); so does dragging it with Shift held. `#place-readout` shows where it is (getTransform).
 */
export interface MotionTarget {
  readonly eid: number
  /** The model's travelling clip, or null when it has none. */
  readonly travel: { readonly clip: string; readonly hint: string } | null
  /** A shipped model: its clips walk in place, which the panel says. */
  readonly shipped: boolean
}

export interface MotionHandlers {
  /** Runs a UI action, showing what it throws in the status line (main.ts's `act`). */
  act(f: () => unknown): void
  /** Plays a clip on the base layer the way the Clips buttons do. */
  playClip(name: string): void
}

export interface MotionPanel {
  /** Shows the panels for a new hero (root motion off, placement fields cleared); null hides them. */
  show(target: MotionTarget | null): void
  /** Once a frame: the camera follows the hero, the readout shows where it is. */
  afterFrame(): void
}

export function createMotionPanel(
  root: HTMLElement,
  plugin: AnimationPlugin,
  stage: Stage,
  on: MotionHandlers,
): MotionPanel {
  let target: MotionTarget | null = null
  const toggle = el('input', { id: 'root-motion', type: 'checkbox' })
  const mode = el(
    'select',
    { id: 'root-motion-mode' },
    el('option', { value: 'horizontal' }, 'horizontal'),
    el('option', { value: 'full' }, 'full'),
  )
  const travel = el('div', { className: 'buttons' })
  const travelHint = el('p', { className: 'hint' })
  const follow = el('input', { id: 'follow', type: 'checkbox', checked: true })
  const field = (id: string, label: string) => {
    const input = el('input', { id, type: 'number', step: '0.1', value: '0' })
    return { input, row: el('label', { className: 'row' }, el('span', {}, label), input) }
  }
  const x = field('place-x', 'x (m)')
  const z = field('place-z', 'z (m)')
  const heading = field('place-heading', 'turn °')
  heading.input.step = '15'
  const place = el('button', { id: 'place' }, 'Place')
  const readout = el('pre', { id: 'place-readout' })
  root.append(
    el('h2', {}, 'Root motion'),
    el('label', { className: 'toggle' }, toggle, ' root motion: the hips move the character'),
    el('label', { className: 'row' }, el('span', {}, 'mode'), mode),
    travel,
    travelHint,
    el('label', { className: 'toggle' }, follow, ' camera follows'),
    el('h2', {}, 'Placement'),
    x.row,
    z.row,
    heading.row,
    el('div', { className: 'buttons' }, place),
    el('p', { className: 'hint' }, 'Or drag the character with Shift held.'),
    readout,
  )

  const current = (): MotionTarget => {
    if (!target) throw new Error('no character on stage')
    return target
  }
  const setRootMotion = (): void => {
    const m = toggle.checked ? (mode.value as 'horizontal' | 'full') : 'off'
    plugin.setRootMotion(current().eid, { mode: m })
  }
  toggle.addEventListener('change', () => on.act(setRootMotion))
  mode.addEventListener('change', () => on.act(() => toggle.checked && setRootMotion()))
  place.addEventListener('click', () =>
    on.act(() => {
      const { eid } = current()
      const half = (Number(heading.input.value) * Math.PI) / 360
      const y = plugin.getTransform(eid).position[1]
      const position: [number, number, number] = [Number(x.input.value), y, Number(z.input.value)]
      plugin.setTransform(eid, { position, rotation: [0, Math.sin(half), 0, Math.cos(half)] })
    }),
  )

  // Dragging with Shift: the hero follows the pointer on the ground; the orbit controls rest meanwhile.
  const canvas = stage.renderer.domElement
  const ground = new Plane(new Vector3(0, 1, 0), 0)
  const ray = new Raycaster()
  let dragging = false
  const dragTo = (e: PointerEvent): void => {
    const r = canvas.getBoundingClientRect()
    const ndc = new Vector2(
      ((e.clientX - r.left) / r.width) * 2 - 1,
      1 - ((e.clientY - r.top) / r.height) * 2,
    )
    ray.setFromCamera(ndc, stage.camera)
    const at = ray.ray.intersectPlane(ground, new Vector3())
    if (!at || !target) return
    const y = plugin.getTransform(target.eid).position[1]
    on.act(() => plugin.setTransform(target!.eid, { position: [at.x, y, at.z] }))
  }
  canvas.addEventListener('pointerdown', (e) => {
    if (!e.shiftKey || e.button !== 0 || !target) return
    dragging = true
    stage.controls.enabled = false
    dragTo(e)
  })
  canvas.addEventListener('pointermove', (e) => dragging && dragTo(e))
  window.addEventListener('pointerup', () => {
    dragging = false
    stage.controls.enabled = true
  })

  /** Where the camera last saw the hero (for following it). */
  let seen: Vector3 | null = null

  return {
    show(next) {
      target = next
      root.hidden = next === null
      toggle.checked = false
      seen = null
      for (const input of [x.input, z.input, heading.input]) input.value = '0'
      travel.replaceChildren()
      travelHint.textContent = next?.shipped
        ? 'The shipped clips walk in place: with root motion on, the entity only sways.'
        : "With root motion on, the travel in the file's clips moves the character."
      if (!next?.travel) return
      const { clip, hint } = next.travel
      const b = el('button', { className: 'clip' }, clip)
      b.dataset.travel = clip
      b.addEventListener('click', () => on.act(() => on.playClip(clip)))
      travel.append(b)
      travelHint.textContent = hint
    },
    afterFrame() {
      if (!target) return
      const { position: p, rotation: q } = plugin.getTransform(target.eid)
      const at = new Vector3(p[0], 0, p[2])
      if (seen && follow.checked && !dragging) {
        const d = at.clone().sub(seen)
        stage.controls.target.add(d)
        stage.camera.position.add(d)
      }
      seen = at
      const deg = (2 * Math.atan2(q[1], q[3]) * 180) / Math.PI
      readout.textContent = `at x ${p[0].toFixed(2)} z ${p[2].toFixed(2)} m, heading ${deg.toFixed(0)}°`
    },
  }
}
