import type { Database } from '../database.js';
import type { Executor } from '../executor.js';
import type { SqlValue } from '../sql-values.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * Upgrades an embedded deployment to the PostgreSQL store (issue 37 item 5, `adreport
 * migrate-store`): the service's own tables of a DuckDB file, row for row, into an empty
 * PostgreSQL store of the same schema version, in one transaction, and every id sequence set so
 * new ids continue after the copied ones. Knows nothing of the CLI or of the key files (the
 * command copies those).
 */

/** Why a table of the DuckDB file stays behind, or undefined when it is copied. */
export function notCopiedBecause(table: string, options: PlanOptions = {}): string | undefined {
  if (/^fact_/.test(table) || table === 'call_details')
    return options.factsElsewhere
      ? 'facts (loaded into ClickHouse)'
      : 'facts (never on PostgreSQL: --facts clickhouse)';
  if (/^rollup_/.test(table)) return 'derived from the facts';
  // With facts elsewhere, what says how complete they are and what converts them comes along.
  if (
    options.factsElsewhere &&
    ['statistics_sources', 'fx_rates', 'fx_imported_rates', 'reference_data'].includes(table)
  )
    return undefined;
  if (table === 'statistics_sources')
    return 'how far the facts are synced: without them the PostgreSQL store syncs anew';
  if (table === 'fx_rates' || table === 'fx_imported_rates' || table === 'reference_data')
    return 'FX rates and reference data (not used on PostgreSQL yet)';
  if (table === 'replicas' || table === 'work_leases') return 'per process';
  if (table === 'schema_migrations') return 'each store keeps its own';
  return undefined;
}

/** How one column is read from DuckDB and bound for PostgreSQL. */
interface CopiedColumn {
  readonly name: string;
  /** DuckDB's type name, as information_schema says it. */
  readonly duckdbType: string;
  /** `native`: the JS value as DuckDB gives it; `text`: DuckDB's exact text (timestamps with microseconds, decimals, dates); `hex`: a BLOB. */
  readonly read: 'native' | 'text' | 'hex';
}

export interface CopiedTable {
  readonly table: string;
  readonly columns: readonly CopiedColumn[];
  /** Columns the DuckDB file has and the PostgreSQL table has not (none while both are at this release's schema). */
  readonly columnsLeftBehind: readonly string[];
}

export interface CopyPlan {
  readonly tables: readonly CopiedTable[];
  readonly notCopied: ReadonlyArray<{ readonly table: string; readonly reason: string }>;
}

export interface CopyResult {
  readonly tables: ReadonlyArray<{ readonly table: string; readonly rows: number }>;
  readonly rows: number;
  /** Each sequence set, with the value it was set to (the next id is one more). */
  readonly sequences: Readonly<Record<string, number>>;
}

export interface CopyOptions {
  /** Rows read from DuckDB at a time (default 5,000). */
  readonly batchRows?: number;
  /** Told after each table is copied (inside the transaction, before the commit). */
  readonly onTable?: (table: string, rows: number) => void;
}

/** The PostgreSQL store already holds data: a copy never merges two deployments. */
export class TargetNotEmptyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetNotEmptyError';
  }
}

/** A column type the copy has no faithful way to move (none in this release's schema). */
export class UnsupportedColumnError extends Error {
  constructor(table: string, column: string, type: string) {
    super(`${table}.${column} is of type ${type}, which migrate-store cannot copy`);
    this.name = 'UnsupportedColumnError';
  }
}

const NATIVE_TYPES = new Set([
  'VARCHAR',
  'BIGINT',
  'INTEGER',
  'SMALLINT',
  'TINYINT',
  'BOOLEAN',
  'DOUBLE',
  'FLOAT',
  'VARCHAR[]',
]);

function readOf(table: string, column: string, type: string): CopiedColumn['read'] {
  if (NATIVE_TYPES.has(type)) return 'native';
  if (type === 'BLOB') return 'hex';
  // Lists of anything but text, structs, maps and unions have no text form PostgreSQL reads.
  if (/\[\d*\]$|^(STRUCT|MAP|UNION)\b/.test(type)) throw new UnsupportedColumnError(table, column, type);
  return 'text';
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

/**
 * Which tables go over and with which columns: every base table of the DuckDB file's main schema
 * that `notCopiedBecause` keeps, with the columns both sides have, by name. A table PostgreSQL
 * lacks is an error (both stores must be at this release's schema: migrate both first).
 */
/** `factsElsewhere`: the facts of the file go to ClickHouse beside this copy, so how far they are synced comes along. */
export interface PlanOptions {
  readonly factsElsewhere?: boolean;
}

export async function planCopy(source: Database, target: PostgresStore, options: PlanOptions = {}): Promise<CopyPlan> {
  const duckColumns = await source.read((r) =>
    r.all<{ table: string; column: string; type: string }>(
      `SELECT c.table_name AS "table", c.column_name AS "column", c.data_type AS "type"
         FROM information_schema.columns c
         JOIN information_schema.tables t
           ON t.table_catalog = c.table_catalog AND t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE t.table_schema = 'main' AND t.table_type = 'BASE TABLE' AND t.table_catalog = current_database()
        ORDER BY c.table_name, c.ordinal_position`,
    ),
  );
  const postgresColumns = await target.read((r) =>
    r.all<{ table: string; column: string }>(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
        WHERE table_schema = current_schema()`,
    ),
  );
  const inPostgres = new Map<string, Set<string>>();
  for (const { table, column } of postgresColumns) {
    let columns = inPostgres.get(table);
    if (!columns) inPostgres.set(table, (columns = new Set()));
    columns.add(column);
  }
  const byTable = new Map<string, Array<{ column: string; type: string }>>();
  for (const { table, column, type } of duckColumns) {
    let columns = byTable.get(table);
    if (!columns) byTable.set(table, (columns = []));
    columns.push({ column, type });
  }
  const tables: CopiedTable[] = [];
  const notCopied: Array<{ table: string; reason: string }> = [];
  for (const [table, columns] of [...byTable].sort(([a], [b]) => a.localeCompare(b))) {
    const reason = notCopiedBecause(table, options);
    if (reason !== undefined) {
      notCopied.push({ table, reason });
      continue;
    }
    const there = inPostgres.get(table);
    if (!there)
      throw new Error(
        `table ${table} of ${source.dbPath} is not in PostgreSQL at ${target.dbPath}; is the PostgreSQL store at this release's schema?`,
      );
    tables.push({
      table,
      columns: columns
        .filter(({ column }) => there.has(column))
        .map(({ column, type }) => ({ name: column, duckdbType: type, read: readOf(table, column, type) })),
      columnsLeftBehind: columns.filter(({ column }) => !there.has(column)).map(({ column }) => column),
    });
  }
  return { tables, notCopied };
}

/**
 * Refuses a PostgreSQL store that holds organizations, or rows in any table the copy fills (what
 * a replica writes on an empty store, heartbeats and data versions, is not such a table).
 */
export async function assertTargetEmpty(db: Executor, label: string, plan: CopyPlan): Promise<void> {
  const organizations = Number((await db.one<{ n: number }>('SELECT count(*) AS n FROM organizations'))?.n ?? 0);
  if (organizations > 0)
    throw new TargetNotEmptyError(
      `${label} already holds ${organizations} organization${organizations === 1 ? '' : 's'}; migrate-store copies into an empty store only, never merging two deployments`,
    );
  for (const { table } of plan.tables) {
    const row = await db.one<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${quote(table)}) AS "any"`);
    if (row?.any)
      throw new TargetNotEmptyError(
        `${label} already holds rows in ${table}; migrate-store copies into an empty store only`,
      );
  }
}

/** PostgreSQL's limit is 65,535 bound values per statement; far below it, one INSERT stays a few hundred KB. */
const VALUES_PER_INSERT = 30_000;

/**
 * Copies the planned tables in one PostgreSQL write transaction (all of it lands, or none of it),
 * then sets every id sequence. Rows are read from DuckDB in `batchRows` batches by rowid, so the
 * order of insertion (the sandbox's change log is ordered by it) is kept; values are bound,
 * never pasted.
 */
export async function copyFromDuckDb(
  source: Database,
  target: PostgresStore,
  plan: CopyPlan,
  options: CopyOptions = {},
): Promise<CopyResult> {
  const batchRows = options.batchRows ?? 5_000;
  return target.write('all-organizations', async (tx) => {
    // Again inside the transaction, under the lock every organization's writes take.
    await assertTargetEmpty(tx, target.dbPath, plan);
    const tables: Array<{ table: string; rows: number }> = [];
    let total = 0;
    for (const table of plan.tables) {
      const rows = await copyTable(source, tx, table, batchRows);
      tables.push({ table: table.table, rows });
      total += rows;
      options.onTable?.(table.table, rows);
    }
    const sequences = await setSequences(source, tx);
    return { tables, rows: total, sequences };
  });
}

async function copyTable(source: Database, tx: Executor, table: CopiedTable, batchRows: number): Promise<number> {
  if (table.columns.length === 0) return 0;
  const selected = table.columns.map((c, i) => {
    const column = quote(c.name);
    const value = c.read === 'text' ? `CAST(${column} AS VARCHAR)` : c.read === 'hex' ? `hex(${column})` : column;
    return `${value} AS c${i}`;
  });
  const select = `SELECT rowid AS r, ${selected.join(', ')} FROM ${quote(table.table)}
                   WHERE rowid > $1 ORDER BY rowid LIMIT ${batchRows}`;
  const rowsPerInsert = Math.max(1, Math.floor(VALUES_PER_INSERT / table.columns.length));
  const into = `INSERT INTO ${quote(table.table)} (${table.columns.map((c) => quote(c.name)).join(', ')}) VALUES `;
  let copied = 0;
  let after = -1;
  for (;;) {
    const batch = await source.read((r) => r.all<Record<string, unknown>>(select, [after]));
    if (batch.length === 0) return copied;
    for (let start = 0; start < batch.length; start += rowsPerInsert) {
      const rows = batch.slice(start, start + rowsPerInsert);
      const values: SqlValue[] = [];
      const tuples = rows.map((row) => {
        const placeholders = table.columns.map((c, i) => {
          values.push(row[`c${i}`] as SqlValue);
          return c.read === 'hex' ? `decode($${values.length}, 'hex')` : `$${values.length}`;
        });
        return `(${placeholders.join(', ')})`;
      });
      const inserted = await tx.rowsChanged(into + tuples.join(', '), values);
      if (inserted !== rows.length)
        throw new Error(`${table.table}: PostgreSQL took ${inserted} of ${rows.length} rows; nothing was copied`);
      copied += inserted;
    }
    after = Number(batch[batch.length - 1]!.r);
  }
}

/**
 * Sets every sequence of the PostgreSQL store that a column takes its default from, or that the
 * DuckDB file has too, to the larger of the DuckDB sequence's last value and the largest id
 * copied: the next id is one more, never one a client has seen (the change feed's purged rows
 * and deleted webhooks' ids included). A sequence neither side has used stays as it is.
 */
async function setSequences(source: Database, tx: Executor): Promise<Record<string, number>> {
  const duckdb = new Map(
    (
      await source.read((r) =>
        r.all<{ name: string; last: number | null }>(
          `SELECT sequence_name AS name, last_value AS "last" FROM duckdb_sequences()
            WHERE schema_name = 'main' AND database_name = current_database()`,
        ),
      )
    ).map(({ name, last }) => [name, last === null ? undefined : Number(last)]),
  );
  const sequences = await tx.all<{ name: string }>(
    `SELECT sequencename AS name FROM pg_sequences WHERE schemaname = current_schema() ORDER BY sequencename`,
  );
  const defaults = await tx.all<{ table: string; column: string; fallback: string }>(
    `SELECT table_name AS "table", column_name AS "column", column_default AS "fallback"
       FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`,
  );
  const set: Record<string, number> = {};
  for (const { name } of sequences) {
    const candidates = [duckdb.get(name)];
    for (const { table, column, fallback } of defaults) {
      if (/^nextval\('"?([^'"]+)"?'::regclass\)$/.exec(fallback)?.[1] !== name) continue;
      const row = await tx.one<{ top: number | null }>(`SELECT max(${quote(column)}) AS top FROM ${quote(table)}`);
      candidates.push(row?.top === null || row?.top === undefined ? undefined : Number(row.top));
    }
    const value = Math.max(0, ...candidates.filter((v): v is number => v !== undefined));
    if (value < 1) continue;
    await tx.run('SELECT setval($1::regclass, $2)', [quote(name), value]);
    set[name] = value;
  }
  return set;
}
