/**
 * The cannon-es half of a snapshot, in four files: snapshotFormat.ts (what of cannon-es's state a snapshot keeps
 * and why, the layouts), snapshotWrite.ts, snapshotRead.ts (reads and checks everything, changes nothing) and
 * snapshotBuild.ts (rebuilds from a checked plan).
 */
export { noteInstance, staticBlocks, writeInstance, writePhysicsWorld } from './snapshotWrite.ts'
export { readInstance, readPhysicsWorld, readStatic, type OwnPhysics } from './snapshotRead.ts'
export { buildInstance, rebuildPhysicsWorld } from './snapshotBuild.ts'
export type { InstanceData, PhysicsPlan } from './snapshotFormat.ts'
