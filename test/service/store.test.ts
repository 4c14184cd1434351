import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { tempDir } from '../helpers/server.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

async function openFresh(): Promise<{ db: Database; file: string }> {
  const dir = tempDir('adreport-store-');
  dirs.push(dir);
  const file = path.join(dir, 'a.duckdb');
  return { db: await Database.open(file, { readConnections: 2, maxQueued: 8 }), file };
}

describe('migrations', () => {
  it('apply every version once, in order, and not again on the next start', async () => {
    const { db, file } = await openFresh();
    expect(await migrate(db)).toEqual(MIGRATIONS.map((m) => m.version));
    await db.close();
    const reopened = await Database.open(file, { readConnections: 1, maxQueued: 8 });
    expect(await migrate(reopened)).toEqual([]);
    const versions = await reopened.read((r) =>
      r.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version'),
    );
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
    await reopened.close();
  });

  it('refuse a file written by a newer release', async () => {
    const { db } = await openFresh();
    await migrate(db);
    await db.write('all-organizations', (tx) =>
      tx.run("INSERT INTO schema_migrations (version, name) VALUES (9999, 'from the future')"),
    );
    await expect(migrate(db)).rejects.toThrow(/schema version 9999, newer than this release knows/);
    await db.close();
  });

  it('roll a failing migration back whole', async () => {
    const { db } = await openFresh();
    const broken = [
      { version: 1, name: 'half', statements: ['CREATE TABLE half_done (x INTEGER)', 'SELECT * FROM no_such_table'] },
    ];
    await expect(migrate(db, broken)).rejects.toThrow();
    const tables = await db.read((r) =>
      r.all("SELECT table_name FROM information_schema.tables WHERE table_name = 'half_done'"),
    );
    expect(tables).toEqual([]);
    await db.close();
  });
});

describe('transactions', () => {
  it('a failing unit of work leaves nothing behind', async () => {
    const { db } = await openFresh();
    await migrate(db);
    await expect(
      db.write('all-organizations', async (tx) => {
        await tx.run("INSERT INTO organizations (name) VALUES ('kept?')");
        throw new Error('request failed half way');
      }),
    ).rejects.toThrow('request failed half way');
    const rows = await db.read((r) => r.all('SELECT * FROM organizations'));
    expect(rows).toEqual([]);
    // The writer is usable afterwards.
    await db.write('all-organizations', (tx) => tx.run("INSERT INTO organizations (name) VALUES ('next')"));
    expect(await db.read((r) => r.all('SELECT name FROM organizations'))).toEqual([{ name: 'next' }]);
    await db.close();
  });

  it('a committed write is visible to the next read on another connection', async () => {
    const { db } = await openFresh();
    await migrate(db);
    await db.write('all-organizations', (tx) => tx.run("INSERT INTO organizations (name) VALUES ('seen')"));
    const counts = await Promise.all(
      [1, 2, 3].map(() => db.read((r) => r.one<{ n: number }>('SELECT count(*) AS n FROM organizations'))),
    );
    expect(counts.map((c) => c!.n)).toEqual([1, 1, 1]);
    await db.close();
  });
});

describe('query plans', () => {
  it('see rows that an UPDATE moved into a filter the plan once ruled out by statistics', async () => {
    const { db } = await openFresh();
    await migrate(db);
    await db.write('all-organizations', (tx) => tx.run("INSERT INTO organizations (name) VALUES ('a')"));
    // Same SQL text before and after: a statement (or plan) cache keyed by text would answer 0 again.
    const named = () =>
      db.read((r) => r.one<{ n: number }>("SELECT count(*)::INT AS n FROM organizations WHERE name = 'renamed'"));
    for (let i = 0; i < 8; i++) expect((await named())!.n).toBe(0);
    await db.write('all-organizations', (tx) => tx.run("UPDATE organizations SET name = 'renamed'"));
    for (let i = 0; i < 8; i++) expect((await named())!.n).toBe(1);
    await db.close();
  });
});

describe('hardened settings', () => {
  it('run in UTC, refuse files outside the data dir, and cannot be changed by a query', async () => {
    const { db } = await openFresh();
    const tz = await db.read((r) => r.one<{ tz: string }>("SELECT current_setting('TimeZone') AS tz"));
    expect(tz!.tz).toBe('UTC');
    await expect(db.read((r) => r.all("SELECT * FROM read_csv('/etc/passwd')"))).rejects.toThrow(
      /disabled by configuration|Permission/,
    );
    await expect(db.read((r) => r.run('SET enable_external_access = true'))).rejects.toThrow(
      /Cannot change configuration option/,
    );
    await expect(db.read((r) => r.run('INSTALL httpfs'))).rejects.toThrow();
    await db.close();
  });
});

describe('the WAL (issue 19 item 23)', () => {
  it('stays near the 1 MiB checkpoint threshold under a stream of writes', async () => {
    const { db, file } = await openFresh();
    await db.write('all-organizations', (tx) => tx.run('CREATE TABLE filler (t VARCHAR)'));
    let largest = 0;
    // 12 commits of ~1 MB each: DuckDB's default threshold (16 MiB) would keep all of them in the WAL.
    for (let i = 0; i < 12; i++) {
      await db.write('all-organizations', (tx) =>
        tx.run(`INSERT INTO filler SELECT repeat(chr(65 + ${i}), 1000) || r FROM range(1000) t(r)`),
      );
      largest = Math.max(largest, fs.statSync(`${file}.wal`, { throwIfNoEntry: false })?.size ?? 0);
    }
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThan(2.5 * 1024 * 1024);
    expect((await db.read((r) => r.one<{ n: number }>('SELECT count(*)::INT AS n FROM filler')))!.n).toBe(12_000);
    await db.close();
  });
});

describe('durable before visible (issue 34)', () => {
  it('a wide UPDATE is in the WAL when its commit returns: DuckDB does not checkpoint it in place of the WAL', async () => {
    const { db, file } = await openFresh();
    const columns = Array.from({ length: 40 }, (_, i) => `c${i}`);
    await db.write('all-organizations', async (tx) => {
      await tx.run(`CREATE TABLE wide (id INTEGER, ${columns.map((c) => `${c} VARCHAR`).join(', ')})`);
      await tx.run(`INSERT INTO wide SELECT r, ${columns.map(() => "'old'").join(', ')} FROM range(100) t(r)`);
    });
    await db.close();
    const reopened = await Database.open(file, { readConnections: 1, maxQueued: 8 });
    const walBytes = () => fs.statSync(`${file}.wal`, { throwIfNoEntry: false })?.size ?? 0;
    expect(walBytes()).toBe(0);
    // DuckDB estimates ~40 KB per column an UPDATE names: far past 1 MiB here, for a few KB of WAL.
    await reopened.write('all-organizations', (tx) =>
      tx.run(`UPDATE wide SET ${columns.map((c) => `${c} = 'new'`).join(', ')} WHERE id = 7`),
    );
    expect(walBytes()).toBeGreaterThan(0);
    expect(walBytes()).toBeLessThan(64 * 1024);
    const row = await reopened.read((r) => r.one<{ c39: string }>('SELECT c39 FROM wide WHERE id = 7'));
    expect(row!.c39).toBe('new');
    await reopened.close();
  });

  it('checkpoints after the write that took the WAL past 1 MiB, not inside it', async () => {
    const { db, file } = await openFresh();
    const walBytes = () => fs.statSync(`${file}.wal`, { throwIfNoEntry: false })?.size ?? 0;
    await db.write('all-organizations', (tx) => tx.run('CREATE TABLE filler (t VARCHAR)'));
    await db.write('all-organizations', (tx) =>
      tx.run("INSERT INTO filler SELECT repeat('x', 1000) || r FROM range(1500) t(r)"),
    );
    // The commit returned with its ~1.5 MB in the WAL; the checkpoint is the write lane's next task.
    expect(walBytes()).toBeGreaterThan(1024 * 1024);
    await db.write('no-report-data', async () => undefined);
    expect(walBytes()).toBeLessThan(64 * 1024);
    expect((await db.read((r) => r.one<{ n: number }>('SELECT count(*)::INT AS n FROM filler')))!.n).toBe(1500);
    await db.close();
  });
});

describe('the data directory', () => {
  it('is closed to SQL file functions, so no query can read the token key file beside the database', async () => {
    const { file } = await openFresh();
    const keyFile = `${file}.token-keys.json`;
    fs.writeFileSync(keyFile, '{"secret":"not for SQL"}', { mode: 0o600 });
    // The temp dir stays open (export pipes); here it is one that does not hold the data directory.
    const otherTemp = tempDir('adreport-store-tmp-');
    dirs.push(otherTemp);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = otherTemp;
    let db: Database;
    try {
      db = await Database.open(path.join(path.dirname(file), 'b.duckdb'), { readConnections: 1, maxQueued: 8 });
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    await expect(db.read((r) => r.all(`SELECT content FROM read_text('${keyFile}')`))).rejects.toThrow(
      /disabled by configuration|Permission/,
    );
    fs.writeFileSync(path.join(otherTemp, 'ok.txt'), 'readable');
    expect(await db.read((r) => r.all(`SELECT content FROM read_text('${path.join(otherTemp, 'ok.txt')}')`))).toEqual([
      { content: 'readable' },
    ]);
    await db.close();
  });
});

describe('opening a file held by another process', () => {
  it('names the holder instead of the raw lock error', async () => {
    // The other process is the test runner's sibling: a child that opens the file and waits.
    const { db, file } = await openFresh();
    await db.close();
    const { spawn } = await import('node:child_process');
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { DuckDBInstance } from '@duckdb/node-api';
      await DuckDBInstance.create(${JSON.stringify(file)});
      console.log('open');
      setTimeout(() => {}, 20000);
    `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
      await expect(Database.open(file, { readConnections: 1, maxQueued: 1 })).rejects.toThrow(
        new RegExp(`is held by a running process \\(pid ${holder.pid}\\)`),
      );
    } finally {
      holder.kill();
    }
  });
});

describe('lazy rows', () => {
  // Three ~200 KB BLOBs, each of one repeated letter, so every byte can be checked.
  const BLOBS = 'SELECT i, encode(repeat(chr(64 + i::INTEGER), 200000)) AS b FROM range(1, 4) t(i) ORDER BY i';

  it('give each cell as all() does, a BLOB as its bytes, read after the connection went back to the pool', async () => {
    const { db } = await openFresh();
    const rows = await db.read((r) => r.lazy(BLOBS));
    // Another query on every connection meanwhile: the rows belong to their result, not to the connection.
    await Promise.all([db.read((r) => r.all('SELECT 1')), db.read((r) => r.all('SELECT 2'))]);
    expect(rows.rowCount).toBe(3);
    for (let i = 0; i < 3; i++) {
      expect(rows.get(i, 0)).toBe(i + 1);
      const bytes = rows.get(i, 1) as Uint8Array;
      expect(bytes.byteLength).toBe(200_000);
      expect(bytes.every((b) => b === 65 + i)).toBe(true);
    }
    rows.release();
    expect(() => rows.get(0, 0)).toThrow(/after release/);
    await db.close();
  });

  it('still readable after the store closed under them (copied out first); released ones are not copied', async () => {
    const { db } = await openFresh();
    const kept = await db.read((r) => r.lazy(BLOBS));
    const released = await db.read((r) => r.lazy('SELECT 1 AS x'));
    released.release();
    await db.close();
    expect((kept.get(2, 1) as Uint8Array).every((b) => b === 67)).toBe(true);
    expect(kept.get(1, 0)).toBe(2);
    expect(() => released.get(0, 0)).toThrow(/after release/);
    kept.release();
  });

  it('a BLOB of up to 12 bytes (DuckDB keeps those inline) is a copy too', async () => {
    const { db } = await openFresh();
    const rows = await db.read((r) => r.lazy("SELECT encode('short') AS b, encode('') AS e, NULL::BLOB AS n"));
    const short = rows.get(0, 0) as Uint8Array;
    expect((rows.get(0, 1) as Uint8Array).byteLength).toBe(0);
    expect(rows.get(0, 2)).toBeNull();
    rows.release();
    await db.close();
    expect(Buffer.from(short).toString()).toBe('short');
    expect(rows.rowCount).toBe(1);
  });
});
