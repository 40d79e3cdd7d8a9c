/**
 * Writes assets/Mannequin/Mannequin.glb: a generated humanoid (scripts/humanoid/) named and shaped as a Mixamo
 * character is (`mixamorig:` joints in centimetres under a turned, 0.01-scaled `Armature`, 65 joints with
 * finger tips and end joints), skinned to a box per bone, with the clips Walk, Run, Idle and Wave and
 * footstep markers in the animations' extras. The repository's own humanoid with clips, for retargeting
 * (README, demo, tests): `npx tsx scripts/make-mannequin.ts` remakes the same bytes.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { Document, NodeIO, type Accessor, type Node } from '@gltf-transform/core'
import { humanoidSkeleton, rotate, type HumanoidSkeleton, type Vec3 } from './humanoid/skeleton.ts'
import { HUMANOID_MOTIONS } from './humanoid/motion.ts'
import { humanoidNodes, localTransforms, posedWorld } from './humanoid/asset.ts'

const OUT = 'assets/Mannequin/Mannequin.glb'
const KEYS_PER_SECOND = 30

/** Footsteps: where each foot lands (the start of its stance), as a fraction of the cycle. */
const FOOTSTEPS: Record<string, [number, string][]> = {
  Walk: [
    [0, 'footstep.L'],
    [0.5, 'footstep.R'],
  ],
  Run: [
    [0, 'footstep.L'],
    [0.5, 'footstep.R'],
  ],
}

function main(): void {
  const s = humanoidSkeleton({
    naming: 'mixamo',
    armature: 'mixamo',
    height: 1.75,
    armDown: 0,
    axes: 'bone-y',
  })
  const doc = new Document()
  const buffer = doc.createBuffer()
  const accessor: MakeAccessor = (type, array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer)
  const scene = doc.createScene('Scene')
  const nodes: Node[] = humanoidNodes(s).map((n) =>
    doc
      .createNode(n.name)
      .setTranslation([...n.translation])
      .setRotation([...n.rotation])
      .setScale([...n.scale]),
  )
  humanoidNodes(s).forEach((n, i) =>
    n.parent >= 0 ? nodes[n.parent]!.addChild(nodes[i]!) : scene.addChild(nodes[i]!),
  )
  const offset = s.armature ? 1 : 0
  const joints = s.joints.map((_, i) => nodes[i + offset]!)

  const skin = doc.createSkin('Mannequin').setSkeleton(joints[0]!)
  for (const j of joints) skin.addJoint(j)
  const ibm = new Float32Array(16 * joints.length)
  // A joint's rest world matrix is its frame at its place, scaled by the Armature's 0.01: the inverse of that.
  const unit = s.armature?.scale ?? 1
  s.joints.forEach((j, i) =>
    ibm.set(
      inverseRigid(j.frame, j.pos).map((v, k) => (k % 4 === 3 ? v : v / unit)),
      16 * i,
    ),
  )
  skin.setInverseBindMatrices(accessor('MAT4', ibm))
  const body = doc
    .createNode('Body')
    .setMesh(boxMesh(doc, accessor, s))
    .setSkin(skin)
  scene.addChild(body)

  for (const [name, motion] of Object.entries(HUMANOID_MOTIONS)) {
    const count = Math.round(motion.seconds * KEYS_PER_SECOND) + 1
    const times = new Float32Array(count).map((_, k) => (k * motion.seconds) / (count - 1))
    const rotations = s.joints.map(() => new Float32Array(4 * count))
    const hips = new Float32Array(3 * count)
    times.forEach((t, k) => {
      const { rot, pos } = posedWorld(s, motion, t)
      localTransforms(s, rot, pos).forEach((l, i) => {
        const prev = rotations[i]!.subarray(4 * k - 4, 4 * k)
        const flip = k > 0 && prev.reduce((a, v, c) => a + v * l.rotation[c]!, 0) < 0 ? -1 : 1
        rotations[i]!.set(
          l.rotation.map((v) => flip * v),
          4 * k,
        )
        if (i === 0) hips.set(l.translation, 3 * k)
      })
    })
    const input = accessor('SCALAR', times)
    const anim = doc.createAnimation(name)
    const channel = (
      node: Node,
      path: 'rotation' | 'translation',
      values: Float32Array<ArrayBuffer>,
      type: 'VEC4' | 'VEC3',
    ) => {
      const sampler = doc
        .createAnimationSampler()
        .setInput(input)
        .setOutput(accessor(type, values))
        .setInterpolation('LINEAR')
      anim
        .addSampler(sampler)
        .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler))
    }
    channel(joints[0]!, 'translation', hips, 'VEC3')
    // Joints that only follow their parent (fingers, end joints) hold their rest rotation: no channel.
    joints.forEach((j, i) => {
      const r = rotations[i]!
      const rest = j.getRotation()
      let moves = false
      for (let k = 0; k < r.length && !moves; k += 4)
        moves =
          Math.abs(r[k]! * rest[0] + r[k + 1]! * rest[1] + r[k + 2]! * rest[2] + r[k + 3]! * rest[3]) <
          1 - 1e-6
      if (moves) channel(j, 'rotation', r, 'VEC4')
    })
    const steps = FOOTSTEPS[name]
    if (steps)
      anim.setExtras({ markers: steps.map(([at, marker]) => ({ name: marker, time: at * motion.seconds })) })
  }
  doc.getRoot().getAsset().generator = 'ecs-anim scripts/make-mannequin.ts'
  mkdirSync('assets/Mannequin', { recursive: true })
  void new NodeIO().writeBinary(doc).then((bytes) => {
    writeFileSync(OUT, bytes)
    console.log(`${OUT}: ${bytes.length} bytes, ${s.joints.length} joints`)
  })
}

/** The inverse of the rigid world transform (rotation `q`, place `p`) as a column-major matrix. */
function inverseRigid(q: readonly number[], p: Vec3): number[] {
  const ax = rotate([-q[0]!, -q[1]!, -q[2]!, q[3]!], [1, 0, 0])
  const ay = rotate([-q[0]!, -q[1]!, -q[2]!, q[3]!], [0, 1, 0])
  const az = rotate([-q[0]!, -q[1]!, -q[2]!, q[3]!], [0, 0, 1])
  const t = rotate([-q[0]!, -q[1]!, -q[2]!, q[3]!], p)
  return [...ax, 0, ...ay, 0, ...az, 0, -t[0], -t[1], -t[2], 1]
}

/**
 * A box around each bone (joint to its first child; the hands, head and feet a block of their own), its
 * vertices weighted wholly to the bone's joint: enough to see a pose, a few kilobytes.
 */
type MakeAccessor = (
  type: 'VEC3' | 'VEC4' | 'SCALAR' | 'MAT4',
  array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>,
) => Accessor

function boxMesh(doc: Document, accessor: MakeAccessor, s: HumanoidSkeleton) {
  const positions: number[] = []
  const normals: number[] = []
  const jointIds: number[] = []
  const weights: number[] = []
  const indices: number[] = []
  s.joints.forEach((j, i) => {
    if (/\.(thumb|index|middle|ring|little)|Top|toeEnd/.test(j.id)) return
    const child = s.joints.findIndex(
      (c) => c.parent === i && !/\.(thumb|index|middle|ring|little)/.test(c.id),
    )
    const to: Vec3 =
      child >= 0 && !/shoulder/.test(j.id) ? s.joints[child]!.pos : [j.pos[0], j.pos[1], j.pos[2]]
    const axis = [to[0] - j.pos[0], to[1] - j.pos[1], to[2] - j.pos[2]] as Vec3
    const length = Math.hypot(...axis)
    const size = /head/.test(j.id)
      ? 0.1
      : /hips|spine/.test(j.id)
        ? 0.13
        : /hand|foot/.test(j.id)
          ? 0.045
          : 0.05
    const half: Vec3 = length > 0.02 ? [size / 2, length / 2, size / 2] : [size, size, size]
    const dir = length > 0.02 ? axis.map((v) => v / length) : [0, 1, 0]
    // The box's frame: y along the bone, x and z across it.
    const ref = Math.abs(dir[1]!) > 0.9 ? [1, 0, 0] : [0, 1, 0]
    const x = normalize(cross(ref, dir))
    const z = cross(dir, x)
    const centre =
      length > 0.02 ? j.pos.map((v, k) => v + axis[k]! / 2) : [j.pos[0], j.pos[1] + size, j.pos[2]]
    for (const [n, u, v] of FACES) {
      const base = positions.length / 3
      for (const [a, b] of [
        [-1, -1],
        [1, -1],
        [1, 1],
        [-1, 1],
      ] as const) {
        const local = [0, 0, 0]
        local[n[0]!] = n[1]!
        local[u] = a
        local[v] = b
        const frame = [x, dir, z]
        const p = [0, 1, 2].map(
          (k) => centre[k]! + [0, 1, 2].reduce((acc, c) => acc + frame[c]![k]! * half[c]! * local[c]!, 0),
        )
        positions.push(...p)
        normals.push(...[0, 1, 2].map((k) => frame[n[0]!]![k]! * n[1]!))
        jointIds.push(i, 0, 0, 0)
        weights.push(1, 0, 0, 0)
      }
      indices.push(base, base + 1, base + 2, base, base + 2, base + 3)
    }
  })
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array(positions)))
    .setAttribute('NORMAL', accessor('VEC3', new Float32Array(normals)))
    .setAttribute('JOINTS_0', accessor('VEC4', new Uint16Array(jointIds)))
    .setAttribute('WEIGHTS_0', accessor('VEC4', new Float32Array(weights)))
    .setIndices(accessor('SCALAR', new Uint16Array(indices)))
    .setMaterial(
      doc
        .createMaterial('Clay')
        .setBaseColorFactor([0.55, 0.62, 0.72, 1])
        .setMetallicFactor(0)
        .setRoughnessFactor(0.8)
        .setDoubleSided(true),
    )
  return doc.createMesh('Body').addPrimitive(primitive)
}

/** The six faces of a box: [axis, side] of the normal and the two axes across it (drawn double-sided). */
const FACES: [[number, number], number, number][] = [
  [[0, 1], 1, 2],
  [[0, -1], 2, 1],
  [[1, 1], 2, 0],
  [[1, -1], 0, 2],
  [[2, 1], 0, 1],
  [[2, -1], 1, 0],
]

function cross(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!]
}
function normalize(v: Vec3): Vec3 {
  const l = Math.hypot(...v)
  return [v[0] / l, v[1] / l, v[2] / l]
}

main()
