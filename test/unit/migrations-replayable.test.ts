import { expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/index.js';

/*
 * DuckDB 1.5 cannot replay from its WAL an ALTER TABLE ... ADD COLUMN on a table whose column
 * defaults to nextval() ("GetDefaultDatabase with no default database set"): a crash after such a
 * migration and before the next checkpoint leaves a file no start can open. Issue 36's first
 * migration 017 did it; test/cli/crash-recovery.test.ts found it. A new column of such a table
 * goes in a table of its own (as report_job_estimates).
 */
it('no migration adds a column to a table whose key defaults to nextval()', () => {
  const sequenced = new Set<string>();
  const offending: string[] = [];
  for (const migration of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
    for (const statement of migration.statements) {
      const created = /CREATE TABLE (?:IF NOT EXISTS )?(\w+)/i.exec(statement);
      if (created && /nextval\(/i.test(statement)) sequenced.add(created[1]!.toLowerCase());
      const altered = /ALTER TABLE (\w+) ADD COLUMN/i.exec(statement);
      if (altered && sequenced.has(altered[1]!.toLowerCase())) offending.push(`${migration.version}: ${statement}`);
    }
  }
  expect(sequenced.size).toBeGreaterThan(3);
  expect(offending).toEqual([]);
});
