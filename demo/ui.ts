/**
 * The control panel and the credit line: plain DOM, no framework. Element ids are stable (the e2e test uses
 * them): clip buttons `button[data-clip=i]`, `#fade`, `#rotation`, `#rate`, `#strength`, `#ragdoll`, `#getup`,
 * model buttons `button[data-model=name]`, `#file`, `#crowd`, `#stats`, `#status`, `#plot`, `#credit`; the
 * Layers panel (demo/layers.ts) fills `#layers`, the Root motion and Placement panels (demo/motion.ts) `#motion`,
 * the Retarget panel (demo/retarget.ts) `#retarget-panel`.
 */
export type RotationChoice = 'slerp' | 'squad'

export interface UiHandlers {
  onClip(index: number): void
  onRotation(mode: RotationChoice): void
  onRagdoll(): void
  onGetUp(): void
  /** A model button: one of the `models` given to createUi. */
  onModel(name: string): void
  onFile(file: File): void
  onCrowd(count: number): void
}

export interface Ui {
  /** Cross-fade duration, seconds. */
  readonly fadeSeconds: number
  /** ragdoll_weight ramp rate, per second. */
  readonly rampRate: number
  /** Hit impulse, N·s. */
  readonly hitStrength: number
  readonly rotation: RotationChoice
  readonly plotCanvas: HTMLCanvasElement
  /** The Layers section, below the clips: empty and hidden until demo/layers.ts fills it. */
  readonly layersPanel: HTMLElement
  /** The Root motion and Placement sections, below the layers (demo/motion.ts fills them). */
  readonly motionPanel: HTMLElement
  /** The Retarget section, below the model picker (demo/retarget.ts fills it). */
  readonly retargetPanel: HTMLElement
  /**
   * The model on stage: its description line, its clips, which picker button (if any) is lit, and the credit
   * line (text, and a licence file to link to, or none).
   */
  setModel(
    source: string,
    clips: readonly string[],
    picked: string | null,
    credit: { text: string; license?: string },
  ): void
  setActiveClip(index: number): void
  setCrowdMax(max: number): void
  setStats(text: string): void
  setStatus(text: string, error?: boolean): void
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props)
  e.append(...children)
  return e
}

/** A labelled range input with its value shown after it; `row` goes in the panel. */
export function slider(
  id: string,
  label: string,
  min: number,
  max: number,
  step: number,
  value: number,
  unit: string,
) {
  const input = el('input', {
    id,
    type: 'range',
    min: `${min}`,
    max: `${max}`,
    step: `${step}`,
    value: `${value}`,
  })
  const out = el('output', {}, `${value} ${unit}`)
  input.addEventListener('input', () => (out.textContent = `${input.value} ${unit}`))
  return { input, row: el('label', { className: 'row' }, el('span', {}, label), input, out) }
}

export function createUi(
  panel: HTMLElement,
  footer: HTMLElement,
  models: readonly string[],
  on: UiHandlers,
): Ui {
  const title = el('h1', {}, 'ecs-anim')
  const source = el('div', { className: 'source' })
  const clips = el('div', { className: 'clips' })
  const fade = slider('fade', 'fade', 0, 2, 0.05, 0.4, 's')
  const rotation = el(
    'select',
    { id: 'rotation' },
    el('option', { value: 'slerp' }, 'slerp'),
    el('option', { value: 'squad' }, 'squad'),
  )
  rotation.addEventListener('change', () => on.onRotation(rotation.value as RotationChoice))
  const rate = slider('rate', 'ramp', 0.5, 20, 0.5, 5, '/s')
  const strength = slider('strength', 'hit', 0, 40, 1, 12, 'N·s')
  const ragdoll = el('button', { id: 'ragdoll', className: 'action' }, 'Ragdoll')
  const getUp = el('button', { id: 'getup', className: 'action' }, 'Get up')
  ragdoll.addEventListener('click', () => on.onRagdoll())
  getUp.addEventListener('click', () => on.onGetUp())
  const picker = el(
    'div',
    { className: 'buttons models' },
    ...models.map((name) => {
      const b = el('button', { className: 'model' }, name)
      b.dataset.model = name
      b.addEventListener('click', () => on.onModel(name))
      return b
    }),
  )
  const file = el('input', { id: 'file', type: 'file', accept: '.glb,model/gltf-binary' })
  file.addEventListener('change', () => {
    const f = file.files?.[0]
    if (f) on.onFile(f)
    file.value = ''
  })
  const crowd = slider('crowd', 'crowd', 0, 1000, 1, 0, '')
  crowd.input.addEventListener('change', () => on.onCrowd(Number(crowd.input.value)))
  const layers = el('section', { id: 'layers', hidden: true })
  const motion = el('section', { id: 'motion', hidden: true })
  const retarget = el('section', { id: 'retarget-panel', hidden: true })
  const plot = el('canvas', { id: 'plot', width: 240, height: 80 })
  const stats = el('pre', { id: 'stats' })
  const status = el('div', { id: 'status' })

  panel.append(
    title,
    source,
    el('h2', {}, 'Clips'),
    clips,
    fade.row,
    el('label', { className: 'row' }, el('span', {}, 'rotation'), rotation),
    layers,
    motion,
    el('h2', {}, 'Ragdoll'),
    el('div', { className: 'buttons' }, ragdoll, getUp),
    rate.row,
    strength.row,
    el('p', { className: 'hint' }, 'Click the character to hit it where you click.'),
    el('h2', {}, 'Model'),
    picker,
    el('label', { className: 'file' }, 'Your own .glb (pick one, or drop it anywhere) ', file),
    retarget,
    el('h2', {}, 'Crowd'),
    crowd.row,
    plot,
    stats,
    status,
  )

  // Drag and drop anywhere on the page.
  window.addEventListener('dragover', (e) => e.preventDefault())
  window.addEventListener('drop', (e) => {
    e.preventDefault()
    const f = e.dataTransfer?.files[0]
    if (f) on.onFile(f)
  })

  return {
    get fadeSeconds() {
      return Number(fade.input.value)
    },
    get rampRate() {
      return Number(rate.input.value)
    },
    get hitStrength() {
      return Number(strength.input.value)
    },
    get rotation() {
      return rotation.value as RotationChoice
    },
    plotCanvas: plot,
    layersPanel: layers,
    motionPanel: motion,
    retargetPanel: retarget,
    setModel(name, names, picked, credit) {
      source.textContent = name
      for (const b of picker.querySelectorAll<HTMLButtonElement>('button[data-model]')) {
        b.classList.toggle('active', b.dataset.model === picked)
      }
      footer.replaceChildren(credit.text)
      if (credit.license) {
        footer.append(' — see ', el('a', { href: credit.license, target: '_blank' }, credit.license))
      }
      clips.replaceChildren(
        ...names.map((n, i) => {
          const b = el('button', { className: 'clip' }, n)
          b.dataset.clip = `${i}`
          b.addEventListener('click', () => on.onClip(i))
          return b
        }),
      )
      if (names.length === 0) clips.append(el('span', { className: 'hint' }, 'no clips'))
    },
    setActiveClip(index) {
      for (const b of clips.querySelectorAll<HTMLButtonElement>('button[data-clip]')) {
        b.classList.toggle('active', Number(b.dataset.clip) === index)
      }
    },
    setCrowdMax(max) {
      crowd.input.max = `${max}`
    },
    setStats(text) {
      stats.textContent = text
    },
    setStatus(text, error = false) {
      status.textContent = text
      status.classList.toggle('error', error)
    },
  }
}
