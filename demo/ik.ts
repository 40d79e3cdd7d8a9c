import { addEntity } from 'bitecs'
import { Body, Box as BoxShape, Vec3 } from 'cannon-es'
import {
  BoxGeometry,
  Mesh,
  MeshStandardMaterial,
  Plane,
  Raycaster,
  SphereGeometry,
  Vector2,
  Vector3,
  type Object3D,
} from 'three'
import { addSceneNode, type AnimationPlugin } from '../entry/index.ts'
import type { Stage } from './stage.ts'
import { el } from './ui.ts'

/**
 * The IK panel, for a model that says which of its joints to use (demo/shipped.ts `ik`): three toggles, each
 * one built-in solver of plugin.setIK on the hero:
 *
 * - `#ik-look`: the head follows the pointer ('aim', the neck sharing the turn, within yaw and pitch limits): the
 *   pointer's ray meets an upright plane 1.5 m in front of the hero, where a scene node the solver follows is put;
 * - `#ik-feet`: a step under the right foot and a tilted slab under the left, as meshes and as cannon-es bodies in
 *   the plugin's world, and 'feet' on the 'physics' ground;
 * - `#ik-reach`: a ball circling in front of the hero, a scene node moved each fixed step, and 'two-bone' on the
 *   hand with the ball as its target.
 *
 * Everything goes through the public entry (the stage's meshes are the demo's own).
 */
export interface IKDemo {
  /** The joint that aims, its joint-local forward and up, and the joint below it that shares the turn. */
  readonly head: string
  readonly axis: readonly [number, number, number]
  readonly up: readonly [number, number, number]
  readonly neck: string
  /** The hand that reaches (its parent and grandparent bend), and the feet (ankles). */
  readonly hand: string
  readonly feet: readonly [string, string]
}

export interface IKTarget {
  readonly eid: number
  readonly ik: IKDemo
}

export interface IKHandlers {
  /** Runs a UI action, showing what it throws in the status line (main.ts's `act`). */
  act(f: () => unknown): void
}

/** What the e2e test reads: the points the solvers aim at, and the ground's height under each ankle (by ray). */
export interface IKProbe {
  look: [number, number, number]
  ball: [number, number, number]
  /** Height of the step's or slab's top (or the floor, 0) under (x, z), from three's raycaster on the meshes. */
  groundAt(x: number, z: number): number
}

export interface IKPanel {
  show(target: IKTarget | null): void
  /** Before each fixed step: the ball moves on its circle. */
  beforeStep(): void
  /** Once a frame: the ball's and the obstacles' meshes where the simulation has them. */
  afterFrame(): void
  readonly probe: IKProbe
}

/** The ball's circle: in front of the hero's left hand (x, y, z of its centre), radius and turns per second. */
const BALL = { x: 0.25, y: 0.95, z: 0.18, radius: 0.08, speed: 0.35 }
const STEP = { x: -0.17, z: 0.05, half: [0.1, 0.06, 0.25] as const }
const SLAB = { x: 0.17, z: 0.05, half: [0.1, 0.04, 0.3] as const, tilt: 0.2 }

export function createIKPanel(
  root: HTMLElement,
  plugin: AnimationPlugin,
  stage: Stage,
  on: IKHandlers,
): IKPanel {
  let target: IKTarget | null = null
  let steps = 0
  const toggle = (id: string, label: string): HTMLInputElement => {
    const input = el('input', { id, type: 'checkbox' })
    root.append(el('label', { className: 'row' }, input, el('span', {}, label)))
    return input
  }
  root.append(el('h2', {}, 'IK'))
  const look = toggle('ik-look', 'head follows the pointer')
  const feet = toggle('ik-feet', 'feet on a step and a slope')
  const reach = toggle('ik-reach', 'a hand reaches the ball')
  root.append(el('p', { className: 'hint' }, 'Built-in solvers (setIK): aim, feet, two-bone.'))

  // The scene nodes the solvers follow: made once, moved by the demo (a game's own nodes).
  const node = (x: number, y: number, z: number): number => {
    const e = addEntity(plugin.world)
    addSceneNode(plugin.sceneGraph, e)
    plugin.stores.SceneNode.translation.set([x, y, z], 3 * e)
    return e
  }
  const lookNode = node(0, 1.2, 1.5)
  const ballNode = node(BALL.x + BALL.radius, BALL.y, BALL.z)
  const ball = new Mesh(new SphereGeometry(0.04, 16, 12), new MeshStandardMaterial({ color: 0xe05a3a }))
  ball.visible = false
  stage.scene.add(ball)

  // The obstacles: a mesh and a static body each, in the scene and the plugin's world while #ik-feet is on.
  const material = new MeshStandardMaterial({ color: 0x9a8c7a, roughness: 0.9 })
  const obstacle = (x: number, z: number, half: readonly number[], tilt: number) => {
    const mesh = new Mesh(new BoxGeometry(2 * half[0]!, 2 * half[1]!, 2 * half[2]!), material)
    mesh.position.set(x, tilt === 0 ? half[1]! : 0, z)
    mesh.rotation.x = tilt
    mesh.receiveShadow = true
    mesh.updateMatrixWorld(true)
    const body = new Body({ mass: 0, position: new Vec3(mesh.position.x, mesh.position.y, z) })
    body.addShape(new BoxShape(new Vec3(half[0], half[1], half[2])))
    body.quaternion.set(mesh.quaternion.x, mesh.quaternion.y, mesh.quaternion.z, mesh.quaternion.w)
    return { mesh, body }
  }
  const obstacles = [obstacle(STEP.x, STEP.z, STEP.half, 0), obstacle(SLAB.x, SLAB.z, SLAB.half, SLAB.tilt)]

  const apply = (): void => {
    const t = target
    if (t === null) return
    const { eid, ik } = t
    plugin.setIK(
      eid,
      'look',
      look.checked
        ? {
            kind: 'aim',
            joint: ik.head,
            axis: ik.axis,
            up: ik.up,
            target: { entity: lookNode },
            limits: { yaw: 1.3, pitch: 0.7 },
            chain: [{ joint: ik.neck, weight: 0.4 }],
            fadeSeconds: 0.3,
          }
        : null,
    )
    plugin.setIK(
      eid,
      'feet',
      feet.checked ? { kind: 'feet', left: ik.feet[0], right: ik.feet[1], ground: 'physics' } : null,
    )
    plugin.setIK(
      eid,
      'reach',
      reach.checked
        ? { kind: 'two-bone', joint: ik.hand, target: { entity: ballNode }, fadeSeconds: 0.3 }
        : null,
    )
    ball.visible = reach.checked
    for (const o of obstacles) {
      const shown = feet.checked
      if (shown && !o.mesh.parent) {
        stage.scene.add(o.mesh)
        plugin.physics.addBody(o.body)
      } else if (!shown && o.mesh.parent) {
        o.mesh.removeFromParent()
        plugin.physics.removeBody(o.body)
      }
    }
  }
  for (const input of [look, feet, reach]) input.addEventListener('change', () => on.act(apply))

  // The pointer's ray onto an upright plane 1.5 m in front of the hero, facing the camera.
  const raycaster = new Raycaster()
  const canvas = stage.renderer.domElement
  canvas.addEventListener('pointermove', (e) => {
    if (target === null || !look.checked) return
    const r = canvas.getBoundingClientRect()
    const ndc = new Vector2(
      ((e.clientX - r.left) / r.width) * 2 - 1,
      -((e.clientY - r.top) / r.height) * 2 + 1,
    )
    raycaster.setFromCamera(ndc, stage.camera)
    const { position } = plugin.getTransform(target.eid)
    const normal = stage.camera.getWorldDirection(new Vector3()).setY(0).normalize().negate()
    const at = new Vector3(position[0], 1.2, position[2] + 1.5)
    const hit = raycaster.ray.intersectPlane(
      new Plane().setFromNormalAndCoplanarPoint(normal, at),
      new Vector3(),
    )
    if (!hit) return
    const t = plugin.stores.SceneNode.translation
    t.set([hit.x, hit.y, hit.z], 3 * lookNode)
    plugin.stores.SceneNode.dirty[lookNode] = 1
  })

  const down = new Raycaster(new Vector3(), new Vector3(0, -1, 0))
  const at = (e: number): [number, number, number] => {
    const t = plugin.stores.SceneNode.translation
    return [t[3 * e]!, t[3 * e + 1]!, t[3 * e + 2]!]
  }
  return {
    show(next) {
      // The last hero's solvers went with it; the toggles carry over to the new one.
      target = next
      root.hidden = next === null
      on.act(apply)
    },
    beforeStep() {
      steps++
      const a = 2 * Math.PI * BALL.speed * steps * plugin.dt
      const p = [BALL.x + BALL.radius * Math.cos(a), BALL.y + BALL.radius * Math.sin(a), BALL.z] as const
      plugin.stores.SceneNode.translation.set(p, 3 * ballNode)
      plugin.stores.SceneNode.dirty[ballNode] = 1
    },
    afterFrame() {
      ball.position.set(...at(ballNode))
    },
    probe: {
      get look() {
        return at(lookNode)
      },
      get ball() {
        return at(ballNode)
      },
      groundAt(x, z) {
        down.ray.origin.set(x, 5, z)
        const meshes: Object3D[] = obstacles.map((o) => o.mesh).filter((m) => m.parent !== null)
        const hit = down.intersectObjects(meshes, false)[0]
        return hit ? hit.point.y : 0
      },
    },
  }
}
