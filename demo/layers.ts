import type { AnimationPlugin, LayerInfo } from '../entry/index.ts'
import type { LayerDemo } from './shipped.ts'
import { el, slider } from './ui.ts'

/**
 * The Layers panel, for every model with clips: the set-up its picker entry gives (RobotExpressive), or one made
 * from the file's clip names and skeleton (demo/layerSetup.ts: a dropped Mixamo export gets an idle ↔ walk ↔
 * run slider and its emotes). Parts a set-up leaves out are hidden.
 *
 * - layer 0, the base: the model's states (`button[data-state=name]`, cross-faded as the Clips buttons are), or
 *   a 1D blend space of two or three clips driven by the `#blend` slider (playBlendSpace, then
 *   setBlendParameter);
 * - layer 1, an override masked to the upper body: the emote buttons (`button[data-emote=name]`) play a clip
 *   once there, fading the layer in, and fade it out again when the clip has played to its end;
 * - layer 2, additive: the `#additive` toggle loops a clip there (masked to the head: a nod) at the weight of
 *   the `#additive-weight` slider;
 * - the face: one slider per morph target (`#face-<target>`), the game's weights over the clips'
 *   (setMorphWeights); all at 0 gives the face back to its clips.
 *
 * `#layer-readout` lists what each layer shows (getLayers). Everything goes through the public entry.
 */

/** Layer of the emotes (an upper-body override) and of the additive clip. */
export const EMOTE_LAYER = 1
export const ADDITIVE_LAYER = 2
/** Seconds over which an emote's layer fades in and out, and the additive layer in and out. */
export const EMOTE_FADE = 0.2
export const ADDITIVE_FADE = 0.3
/** The additive weight slider's start value. */
const ADDITIVE_WEIGHT = 0.8

export interface LayersTarget {
  /** The hero's entity. */
  readonly eid: number
  /** What the model's hero plays in the panel. */
  readonly setup: LayerDemo
  /** A clip's duration in seconds, by name. */
  duration(clip: string): number
}

export interface LayersHandlers {
  /** Runs a UI action, showing what it throws in the status line (main.ts's `act`). */
  act(f: () => unknown): void
  /** Plays a state on the base layer the way the Clips buttons do (cross-fade, loop). */
  playState(clip: string): void
}

export interface LayersPanel {
  /** Shows the panel for a hero and its set-up, its controls back at their start; null hides it. */
  show(target: LayersTarget | null): void
  /** After each frame's steps: an emote that has played to its end fades out. */
  afterSteps(): void
  /** Lights the base state shown and rewrites the readout (a few times a second is enough). */
  refresh(): void
}

export function createLayersPanel(
  root: HTMLElement,
  plugin: AnimationPlugin,
  on: LayersHandlers,
): LayersPanel {
  let target: LayersTarget | null = null
  const states = el('div', { className: 'buttons' })
  const emotesLabel = el('p', { className: 'hint' }, 'Upper-body emote (layer 1, once):')
  const emotes = el('div', { className: 'buttons' })
  const blend = slider('blend', 'blend', 0, 1, 0.05, 0, '')
  const blendHint = el('p', { className: 'hint' })
  const additive = el('input', { id: 'additive', type: 'checkbox' })
  const additiveLabel = el('span')
  const additiveRow = el('label', { className: 'toggle' }, additive, additiveLabel)
  const weight = slider('additive-weight', 'weight', 0, 1, 0.05, ADDITIVE_WEIGHT, '')
  const faceLabel = el('p', { className: 'hint' }, 'Face (morph weights over the clips):')
  const face = el('div')
  let faceSliders: { input: HTMLInputElement; row: HTMLElement }[] = []
  const readout = el('pre', { id: 'layer-readout' })

  root.append(
    el('h2', {}, 'Layers'),
    el('p', { className: 'hint' }, 'Base layer (0):'),
    states,
    blend.row,
    blendHint,
    emotesLabel,
    emotes,
    additiveRow,
    weight.row,
    faceLabel,
    face,
    readout,
  )

  /** The hero and its set-up; throws (into the status line) when the panel is hidden. */
  function current(): LayersTarget {
    if (!target) throw new Error('Layers: no model with layers on stage')
    return target
  }

  blend.input.addEventListener('input', () =>
    on.act(() => {
      const { eid, setup } = current()
      const value = Number(blend.input.value)
      // The first move replaces the base layer's clip by the blend space (a cut: a blend space cannot be
      // cross-faded into yet); later moves only move its parameter.
      if (plugin.getLayer(eid, 0).source === 'blend-space') plugin.setBlendParameter(eid, value)
      else if (setup.blend) {
        const points = setup.blend.map((clip, at) => ({ clip, at }))
        plugin.playBlendSpace(eid, points, { parameter: value })
      }
    }),
  )

  additive.addEventListener('change', () =>
    on.act(() => {
      const { eid, setup } = current()
      if (!additive.checked || !setup.additive) {
        plugin.stopLayer(eid, ADDITIVE_LAYER, ADDITIVE_FADE)
        return
      }
      const { clip, mask } = setup.additive
      plugin.setLayer(eid, ADDITIVE_LAYER, { mode: 'additive', mask, weight: 0 })
      plugin.play(eid, clip, { layer: ADDITIVE_LAYER, loop: 'repeat' })
      plugin.setLayer(eid, ADDITIVE_LAYER, { weight: Number(weight.input.value), fadeSeconds: ADDITIVE_FADE })
    }),
  )
  weight.input.addEventListener('input', () =>
    on.act(() => {
      if (additive.checked)
        plugin.setLayer(current().eid, ADDITIVE_LAYER, { weight: Number(weight.input.value) })
    }),
  )

  /** The face sliders' weights for the face node; all at 0: null, the clips' weights again. */
  function setFace(): void {
    const { eid, setup } = current()
    if (!setup.face) return
    const values = faceSliders.map((s) => Number(s.input.value))
    plugin.setMorphWeights(eid, setup.face.node, values.every((v) => v === 0) ? null : values)
  }

  /** Plays an emote once on the upper-body layer, fading the layer in (see afterSteps for the way out). */
  function emote(clip: string): void {
    const { eid, setup } = current()
    const shown = plugin.getLayer(eid, EMOTE_LAYER)
    if (shown.source === 'clip' && shown.clip === clip) {
      plugin.setTime(eid, 0, { layer: EMOTE_LAYER }) // the same emote again: from its start
    } else if (shown.source === 'clip') {
      plugin.crossFade(eid, clip, EMOTE_FADE, { layer: EMOTE_LAYER, loop: 'once' }) // from the one playing
    } else {
      plugin.setLayer(eid, EMOTE_LAYER, { mode: 'override', mask: setup.upperBody, weight: 0 })
      plugin.play(eid, clip, { layer: EMOTE_LAYER, loop: 'once' })
    }
    // Also cancels a fade-out under way.
    plugin.setLayer(eid, EMOTE_LAYER, { weight: 1, fadeSeconds: EMOTE_FADE })
  }

  function stateButton(clip: string): HTMLButtonElement {
    const b = el('button', { className: 'clip' }, clip)
    b.dataset.state = clip
    b.addEventListener('click', () => on.act(() => on.playState(clip)))
    return b
  }

  function emoteButton(clip: string): HTMLButtonElement {
    const b = el('button', { className: 'clip' }, clip)
    b.dataset.emote = clip
    b.addEventListener('click', () => on.act(() => emote(clip)))
    return b
  }

  return {
    show(next) {
      target = next
      root.hidden = next === null
      if (!next) return
      const { setup } = next
      states.replaceChildren(...setup.states.map(stateButton))
      emotes.replaceChildren(...setup.emotes.map(emoteButton))
      emotesLabel.hidden = emotes.hidden = setup.emotes.length === 0
      setSlider(blend, 0)
      blend.input.max = `${Math.max(1, (setup.blend?.length ?? 2) - 1)}`
      blend.row.hidden = blendHint.hidden = setup.blend === null
      blendHint.textContent = setup.blend
        ? `${setup.blend.map((clip, at) => `${clip} at ${at}`).join(' ↔ ')}, phase-locked (blend space)`
        : ''
      additive.checked = false
      additiveRow.hidden = weight.row.hidden = setup.additive === null
      additiveLabel.textContent = setup.additive
        ? ` additive ${setup.additive.label} (layer 2: ${setup.additive.clip})`
        : ''
      setSlider(weight, ADDITIVE_WEIGHT)
      faceLabel.hidden = face.hidden = setup.face === null
      faceSliders = (setup.face?.targets ?? []).map((name) => {
        const s = slider(`face-${name.replace(/\W+/g, '-')}`, name.toLowerCase(), 0, 1, 0.05, 0, '')
        s.input.addEventListener('input', () => on.act(setFace))
        return s
      })
      face.replaceChildren(...faceSliders.map((s) => s.row))
      readout.textContent = ''
    },
    afterSteps() {
      if (!target) return
      const { eid } = target
      // TODO(events): a 'finished' event for layer clips is being built; until it lands the emote's end is
      // polled here: a once-clip holds its last pose at time = duration, and the layer then fades out and frees.
      const shown = plugin.getLayer(eid, EMOTE_LAYER)
      if (shown.source !== 'clip' || shown.clip === null || shown.targetWeight === 0) return
      if (shown.time >= target.duration(shown.clip)) plugin.stopLayer(eid, EMOTE_LAYER, EMOTE_FADE)
    },
    refresh() {
      if (!target) return
      const layers = plugin.getLayers(target.eid)
      const base = layers[0]!
      for (const b of states.querySelectorAll<HTMLButtonElement>('button[data-state]')) {
        b.classList.toggle('active', base.source === 'clip' && b.dataset.state === base.clip)
      }
      blend.row.classList.toggle('active', base.source === 'blend-space')
      readout.textContent = layers.map(describe).join('\n')
    },
  }
}

/** Moves a slider back without firing its handler (its shown value too, as the slider's own listener would). */
function setSlider(s: { input: HTMLInputElement; row: HTMLElement }, value: number): void {
  s.input.value = `${value}`
  s.row.querySelector('output')!.textContent = `${value} `
}

/** One readout line: index, mode, what plays, weight (and where a ramp heads). */
function describe(l: LayerInfo): string {
  const mode = `${l.mode}${l.masked ? ' masked' : ''}`
  if (l.source === 'none') return `${l.layer} ${mode}: nothing`
  const w = `w ${l.weight.toFixed(2)}${l.targetWeight !== l.weight ? ` → ${l.targetWeight.toFixed(2)}` : ''}`
  let what = ''
  if (l.blendSpace) {
    what = l.blendSpace.clips.map((c, p) => `${c} ${l.blendSpace!.weights[p]!.toFixed(2)}`).join(' + ')
  } else if (l.clip !== null) {
    what = `${l.fade ? `${l.fade.from ?? 'pose'} → ` : ''}${l.clip} ${l.time.toFixed(2)} s`
  }
  return `${l.layer} ${mode}: ${what} · ${w}`
}
