/**
 * A small bitecs game with ecs-anim plugged in: the game keeps its own world, components and systems, and the
 * plugin's systems run at the end of the game's pipeline. Two Foxes: Red walks toward Blue, breaks into a run
 * (a cross-fade), and charges into it; Blue loses its health, is knocked over (a ragdoll with the hit as an
 * impulse) and gets up again after two seconds.
 *
 * Everything comes from the public entries, 'ecs-anim' and 'ecs-anim/node'. `runGame` returns what it printed
 * and a few readings, so examples/bitecs-game/example.test.ts can check the story; main.ts prints it.
 */
import { fileURLToPath } from 'node:url'
import { addComponent, createWorld, hasComponent, query, removeComponent, type World } from 'bitecs'
import { createAnimationPlugin, PROBLEM_EVENT_KINDS } from 'ecs-anim'
import { loadAsset } from 'ecs-anim/node'

/** The shipped Fox. It is authored in centimetres; its root scale 0.01 puts it in metres for the physics. */
export const FOX = fileURLToPath(new URL('../../assets/Fox/glTF-Binary/Fox.glb', import.meta.url))

/** Every entity id of the world (the game's own and the plugin's) stays below this. */
const CAPACITY = 1024
const WALK_SPEED = 0.6 // m/s
const RUN_SPEED = 2.4
/** Red runs once it is this close, and hits once its root is this close to Blue's (the Foxes are ~1 m long). */
const CHARGE_DISTANCE = 2.5
const REACH = 0.9
const HIT_DAMAGE = 120
/** N·s at Blue's spine, along the charge and a little up. */
const HIT_IMPULSE = 6
const DOWN_SECONDS = 2

export interface GameResult {
  /** What the game printed, in order. */
  readonly lines: string[]
  /** Steps run (the plugin's fixed step, 1/60 s). */
  readonly steps: number
  /** The plugin's state hash at the end: the same for every run. */
  readonly hash: string
  /** Blue's head height above the ground (m): standing before the hit, lying one second after, standing again. */
  readonly blueHead: { readonly before: number; readonly down: number; readonly after: number }
  /** What the plugin's step caught and handled (nothing, in this story). */
  readonly events: number
}

export async function runGame(options: { steps?: number } = {}): Promise<GameResult> {
  const steps = options.steps ?? 360
  const world = createWorld()

  // The game's own components: bitecs 0.4 takes any object as a component; these are arrays by entity id.
  const Name: string[] = []
  const Position = { x: new Float32Array(CAPACITY), z: new Float32Array(CAPACITY) }
  const Velocity = { x: new Float32Array(CAPACITY), z: new Float32Array(CAPACITY) }
  const Health = { hp: new Float32Array(CAPACITY), max: new Float32Array(CAPACITY) }
  /** Heads for `target` and hits it once. */
  const Attacker = { target: new Int32Array(CAPACITY) }
  /** The direction (unit, on the ground) of the last hit taken. */
  const Hit = { x: new Float32Array(CAPACITY), z: new Float32Array(CAPACITY) }
  /** The clip a character's gait asks for (index into GAITS), so a change cross-fades once. */
  const Gait = { clip: new Uint8Array(CAPACITY) }
  /** Knocked over at step `since`. */
  const KnockedDown = { since: new Int32Array(CAPACITY) }
  const GAITS = ['Survey', 'Walk', 'Run'] as const

  // The plugin: a few lines. Its stores are sized for every entity id of the world, the game's own included.
  const anim = createAnimationPlugin(world, { capacity: CAPACITY })
  const fox = anim.addAsset(await loadAsset(FOX))
  const { SceneNode, Ragdoll } = anim.stores

  const lines: string[] = []
  let step = 0
  const log = (eid: number, text: string): void => {
    lines.push(`t=${(step * anim.dt).toFixed(2)}s  ${Name[eid]!.padEnd(4)} ${text}`)
  }
  const headHeight = (eid: number): number => SceneNode.world[anim.jointEntity(eid, 'b_Head_05') * 16 + 13]!

  /** A Fox: the plugin's character entity, which the game's own components then join. */
  function spawn(name: string, x: number, z: number, facing: 1 | -1): number {
    const eid = anim.addCharacter(fox)
    SceneNode.scale.fill(0.01, eid * 3, eid * 3 + 3)
    // The Fox faces +z; a half turn about +y (quaternion 0 1 0 0) faces it -z.
    if (facing < 0) SceneNode.rotation.set([0, 1, 0, 0], eid * 4)
    for (const c of [Position, Velocity, Health, Gait]) addComponent(world, eid, c)
    Name[eid] = name
    Position.x[eid] = x
    Position.z[eid] = z
    Health.hp[eid] = Health.max[eid] = 100
    anim.play(eid, 'Survey')
    return eid
  }

  const standing = (eid: number): boolean =>
    Ragdoll.active[eid] === 0 && !hasComponent(world, eid, KnockedDown)

  // The game's systems.

  /** Attackers head for their target: walk, run when close, stop in reach (and hit: see strike). */
  function steer(w: World): void {
    for (const eid of query(w, [Attacker, Velocity, Position])) {
      const target = Attacker.target[eid]!
      const dx = Position.x[target]! - Position.x[eid]!
      const dz = Position.z[target]! - Position.z[eid]!
      const distance = Math.sqrt(dx * dx + dz * dz)
      const speed =
        !standing(target) || distance <= REACH ? 0 : distance < CHARGE_DISTANCE ? RUN_SPEED : WALK_SPEED
      Velocity.x[eid] = distance > 0 ? (dx / distance) * speed : 0
      Velocity.z[eid] = distance > 0 ? (dz / distance) * speed : 0
    }
  }

  /** Position += velocity · dt, written to the character's root SceneNode (which moves its whole skeleton). */
  function move(w: World): void {
    for (const eid of query(w, [Position, Velocity])) {
      Position.x[eid]! += Velocity.x[eid]! * anim.dt
      Position.z[eid]! += Velocity.z[eid]! * anim.dt
      SceneNode.translation[eid * 3] = Position.x[eid]!
      SceneNode.translation[eid * 3 + 2] = Position.z[eid]!
      SceneNode.dirty[eid] = 1
    }
  }

  /** Speed picks the clip; a change cross-fades into it (0.3 s). Knocked-over characters are the ragdoll's. */
  function locomotion(w: World): void {
    for (const eid of query(w, [Velocity, Gait])) {
      if (!standing(eid)) continue
      const speed = Math.sqrt(Velocity.x[eid]! ** 2 + Velocity.z[eid]! ** 2)
      const gait = speed === 0 ? 0 : speed < 1.5 ? 1 : 2
      if (gait === Gait.clip[eid]) continue
      log(eid, `${GAITS[Gait.clip[eid]!]} → ${GAITS[gait]} (cross-fade 0.3 s)`)
      Gait.clip[eid] = gait
      anim.crossFade(eid, GAITS[gait]!, 0.3)
    }
  }

  /** An attacker in reach of its standing target hits it, once: then it stops and is no attacker any more. */
  function strike(w: World): void {
    for (const eid of query(w, [Attacker, Position])) {
      const target = Attacker.target[eid]!
      const dx = Position.x[target]! - Position.x[eid]!
      const dz = Position.z[target]! - Position.z[eid]!
      const d = Math.sqrt(dx * dx + dz * dz)
      if (!standing(target) || d > REACH) continue
      const hp = Health.hp[target]!
      Health.hp[target] = Math.max(0, hp - HIT_DAMAGE)
      addComponent(w, target, Hit)
      Hit.x[target] = d > 0 ? dx / d : 0
      Hit.z[target] = d > 0 ? dz / d : 1
      log(target, `hit by ${Name[eid]}: health ${hp} → ${Health.hp[target]}`)
      removeComponent(w, eid, Attacker)
      Velocity.x[eid] = Velocity.z[eid] = 0
    }
  }

  /** The game decides when a character goes down: no health left. The hit's direction becomes the impulse. */
  function knockdown(w: World): void {
    for (const eid of query(w, [Health, Hit])) {
      if (Health.hp[eid]! > 0 || hasComponent(w, eid, KnockedDown)) continue
      const impulse = [Hit.x[eid]! * HIT_IMPULSE, 0.3 * HIT_IMPULSE, Hit.z[eid]! * HIT_IMPULSE] as const
      anim.ragdoll(eid, { impulse: { joint: 'b_Spine02_03', impulse } })
      addComponent(w, eid, KnockedDown)
      KnockedDown.since[eid] = step
      Velocity.x[eid] = Velocity.z[eid] = 0
      log(eid, `knocked over (ragdoll, ${HIT_IMPULSE} N·s at the spine)`)
    }
  }

  /** Two seconds down, then get up into Survey with full health; standing once the ragdoll weight is back at 0. */
  function recover(w: World): void {
    for (const eid of query(w, [KnockedDown])) {
      if (Ragdoll.active[eid] === 1 && (step - KnockedDown.since[eid]!) * anim.dt >= DOWN_SECONDS) {
        log(eid, `gets up (head at ${headHeight(eid).toFixed(2)} m)`)
        anim.getUp(eid, { clip: 'Survey', play: { loop: 'repeat' } })
        Health.hp[eid] = Health.max[eid]!
        Gait.clip[eid] = 0
      } else if (Ragdoll.active[eid] === 0) {
        removeComponent(w, eid, KnockedDown)
        log(eid, `standing again (head at ${headHeight(eid).toFixed(2)} m)`)
      }
    }
  }

  // The game's pipeline, then the plugin's systems in their order (the same as anim.step()).
  const pipeline = [steer, move, locomotion, strike, knockdown, recover, ...anim.systems]

  const red = spawn('Red', 0, -4, 1)
  const blue = spawn('Blue', 0, 0, -1)
  addComponent(world, red, Attacker)
  Attacker.target[red] = blue
  lines.push(
    `Red (entity ${red}) and Blue (entity ${blue}), Foxes of ${anim.joints(red).length} joints, 4 m apart`,
  )

  let before = NaN
  let down = NaN
  for (; step < steps; step++) {
    for (const system of pipeline) system(world)
    if (Number.isNaN(down) && Health.hp[blue] === 100) before = headHeight(blue)
    if (hasComponent(world, blue, KnockedDown) && step - KnockedDown.since[blue]! === 60) {
      down = headHeight(blue)
      log(blue, `lies on the ground (head at ${down.toFixed(2)} m)`)
    }
  }
  const after = headHeight(blue)
  const hash = anim.hash()
  lines.push(`${steps} steps, state hash ${hash}`)
  return {
    lines,
    steps,
    hash,
    blueHead: { before, down, after },
    events: anim.events.filter((e) => (PROBLEM_EVENT_KINDS as readonly string[]).includes(e.kind)).length,
  }
}
