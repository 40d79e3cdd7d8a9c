// `npm run bench:ab -- --base <git ref>`: the project's step at two versions of the code in ONE process, the
// benchmark's crowd on each, timed in alternated rounds. On a shared machine the same code's step moves by up to
// 2× between processes, and even within one (README, Performance); two versions run side by side in one process
// see the same conditions round by round, so their ratio is good to a few per cent where separate runs were not.
// The base version is checked out into a temporary git worktree (sharing this checkout's node_modules); each
// version's code is bundled on its own with this checkout's scripts/bench/abSide.ts (copied into the other, so
// both are timed by the same harness), and both bundles are loaded here. Plain node, not tsx (see bundle.mjs for
// why).
//
//   npm run bench:ab -- --base main [--asset fox|rig-linear|rig-cubic|rig-all] [--crowd layered]
//                       [--characters 1000] [--rounds 9] [--steps 100] [--warmup 200] [--rig-joints 64]
//                       [--instances 2] [--measure step|snapshotInto|restore|propagate] [--ragdolls 0]
//                       [--kernels js|wasm] [--base-kernels js|wasm] [--ik] [--compress]
//
// --asset rig-all: the rig with every channel animated (a Mixamo export's), written once as a .glb here and
// loaded by each side with its own loader. --measure snapshotInto|restore: instead of steps, that call on the
// crowd as it is after 60 steps (--ragdolls: every tenth character knocked over first, up to that many), `--steps`
// calls a round; the snapshot bench's figures, compared. --measure propagate: the propagateTransforms system alone
// on that crowd, every node dirtied before each call. --kernels: the plugin's `kernels` option on both sides
// (default wasm, the plugin's default on this machine; a base before it had kernels 'js' by default);
// --base-kernels: the base side's instead (`--base HEAD --kernels wasm --base-kernels js` times one version's
// two kernel choices against each other).
//
// --ik: every character with the bench's ik section's feet and aim solvers (bench/ikCrowd.ts, copied into the
// base like abSide.ts; the rig's joint names: use --asset rig-linear, --crowd playing for the section's crowd).
//
// --compress: both sides' clips compressed (compact clips, at the compression bench's tolerances) as they load.
//
// Each side runs `--instances` crowds (made in ABBA order, timed in a palindromic order: bench/abRounds.mjs), as
// the crowd made later in a process ran ~1–3 % faster in same-code runs.
//
// Prints each side's median CPU ms per step, the per-round ratios and their median, and whether both sides end
// with the same state hash (a change meant to keep every bit can be checked this way too).
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { bundleForNode } from './bundle.mjs'
import { runAb, formatAb } from './bench/abRounds.mjs'

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    asset: { type: 'string', default: 'fox' },
    crowd: { type: 'string', default: 'layered' },
    characters: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '9' },
    steps: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '200' },
    'rig-joints': { type: 'string', default: '64' },
    instances: { type: 'string', default: '2' },
    measure: { type: 'string', default: 'step' },
    ragdolls: { type: 'string', default: '0' },
    kernels: { type: 'string' },
    'base-kernels': { type: 'string' },
    ik: { type: 'boolean', default: false },
    compress: { type: 'boolean', default: false },
  },
})
if (values.base === undefined) {
  process.stderr.write('usage: npm run bench:ab -- --base <git ref> [--asset fox] [--crowd layered] ...\n')
  process.exit(2)
}
const positive = (name) => {
  const n = Number(values[name])
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`--${name}: ${values[name]} is not a whole number ≥ 1\n`)
    process.exit(2)
  }
  return n
}
// Every number is checked before the temporary worktree exists (process.exit skips the cleanup below).
const counts = {
  characters: positive('characters'),
  rigJoints: positive('rig-joints'),
  instances: positive('instances'),
  rounds: positive('rounds'),
  steps: positive('steps'),
  warmup: positive('warmup'),
}
const ragdolls = Number(values.ragdolls)
if (!Number.isInteger(ragdolls) || ragdolls < 0) {
  process.stderr.write(`--ragdolls: ${values.ragdolls} is not a whole number ≥ 0\n`)
  process.exit(2)
}
const root = fileURLToPath(new URL('../', import.meta.url))
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()
const commit = git('rev-parse', '--verify', `${values.base}^{commit}`)
const tree = mkdtempSync(join(tmpdir(), 'ecs-anim-ab-'))
const cache = join(root, 'node_modules', '.cache', 'ecs-anim-ab')
const bundles = [join(cache, `base-${process.pid}.mjs`), join(cache, `work-${process.pid}.mjs`)]
const side = 'scripts/bench/abSide.ts'
/** What the base version gets from this checkout: the harness and what it needs beyond the long-lived names. */
const copied = [side, 'scripts/bench/ikCrowd.ts']
try {
  git('worktree', 'add', '--detach', '--quiet', tree, commit)
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'), 'dir')
  for (const file of copied) copyFileSync(join(root, file), join(tree, file))
  try {
    await bundleForNode(join(tree, side), bundles[0])
  } catch {
    throw new Error(
      `${values.base}: its benchmark modules do not bundle with ${side} (a version before them?)`,
    )
  }
  await bundleForNode(join(root, side), bundles[1])
  const [base, work] = await Promise.all(bundles.map((b) => import(pathToFileURL(b).href)))
  if (values.asset === 'rig-all') {
    const write = [
      '--import',
      'tsx',
      'scripts/bench/writeRigFile.ts',
      join(tree, 'rig-all.glb'),
      values['rig-joints'],
    ]
    execFileSync(process.execPath, write, { cwd: root, stdio: 'inherit' })
  }
  const allChannels = values.asset === 'rig-all'
  const options = {
    asset: allChannels ? 'rig-linear' : values.asset,
    crowd: values.crowd,
    characters: counts.characters,
    foxPath: join(root, 'assets/Fox/glTF-Binary/Fox.glb'),
    rigJoints: counts.rigJoints,
    file: allChannels ? join(tree, 'rig-all.glb') : undefined,
    measure: values.measure,
    ragdolls,
    kernels: values.kernels ?? 'wasm',
    ik: values.ik,
    compress: values.compress,
  }
  let refused = null
  try {
    work.checkAbSideOptions(options)
    if (values['base-kernels'] !== undefined) {
      work.checkAbSideOptions({ ...options, kernels: values['base-kernels'] })
    }
  } catch (error) {
    refused = error.message
  }
  if (refused !== null) {
    process.stderr.write(`${refused}\n`)
    process.exitCode = 2
  } else {
    // Two instances a side, made in ABBA order (see runAb); --instances 1 halves the memory.
    const sides = [[], []]
    for (let k = 0; k < counts.instances; k++) {
      const first = k % 2 === 0 ? 0 : 1
      for (const i of [first, 1 - first]) {
        const kernels = i === 0 ? (values['base-kernels'] ?? options.kernels) : options.kernels
        sides[i].push(await (i === 0 ? base : work).createAbSide({ ...options, kernels }))
      }
    }
    const result = runAb(sides, counts)
    const measured =
      values.measure === 'step'
        ? ''
        : `, ${values.measure}${ragdolls > 0 ? ` with ${ragdolls} ragdolling` : ''}`
    const baseKernels = values['base-kernels'] ?? options.kernels
    // Named when asked for (the default, the plugin's own, is not).
    const kernels =
      baseKernels !== options.kernels
        ? `, kernels ${baseKernels} (base) and ${options.kernels}`
        : values.kernels === undefined
          ? ''
          : `, kernels ${values.kernels}`
    const what = `${values.asset}${values.compress ? ' compact' : ''} ${options.crowd} × ${options.characters}${values.ik ? ' with feet + aim' : ''}${measured}${kernels}`
    process.stdout.write(
      formatAb(
        result,
        [`base ${values.base} (${commit.slice(0, 7)})`, 'this checkout'],
        what,
        values.measure === 'step' ? 'step' : 'call',
      ),
    )
  }
} finally {
  for (const b of bundles) rmSync(b, { force: true })
  try {
    git('worktree', 'remove', '--force', tree)
  } catch {
    rmSync(tree, { recursive: true, force: true })
    git('worktree', 'prune')
  }
}
