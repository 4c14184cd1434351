import { refuseNewerSchema } from '../migrate.js';
import { MIGRATIONS, type Migration } from '../migrations/index.js';
import type { PostgresStore } from './postgres-store.js';

/** Tables only the shared deployment needs; numbered apart from the embedded store's list, which both run. */
export const POSTGRES_ONLY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1001,
    name: 'data versions shared by replicas',
    statements: [
      // Row 0 is the version of what every organization reads (FX rates, reference data).
      `CREATE TABLE data_versions (
         organization_id BIGINT PRIMARY KEY,
         version BIGINT NOT NULL
       )`,
      // DuckDB's rowid (insertion order) orders the sandbox's append-only change log; here it is a column.
      `ALTER TABLE sandbox_changes ADD COLUMN rowid BIGSERIAL`,
    ],
  },
  {
    version: 1002,
    name: 'rate buckets shared by replicas',
    statements: [
      `CREATE TABLE rate_buckets (
         policy VARCHAR NOT NULL,
         key VARCHAR NOT NULL,
         level DOUBLE PRECISION NOT NULL,
         allowed BOOLEAN NOT NULL,
         updated_at TIMESTAMPTZ NOT NULL,
         PRIMARY KEY (policy, key)
       )`,
    ],
  },
];

/**
 * Statements of the embedded list that fill new fact-side tables from the facts already there
 * (migrations 10 and 11, DuckDB SQL: GROUP BY ALL). A PostgreSQL store holds no facts, so it
 * skips them; its tables start empty like a new file's.
 */
function backfillsFacts(migration: Migration, statement: string): boolean {
  return (migration.version === 10 || migration.version === 11) && /^\s*INSERT INTO/i.test(statement);
}

/** Any constant both sides agree on; pg_advisory locks are per database. */
const MIGRATION_LOCK = 0x616472; // "adr"

/**
 * Brings a PostgreSQL store to this release's schema: the embedded store's migrations (their SQL
 * translated by the dialect; `before` hooks move DuckDB-era secrets and have nothing to move
 * here), then POSTGRES_ONLY_MIGRATIONS. One transaction under an advisory lock: however many
 * replicas start at once, one migrates and the others find it done. DDL in PostgreSQL is
 * transactional, so a failed migration leaves the schema as it was.
 */
export async function migratePostgres(store: PostgresStore): Promise<number[]> {
  const all = [...MIGRATIONS, ...POSTGRES_ONLY_MIGRATIONS].sort((a, b) => a.version - b.version);
  return store.exclusive(MIGRATION_LOCK, async (tx) => {
    await tx.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name VARCHAR NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const applied = new Set(
      (await tx.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
    );
    refuseNewerSchema(store.dbPath, applied, all);
    const ran: number[] = [];
    for (const migration of all) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.statements) if (!backfillsFacts(migration, statement)) await tx.run(statement);
      await tx.run('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      ran.push(migration.version);
    }
    return ran;
  });
}
