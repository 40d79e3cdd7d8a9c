import { readFileSync } from 'node:fs'
import { joinGlb, splitGlb } from './gltfFiles.ts'

/**
 * RobotExpressive dressed as a Mixamo export, for the demo's "a file it knows nothing about" (its clips and
 * joints named as Mixamo names them; the bytes otherwise the shipped file's): every node named
 * `mixamorig:<name>`, and the clips renamed after Mixamo's library (Idle → "Breathing Idle", Wave → "Waving",
 * WalkJump → "Running Jump", …). Nothing of the demo's set-up for RobotExpressive applies to it.
 */
export const MIXAMO_CLIPS: Readonly<Record<string, string>> = {
  Dance: 'Hip Hop Dancing',
  Death: 'Dying',
  Idle: 'Breathing Idle',
  Jump: 'Jump',
  No: 'Shaking Head No',
  Punch: 'Punching',
  Running: 'Running',
  Sitting: 'Sitting',
  Standing: 'Standing Up',
  ThumbsUp: 'Thumbs Up',
  Walking: 'Walking',
  WalkJump: 'Running Jump',
  Wave: 'Waving',
  Yes: 'Head Nod Yes',
}

export function mixamoStyleGlb(): Uint8Array {
  const { json, bin } = splitGlb(new Uint8Array(readFileSync('assets/RobotExpressive/RobotExpressive.glb')))
  for (const node of json.nodes as { name?: string }[]) if (node.name) node.name = `mixamorig:${node.name}`
  for (const animation of json.animations as { name: string }[]) {
    animation.name = MIXAMO_CLIPS[animation.name] ?? animation.name
  }
  return joinGlb(json, bin)
}
