import type { CharacterDatum } from '../plugin/characterData.ts'
import { layersDatum } from './layers.ts'
import { morphsDatum } from './morphs.ts'
import { rootMotionDatum } from './rootMotion.ts'
import { poseEditsDatum } from './poseEdits.ts'
import { graphsDatum } from './graphs.ts'

/**
 * Every kind of per-character state besides the store rows, in the order adding a character, hash() and the
 * snapshot's sections take them (plugin/characterData.ts). A new kind: its file here, and a line in this list.
 */
export const CHARACTER_DATA: readonly CharacterDatum[] = [
  layersDatum as CharacterDatum,
  morphsDatum as CharacterDatum,
  rootMotionDatum as CharacterDatum,
  poseEditsDatum as CharacterDatum,
  graphsDatum as CharacterDatum,
]
