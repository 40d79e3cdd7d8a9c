/**
 * What an <AnimationProvider> owns, without React: one plugin, its fixed stepper, one three.js adapter, and the
 * instanced crowds and action sets its components add. `frame(seconds)` is the whole per-frame loop of the
 * README's three.js recipe: whole fixed steps, capture() after every step, render(alpha) once.
 *
 * @module
 */
import { createWorld, type World } from 'bitecs'
import { createAnimationPlugin, createFixedStepper } from '../../entry/index.ts'
import type { AnimationPlugin, AnimationPluginOptions, FixedStepper } from '../../entry/index.ts'
import { createThreeAdapter, type InstancedCrowd, type ThreeAdapter } from '../three.ts'

/** Options of createAnimationRuntime (the provider's props). */
export interface AnimationRuntimeOptions {
  /** The plugin's options (createAnimationPlugin). */
  options?: AnimationPluginOptions
  /** The game's bitecs world; default a new one. */
  world?: World
  /** Interpolate the display between the last two steps (render(alpha)); false shows the last step. Default true. */
  interpolate?: boolean
  /** The stepper's maxStepsPerFrame (default 5). */
  maxStepsPerFrame?: number
}

/** Something stepped with the plugin: before each step, and after it with the index of its first event. */
export interface StepHook {
  /** Called before each fixed step. */
  beforeStep(): void
  /** Called after each fixed step (and the captures), with the index of its first event in `plugin.events`. */
  afterStep(firstEvent: number): void
}

/** The plugin and what drives it, for one AnimationProvider. */
export interface AnimationRuntime {
  /** The plugin (useAnimationPlugin returns it). */
  readonly plugin: AnimationPlugin
  /** The fixed stepper the frame loop advances (its `steps` is the simulation clock, `alpha` the display's). */
  readonly stepper: FixedStepper
  /** The three.js adapter every useCharacter and useAnimations binds its objects to. */
  readonly adapter: ThreeAdapter
  /** True once dispose() ran: components cleaning up after their provider skip the plugin. */
  readonly disposed: boolean
  /** Steps run so far (the stepper's clock). */
  readonly steps: number
  /** Captures and renders `crowd` with the characters from now on; returns its removal. */
  addCrowd(crowd: InstancedCrowd): () => void
  /** Calls `hook` around every step from now on; returns its removal. */
  addStepHook(hook: StepHook): () => void
  /**
   * One drawn frame: `seconds` since the last (r3f's delta) in whole fixed steps, then the display. Clears
   * `plugin.events` first, so the frame's events stay readable until the next frame.
   */
  frame(seconds: number): void
  /** Disposes the plugin. */
  dispose(): void
}

/** A runtime with a new plugin (the provider makes it in an effect, never while rendering). */
export function createAnimationRuntime(settings: AnimationRuntimeOptions = {}): AnimationRuntime {
  const plugin = createAnimationPlugin(settings.world ?? createWorld(), settings.options)
  const stepper = createFixedStepper({ dt: plugin.dt, maxStepsPerFrame: settings.maxStepsPerFrame ?? 5 })
  const adapter = createThreeAdapter(plugin)
  const interpolate = settings.interpolate ?? true
  const crowds: InstancedCrowd[] = []
  const hooks: StepHook[] = []
  let disposed = false

  const remover =
    <T>(list: T[], item: T) =>
    (): void => {
      const at = list.indexOf(item)
      if (at >= 0) list.splice(at, 1)
    }

  function step(): void {
    for (let h = 0; h < hooks.length; h++) hooks[h]!.beforeStep()
    const first = plugin.events.length
    plugin.step()
    adapter.capture()
    for (let c = 0; c < crowds.length; c++) crowds[c]!.capture()
    for (let h = 0; h < hooks.length; h++) hooks[h]!.afterStep(first)
  }

  return {
    plugin,
    stepper,
    adapter,
    get disposed() {
      return disposed
    },
    get steps() {
      return stepper.steps
    },
    addCrowd(crowd) {
      crowds.push(crowd)
      return remover(crowds, crowd)
    },
    addStepHook(hook) {
      hooks.push(hook)
      return remover(hooks, hook)
    },
    frame(seconds) {
      if (disposed) return
      plugin.events.length = 0
      // r3f's delta after a hidden tab can be long: the stepper runs at most maxStepsPerFrame of it.
      stepper.advance(seconds >= 0 && Number.isFinite(seconds) ? seconds : 0, step)
      const alpha = interpolate ? stepper.alpha : 1
      adapter.render(alpha)
      for (let c = 0; c < crowds.length; c++) crowds[c]!.render(alpha)
    },
    dispose() {
      if (disposed) return
      disposed = true
      plugin.dispose()
    },
  }
}
