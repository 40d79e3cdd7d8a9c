import type { AnimationEvent, AnimationPlugin } from '../entry/index.ts'
import { el, slider } from './ui.ts'

/**
 * The Ragdoll panel's own controls, below the Ragdoll and Get up buttons (demo/ui.ts):
 *
 * - what a click on the character does: `button[data-click=knock]` knocks it over there (a whole-body ragdoll
 *   with the hit), `button[data-click=hit]` a hit reaction (the limb clicked takes the hit and blends back to the
 *   animation on its own);
 * - `#motors`, the motor strength: a knocked-over character gets motors at it (0: limp; 1: it keeps its pose as it
 *   falls), and a ragdolling one gets it at once (setRagdollMotors);
 * - `#facing`: how the character lay when it got up, face-down or face-up, and the clip chosen for it (the
 *   'ragdoll-get-up' event); getUp is given the model's face-down and face-up clips.
 *
 * Everything goes through the public entry.
 */

export type ClickMode = 'knock' | 'hit'

/** A model's get-up clips: for lying face-down, for lying face-up. */
export interface GetUpClips {
  readonly prone: string
  readonly supine: string
}

export interface RagdollHandlers {
  /** Runs a UI action, showing what it throws in the status line (main.ts's `act`). */
  act(f: () => unknown): void
  /** The hero's entity, or -1 when none is loaded. */
  hero(): number
}

export interface RagdollPanel {
  /** What a click on the character does. */
  readonly clickMode: ClickMode
  /** The motor strength slider's value, in [0, 1]. */
  readonly strength: number
  /** ragdoll()'s motors for a knock-over: the slider's strength (none at 0: limp). */
  motors(): { strength: number } | undefined
  /** getUp()'s face-down and face-up clips for the model on stage (none: the Clips choice). */
  getUpClips(): Partial<GetUpClips>
  /** An event a step reported: a 'ragdoll-get-up' shows how it lay and the clip chosen. */
  onEvent(event: AnimationEvent): void
  /** The model on stage changed: its get-up clips (null: none), the readout cleared. */
  setModel(clips: GetUpClips | null): void
}

export function createRagdollPanel(
  root: HTMLElement,
  plugin: AnimationPlugin,
  on: RagdollHandlers,
): RagdollPanel {
  let mode: ClickMode = 'knock'
  let clips: GetUpClips | null = null
  const modes = el(
    'div',
    { className: 'buttons' },
    ...(['knock', 'hit'] as const).map((m) => {
      const b = el(
        'button',
        { className: m === mode ? 'active' : '' },
        m === 'knock' ? 'click: knock over' : 'click: hit',
      )
      b.dataset.click = m
      b.addEventListener('click', () => {
        mode = m
        for (const x of modes.querySelectorAll<HTMLButtonElement>('button[data-click]'))
          x.classList.toggle('active', x.dataset.click === mode)
      })
      return b
    }),
  )
  const motors = slider('motors', 'motors', 0, 1, 0.05, 0, '')
  motors.input.addEventListener('change', () => {
    const eid = on.hero()
    // A ragdolling character takes the new strength at once; a standing one gets it when knocked over.
    if (eid >= 0 && plugin.stores.Ragdoll.active[eid] !== 0)
      on.act(() => plugin.setRagdollMotors(eid, { strength: Number(motors.input.value) }))
  })
  const facing = el('div', { id: 'facing', className: 'hint' })
  root.append(modes, motors.row, facing)

  return {
    get clickMode() {
      return mode
    },
    get strength() {
      return Number(motors.input.value)
    },
    motors() {
      const strength = Number(motors.input.value)
      return strength > 0 ? { strength } : undefined
    },
    getUpClips() {
      return clips ? { prone: clips.prone, supine: clips.supine } : {}
    },
    onEvent(event) {
      if (event.kind !== 'ragdoll-get-up' || event.entity !== on.hero()) return
      const way = { prone: 'got up face-down', supine: 'got up face-up', standing: 'recovered standing' }
      facing.textContent = `${way[event.facing]}${event.clip ? ` into ${event.clip}` : ''}`
      facing.dataset.facing = event.facing
    },
    setModel(next) {
      clips = next
      facing.textContent = ''
      delete facing.dataset.facing
    },
  }
}
