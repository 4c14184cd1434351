import type { Database } from './database.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/**
 * Brings the schema to the newest version, one transaction per migration, so a crash
 * leaves the file at a known version. Refuses a file written by a newer release.
 */
export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await db.write('all-organizations', (tx) =>
    tx.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name VARCHAR NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`),
  );
  const appliedRows = await db.read((r) => r.all<{ version: number }>('SELECT version FROM schema_migrations'));
  const applied = new Set(appliedRows.map((row) => row.version));
  refuseNewerSchema(db.dbPath, applied, migrations);
  const ran: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    await db.write('all-organizations', async (tx) => {
      await migration.before?.(tx, { dbPath: db.dbPath, now: new Date() });
      for (const statement of migration.statements) await tx.run(statement);
      await tx.run('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    });
    ran.push(migration.version);
  }
  return ran;
}

/** A store written by a newer release has versions this one does not know: refuse it, never guess. */
export function refuseNewerSchema(label: string, applied: ReadonlySet<number>, migrations: readonly Migration[]): void {
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => v > newest);
  if (unknown.length > 0) {
    throw new Error(
      `${label} has schema version ${Math.max(...unknown)}, newer than this release knows (${newest}); upgrade adreport`,
    );
  }
}
