/**
 * The layers of docs/ARCHITECTURE.md, checked on the source: protocols reach data only through
 * the domain (they may name the store's types, never call it), formats touch neither HTTP nor
 * the database nor any adapter, and only the store writes SQL
 * (the TQL compiler builds the query fragments it hands to the store's queries).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = new URL('.', import.meta.url).pathname

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })
}

/** The import statements of a file, each on one line. */
function imports(text: string): string[] {
  return [...text.matchAll(/^import\s[^;]*?from\s+'[^']+'/gms)].map((m) => m[0].replace(/\s+/g, ' '))
}

/** The src/-relative modules a file imports, types included (`core/errors.ts`). */
function importedModules(file: string): string[] {
  return imports(readFileSync(file, 'utf8')).flatMap((line) => {
    const spec = /from '(\.[^']+)'/.exec(line)?.[1]
    return spec ? [relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, '.ts')] : []
  })
}

/** Which folder may not import which modules, and why: the edges of docs/ARCHITECTURE.md's map. */
const EDGES: [folder: string, forbidden: RegExp, why: string][] = [
  ['core', /^(?!core\/)/, 'the kernel (errors, time, input readers, name-based ids) stands on nothing of ours'],
  ['model', /^(?!model\/|core\/)/, 'the declarations know no interface, no rule and no table'],
  [
    'tql',
    /^(domain|protocols|formats)\//,
    "the query language sits below the domain that uses it (it names the store's types only)",
  ],
  ['formats', /^(protocols|cli|worker)\//, 'a format serves every adapter and belongs to none'],
  ['protocols/v2', /^protocols\/(v3|taxii11|taxii21|console)\//, 'one protocol family does not reach into another'],
  ['protocols/v3', /^protocols\/(v2|taxii11|taxii21|console)\//, 'one protocol family does not reach into another'],
  ['protocols/taxii11', /^protocols\/(v2|v3|taxii21|console)\//, 'one protocol family does not reach into another'],
  ['protocols/taxii21', /^protocols\/(v2|v3|taxii11|console)\//, 'one protocol family does not reach into another'],
  [
    'protocols/console',
    /^protocols\/(v2|taxii11|taxii21)\//,
    "the console's session endpoints extend v3 (they speak its envelope) and reach no other family",
  ],
  ['protocols', /^app\.ts$/, 'the composition root (app.ts) sits above every protocol plugin'],
  ['store/engine', /^store\/repositories\//, 'the read engine serves the repositories, never the reverse'],
  ['domain', /^(protocols|cli|worker|feeds)\/|^app\.ts$/, 'the domain knows no adapter'],
  [
    'feeds',
    /^(protocols|cli|worker|store)\/|^app\.ts$/,
    'the pullers are the network side of a feed: they reach data only through the domain, and serve the worker and the CLI alike',
  ],
]

describe('layers', () => {
  it.each(EDGES)('%s imports nothing matching %s: %s', (folder, forbidden) => {
    const offending = sources(join(SRC, folder)).flatMap((file) =>
      importedModules(file)
        .filter((module) => forbidden.test(module))
        .map((module) => `${relative(SRC, file)} → ${module}`),
    )
    expect(offending).toEqual([])
  })

  it('protocols call no store module: data comes through the domain', () => {
    const offending = sources(join(SRC, 'protocols')).flatMap((file) =>
      imports(readFileSync(file, 'utf8'))
        .filter((line) => /from '[./]*\/store\//.test(line) && !line.startsWith('import type '))
        .map((line) => `${relative(SRC, file)}: ${line}`),
    )
    expect(offending).toEqual([])
  })

  it('the CLI and the worker reach data through the domain too; they open the store and copy its files, nothing more', () => {
    const infrastructure = /from '[./]*\/store\/(connect|backup|batch-wakeups)\.js'/
    const offending = [...sources(join(SRC, 'cli')), ...sources(join(SRC, 'worker'))].flatMap((file) =>
      imports(readFileSync(file, 'utf8'))
        .filter(
          (line) => /from '[./]*\/store\//.test(line) && !line.startsWith('import type ') && !infrastructure.test(line),
        )
        .map((line) => `${relative(SRC, file)}: ${line}`),
    )
    expect(offending).toEqual([])
  })

  it('formats touch no HTTP, SQL or adapter: nothing from protocols/, cli/, fastify, or store/ beyond its types', () => {
    const adapter = /from '(?:[./]*\/(?:protocols|cli)\/[^']*|fastify|@fastify\/[^']*)'/
    const offending = sources(join(SRC, 'formats')).flatMap((file) =>
      imports(readFileSync(file, 'utf8'))
        .filter((line) => adapter.test(line) || (/from '[./]*\/store\//.test(line) && !line.startsWith('import type ')))
        .map((line) => `${relative(SRC, file)}: ${line}`),
    )
    expect(offending).toEqual([])
  })

  it('only the store builds SQL', () => {
    const outside = sources(SRC).filter((file) => !/^(store|tql|test)\//.test(relative(SRC, file)))
    const offending = outside.filter((file) =>
      /\.(selectFrom|insertInto|updateTable|deleteFrom|transaction)\(|\bsql`/.test(readFileSync(file, 'utf8')),
    )
    expect(offending.map((file) => relative(SRC, file))).toEqual(['domain/transaction.ts'])
  })
})
