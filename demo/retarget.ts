import type { AnimationPlugin, AssetHandle } from '../entry/index.ts'
import { readAsset } from '../entry/index.ts'
import { fileName, SHIPPED } from './shipped.ts'
import { el } from './ui.ts'

/**
 * The Retarget panel: clips of another humanoid played by the model on stage (anim.retarget, 'auto' map).
 * `#retarget-source` picks a shipped model with clips (the Mannequin's Mixamo-named ones, RobotExpressive's,
 * the Fox's: the auto map refuses a fox, and says why) and `#retarget` brings its clips over; `#retarget-file`
 * ("clips from…") takes them from a .glb of the user's instead. The new clips join the Clips buttons as
 * `<source>: <clip>` and the first plays; `#retarget-line` says what the map matched.
 */
export interface RetargetHandlers {
  /** Runs a UI action, showing what it throws in the status line (main.ts's `act`). */
  act(f: () => unknown): void
  /** Shows a load's failure in the status line (main.ts's `report`). */
  report(error: unknown): void
  /** The model on stage now has these clips added (its Clips buttons grow; the first plays). */
  retargeted(names: readonly string[]): void
}

export interface RetargetPanel {
  /** The model on stage (its asset handle), or null: the panel hides. */
  show(target: AssetHandle | null): void
}

/** Shipped models whose clips the panel offers. */
const SOURCES = SHIPPED.filter((m) => m.name !== 'Fox').concat(SHIPPED.filter((m) => m.name === 'Fox'))

export function createRetargetPanel(
  root: HTMLElement,
  plugin: AnimationPlugin,
  on: RetargetHandlers,
): RetargetPanel {
  let target: AssetHandle | null = null
  /** Source assets read so far, by file name: each is added to the plugin once. */
  const sources = new Map<string, AssetHandle>()
  const select = el(
    'select',
    { id: 'retarget-source' },
    ...SOURCES.map((m) => el('option', { value: m.name }, m.name)),
  )
  const button = el('button', { id: 'retarget' }, 'Retarget')
  const file = el('input', { id: 'retarget-file', type: 'file', accept: '.glb,model/gltf-binary' })
  const line = el('p', { id: 'retarget-line', className: 'hint' })
  root.append(
    el('h2', {}, 'Retarget'),
    el('label', { className: 'row' }, el('span', {}, 'clips from'), select, button),
    el('label', { className: 'file' }, 'clips from… (a .glb of yours) ', file),
    line,
  )

  /** Reads a source once (a file's bytes, or a shipped model's from the site). */
  async function source(name: string, bytes: () => Promise<Uint8Array>): Promise<AssetHandle> {
    const known = sources.get(name)
    if (known) return known
    const handle = plugin.addAsset(await readAsset(await bytes(), name))
    sources.set(name, handle)
    return handle
  }

  function retarget(from: AssetHandle, label: string): void {
    on.act(() => {
      if (!target) return
      const names = plugin.retarget(from, target, { prefix: `${label}: ` })
      const map = Object.entries(plugin.retargetMap(from, target))
      const shown = map.slice(0, 3).map(([t, s]) => `${t} ← ${s}`)
      line.textContent =
        `${names.length} clips from ${label}, ${map.length} joints mapped: ${shown.join(', ')}` +
        (map.length > 3 ? ', …' : '')
      on.retargeted(names)
    })
  }

  button.addEventListener('click', () => {
    const entry = SOURCES.find((m) => m.name === select.value)!
    const url = new URL(entry.path, document.baseURI)
    source(fileName(entry.path), async () => new Uint8Array(await (await fetch(url)).arrayBuffer())).then(
      (from) => retarget(from, entry.name),
      on.report,
    )
  })
  file.addEventListener('change', () => {
    const f = file.files?.[0]
    file.value = ''
    if (!f) return
    source(f.name, async () => new Uint8Array(await f.arrayBuffer())).then(
      (from) => retarget(from, f.name),
      on.report,
    )
  })

  return {
    show(next) {
      target = next
      root.hidden = next === null
      line.textContent = ''
    },
  }
}
