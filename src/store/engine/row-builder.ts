/**
 * Rows made from arrays of column values by one compiled object literal per column list, for the
 * hot reads that ask the drivers for arrays: prepared-read.ts's turn batches (readInTurn), which
 * rows-by-id.ts and every preparedByIds read go through on both databases.
 *
 * Why not the drivers' own row objects: better-sqlite3 sets each column by name, which for the 42
 * columns of an Indicator took longer than the look-up itself; pg builds each result's rows from a
 * template of its own, so rows of two results rarely share a hidden class, and code that reads the
 * rows of many results (every GET of one object under load) stops being optimised for any of them.
 * A spread copy of a pg row made it worse: a new hidden class per copy, 40 µs of server CPU a GET
 * under 50 connections instead of 29. Rows made here share one shape for as long as the columns do.
 */
export type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>

const builders = new Map<string, RowBuilder>()
/** The same, by the list itself: a statement that keeps its list of names (readOnSqlite, queryNamed) skips joining them on every read. */
const byList = new WeakMap<readonly string[], RowBuilder>()

/**
 * `(values) => ({ id: values[0], owner_id: values[1], … })` for these columns, made once per list.
 * The names come from the database's own schema; should one not be a plain identifier, the row is
 * built by name instead.
 */
export function rowBuilder(names: readonly string[]): RowBuilder {
  let build = byList.get(names)
  if (build) return build
  const id = names.join('\n')
  build = builders.get(id)
  if (!build) builders.set(id, (build = compile(names)))
  byList.set(names, build)
  return build
}

function compile(names: readonly string[]): RowBuilder {
  const plain = names.every((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && name !== '__proto__')
  if (!plain || new Set(names).size !== names.length)
    return (values) => Object.fromEntries(names.map((name, i) => [name, values[i]]))
  return new Function(
    'values',
    `return { ${names.map((name, i) => `${name}: values[${i}]`).join(', ')} }`,
  ) as RowBuilder
}
