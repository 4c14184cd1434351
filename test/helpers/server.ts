import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filesAnchor, serviceConfigSchema, type ServiceConfigInput } from '../../src/config/config.js';
import { startService, type RunningService, type ServiceIo } from '../../src/main.js';
import pg from 'pg';
import { basic, FORM, HttpClient } from './http.js';

export interface TestServer {
  service: RunningService;
  http: HttpClient;
  dir: string;
  /** What key files are named after: the DuckDB file, or `<files dir>/adreport` on PostgreSQL (filesAnchor). */
  filesAnchor: string;
  clientId: string;
  clientSecret: string;
  errors: unknown[];
  /** The service's info lines (io.log). */
  logs: string[];
  /** A fresh token of the demo client (both scopes unless `scope` narrows it). */
  token(scope?: string): Promise<string>;
  close(): Promise<void>;
}

export function tempDir(prefix = 'adreport-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * ADREPORT_TEST_STORE=postgres://user@host:port/ runs the same suite on the PostgreSQL store: each
 * server gets a database of its own on that server, its files under its temp dir.
 */
async function postgresStoreFor(dir: string): Promise<ServiceConfigInput> {
  const base = process.env.ADREPORT_TEST_STORE;
  if (!base) return {};
  const name = `t_${path
    .basename(dir)
    .replace(/[^a-z0-9]/gi, '_')
    .toLowerCase()}`;
  const admin = new pg.Client({ connectionString: new URL('postgres', base).toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return { storeUrl: new URL(name, base).toString(), filesDir: dir };
}

/** A real service on a free port over HTTPS, on a fresh DuckDB file with the demo client. */
export async function startTestServer(
  overrides: ServiceConfigInput = {},
  clock?: { nowMs: () => number },
  io: Pick<ServiceIo, 'explorerDir' | 'webhookLookup'> = {},
): Promise<TestServer> {
  const dir = tempDir();
  const errors: unknown[] = [];
  const logs: string[] = [];
  // Imports fetch a short history here: most tests import campaigns and need none of it.
  const config = serviceConfigSchema.parse({
    dbPath: path.join(dir, 'adreport.duckdb'),
    ...(await postgresStoreFor(dir)),
    host: '127.0.0.1',
    port: 0,
    demo: true,
    statistics: { backfillDays: 10 },
    ...overrides,
  });
  const service = await startService(config, {
    logError: (entry) => {
      errors.push(entry.error);
      if (process.env.ADREPORT_TEST_PRINT_ERRORS) console.error('server error:', entry.path, entry.error);
    },
    log: (line) => logs.push(line),
    nowMs: clock?.nowMs,
    ...io,
  });
  if (!service.demo?.created) throw new Error('demo client was not created');
  const { clientId, clientSecret } = service.demo.client;
  const http = new HttpClient(service.url, service.tls?.cert);
  return {
    service,
    http,
    dir,
    filesAnchor: filesAnchor(config),
    clientId,
    clientSecret,
    errors,
    logs,
    async token(scope) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }).toString();
      let res = await http.request('POST', '/token', {
        headers: { authorization: basic(clientId, clientSecret), 'content-type': FORM },
        body,
      });
      // A server configured without a queue answers 503 while a background read holds its one connection; clients retry.
      for (let i = 0; i < 50 && res.status === 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        res = await http.request('POST', '/token', {
          headers: { authorization: basic(clientId, clientSecret), 'content-type': FORM },
          body,
        });
      }
      if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
      return res.json.access_token as string;
    },
    async close() {
      http.close();
      await service.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
