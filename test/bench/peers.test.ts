/**
 * The bench's peers (scripts/bench/babylon.ts, playcanvas.ts) agree with the project at the same clip time, and
 * animate, on the crowds they express: a few characters, a few steps, in this process (no timing). Also the
 * peers column of a tiny bench run, and that the check can fail (a peer a step ahead of the project).
 */
import { describe, expect, it } from 'vitest'
import { makeCrowdPlan, type CrowdKind } from '../../scripts/bench/crowd.ts'
import { createOurCrowd } from '../../scripts/bench/ours.ts'
import {
  loadPeer,
  NLERP_FADES,
  peerFile,
  PEER_NAMES,
  PEER_TOLERANCES,
  type PeerName,
} from '../../scripts/bench/peers.ts'
import { formatReport } from '../../scripts/bench/report.ts'
import { runBenchmark } from '../../scripts/bench/run.ts'
import { BLEND_TOLERANCE, type AssetName } from '../../scripts/bench/options.ts'
import { compareWorlds, loadBenchAsset, planOptions } from '../../scripts/bench/scenarioJob.ts'
import { restSize } from '../../scripts/bench/three.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const CROWDS: CrowdKind[] = ['playing', 'moving', 'idle', 'blend-space']
const STEPS = 12

/** The largest error over STEPS steps (checked after each), and how far the peer's first character moved. */
async function agreement(peerName: PeerName, assetName: AssetName, kind: CrowdKind, lead = 0) {
  const asset = await loadBenchAsset(assetName, 8, FOX)
  // A short fade (0.1 s) so the moving crowd's fades run through and end inside the steps.
  const plan = makeCrowdPlan(asset, 4, kind, {
    ...planOptions(assetName, kind),
    fadeSeconds: 0.1,
    dt: 1 / 60,
  })
  const ours = createOurCrowd(plan)
  const peer = await loadPeer(peerName)
  const crowd = await peer.create(plan, await peerFile(assetName, asset, FOX))
  crowd.run(lead)
  const start = new Float64Array(16 * ours.joints)
  const now = new Float64Array(16)
  for (let j = 0; j < ours.joints; j++) crowd.worldMatrix(0, ours.jointNodes[j]!, start, 16 * j)
  let worst = compareWorlds(plan, ours, crowd)
  for (let s = 0; s < STEPS; s++) {
    ours.run(1)
    crowd.run(1)
    worst = Math.max(worst, compareWorlds(plan, ours, crowd))
  }
  let moved = 0
  for (let j = 0; j < ours.joints; j++) {
    crowd.worldMatrix(0, ours.jointNodes[j]!, now, 0)
    for (let k = 0; k < 16; k++) moved = Math.max(moved, Math.abs(now[k]! - start[16 * j + k]!))
  }
  const size = restSize(asset)
  // PlayCanvas also cross-fades by nlerp: mid-fade it parts from the project's slerp as a blend space does.
  const blends = kind === 'blend-space' || (plan.roles.includes('fade') && NLERP_FADES.includes(peerName))
  const tolerance = blends ? BLEND_TOLERANCE * size : Math.max(1e-4, PEER_TOLERANCES[peerName] * size)
  return { worst, moved, tolerance }
}

describe.each(PEER_NAMES)('peer %s', (peerName) => {
  for (const assetName of ['rig-linear', 'fox'] as const) {
    for (const kind of CROWDS) {
      it(`agrees with the project and animates: ${assetName} ${kind}`, async () => {
        const peer = await loadPeer(peerName)
        if (peer.unsupported(kind) !== null) return
        const { worst, moved, tolerance } = await agreement(peerName, assetName, kind)
        expect(worst).toBeLessThanOrEqual(tolerance)
        expect(moved).toBeGreaterThan(tolerance)
      })
    }
  }

  it('fails the check when a step ahead of the project', async () => {
    const { worst, tolerance } = await agreement(peerName, 'fox', 'playing', 1)
    expect(worst).toBeGreaterThan(tolerance)
  })
})

describe('bench --peers', () => {
  it('checks and times the peers beside three.js, and reports them', async () => {
    const result = await runBenchmark({
      sections: ['crowds'],
      assets: ['rig-linear'],
      crowds: ['playing', 'layered'],
      characters: [2],
      rigJoints: 8,
      rounds: 2,
      roundSteps: 5,
      warmupSteps: 2,
      allocSteps: 0,
      squad: false,
      split: false,
      peers: ['babylon', 'playcanvas'],
      foxPath: FOX,
    })
    expect(result.ok).toBe(true)
    const [playing, layered] = result.scenarios
    for (const p of playing!.peers) {
      expect(p.skipped).toBeNull()
      expect(p.check!.ok).toBe(true)
      expect(p.check!.errors).toHaveLength(3)
      expect(p.side!.msPerStep).toBeGreaterThan(0)
      expect(p.slowdown).toBeGreaterThan(0)
    }
    expect(layered!.peers.map((p) => p.skipped !== null)).toEqual([true, true])
    const report = formatReport(result)
    expect(report).toContain('babylon ms/step')
    expect(report).toContain('playcanvas layered: not expressed')
  })
})
