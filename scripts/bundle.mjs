// Bundles a TypeScript entry of this project to one ES module for plain `node` (dependencies stay external,
// resolved from the project's node_modules, so `outfile` must lie inside the project). The benchmark's children
// and `npm run anim` run such bundles rather than going through tsx: tsx's module loader detaches an ArrayBuffer,
// and from then on V8 checks for detachment at every typed-array access for the life of the process (the fixed
// step ran ~17 % slower; README, Performance). esbuild is loaded on first use, so a bundle that contains this
// module does not need it at run time.

/** Bundles `entry` (a path) into `outfile` (a path); resolves when the file is written. */
export async function bundleForNode(entry, outfile) {
  const { build } = await import('esbuild')
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  })
}
