/**
 * The two judges of a mutated file (test/helpers/mutate.ts makes the files), shared by test/gltf/fuzz.test.ts
 * and scripts/fuzz.ts:
 *
 *   runLoader      readAsset's outcome. An accepted asset must be whole (checkWholeAsset: structure, then
 *                  sampleNodeTransforms and a plugin character stepped through every clip, all finite) and
 *                  hold what the file says (checkAgainstFile: an independent accessor reader, sparse too).
 *   runValidator   Khronos gltf-validator on the same bytes, its errors sorted into categories.
 *                  DELIBERATE_REPAIRS lists the errors the loader accepts on purpose, and what it does.
 *
 * They live in fuzzJudges/: loader.ts and againstFile.ts (judge 1), validator.ts and repairs.ts (judge 2).
 */
export { checkWholeAsset, runLoader, type LoaderOutcome } from './fuzzJudges/loader.ts'
export {
  gltfValidator,
  LOADER_CATEGORIES,
  nodeDepth,
  runValidator,
  VALIDATOR_MAX_NODE_DEPTH,
  type ValidatorCategory,
  type ValidatorError,
} from './fuzzJudges/validator.ts'
export { DELIBERATE_REPAIRS, repairFor, type Repair } from './fuzzJudges/repairs.ts'
