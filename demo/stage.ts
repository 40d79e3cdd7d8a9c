import {
  Color,
  DirectionalLight,
  GridHelper,
  HemisphereLight,
  Mesh,
  MeshStandardMaterial,
  PCFShadowMap,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
  Vector3,
  WebGLRenderer,
} from 'three'
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'

/** The three.js side of the demo: renderer, camera with orbit controls, lights, and the ground at y = 0 m. */
export interface Stage {
  readonly renderer: WebGLRenderer
  readonly scene: Scene
  readonly camera: PerspectiveCamera
  readonly controls: OrbitControls
  /**
   * Sizes the sun's shadow to a character of bounding radius `radius` metres at the origin (the Fox: ~0.9 m;
   * RobotExpressive: ~3.3 m, whose shadow a fixed 3 m box cut off).
   */
  fitShadows(radius: number): void
  /** Looks at a character of `height` and bounding `radius` (metres) at the origin from the front-right. */
  frame(height: number, radius: number): void
  /** Backs the camera off along its view line to `distance` from its target (never moves it closer). */
  backOff(distance: number): void
  /** Draws one frame (controls damping, then the scene). */
  draw(): void
}

export function createStage(container: HTMLElement): Stage {
  // preserveDrawingBuffer: the e2e test and the pixel probe read the canvas after the frame is presented.
  const renderer = new WebGLRenderer({ antialias: true, preserveDrawingBuffer: true })
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2))
  renderer.shadowMap.enabled = true
  renderer.shadowMap.type = PCFShadowMap
  container.appendChild(renderer.domElement)

  const scene = new Scene()
  scene.background = new Color(0xa9c4dc)

  const camera = new PerspectiveCamera(45, 1, 0.05, 500)
  camera.position.set(2.4, 1.3, 2.6)
  const controls = new OrbitControls(camera, renderer.domElement)
  controls.target.set(0, 0.35, 0)
  controls.enableDamping = true
  controls.update()

  scene.add(new HemisphereLight(0xdfeeff, 0x4a4030, 1.6))
  const sun = new DirectionalLight(0xffffff, 2.2)
  const towardSun = new Vector3(3, 6, 4).normalize()
  sun.castShadow = true
  sun.shadow.mapSize.set(1024, 1024)
  const fitShadows = (radius: number): void => {
    // A box of at least ±3 m around the origin (room for a small crowd), looking down from the sun.
    const half = Math.max(3, 2 * radius)
    sun.position.copy(towardSun).multiplyScalar(2.5 * half)
    const s = sun.shadow.camera
    s.left = s.bottom = -half
    s.right = s.top = half
    s.near = 0.5 * half
    s.far = 5 * half
    s.updateProjectionMatrix()
  }
  fitShadows(0)
  scene.add(sun)

  const ground = new Mesh(
    new PlaneGeometry(400, 400),
    new MeshStandardMaterial({ color: 0x6f8f5a, roughness: 1 }),
  )
  ground.rotation.x = -Math.PI / 2
  ground.receiveShadow = true
  scene.add(ground)
  const grid = new GridHelper(40, 40, 0x3d5530, 0x56704a)
  grid.position.y = 0.001
  scene.add(grid)

  const resize = (): void => {
    const w = container.clientWidth || 1
    const h = container.clientHeight || 1
    renderer.setSize(w, h)
    camera.aspect = w / h
    camera.updateProjectionMatrix()
  }
  new ResizeObserver(resize).observe(container)
  resize()

  return {
    renderer,
    scene,
    camera,
    controls,
    fitShadows,
    frame(height, radius) {
      controls.target.set(0, height * 0.45, 0)
      const distance = Math.max(radius, 0.2) / Math.sin((camera.fov * Math.PI) / 360)
      const dir = new Vector3(0.62, 0.35, 0.72).normalize()
      camera.position.copy(controls.target).addScaledVector(dir, distance)
      controls.update()
    },
    backOff(distance) {
      const offset = camera.position.clone().sub(controls.target)
      if (offset.length() >= distance) return
      camera.position.copy(controls.target).add(offset.setLength(distance))
      controls.update()
    },
    draw() {
      controls.update()
      renderer.render(scene, camera)
    },
  }
}
