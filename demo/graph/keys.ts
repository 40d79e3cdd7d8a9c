/**
 * The state machine page's keyboard, as the game's input: W A S D move (forward, left, back, right on the
 * ground, as seen by the camera's starting view), Shift runs, Space jumps while held, E waves. `keysToInput`
 * turns the keys held into the graph's parameters and a walking direction; nothing here touches the plugin.
 */

/** What the keys held ask for. */
export interface KeyInput {
  /** The `speed` parameter: 0 standing, WALK_SPEED walking, RUN_SPEED running (the blend space's points). */
  readonly speed: number
  /** The `grounded` parameter: false while Space is held. */
  readonly grounded: boolean
  /** The direction to walk on the ground plane (x, z), unit length; [0, 0] standing. */
  readonly direction: readonly [number, number]
}

export const WALK_SPEED = 1.5
export const RUN_SPEED = 4
/** Metres a second the character covers at speed 1 (RobotExpressive is 4.8 m tall). */
export const METRES_PER_SPEED = 1.4

/** The keys (KeyboardEvent.code) the page listens to. */
export const KEYS = ['KeyW', 'KeyA', 'KeyS', 'KeyD', 'ShiftLeft', 'ShiftRight', 'Space', 'KeyE'] as const

export function keysToInput(held: ReadonlySet<string>): KeyInput {
  let x = 0
  let z = 0
  if (held.has('KeyW')) z -= 1
  if (held.has('KeyS')) z += 1
  if (held.has('KeyA')) x -= 1
  if (held.has('KeyD')) x += 1
  const length = Math.hypot(x, z)
  const moving = length > 0
  const running = held.has('ShiftLeft') || held.has('ShiftRight')
  return {
    speed: moving ? (running ? RUN_SPEED : WALK_SPEED) : 0,
    grounded: !held.has('Space'),
    direction: moving ? [x / length, z / length] : [0, 0],
  }
}
