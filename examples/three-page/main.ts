// examples/three-page/main.ts: a Fox loaded by three's GLTFLoader and animated by ecs-anim, with a hat on its
// head. It walks, breaks into a run, is knocked over and gets up, every 8 seconds, among a herd drawn instanced.
import { addEntity, createWorld } from 'bitecs'
import * as THREE from 'three'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { addSceneNode, createAnimationPlugin, createFixedStepper, readAsset } from 'ecs-anim'
import { createInstancedCrowd, createThreeAdapter, viewOfGltf } from 'ecs-anim/three'

// three: renderer, camera, lights. The scene keeps an identity transform (the adapter writes world matrices).
const renderer = new THREE.WebGLRenderer({ antialias: true })
renderer.setSize(innerWidth, innerHeight)
document.body.appendChild(renderer.domElement)
const scene = new THREE.Scene()
scene.background = new THREE.Color(0xa9c4dc)
scene.add(new THREE.HemisphereLight(0xffffff, 0x445533, 3))
scene.add(
  new THREE.Mesh(
    new THREE.CircleGeometry(30, 64).rotateX(-Math.PI / 2),
    new THREE.MeshLambertMaterial({ color: 0x6f8f5a }),
  ),
)
const camera = new THREE.PerspectiveCamera(40, innerWidth / innerHeight, 0.05, 100)
camera.position.set(2.4, 1.3, 2.8)
camera.lookAt(0, 0.35, 0)

// One file, read twice: by ecs-anim (skeleton and clips) and by GLTFLoader (meshes and materials).
const file = await (await fetch('/Fox/glTF-Binary/Fox.glb')).arrayBuffer()
const gltf = await new GLTFLoader().parseAsync(file, '')

const world = createWorld()
const plugin = createAnimationPlugin(world)
const foxAsset = await readAsset(new Uint8Array(file), 'Fox.glb')
const fox = plugin.addCharacter(foxAsset)
const { SceneNode } = plugin.stores
SceneNode.scale.fill(0.01, fox * 3, fox * 3 + 3) // Fox is in centimetres; the physics wants metres
SceneNode.dirty[fox] = 1
plugin.play(fox, 'Walk')

// The adapter: GLTFLoader's objects show the character's SceneNodes.
const adapter = createThreeAdapter(plugin)
const view = viewOfGltf(gltf)
view.scene.traverse((o) => (o.frustumCulled = false)) // a posed or fallen Fox leaves its rest-pose bounds
adapter.bind(fox, view)
scene.add(view.scene)

// A hat: a SceneNode of our own under the head joint (its local transform is the hat's place on the head, in
// the head's centimetres), shown by a three mesh bound to it.
const hatNode = addEntity(world)
addSceneNode(plugin.sceneGraph, hatNode, plugin.jointEntity(fox, 'b_Head_05'))
SceneNode.translation.set([1, 10, 0], hatNode * 3) // the head's +y is up, +x forward
SceneNode.scale.fill(100, hatNode * 3, hatNode * 3 + 3) // back to metres, for a hat made in metres
SceneNode.dirty[hatNode] = 1
const hat = new THREE.Mesh(
  new THREE.ConeGeometry(0.06, 0.2, 24),
  new THREE.MeshLambertMaterial({ color: 0x3050c0 }),
)
hat.geometry.translate(0, 0.1, 0) // its base at the node
adapter.bindObject(hatNode, hat)
scene.add(hat)

// A herd of 24 more Foxes around it, all drawn by one draw call (an InstancedMesh skinned from a texture of
// their skinning palettes), and sampled every 2nd or 4th step beyond 4 and 7 m from the camera.
const herd = createInstancedCrowd(plugin, foxAsset, view)
for (let i = 0; i < 24; i++) {
  const a = (i / 24) * 2 * Math.PI
  const r = 3 + (i % 3) * 2
  const e = plugin.addCharacter(foxAsset)
  plugin.setTransform(e, { position: [r * Math.cos(a), 0, r * Math.sin(a)], scale: [0.01, 0.01, 0.01] })
  plugin.play(e, i % 3 === 0 ? 'Survey' : 'Walk', { time: i * 0.1 })
  herd.add(e)
}
scene.add(herd.object)
plugin.setLod({ near: 4, far: 7, camera: [camera.position.x, camera.position.y, camera.position.z] })

// The story, by fixed step (480 steps = 8 s at plugin.dt = 1/60 s), replayed forever.
const story: Record<number, () => void> = {
  0: () => plugin.crossFade(fox, 'Walk', 0.3),
  120: () => plugin.crossFade(fox, 'Run', 0.3),
  240: () => plugin.ragdoll(fox, { impulse: { joint: 'b_Spine02_03', impulse: [3, 1, 0] } }),
  360: () => plugin.getUp(fox, { clip: 'Survey', play: { loop: 'repeat' } }),
}

// The loop: whole fixed steps for the simulation, capture() after EVERY step, then one render(alpha) per
// frame, which shows the display between the last two steps (alpha: how far the clock is past the last one).
const stepper = createFixedStepper({ dt: plugin.dt })
let last = performance.now()
function frame(now: number): void {
  // A frame's time is when the frame began, which can be before `last` was first read: never below 0. A long
  // pause (a hidden tab) runs at most a quarter second of steps.
  const seconds = Math.min(Math.max(0, now - last) / 1000, 0.25)
  stepper.advance(seconds, () => {
    story[stepper.steps % 480]?.()
    plugin.step()
    adapter.capture()
    herd.capture()
  })
  last = now
  adapter.render(stepper.alpha)
  herd.render(stepper.alpha)
  renderer.render(scene, camera)
  requestAnimationFrame(frame)
}
requestAnimationFrame(frame)

addEventListener('resize', () => {
  renderer.setSize(innerWidth, innerHeight)
  camera.aspect = innerWidth / innerHeight
  camera.updateProjectionMatrix()
})

// For e2e/examples.e2e.test.ts (and the console): the plugin, the character, the stepper, the herd.
Object.assign(window, { example: { plugin, fox, stepper, herd, renderer } })
