import type { AnimationGraph, GraphStateInfo } from '../../entry/index.ts'
import { el } from '../ui.ts'

/**
 * The live view of a graph: per layer its states (`[data-state]`, the one the layer is in marked `current`, the
 * one a transition heads to `next`), its transitions (`li[data-transition]`, the one running marked `active`) with
 * the running one's progress bar, and the state's time. Built once from the graph; `update` takes getState's
 * answers for each layer by name.
 */
export interface GraphView {
  update(states: Readonly<Record<string, GraphStateInfo>>): void
}

export function createGraphView(root: HTMLElement, graph: AnimationGraph): GraphView {
  const layers = graph.layers.map((layer, k) => {
    const states = Object.keys(layer.states).map((name) => {
      const state = layer.states[name]!
      const plays = 'clip' in state ? String(state.clip) : 'blendSpace' in state ? 'blend space' : 'empty'
      return data(el('span', { className: 'state', title: plays }, name), { state: name })
    })
    const transitions = (layer.transitions ?? []).map((t, i) => {
      const when = (t.when ?? []).map((c) => c.map(String).join(' ')).join(', ')
      const exit = t.exitTime === undefined ? '' : ` · at ${t.exitTime}`
      const text = `${t.from} → ${t.to}${when ? ` · ${when}` : ''}${exit} · ${t.duration ?? 0} s`
      return data(el('li', {}, text), { transition: `${i}`, from: t.from, to: t.to })
    })
    const bar = el('div', { className: 'bar' })
    const time = el('p', { className: 'hint' })
    const section = data(
      el(
        'section',
        { className: 'graph-layer' },
        el('h2', {}, `layer ${k} · ${layer.name}`),
        el('div', { className: 'states' }, ...states),
        el('ol', { className: 'transitions' }, ...transitions),
        el('div', { className: 'progress' }, bar),
        time,
      ),
      { layer: layer.name },
    )
    root.append(section)
    return { name: layer.name, states, transitions, bar, time }
  })
  return {
    update(info) {
      for (const layer of layers) {
        const s = info[layer.name]
        if (!s) continue
        const next = s.transition?.to ?? null
        for (const chip of layer.states) {
          chip.classList.toggle('current', chip.dataset.state === s.state)
          chip.classList.toggle('next', chip.dataset.state === next)
        }
        // The transition running: the first in list order from this state (or any) to where it heads.
        const running = layer.transitions.find(
          (li) =>
            next !== null &&
            li.dataset.to === next &&
            (li.dataset.from === s.state || li.dataset.from === 'any'),
        )
        for (const li of layer.transitions) li.classList.toggle('active', li === running)
        layer.bar.style.width = `${Math.round((s.transition?.progress ?? 0) * 100)}%`
        layer.time.textContent = `${s.state}: ${s.time.toFixed(2)} s (normalized ${s.normalizedTime.toFixed(2)})`
      }
    },
  }
}

/** `e` with data attributes (`dataset` has only a getter: el's Object.assign cannot set it). */
function data<T extends HTMLElement>(e: T, values: Record<string, string>): T {
  Object.assign(e.dataset, values)
  return e
}
