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
import type { AssetName } from './options.ts'
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
