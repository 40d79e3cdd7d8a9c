/**
 * The pile run (issue 33): `count` characters of the case's asset placed 1 cm apart at one point, each playing
 * its first clip, all ragdolled in one step, then PILE_STEPS steps. Besides the contract every run keeps (no
 * thrown error but AnimationError, no step that throws, finite world matrices; time and memory budgets), each
 * step's work must stay linear in the world's bodies: the contact and friction equations the solver is handed at
 * most PILE_EQUATIONS_PER_BODY per body (an 'unbounded' fault; 100 humanoids once made 548 a body in one step,
 * 6 s of CPU). The step's CPU time is the run's, judged by the time budget.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationAsset } from '../../entry/index.ts'
import { Judge, type RunReport } from './judge.ts'
import { capacityFor } from './pipeline.ts'

/** Steps after the hand-off: the spawns of a 40-character pile (RAGDOLL_SPAWN_BODIES a step) and its fall. */
export const PILE_STEPS = 40
/** Contact and friction equations a step may hand the solver, per body in the world (plus a few). */
export const PILE_EQUATIONS_PER_BODY = 8

export interface PileReport extends RunReport {
  /** Ragdolls started, and the most contact and friction equations of a step per body. */
  ragdolls: number
  equationsPerBody: number
}

export function runPile(asset: AnimationAsset, count: number): PileReport {
  const judge = new Judge()
  judge.stage = 'pile'
  let ragdolls = 0
  let equationsPerBody = 0
  const done = (): PileReport => ({ ...judge.report(), ragdolls, equationsPerBody })
  const options = { capacity: capacityFor(asset.nodes.length, count + 1) }
  const made = judge.call(null, 'createAnimationPlugin', () => createAnimationPlugin(createWorld(), options))
  if (!made[0]) return done()
  const p = made[1]
  const characters: number[] = []
  for (let i = 0; i < count; i++) {
    const added = judge.call(p, 'addCharacter(asset)', () => p.addCharacter(asset))
    if (!added[0]) return done()
    const c = added[1]
    characters.push(c)
    judge.call(p, `setTransform(${c})`, () => p.setTransform(c, { position: [0.01 * i, 0, 0] }))
    if (asset.clips.length > 0) judge.call(p, `play(${c}, 0)`, () => p.play(c, 0))
  }
  for (let s = 0; s < 3; s++) if (!judge.step(p, `step ${s} before the pile`)) return done()
  for (const c of characters) if (judge.call(p, `ragdoll(${c})`, () => p.ragdoll(c))[0]) ragdolls++
  const world = p.physics
  for (let s = 0; s < PILE_STEPS; s++) {
    if (!judge.step(p, `pile step ${s}`)) break
    const bodies = world.bodies.length
    const equations = world.contacts.length + world.frictionEquations.length
    equationsPerBody = Math.max(equationsPerBody, equations / Math.max(1, bodies))
    if (equations > PILE_EQUATIONS_PER_BODY * bodies + 64) {
      judge.fault(
        'unbounded',
        `pile step ${s}: ${equations} contact and friction equations for ${bodies} bodies`,
      )
      break
    }
  }
  return done()
}
