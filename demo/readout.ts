import { isClipEvent, type AnimationEvent, type AnimationPlugin } from '../entry/index.ts'
import type { ThreeAdapter } from '../adapters/three.ts'
import type { Character, Model } from './characters.ts'
import type { Crowd } from './crowd.ts'
import type { Footsteps } from './footsteps.ts'
import type { createHook } from './hook.ts'
import type { RagdollPanel } from './ragdolls.ts'
import type { Stage } from './stage.ts'
import type { StatsWindow } from './timing.ts'
import type { Ui } from './ui.ts'

/** What the readouts read and write (demo/main.ts): the page's parts, and its state through getters. */
export interface ReadoutSources {
  readonly plugin: AnimationPlugin
  readonly adapter: ThreeAdapter
  readonly stage: Stage
  readonly ui: Ui
  readonly stats: StatsWindow
  readonly footsteps: Footsteps
  readonly ragdolls: RagdollPanel
  readonly crowd: Crowd
  readonly hook: ReturnType<typeof createHook>
  hero(): Character | null
  model(): Model | null
  steps(): number
}

/** The page's readouts: the events the steps reported, and the stats text. */
export function createReadout(s: ReadoutSources) {
  const { plugin, hook, ui } = s
  return {
    /**
     * What the steps reported: the hero's footstep markers flash a ring at the paw (demo/footsteps.ts); other
     * clip events (loops, ends) go to the hook only; what the step caught and handled (an exploded ragdoll, a
     * pose that was not finite) and get-ups to the console and the newest to the status line, as a notice (the
     * step already recovered). The list is cleared when read.
     */
    showEvents(): void {
      const hero = s.hero()
      const model = s.model()
      let notice: AnimationEvent | null = null
      for (const e of plugin.events) {
        if (hero && model && s.footsteps.onEvent(e, hero.eid, 0.3 * model.footprint)) continue
        const line = `step ${e.step}: ${e.kind}: ${e.message}`
        hook.events.push(line)
        if (isClipEvent(e)) continue
        console.warn(line)
        s.ragdolls.onEvent(e)
        notice = e
      }
      if (notice) ui.setStatus(`${notice.kind}: ${notice.message}`)
      plugin.events.length = 0
    },

    /** The stats text (timings, counts, the hero's ragdoll state, the state hash), and the hook's copy. */
    updateStats(): void {
      const { rows, lines } = s.stats.take()
      hook.timings = Object.fromEntries(rows.map((r) => [r.name, r.ms]))
      hook.hash = plugin.hash()
      hook.statsUpdates++
      const { crowd } = s
      const characters = `characters ${1 + crowd.members.length}${crowd.instanced ? ' (crowd instanced)' : ''}`
      const calls = `draw calls ${s.stage.renderer.info.render.calls}`
      lines.push(
        `${characters} · ${calls} · nodes bound ${s.adapter.stats.bound} · written ${s.adapter.stats.uploads}`,
      )
      if (s.hero()) lines.push(`ragdoll ${hook.ragdollState()} · weight ${hook.weight().toFixed(2)}`)
      lines.push(`hash ${hook.hash} (step ${s.steps()})`)
      ui.setStats(lines.filter(Boolean).join('\n'))
    },
  }
}
