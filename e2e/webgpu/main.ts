// One Fox character shown three ways by the renderer the URL names (?renderer=webgpu, webgpu-gl: WebGPURenderer
// on its WebGL 2 backend, webgl: WebGLRenderer): a clone bound by the adapter (three skins it), the same
// character in an instanced crowd (our palette skinning), and an unbound clone in the rest pose. Each is drawn
// alone and read back; `window.result` says how far apart the pictures are. ?crowd=plain makes the crowd with
// 'ecs-anim/three' (onBeforeCompile only), which WebGPURenderer must refuse.
import { createWorld } from 'bitecs'
import { HemisphereLight, PerspectiveCamera, RenderTarget, Scene, WebGLRenderer, type Object3D } from 'three'
import { WebGPURenderer } from 'three/webgpu'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { createAnimationPlugin, readAsset } from 'ecs-anim'
import {
  cloneSceneView,
  createInstancedCrowd as plainCrowd,
  createThreeAdapter,
  viewOfGltf,
} from 'ecs-anim/three'
import { createInstancedCrowd } from 'ecs-anim/three/webgpu'

const params = new URLSearchParams(location.search)
const kind = params.get('renderer') ?? 'webgpu'
// 128 RGBA8 texels a row: 512 bytes, the row alignment WebGPU's texture copies need.
const W = 128
const H = 128

async function run() {
  const renderer =
    kind === 'webgl'
      ? new WebGLRenderer({ preserveDrawingBuffer: true })
      : new WebGPURenderer({ forceWebGL: kind === 'webgpu-gl' })
  renderer.setSize(W, H)
  document.body.appendChild(renderer.domElement)
  if (renderer instanceof WebGPURenderer) await renderer.init()
  const backend =
    renderer instanceof WebGPURenderer
      ? (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend
        ? 'webgpu'
        : 'webgl2'
      : 'webgl'

  const file = await (await fetch('/Fox/glTF-Binary/Fox.glb')).arrayBuffer()
  const gltf = await new GLTFLoader().parseAsync(file, '')
  const plugin = createAnimationPlugin(createWorld())
  const asset = await readAsset(new Uint8Array(file), 'Fox.glb')
  const fox = plugin.addCharacter(asset)
  plugin.setTransform(fox, { scale: [0.01, 0.01, 0.01] })
  plugin.play(fox, 'Run', { time: 0.3 })
  const adapter = createThreeAdapter(plugin)
  const bound = cloneSceneView(viewOfGltf(gltf))
  adapter.bind(fox, bound)
  const make = params.get('crowd') === 'plain' ? plainCrowd : createInstancedCrowd
  const crowd = make(plugin, asset, viewOfGltf(gltf), { capacity: 4 })
  crowd.add(fox)
  const rest = cloneSceneView(viewOfGltf(gltf)).scene
  rest.scale.setScalar(0.01)

  const scene = new Scene()
  scene.add(new HemisphereLight(0xffffff, 0x445533, 3), bound.scene, crowd.object, rest)
  bound.scene.traverse((o) => (o.frustumCulled = false))
  const camera = new PerspectiveCamera(40, 1, 0.05, 50)
  camera.position.set(1.6, 0.8, 1.6)
  camera.lookAt(0, 0.35, 0)
  for (let i = 0; i < 5; i++) {
    plugin.step()
    adapter.capture()
    crowd.capture()
  }
  adapter.render()
  crowd.render()

  const target = new RenderTarget(W, H)
  const copy = document.createElement('canvas')
  copy.width = W
  copy.height = H
  const g = copy.getContext('2d', { willReadFrequently: true })!
  async function draw(shown: Object3D): Promise<Uint8ClampedArray> {
    for (const o of [bound.scene, crowd.object, rest]) o.visible = o === shown
    if (renderer instanceof WebGPURenderer) {
      // Read back from a render target: headless SwiftShader's WebGPU canvas reads back blank.
      renderer.setRenderTarget(target)
      renderer.render(scene, camera)
      const texels = await renderer.readRenderTargetPixelsAsync(target, 0, 0, W, H)
      renderer.setRenderTarget(null)
      return new Uint8ClampedArray(texels.buffer, texels.byteOffset, W * H * 4)
    }
    renderer.render(scene, camera)
    g.clearRect(0, 0, W, H)
    g.drawImage(renderer.domElement, 0, 0, W, H)
    return g.getImageData(0, 0, W, H).data
  }
  const foreground = (p: Uint8ClampedArray) => {
    let n = 0
    for (let i = 0; i < p.length; i += 4) if (p[i]! + p[i + 1]! + p[i + 2]! > 30) n++
    return n
  }
  const differ = (a: Uint8ClampedArray, b: Uint8ClampedArray) => {
    let n = 0
    for (let i = 0; i < a.length; i += 4)
      if (Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!) > 60)
        n++
    return n
  }
  const adapterPixels = await draw(bound.scene)
  let crowdPixels: Uint8ClampedArray
  try {
    crowdPixels = await draw(crowd.object)
  } catch (error) {
    return { backend, refused: `${(error as Error).name}: ${(error as Error).message}` }
  }
  const restPixels = await draw(rest)
  return {
    backend,
    foreground: foreground(adapterPixels),
    crowdForeground: foreground(crowdPixels),
    crowdVsAdapter: differ(crowdPixels, adapterPixels),
    restVsAdapter: differ(restPixels, adapterPixels),
  }
}

run().then(
  (result) => Object.assign(window, { result }),
  (error: unknown) => Object.assign(window, { result: { error: String(error) } }),
)
