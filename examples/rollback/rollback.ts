/**
 * A rollback driver, GGPO style, that a game can copy: the plugin and the game's own state are saved before
 * every fixed step into a ring of the last `window` steps; when an input arrives for a step already simulated,
 * both are rewound to before that step and the steps since are simulated again with every input now known.
 *
 * Each step's inputs are applied before the step runs; an input missing when its step ran was predicted as
 * "nothing happens", and the rollback corrects that. The plugin's snapshots go into buffers made once
 * (`snapshotInto`), so saving a step allocates nothing but a buffer that must grow (a ragdoll adds its bodies).
 */
import { AnimationError, type AnimationPlugin } from 'ecs-anim'

/** The game's side of a rollback: its own state saved and rewound with the plugin's, its inputs applied. */
export interface RollbackGame<Input> {
  /** Copies the game's own state (not the plugin's) into slot `slot` of its ring. */
  save(slot: number): void
  /** Puts the game's own state back from slot `slot`. */
  load(slot: number): void
  /** Applies one input, before the fixed step it belongs to runs (it may call the plugin). */
  apply(input: Input): void
}

export interface Rollback<Input> {
  /** Steps simulated so far: the next step to run. */
  readonly step: number
  /** Rollbacks so far, and the steps they simulated again. */
  readonly rollbacks: number
  readonly resimulated: number
  /**
   * An input for step `step`: applied when that step runs; for a step already run, the world is rewound to before
   * it and simulated again up to now. Throws for a step older than the ring keeps.
   */
  add(step: number, input: Input): void
  /** Runs the next fixed step with the inputs known for it. `after` sees every step run, re-runs included. */
  advance(): void
}

export interface RollbackOptions<Input> {
  /** Steps kept: at least the longest input delay + 1. */
  readonly window: number
  /**
   * The order a step's inputs are applied in, the same on every peer whatever order they arrived in (calls
   * in another order can give other bits: which event is queued first, which ragdoll spawns first).
   */
  readonly order: (a: Input, b: Input) => number
  /** Called after each step is run, first runs and re-runs alike (a test records hashes there). */
  readonly after?: (step: number) => void
}

/** A rollback driver for `plugin` and `game` (see the header). */
export function createRollback<Input>(
  plugin: AnimationPlugin,
  game: RollbackGame<Input>,
  { window, order, after = () => {} }: RollbackOptions<Input>,
): Rollback<Input> {
  const inputs = new Map<number, Input[]>()
  // One buffer and length per slot; slot k holds the state before step s when s % window === k.
  const buffers: Uint8Array[] = Array.from({ length: window }, () => new Uint8Array(1 << 16))
  const lengths = new Int32Array(window)
  const savedStep = new Int32Array(window).fill(-1)
  let step = 0
  let rollbacks = 0
  let resimulated = 0

  function save(s: number): void {
    const slot = s % window
    try {
      lengths[slot] = plugin.snapshotInto(buffers[slot]!)
    } catch (error) {
      if (!(error instanceof AnimationError && error.kind === 'capacity')) throw error
      const bytes = plugin.snapshot()
      buffers[slot] = new Uint8Array(2 * bytes.length) // room to grow: made again only when it outgrows this
      buffers[slot]!.set(bytes)
      lengths[slot] = bytes.length
    }
    savedStep[slot] = s
    game.save(slot)
  }

  function run(s: number): void {
    save(s)
    for (const input of inputs.get(s) ?? []) game.apply(input)
    plugin.step()
    after(s)
  }

  return {
    get step() {
      return step
    },
    get rollbacks() {
      return rollbacks
    },
    get resimulated() {
      return resimulated
    },
    add(s, input) {
      let list = inputs.get(s)
      if (list === undefined) inputs.set(s, (list = []))
      list.push(input)
      list.sort(order)
      if (s >= step) return
      const slot = s % window
      if (savedStep[slot] !== s) throw new Error(`rollback: step ${s} is older than the ${window} steps kept`)
      plugin.restore(buffers[slot]!.subarray(0, lengths[slot]))
      game.load(slot)
      rollbacks++
      for (let k = s; k < step; k++, resimulated++) run(k)
    },
    advance() {
      run(step)
      inputs.delete(step - window) // inputs older than the ring are final
      step++
    },
  }
}
