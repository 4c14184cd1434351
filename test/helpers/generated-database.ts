import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadFxReference } from '../../src/reference/fx-rates.js';
import { Database } from '../../src/store/database.js';
import type { Row, SqlValue } from '../../src/store/sql-values.js';
import { copyWorld, WORLD_FILE } from './worlds.js';

/**
 * A copy of the world small-2orgs-30d (helpers/worlds.ts: the real generator, scale 1, 30 days
 * to yesterday, two organizations) with the FX reference loaded, opened through the store
 * for the tests of one file and removed after them. Read the fields inside tests (beforeAll sets them).
 */
export interface GeneratedDatabase {
  db: Database;
  /** The last generated day (yesterday, UTC), YYYY-MM-DD. */
  lastDay: string;
  sql<T extends object = Row>(text: string, params?: readonly SqlValue[]): Promise<T[]>;
}

export function useGeneratedDatabase(prefix: string): GeneratedDatabase {
  let dir = '';
  const handle: GeneratedDatabase = {
    db: undefined as unknown as Database,
    lastDay: '',
    sql: (text, params = []) => handle.db.read((r) => r.all(text, params)),
  };
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    const file = path.join(dir, WORLD_FILE);
    await copyWorld('small-2orgs-30d', dir);
    handle.db = await Database.open(file, { readConnections: 2, maxQueued: 10_000 });
    await loadFxReference(handle.db);
    handle.lastDay = (
      await handle.sql<{ d: string }>("SELECT strftime(max(day), '%Y-%m-%d') AS d FROM fact_ad_daily")
    )[0]!.d;
  });
  afterAll(async () => {
    await handle.db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  return handle;
}
