/**
 * The API reference and the guides build, so they cannot rot: `npm run docs` (TypeDoc with
 * docs/typedoc.config.mjs) on every `npm test`, into a temporary folder (docs/api/, the script's own output, is left alone). TypeDoc's errors fail
 * (it exits non-zero: an entry it cannot read, a bad option, the config's plugin failing), and so does an export
 * without a doc comment (TypeDoc's "does not have any documentation"): every symbol the entries reach states
 * its contract. Its other warnings (types the API names that no entry exports, {@link}s to nothing, a work tree
 * without a usable git remote) are printed with their counts and do not fail.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const REPO = resolve('.')
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string
  exports: Record<string, string | { types?: string }>
}

/** Each entry with types: its import specifier and its source (./dist/types/X.d.ts ← X.ts). */
const entries = Object.entries(manifest.exports).flatMap(([subpath, target]) =>
  typeof target === 'object' && target.types
    ? [
        {
          specifier: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`,
          source: target.types.replace(/^\.\/dist\/types\//, '').replace(/\.d\.ts$/, '.ts'),
        },
      ]
    : [],
)

/** The text of an HTML page, tags dropped. */
const text = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')

describe('the API reference (npm run docs)', () => {
  const out = mkdtempSync(join(tmpdir(), 'ecs-anim-docs-'))
  afterAll(() => rmSync(out, { recursive: true, force: true }))

  it('builds, with a page for every "exports" entry naming everything it exports', async () => {
    // npm ci installs the docs/ workspace (TypeDoc, its TypeScript 6) and links it as node_modules/ecs-anim-docs.
    const typedoc = join(REPO, 'node_modules/ecs-anim-docs/node_modules/.bin/typedoc')
    if (!existsSync(typedoc))
      throw new Error(`no ${typedoc}: run \`npm ci\` (it installs the docs/ workspace)`)
    const started = performance.now()
    const log = await new Promise<string>((done, fail) => {
      execFile(
        'npm',
        ['run', '--silent', 'docs', '--', '--out', out],
        { cwd: REPO, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 << 20 },
        (error, stdout, stderr) => {
          if (error) fail(new Error(`npm run docs failed (TypeDoc errors):\n${stdout}\n${stderr}`))
          else done(stdout + stderr)
        },
      )
    })
    const seconds = ((performance.now() - started) / 1000).toFixed(1)

    const warnings = log
      // Colours off (NO_COLOR above), and stripped should a TypeDoc ignore it: the filters read plain lines.
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')
      .filter((line) => line.startsWith('[warning]') && !/^\[warning\] Found /.test(line))
    const undocumented = warnings.filter((w) => w.endsWith('does not have any documentation'))
    const notExported = warnings.filter((w) => w.endsWith('but not included in the documentation')).length
    console.info(
      `npm run docs: ${seconds} s; ${warnings.length} TypeDoc warnings: ` +
        `${undocumented.length} exports without a doc comment (failing), ` +
        `${notExported} types named by the API but not exported, ` +
        `${warnings.length - undocumented.length - notExported} other`,
    )
    if (warnings.length) console.warn(warnings.join('\n'))

    expect(existsSync(join(out, 'index.html'))).toBe(true)
    for (const { specifier, source } of entries) {
      // TypeDoc's page name for a module: its name with '/' as '_' (the config names modules by specifier).
      const page = join(out, 'modules', `${specifier.replace(/\//g, '_')}.html`)
      expect(existsSync(page), `${specifier}: ${page}`).toBe(true)
      const words = new Set(text(readFileSync(page, 'utf8')).split(' '))
      const exported = Object.keys((await import(join(REPO, source))) as object)
      expect(exported.length, specifier).toBeGreaterThan(0)
      for (const name of exported) expect(words.has(name), `${specifier} documents ${name}`).toBe(true)
    }
    // The guides (docs/guides/*.md, TypeDoc's projectDocuments): a page each, linked from the README's page.
    const guides = readdirSync(join(REPO, 'docs/guides'))
    const documents = readdirSync(join(out, 'documents'))
    expect(documents).toHaveLength(guides.length)
    const index = readFileSync(join(out, 'index.html'), 'utf8')
    for (const page of documents)
      expect(index, `README links to ${page}`).toContain(`href="documents/${page}"`)
    expect(
      undocumented,
      'exports without a doc comment: give each one (what it is, units, ranges, what throws)',
    ).toEqual([])
  })
})
