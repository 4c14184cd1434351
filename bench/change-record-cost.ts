/**
 * What recordChange adds to a write (issue 24, the change feed): N writes on the single writer,
 * each an INSERT into a scratch table, without and with a change row in the same transaction, and
 * with a second plain INSERT instead (what any one more statement on the writer costs).
 * `node --import tsx bench/change-record-cost.ts [writes]`
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recordChange } from '../src/changes/change-log.js';
import { Database } from '../src/store/database.js';
import { migrate } from '../src/store/migrate.js';

const writes = Number(process.argv[2] ?? 2000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-change-bench-'));
const db = await Database.open(path.join(dir, 'bench.duckdb'), { readConnections: 2, maxQueued: 100 });
try {
  await migrate(db);
  await db.write('no-report-data', (tx) => tx.run('CREATE TABLE scratch (id INTEGER, name VARCHAR)'));
  const run = async (withChange: boolean | 'second-insert'): Promise<number> => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < writes; i++) {
      await db.write({ organizationId: 1 }, async (tx) => {
        await tx.run('INSERT INTO scratch VALUES ($1, $2)', [i, `account ${i}`]);
        if (withChange === 'second-insert') await tx.run('INSERT INTO scratch VALUES ($1, $2)', [i, `again ${i}`]);
        else if (withChange) await recordChange(tx, { organizationId: 1, kind: 'ENTITIES_CHANGED', accountId: i });
      });
    }
    return Number(process.hrtime.bigint() - started) / 1e6 / writes;
  };
  for (let round = 0; round < 3; round++) {
    const without = await run(false);
    const withChange = await run(true);
    const secondInsert = await run('second-insert');
    console.log(
      `round ${round + 1}: ${without.toFixed(3)} ms per write without, ${withChange.toFixed(3)} ms with a change row, ${secondInsert.toFixed(3)} ms with a second plain INSERT instead`,
    );
  }
} finally {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
