import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startPostgres, startStopped, type PostgresPeer } from '../../bench/peer/postgres.js';

/**
 * A private PostgreSQL for one test file: the bench's peer (bench/peer/postgres.ts: Debian's
 * server, installed when missing, one cluster under a directory of ours, 127.0.0.1 on a free port,
 * trust auth for user postgres), in a cluster directory of its own under os.tmpdir(), so files
 * that each start one run in parallel. Settings sized for tests beside other tests on 2 cores;
 * fsync stays off as in the bench: a fast shutdown (`restart()`) still writes every commit out.
 */
export interface TestPostgres {
  readonly port: number;
  /** The cluster's directory (data/, server.log); removed by `close()`. */
  readonly dir: string;
  readonly peer: PostgresPeer;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database: string): string;
  /** CREATE DATABASE with a fresh name (or the one given); resolves with its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Runs one statement on a database over its own connection (for checks, not for load). */
  query<T extends Record<string, unknown> = Record<string, unknown>>(
    database: string,
    sql: string,
    params?: unknown[],
  ): Promise<T[]>;
  /** pg_ctl stop -m fast: clients' connections are cut, commits so far are on disk. */
  stop(): Promise<void>;
  /** pg_ctl start after `stop()`, on the same port. */
  start(): Promise<void>;
  /** stop, then start on the same port. */
  restart(): Promise<void>;
  /** Stops the server (when running) and removes the cluster. */
  close(): Promise<void>;
}

const TEST_SETTINGS = {
  shared_buffers: "'128MB'",
  effective_cache_size: "'1GB'",
  work_mem: "'4MB'",
  maintenance_work_mem: "'64MB'",
  max_wal_size: "'1GB'",
  max_connections: 200,
  max_parallel_workers_per_gather: 0,
  checkpoint_timeout: "'5min'",
};

let databases = 0;

export async function startTestPostgres(
  prefix = 'adreport-pg-',
  settings: Partial<Record<keyof typeof TEST_SETTINGS, string | number>> = {},
): Promise<TestPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // The server runs as the postgres OS user when we are root: it must reach the cluster directory.
  fs.chmodSync(dir, 0o755);
  let peer: PostgresPeer;
  try {
    peer = await startPostgres({ dir, settings: { ...TEST_SETTINGS, ...settings } });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let running = true;
  const url = (database: string) => `postgres://postgres@127.0.0.1:${peer.port}/${database}`;
  const stop = async () => {
    await peer.stop();
    running = false;
  };
  const start = async () => {
    await startStopped(peer);
    running = true;
  };
  return {
    port: peer.port,
    dir,
    peer,
    url,
    async createDatabase(name) {
      const database = name ?? `adreport_${process.pid}_${++databases}`;
      if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
      await peer.query(`CREATE DATABASE ${database}`);
      return url(database);
    },
    async query(database, sql, params = []) {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    stop,
    start,
    async restart() {
      await stop();
      await start();
    },
    async close() {
      try {
        if (running) await stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
