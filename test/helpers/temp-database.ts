import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';

/**
 * A migrated database file in a temp dir for the tests of one file, opened before them and
 * removed after. Read `.db` inside tests (it is set by beforeAll).
 */
export function useTempDatabase(prefix: string): { db: Database; file: string } {
  const handle = { db: undefined as unknown as Database, file: '' };
  let dir = '';
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    handle.file = path.join(dir, 'sandbox.duckdb');
    handle.db = await Database.open(handle.file, { readConnections: 2, maxQueued: 64 });
    await migrate(handle.db);
  });
  afterAll(async () => {
    await handle.db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return handle;
}
