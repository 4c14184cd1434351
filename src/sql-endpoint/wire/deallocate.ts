/**
 * `DEALLOCATE [PREPARE] name | ALL` as a whole simple Query: the one SQL statement that acts on the
 * protocol's own state (the prepared statements Parse made), so the wire layer answers it rather
 * than the session, which never sees those statements. psqlODBC frees each of its plans this way
 * before it reuses the plan's name. Anything else (or more) in the string goes to the session.
 */
export type Deallocation = { readonly all: true } | { readonly all: false; readonly name: string };

const DEALLOCATE = /^\s*deallocate\s+(?:prepare\s+)?(all|[a-z_][a-z0-9_$]*|"(?:[^"]|"")+")\s*;?\s*$/i;

export function parseDeallocate(sql: string): Deallocation | undefined {
  const match = DEALLOCATE.exec(sql);
  if (!match) return undefined;
  const target = match[1]!;
  if (target.startsWith('"')) return { all: false, name: target.slice(1, -1).replaceAll('""', '"') };
  // Unquoted identifiers fold to lower case, as PostgreSQL's do.
  if (target.toLowerCase() === 'all') return { all: true };
  return { all: false, name: target.toLowerCase() };
}
