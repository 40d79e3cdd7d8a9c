import type { RagdollStore } from '../components/Ragdoll.ts'
import { RAGDOLL_FALLING, RAGDOLL_GETTING_UP } from '../components/Ragdoll.ts'
import type { RagdollRuntime } from './state.ts'

/**
 * One step of a live ragdoll's weight ramp (stepRagdolls, after the read-back); `step` is rate·dt. Falling, it
 * ramps up to 1; getting up, down to 0. With per-joint weights (RagdollRuntime.jointWeights), every joint's
 * weight moves by `step` towards its own target (falling) or 0 (getting up), and ragdoll_weight is the largest.
 * A hit reaction (RagdollRuntime.recoverRate > 0) that has ramped all the way up starts getting up at its
 * recovery rate. Returns true when a ragdoll getting up has reached 0 everywhere: its bodies leave.
 * Allocation-free.
 */
export function rampRagdollWeight(
  Ragdoll: RagdollStore,
  eid: number,
  rt: RagdollRuntime,
  step: number,
): boolean {
  const state = Ragdoll.active[eid]!
  const joints = rt.jointWeights
  if (joints === null) {
    if (state === RAGDOLL_FALLING) {
      const w = Ragdoll.weight[eid]! + step
      Ragdoll.weight[eid] = w > 1 ? 1 : w
      if (w >= 1 && rt.recoverRate > 0) recover(Ragdoll, eid, rt)
    } else if (state === RAGDOLL_GETTING_UP) {
      const w = Ragdoll.weight[eid]! - step
      if (!(w > 0)) return true
      Ragdoll.weight[eid] = w
    }
    return false
  }
  const weights = joints.weights
  const targets = joints.targets
  const falling = state === RAGDOLL_FALLING
  let largest = 0
  let reached = true
  for (let j = 0; j < weights.length; j++) {
    const goal = falling ? targets[j]! : 0
    const w = weights[j]!
    const next = w < goal ? (w + step < goal ? w + step : goal) : w - step > goal ? w - step : goal
    weights[j] = next
    if (next > largest) largest = next
    if (next !== goal) reached = false
  }
  if (state === RAGDOLL_GETTING_UP && !(largest > 0)) return true
  Ragdoll.weight[eid] = largest
  if (falling && reached && rt.recoverRate > 0) recover(Ragdoll, eid, rt)
  return false
}

/** A hit reaction at full weight: it gets up on its own from the next step. */
function recover(Ragdoll: RagdollStore, eid: number, rt: RagdollRuntime): void {
  Ragdoll.active[eid] = RAGDOLL_GETTING_UP
  Ragdoll.rate[eid] = rt.recoverRate
}
