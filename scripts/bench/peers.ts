/**
 * Other engines in the benchmark (`--peers babylon,playcanvas`): each loads the scenario's file (the Fox .glb, or
 * the generated rig written as a .glb by rigFile.ts) with its own glTF loader, animates the same crowd with its
 * own animation system, and is checked against the project at the same clip time before it is timed.
 *
 * A peer's modules (and its engine's, which take seconds to load) are imported only when a run asks for it, so
 * the default run (three.js only) neither loads nor bundles them.
 */
import { readFile } from 'node:fs/promises'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import type { CrowdKind, CrowdPlan } from './crowd.ts'
import type { OurCrowd } from './ours.ts'
import type { AssetName, Settings, SideResult } from './options.ts'
import { writeRigFile } from './rigFile.ts'

export type PeerName = 'babylon' | 'playcanvas'
export const PEER_NAMES: readonly PeerName[] = ['babylon', 'playcanvas']

/** One engine's crowd, as ThreeCrowd: a step animates every character, then computes its world matrices. */
export interface PeerCrowd {
  run(steps: number): void
  /** Writes the world matrix (column-major) of character c's glTF node at out[o..o+16). */
  worldMatrix(c: number, node: number, out: Float64Array, o: number): void
}

export interface Peer {
  readonly name: PeerName
  /** Why this engine cannot express the crowd kind, or null when it can. */
  unsupported(kind: CrowdKind): string | null
  /** The crowd of `plan` from `file` (the asset's .glb bytes), set up to show what the project shows. */
  create(plan: CrowdPlan, file: Uint8Array): Promise<PeerCrowd>
}

/** The engine's side of the bench (babylon.ts, playcanvas.ts), imported on first use. */
export async function loadPeer(name: PeerName): Promise<Peer> {
  if (name === 'babylon') return (await import('./babylon.ts')).babylonPeer
  return (await import('./playcanvas.ts')).playCanvasPeer
}

/** The scenario's file as the peers read it: the Fox's .glb, or the generated rig written as one. */
export async function peerFile(name: AssetName, asset: AnimationAsset, foxPath: string): Promise<Uint8Array> {
  return name === 'fox' ? new Uint8Array(await readFile(foxPath)) : writeRigFile(asset)
}

/**
 * How far each peer may part from the project (largest |difference| of a world-matrix element), as a fraction of
 * the character's size (restSize: the Fox 70.2, the rig 2.56), or the bench's own `tolerance` when larger.
 * Babylon.js slerps, as the project: the bench's tolerance (0 here). PlayCanvas samples and blends rotations by
 * normalized lerp (see playcanvas.ts): on the Fox, whose keys are far apart, it parts by up to 0.062 (8.8e-4 of
 * its size; measured over 40 steps of 4 characters), on the rig by ~1e-5; 2e-3 of the size bounds it with room.
 * The blend-space crowd keeps the bench's blend tolerance (three.js also slerps there, the project nlerps).
 */
export const PEER_TOLERANCES: Readonly<Record<PeerName, number>> = { babylon: 0, playcanvas: 2e-3 }

/**
 * Peers that cross-fade by nlerp (PlayCanvas's transitions): a crowd with fading characters is held to the
 * blend tolerance, as the blend-space crowd. The bench's fades last 3600 s, but a long run drifts their weight
 * away from 0: the mostly idle Fox crowd at 100 characters (~15,000 steps, weight ~0.07) parted by 0.23 (3.3e-3
 * of its size), over 2e-3.
 */
export const NLERP_FADES: readonly PeerName[] = ['playcanvas']

export interface PeerCheck {
  /** Largest |peer − ours| over every world-matrix element, per check (the same checks as three.js's). */
  errors: number[]
  maxError: number
  tolerance: number
  /** Largest change of the peer's world matrices between its first and last check: it animates. */
  moved: number
  /** Every error within the tolerance, and moved more than the tolerance. */
  ok: boolean
}

export interface PeerResult {
  name: PeerName
  /** Why the peer did not run this crowd (it cannot express it), or null. */
  skipped: string | null
  check: PeerCheck | null
  /** Its timed side (null when skipped or its check failed), and its ms per step / ours. */
  side: SideResult | null
  slowdown: number | null
}

/** A peer in one scenario: its crowd, and what its checks saw so far. */
export interface PeerSide {
  readonly name: PeerName
  readonly crowd: PeerCrowd | null
  readonly skipped: string | null
  readonly tolerance: number
  readonly errors: number[]
  /** Its world matrices at the first check (the first characters), to see that it moves. */
  readonly first: Float64Array | null
  moved: number
}

/** Characters whose world matrices the animation check keeps. */
const MOVED_CHARACTERS = 16

/** The scenario's peers (settings.peers), each made from the same plan and file, or skipped with its reason. */
export async function createPeerSides(
  plan: CrowdPlan,
  name: AssetName,
  settings: Settings,
  foxPath: string,
  tolerance: number,
  size: number,
): Promise<PeerSide[]> {
  const sides: PeerSide[] = []
  const file = settings.peers.length > 0 ? await peerFile(name, plan.asset, foxPath) : null
  for (const peerName of settings.peers) {
    const peer = await loadPeer(peerName)
    const skipped = peer.unsupported(plan.kind)
    const crowd = skipped === null ? await peer.create(plan, file!) : null
    // Blends by nlerp where the project slerps: held as the blend-space crowd is (see PEER_TOLERANCES).
    const nlerpFades = NLERP_FADES.includes(peerName) && plan.roles.includes('fade')
    const own =
      plan.blend !== null || nlerpFades
        ? settings.blendTolerance * size
        : Math.max(tolerance, PEER_TOLERANCES[peerName] * size)
    sides.push({ name: peerName, crowd, skipped, tolerance: own, errors: [], first: null, moved: 0 })
  }
  return sides
}

/** One check of every peer against the project (after the same steps on every side). */
export function checkPeers(
  peers: readonly PeerSide[],
  ours: OurCrowd,
  compare: (crowd: PeerCrowd) => number,
): void {
  for (const p of peers) {
    if (p.crowd === null) continue
    p.errors.push(compare(p.crowd))
    const now = worldsOf(ours, p.crowd)
    if (p.first === null) (p as { first: Float64Array | null }).first = now
    else for (let k = 0; k < now.length; k++) p.moved = Math.max(p.moved, Math.abs(now[k]! - p.first[k]!))
  }
}

export function peerCheck(p: PeerSide): PeerCheck | null {
  if (p.crowd === null) return null
  const maxError = Math.max(...p.errors)
  const ok = maxError <= p.tolerance && (p.errors.length < 2 || p.moved > p.tolerance)
  return { errors: p.errors, maxError, tolerance: p.tolerance, moved: p.moved, ok }
}

/** The world matrices of the peer's first characters' joints, in the project's joint order. */
function worldsOf(ours: OurCrowd, crowd: PeerCrowd): Float64Array {
  const count = Math.min(MOVED_CHARACTERS, ours.characters.length)
  const out = new Float64Array(count * ours.joints * 16)
  for (let c = 0; c < count; c++)
    for (let j = 0; j < ours.joints; j++)
      crowd.worldMatrix(c, ours.jointNodes[j]!, out, (c * ours.joints + j) * 16)
  return out
}
