/**
 * drei-shaped animation actions (three's AnimationAction calls) on one character of the plugin: what
 * `useAnimations` (./useAnimations.ts) returns, without React, so it is tested in Node against three's mixer.
 *
 * Model: each action that plays holds a layer of its own (1 … maxLayers − 1, lowest free first, in the order
 * they start; layer 0 stays empty and shows the rest pose), an override layer over the ones below. three's mixer
 * mixes its actions by weight, normalized when they sum past 1 and over the rest pose by what they lack below 1;
 * layers apply one over another. With effective weights w₁ … wₙ in layer order, Wₖ = w₁ + … + wₖ and W = Wₙ, layer
 * k gets weight αₖ = wₖ / (max(1, W) − W + Wₖ), which gives every action the share three gives it
 * (translations and scales exactly; rotations exactly when the weights sum to 1 or more, a little apart
 * otherwise: three slerps its mix toward the rest pose, layers slerp from it).
 *
 * Timing: the plugin shows a clip played now at its time 0 at the next step, where three's next update shows
 * it at dt; so the plugin runs one step behind three, and a call's weights apply one step after the call too
 * (its clip starts at once, at weight 0). Fades (fadeIn, fadeOut, crossFadeTo/From) are three's: the action's
 * weight × a ramp over the fade's seconds, counted in fixed steps. Each layer gets a linear ramp to its α at the
 * next fade's start or end (setLayer's fadeSeconds), made again at that step, so the plugin ramps it in the
 * fixed step; where α is not linear in time (fades of different lengths overlap) it is set at every step
 * instead. A fade out that ends turns the action off (`enabled` false) and frees its layer, as three disables
 * it; a 'once' clip that finishes pauses (clampWhenFinished) or turns off, one step after three's does (the
 * plugin reports the end after the step that reaches it). Not mapped: warp (crossFade's time warping), repetitions
 * other than Infinity, and the mixer's own timeScale.
 *
 * @module
 */
import { LoopOnce, LoopPingPong, LoopRepeat, type AnimationActionLoopStyles } from 'three'
import { AnimationError, showValue } from '../../src/errors.ts'
import { isClipEvent, MAX_LAYERS } from '../../entry/index.ts'
import { ActionMixer, type ActionHost, type AnimationAction, type AnimationActions } from './actionApi.ts'

export { ActionMixer, type ActionHost, type AnimationAction, type AnimationActions }
export type { ActionMixerEvents } from './actionApi.ts'

const LOOPS: Record<number, 'once' | 'repeat' | 'pingpong'> = {
  [LoopOnce]: 'once',
  [LoopRepeat]: 'repeat',
  [LoopPingPong]: 'pingpong',
}

interface Fade {
  /** Step the fade started at, its length in steps, and the factor from and to. */
  start: number
  steps: number
  from: number
  to: number
}

interface State {
  readonly action: AnimationAction
  enabled: boolean
  weight: number
  timeScale: number
  paused: boolean
  loop: AnimationActionLoopStyles
  repetitions: number
  clampWhenFinished: boolean
  /** The time while no layer holds it. */
  time: number
  scheduled: boolean
  fade: Fade | null
  /** Layer held (≥ 1), or 0: none. */
  layer: number
}

/** Actions for `clips` (names) of a character, driven through `host` once attached. */
export function createAnimationActions(host: ActionHost, clips: readonly string[]): AnimationActions {
  const { plugin } = host
  const layers = MAX_LAYERS
  let character: number | null = null
  const states: State[] = []
  /** Layer → the state holding it. */
  const holders: (State | null)[] = new Array<State | null>(layers).fill(null)
  /** The step at which the next fade ends (and the plan is made again), or -1. */
  let breakpoint = -1
  /** The step from which a call's weights apply (plan runs before it), or -1. */
  let pending = -1

  const check = (value: unknown, what: string, ok: boolean): void => {
    if (!ok) throw new AnimationError('argument', `AnimationAction.${what}: ${showValue(value)} is not valid`)
  }
  const factorAt = (s: State, step: number): number => {
    const f = s.fade
    if (f === null) return 1
    const t = f.steps <= 0 ? 1 : Math.min(1, Math.max(0, (step - f.start) / f.steps))
    return f.from + (f.to - f.from) * t
  }
  const effective = (s: State, step: number): number =>
    s.scheduled && s.enabled ? s.weight * factorAt(s, step) : 0

  function schedule(s: State, from: number, to: number, seconds: number): void {
    check(seconds, 'fade seconds', typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0)
    // The ramp starts after the coming step: a clip played now shows its time 0 at that step (three's state
    // before its next update), so one step later the plugin is where three is after one update of dt.
    s.fade = { start: host.steps + 1, steps: seconds / plugin.dt, from, to }
  }

  function layerTime(s: State): number {
    if (character === null || s.layer === 0) return s.time
    return plugin.getLayer(character, s.layer).time
  }

  /** Frees the layer of an action that stops showing, keeping its time. */
  function release(s: State): void {
    if (s.layer === 0) return
    if (character !== null) {
      s.time = plugin.getLayer(character, s.layer).time
      plugin.stopLayer(character, s.layer, 0)
    }
    holders[s.layer] = null
    s.layer = 0
  }

  /** Takes the lowest free layer for an action that starts showing, and starts its clip there. */
  function take(s: State): void {
    let layer = 1
    while (layer < layers && holders[layer] !== null) layer++
    if (layer >= layers) {
      throw new AnimationError(
        'capacity',
        `AnimationAction.play("${s.action.name}"): ${layers - 1} actions already play (the plugin's maxLayers)`,
      )
    }
    holders[layer] = s
    s.layer = layer
    if (character === null) return
    plugin.setLayer(character, layer, { weight: 0 })
    plugin.play(character, s.action.name, {
      layer,
      loop: LOOPS[s.loop],
      speed: s.timeScale,
      time: s.time,
    })
    if (s.paused) plugin.pause(character, { layer })
  }

  /**
   * After a call: the actions that start showing take their layers now, at weight 0, so their clips show time
   * 0 at the coming step; the weights follow one step later, when three's next update shows the call (plan,
   * from beforeStep).
   */
  function changed(): void {
    if (pending < 0) pending = host.steps + 1
    for (const s of states) if (s.scheduled && s.enabled && s.layer === 0) take(s)
  }

  /**
   * Brings the layers in line with the actions at this step: who holds a layer, and each layer's weight ramping
   * to its α at the next fade's end (or set, with no fade running).
   */
  function plan(): void {
    const now = host.steps
    pending = -1
    for (const s of states) {
      if (s.fade !== null && now >= s.fade.start + s.fade.steps) {
        // three: a fade that ended leaves the weight factor where it went; one that went to 0 disables the action.
        const to = s.fade.to
        s.fade = null
        if (to === 0) s.enabled = false
      }
      const shows = s.scheduled && s.enabled
      if (!shows && s.layer !== 0) release(s)
      else if (shows && s.layer === 0) take(s)
    }
    // The next moment the weights stop being linear in time: a fade's start or end.
    let next = Infinity
    for (const s of states) {
      const f = s.fade
      if (s.layer === 0 || f === null) continue
      if (f.start > now) next = Math.min(next, f.start)
      else next = Math.min(next, Math.ceil(f.start + f.steps - 1e-9))
    }
    breakpoint = next === Infinity ? -1 : next
    if (character === null) return
    // α just before the breakpoint: an action fading out keeps its share to the end of its fade (a cross-fade's
    // lower layer stays at 1), and is released at the breakpoint itself.
    let at = breakpoint < 0 ? now : breakpoint - 1e-6
    // Each layer starts from its α just after now (a cross-fade's incoming lower layer at 1, not 0/0).
    const start = alphas(now + 1e-6).slice()
    let end = breakpoint < 0 ? start : alphas(at)
    if (breakpoint > now + 1 && !linear(start, end, alphas((now + at) / 2))) {
      // α is not linear up to the breakpoint (two fades overlap): plan again at every step until it is.
      breakpoint = now + 1
      at = breakpoint
      end = alphas(at)
    }
    const seconds = breakpoint < 0 ? 0 : (breakpoint - now) * plugin.dt
    for (let l = 1; l < layers; l++) {
      if (!holders[l]) continue
      if (seconds > 0) plugin.setLayer(character, l, { weight: start[l]! })
      plugin.setLayer(character, l, { weight: end[l]!, fadeSeconds: seconds })
    }
  }

  /** Whether every layer's α midway is the mean of its ends. */
  function linear(start: Float64Array, end: Float64Array, mid: Float64Array): boolean {
    for (let l = 1; l < layers; l++) if (Math.abs(mid[l]! - (start[l]! + end[l]!) / 2) > 1e-9) return false
    return true
  }

  const alphaOut = new Float64Array(layers)
  /** Each layer's α at `step` (see the module comment), into a reused array. */
  function alphas(step: number): Float64Array {
    let total = 0
    for (let l = 1; l < layers; l++) if (holders[l]) total += effective(holders[l]!, step)
    let below = 0
    for (let l = 1; l < layers; l++) {
      const s = holders[l]
      const w = s ? effective(s, step) : 0
      below += w
      alphaOut[l] = w > 0 ? Math.min(1, w / (Math.max(1, total) - total + below)) : 0
    }
    return alphaOut
  }

  function makeAction(name: string): AnimationAction {
    const s = {} as State
    const action: AnimationAction = {
      name,
      get enabled() {
        return s.enabled
      },
      set enabled(value) {
        s.enabled = Boolean(value)
        changed()
      },
      get weight() {
        return s.weight
      },
      set weight(value) {
        action.setEffectiveWeight(value)
      },
      get timeScale() {
        return s.timeScale
      },
      set timeScale(value) {
        action.setEffectiveTimeScale(value)
      },
      get paused() {
        return s.paused
      },
      set paused(value) {
        s.paused = Boolean(value)
        if (character !== null && s.layer !== 0) {
          if (s.paused) plugin.pause(character, { layer: s.layer })
          else plugin.resume(character, { layer: s.layer })
        }
      },
      get loop() {
        return s.loop
      },
      set loop(value) {
        action.setLoop(value, s.repetitions)
      },
      get repetitions() {
        return s.repetitions
      },
      set repetitions(value) {
        s.repetitions = value
      },
      get clampWhenFinished() {
        return s.clampWhenFinished
      },
      set clampWhenFinished(value) {
        s.clampWhenFinished = Boolean(value)
      },
      get time() {
        return layerTime(s)
      },
      set time(value) {
        check(value, 'time', typeof value === 'number' && Number.isFinite(value))
        s.time = value
        if (character !== null && s.layer !== 0) plugin.setTime(character, value, { layer: s.layer })
      },
      play() {
        if (!s.scheduled) {
          s.scheduled = true
          changed()
        }
        return action
      },
      stop() {
        s.scheduled = false
        s.fade = null
        release(s)
        s.time = 0
        changed()
        return action
      },
      reset() {
        s.enabled = true
        s.paused = false
        s.fade = null
        s.time = 0
        if (character !== null && s.layer !== 0) {
          plugin.resume(character, { layer: s.layer })
          plugin.setTime(character, 0, { layer: s.layer })
        }
        changed()
        return action
      },
      isRunning() {
        return s.scheduled && s.enabled && !s.paused && s.timeScale !== 0 && effective(s, host.steps) > 0
      },
      isScheduled() {
        return s.scheduled
      },
      fadeIn(seconds) {
        schedule(s, 0, 1, seconds)
        changed()
        return action
      },
      fadeOut(seconds) {
        schedule(s, 1, 0, seconds)
        changed()
        return action
      },
      crossFadeFrom(previous, seconds) {
        previous.fadeOut(seconds)
        action.fadeIn(seconds)
        return action
      },
      crossFadeTo(next, seconds) {
        next.crossFadeFrom(action, seconds)
        return action
      },
      stopFading() {
        // As three's: the fade's factor goes, the weight is `weight` again.
        s.fade = null
        changed()
        return action
      },
      setEffectiveWeight(weight) {
        check(weight, 'setEffectiveWeight', typeof weight === 'number' && weight >= 0 && weight <= 1)
        s.weight = weight
        s.enabled = true
        changed()
        return action
      },
      getEffectiveWeight() {
        return effective(s, host.steps)
      },
      setEffectiveTimeScale(timeScale) {
        check(timeScale, 'setEffectiveTimeScale', typeof timeScale === 'number' && Number.isFinite(timeScale))
        s.timeScale = timeScale
        if (character !== null && s.layer !== 0) plugin.setSpeed(character, timeScale, { layer: s.layer })
        return action
      },
      getEffectiveTimeScale() {
        return s.paused ? 0 : s.timeScale
      },
      setLoop(mode, repetitions) {
        check(mode, 'setLoop', LOOPS[mode] !== undefined)
        s.loop = mode
        s.repetitions = repetitions
        if (character !== null && s.layer !== 0) {
          // The plugin's loop mode is set by play: replay the clip where it is.
          const time = layerTime(s)
          plugin.play(character, name, { layer: s.layer, loop: LOOPS[mode], speed: s.timeScale, time })
        }
        return action
      },
    }
    Object.assign(s, {
      action,
      enabled: true,
      weight: 1,
      timeScale: 1,
      paused: false,
      loop: LoopRepeat,
      repetitions: Infinity,
      clampWhenFinished: false,
      time: 0,
      scheduled: false,
      fade: null,
      layer: 0,
    } satisfies Omit<State, 'action'> & { action: AnimationAction })
    states.push(s)
    return action
  }

  const actions: Record<string, AnimationAction> = {}
  for (const name of clips) if (!(name in actions)) actions[name] = makeAction(name)
  const mixer = new ActionMixer(() => states.map((s) => s.action))

  return {
    actions,
    mixer,
    get character() {
      return character
    },
    attach(c) {
      character = c
      for (const s of states) {
        if (s.layer === 0) continue
        holders[s.layer] = null
        s.layer = 0
      }
      plan()
    },
    detach() {
      for (const s of states) {
        if (s.layer !== 0) s.time = layerTime(s)
      }
      character = null
    },
    beforeStep() {
      const now = host.steps
      if ((breakpoint >= 0 && now >= breakpoint) || (pending >= 0 && now >= pending)) plan()
    },
    afterStep(firstEvent) {
      if (character === null) return
      const events = plugin.events
      for (let i = firstEvent; i < events.length; i++) {
        const e = events[i]!
        if (e.character !== character || !isClipEvent(e) || e.fading) continue
        const s = holders[e.layer]
        if (!s) continue
        if (e.kind === 'finished') {
          if (s.clampWhenFinished) s.paused = true
          else {
            s.enabled = false
            plan()
          }
          mixer.dispatchEvent({ type: 'finished', action: s.action, direction: s.timeScale < 0 ? -1 : 1 })
        } else if (e.kind === 'loop') {
          mixer.dispatchEvent({ type: 'loop', action: s.action, loopDelta: s.timeScale < 0 ? -1 : 1 })
        }
      }
    },
  }
}
