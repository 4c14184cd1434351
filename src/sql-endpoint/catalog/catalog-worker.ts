import { parentPort } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { MODEL_RELATIONS, MODEL_TABLE_FUNCTIONS } from '../model/relations.js';
import type { CatalogReply, CatalogRequest } from './catalog-messages.js';

/**
 * The catalog sandbox's thread: a PostgreSQL (PGlite: PostgreSQL compiled to WebAssembly, in
 * memory) holding the model's relations as empty tables in `public` and nothing else. BI tools'
 * catalog queries (pgJDBC's getTables, psql's \d, psqlODBC's type probes) are answered by
 * PostgreSQL's own catalogs. It runs in a worker because PGlite runs on the thread that calls it:
 * a long statement here would stop the service's event loop; a worker can be cut off instead.
 */
const port = parentPort!;
/**
 * Every value as PostgreSQL's text: the wire layer encodes text, and nothing is lost to JS numbers
 * or Dates. PGlite merges these over its own parsers key by key, so every type OID is named
 * (built-in types are below 16384; the sandbox makes none of its own).
 */
const asText: Record<number, (value: string) => string> = Object.fromEntries(
  Array.from({ length: 16384 }, (_, oid) => [oid, (value: string) => value]),
);

async function open(): Promise<PGlite> {
  const db = await PGlite.create();
  const statements: string[] = [];
  for (const relation of MODEL_RELATIONS) {
    const name = ident(relation.name);
    // Views, as they are: what a tool reads of them is computed from the organization's facts.
    statements.push(
      `CREATE VIEW public.${name} AS SELECT ${relation.columns.map((c) => `NULL::${c.type} AS ${ident(c.name)}`).join(', ')} WHERE false`,
    );
    statements.push(`COMMENT ON VIEW public.${name} IS ${literal(relation.description)}`);
    for (const c of relation.columns)
      statements.push(`COMMENT ON COLUMN public.${name}.${ident(c.name)} IS ${literal(c.description)}`);
  }
  for (const fn of MODEL_TABLE_FUNCTIONS) {
    const args = fn.args.map((a) => `${ident(a.name)} ${a.type}`).join(', ');
    const columns = fn.columns.map((c) => `${ident(c.name)} ${c.type}`).join(', ');
    const nulls = fn.columns.map((c) => `NULL::${c.type}`).join(', ');
    statements.push(
      `CREATE FUNCTION public.${ident(fn.name)}(${args}) RETURNS TABLE (${columns}) LANGUAGE sql AS $$ SELECT ${nulls} WHERE false $$`,
    );
    statements.push(
      `COMMENT ON FUNCTION public.${ident(fn.name)}(${fn.args.map((a) => a.type).join(', ')}) IS ${literal(fn.description)}`,
    );
  }
  await db.exec(statements.join(';\n'));
  return db;
}

const ready = open();

port.on('message', (request: CatalogRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});

async function answer(request: CatalogRequest): Promise<CatalogReply> {
  try {
    const db = await ready;
    if (request.op === 'describe') {
      const described = await db.describeQuery(request.sql);
      return {
        id: request.id,
        ok: true,
        parameterTypes: described.queryParams.map((p) => p.dataTypeID),
        columns: described.resultFields.map((f) => ({ name: f.name, typeOid: f.dataTypeID })),
      };
    }
    // Read only, and rolled back: nothing a statement does here (set_config included) outlives it.
    const result = await db.transaction(async (tx) => {
      await tx.exec('SET TRANSACTION READ ONLY');
      const rows = await tx.query(request.sql, [...request.params], { rowMode: 'array', parsers: asText });
      await tx.rollback();
      return rows;
    });
    return {
      id: request.id,
      ok: true,
      columns: result.fields.map((f) => ({ name: f.name, typeOid: f.dataTypeID })),
      rows: result.rows as (string | null)[][],
    };
  } catch (error) {
    const e = error as { code?: string; message?: string; position?: string; detail?: string; hint?: string };
    return {
      id: request.id,
      ok: false,
      error: {
        code: e.code ?? 'XX000',
        message: e.message ?? String(error),
        position: e.position,
        detail: e.detail,
        hint: e.hint,
      },
    };
  }
}

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Our own text (the model's descriptions), never a client's. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
