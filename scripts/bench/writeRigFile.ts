/**
 * `node --import tsx scripts/bench/writeRigFile.ts <out.glb> [joints]`: writes the bench rig (rig.ts) with every
 * channel animated as a .glb (rigFile.ts), 67 joints unless given (bench:ab's --asset rig-all). A file of its
 * own: a module that runs when it is the main one would also run inside any bundle that includes it.
 */
import { writeFileSync } from 'node:fs'
import { createBenchRig } from './rig.ts'
import { writeRigFile } from './rigFile.ts'

const [out, joints] = process.argv.slice(2)
if (!out) throw new Error('usage: writeRigFile.ts <out.glb> [joints]')
const rig = createBenchRig({ joints: joints === undefined ? 67 : Number(joints), channels: 'all' })
writeFileSync(out, await writeRigFile(rig))
