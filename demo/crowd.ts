import { Mesh, Vector3, type Object3D, type Scene } from 'three'
import type { AnimationPlugin } from '../entry/index.ts'
import {
  cloneSceneView,
  createInstancedCrowd,
  viewOfGltf,
  type InstancedCrowd,
  type ThreeAdapter,
} from '../adapters/three.ts'
import type { Stage } from './stage.ts'
import { despawn, spawn, type Character, type Model } from './characters.ts'
import { el } from './ui.ts'

/**
 * Crowd mode: N more characters of the current model on a square grid around the hero (its centre cell left
 * free), playing the model's clips in turn at staggered phases. Phases and facings come from the index, not
 * Math.random, so the same N gives the same state hash every run.
 *
 * Drawn one of two ways (the "instanced" box): each character a SkeletonUtils clone with its own bones (one
 * draw call per mesh per character), or all of them by one InstancedCrowd of the model (one draw call per mesh
 * of the file: the Fox's crowd is one draw call). The simulation is the same either way.
 */
/** Grid cell size as a multiple of the model's footprint. */
export const CROWD_SPACING = 1.15

/** A crowd member: its entity, and its own three objects when it is not drawn instanced. */
export interface Member {
  readonly eid: number
  readonly character: Character | null
}

/** What `probe` measures (see there). */
export interface CrowdProbe {
  /** Pixels that differ from the empty scene with the whole crowd shown (the hero hidden). */
  visible: number
  /** Every 8th pixel of every 8th row of that picture, grey (0–255), to compare two moments. */
  sample: number[]
  /**
   * Crowd member 0 alone, framed by the camera: the pixels its instanced picture and its non-instanced picture
   * (a clone bound to the same character, same step) cover, their intersection over union, and the mean colour
   * difference (0–255, summed over RGB) between the two pictures where either covers.
   */
  single: { instanced: number; cloned: number; iou: number; colour: number }
}

export interface Crowd {
  readonly members: readonly Member[]
  /** Whether the crowd is drawn instanced. */
  readonly instanced: boolean
  /** Adds or removes characters until there are `n` (clamped to [0, max]). Returns the new count. */
  setCount(n: number): number
  /** Switches the drawing (instanced or not), keeping the count. */
  setInstanced(on: boolean): void
  /** Removes everyone (before the model changes). */
  clear(): void
  /** After every fixed step (with the adapter's capture). */
  capture(): void
  /** Once per drawn frame (with the adapter's render). */
  render(alpha: number): void
  /** The "instanced" check box, put after `row` (the crowd slider's). */
  mountToggle(row: Element, onChange: (on: boolean) => void): void
  /** Measures the picture for the e2e test (see CrowdProbe), with `hide` (the hero) hidden. */
  probe(stage: Stage, hide: readonly Object3D[]): CrowdProbe
}

export function createCrowd(
  plugin: AnimationPlugin,
  adapter: ThreeAdapter,
  scene: Scene,
  model: () => Model,
  max: () => number,
): Crowd {
  const members: Member[] = []
  let instanced = false
  /** The instanced crowd of the model on stage, made when the first member is drawn instanced. */
  let batch: { model: Model; crowd: InstancedCrowd } | null = null

  function place(i: number, spacing: number): { x: number; z: number } {
    // Cells in rings around the origin, ring r holding 8r cells; cell 0 of ring 0 is the hero's.
    let ring = 1
    let k = i
    while (k >= 8 * ring) {
      k -= 8 * ring
      ring++
    }
    const side = 2 * ring
    const edge = Math.floor(k / side)
    const t = (k % side) - ring
    const [x, z] = edge === 0 ? [t, -ring] : edge === 1 ? [ring, t] : edge === 2 ? [-t, ring] : [-ring, -t]
    return { x: x * spacing, z: z * spacing }
  }

  function crowdOf(m: Model): InstancedCrowd {
    if (batch?.model !== m) {
      dropBatch()
      const crowd = createInstancedCrowd(plugin, m.handle, viewOfGltf(m.gltf), {
        capacity: Math.max(1, max()),
      })
      scene.add(crowd.object)
      batch = { model: m, crowd }
    }
    return batch.crowd
  }

  function dropBatch(): void {
    if (batch === null) return
    batch.crowd.object.removeFromParent()
    batch.crowd.dispose()
    batch = null
  }

  function add(): void {
    const m = model()
    const i = members.length
    const { x, z } = place(i, m.footprint * CROWD_SPACING)
    const half = ((i * 0.618034) % 1) * Math.PI // a spread of facings, from the golden ratio
    const yaw = [Math.sin(half), Math.cos(half)] as const
    let member: Member
    if (instanced) {
      const eid = plugin.addCharacter(m.handle)
      // What spawn() writes for a drawn character, so both drawings simulate the same crowd.
      const nodes = plugin.stores.SceneNode
      nodes.scale.fill(m.scale, eid * 3, eid * 3 + 3)
      nodes.translation.set([x, m.lift, z], eid * 3)
      nodes.rotation[eid * 4 + 1] = yaw[0]
      nodes.rotation[eid * 4 + 3] = yaw[1]
      nodes.dirty[eid] = 1
      crowdOf(m).add(eid)
      member = { eid, character: null }
    } else {
      const c = spawn(plugin, adapter, scene, m, { x, z, yaw })
      member = { eid: c.eid, character: c }
    }
    const clips = m.clipNames.length
    if (clips > 0) {
      const clip = i % clips
      const duration = m.handle.asset.clips[clip]!.duration
      plugin.play(member.eid, clip, { time: duration > 0 ? (i * 0.37) % duration : 0 })
    }
    members.push(member)
  }

  function removeLast(): void {
    const member = members.pop()!
    if (member.character) despawn(plugin, adapter, member.character)
    else {
      batch?.crowd.remove(member.eid)
      plugin.removeCharacter(member.eid)
    }
  }

  function setCount(n: number): number {
    const target = Math.max(0, Math.min(Math.floor(n), max()))
    while (members.length < target) add()
    while (members.length > target) removeLast()
    return members.length
  }

  function clear(): void {
    while (members.length > 0) removeLast()
    dropBatch()
  }

  function probe(stage: Stage, hide: readonly Object3D[]): CrowdProbe {
    const { renderer, camera } = stage
    const gl = renderer.getContext()
    const w = gl.drawingBufferWidth
    const h = gl.drawingBufferHeight
    const read = (): Uint8Array => {
      renderer.render(scene, camera)
      const px = new Uint8Array(w * h * 4)
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px)
      return px
    }
    const covered = (a: Uint8Array, b: Uint8Array, i: number): boolean =>
      Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!) > 24
    const shown = members.map((m) => m.character?.view.scene).filter((o) => o !== undefined)
    const crowdObjects: Object3D[] = [...shown, ...(batch ? [batch.crowd.object] : [])]
    const setVisible = (objects: readonly Object3D[], on: boolean): void => {
      for (const o of objects) o.visible = on
    }
    setVisible(hide, false)
    try {
      // The whole crowd against the empty scene.
      const withCrowd = read()
      setVisible(crowdObjects, false)
      const empty = read()
      setVisible(crowdObjects, true)
      let visible = 0
      for (let i = 0; i < withCrowd.length; i += 4) if (covered(withCrowd, empty, i)) visible++
      const sample: number[] = []
      for (let y = 0; y < h; y += 8) {
        for (let x = 0; x < w; x += 8) {
          const i = 4 * (y * w + x)
          sample.push(Math.round((withCrowd[i]! + withCrowd[i + 1]! + withCrowd[i + 2]!) / 3))
        }
      }
      return { visible, sample, single: single(stage, read, covered, crowdObjects) }
    } finally {
      setVisible(hide, true)
    }
  }

  /** Member 0 alone, instanced and as a bound clone, framed by the camera (see CrowdProbe.single). */
  function single(
    stage: Stage,
    read: () => Uint8Array,
    covered: (a: Uint8Array, b: Uint8Array, i: number) => boolean,
    crowdObjects: readonly Object3D[],
  ): CrowdProbe['single'] {
    const none = { instanced: 0, cloned: 0, iou: 0, colour: 0 }
    if (!instanced || batch === null || members.length === 0) return none
    const { camera, controls } = stage
    const m = batch.model
    const eid = batch.crowd.characters[0]!
    const world = plugin.stores.SceneNode.world
    const at = new Vector3(world[eid * 16 + 12]!, m.height * 0.45, world[eid * 16 + 14]!)
    const savedCamera = camera.position.clone()
    const savedTarget = controls.target.clone()
    const counts = batch.crowd.meshes.map((mesh) => mesh.count)
    const view = cloneSceneView(viewOfGltf(m.gltf))
    view.scene.traverse((o) => {
      if (o instanceof Mesh) {
        o.frustumCulled = false
        o.castShadow = false
      }
    })
    const binding = adapter.bind(eid, view)
    scene.add(view.scene)
    try {
      const distance = Math.max(m.radius, 0.2) / Math.sin((camera.fov * Math.PI) / 360)
      camera.position.copy(at).addScaledVector(new Vector3(0.62, 0.35, 0.72).normalize(), distance)
      camera.lookAt(at)
      camera.updateMatrixWorld()
      adapter.render(1)
      batch.crowd.render(1)
      for (const mesh of batch.crowd.meshes) mesh.count = 1
      // Only member 0: the instanced crowd's first instance, then its clone, then neither.
      for (const o of crowdObjects) o.visible = false
      view.scene.visible = false
      batch.crowd.object.visible = true
      const a = read()
      batch.crowd.object.visible = false
      view.scene.visible = true
      const b = read()
      view.scene.visible = false
      const empty = read()
      let inA = 0
      let inB = 0
      let both = 0
      let either = 0
      let colour = 0
      for (let i = 0; i < a.length; i += 4) {
        const ca = covered(a, empty, i)
        const cb = covered(b, empty, i)
        inA += ca ? 1 : 0
        inB += cb ? 1 : 0
        both += ca && cb ? 1 : 0
        if (ca || cb) {
          either++
          colour +=
            Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!)
        }
      }
      return {
        instanced: inA,
        cloned: inB,
        iou: both / Math.max(1, either),
        colour: colour / Math.max(1, either),
      }
    } finally {
      adapter.unbind(binding)
      view.scene.removeFromParent()
      batch.crowd.meshes.forEach((mesh, k) => (mesh.count = counts[k]!))
      for (const o of crowdObjects) o.visible = true
      camera.position.copy(savedCamera)
      controls.target.copy(savedTarget)
      camera.lookAt(savedTarget)
      camera.updateMatrixWorld()
    }
  }

  return {
    members,
    get instanced() {
      return instanced
    },
    setCount,
    setInstanced(on) {
      if (on === instanced) return
      const n = members.length
      clear()
      instanced = on
      setCount(n)
    },
    clear,
    capture() {
      batch?.crowd.capture()
    },
    render(alpha) {
      batch?.crowd.render(alpha)
    },
    mountToggle(row, onChange) {
      const box = el('input', { id: 'crowd-instanced', type: 'checkbox', checked: instanced })
      box.addEventListener('change', () => onChange(box.checked))
      row.after(el('label', { className: 'row' }, el('span', {}, 'instanced'), box))
    },
    probe,
  }
}
