import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';

const dir = tempDir('adreport-crash-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const walSize = (db: string) => fs.statSync(`${db}.wal`, { throwIfNoEntry: false })?.size ?? 0;

describe('a restart after kill -9 under writes (issue 19 item 23)', () => {
  it('checkpoints the replayed WAL before serving, and keeps every acknowledged write', async () => {
    const db = path.join(dir, 'adreport.duckdb');
    const first = await startServe(['--demo', '--db', db]);
    const demo = first.listening.demo!;
    const ca = fs.readFileSync(`${db}.tls/cert.pem`, 'utf8');
    let http = new HttpClient(first.listening.url, ca);
    const token = (
      await http.request('POST', '/token', {
        headers: { authorization: basic(demo.clientId, demo.clientSecret), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      })
    ).json.access_token as string;

    // Writes still arriving when the process dies; every 201 is one account the store promised to keep.
    let acknowledged = 0;
    let stop = false;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const res = await http
          .request('POST', '/provisioning/v0/accounts', {
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              account: {
                name: `Crash ${w}-${i}`,
                languageCode: 'de',
                countryCode: 'DE',
                currency: 'EUR',
                notes: 'n'.repeat(500),
              },
            }),
          })
          .catch(() => undefined);
        if (!res) return;
        if (res.status === 201) acknowledged++;
      }
    });
    // Enough WAL to tell a replayed-and-kept WAL from a checkpointed one, well below the 1 MiB auto-checkpoint.
    const deadline = Date.now() + 20_000;
    while (walSize(db) < 200 * 1024 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    first.child.kill('SIGKILL');
    await first.exited;
    stop = true;
    await Promise.all(writers);
    http.close();
    const walAfterCrash = walSize(db);
    expect(walAfterCrash).toBeGreaterThan(200 * 1024);

    const second = await startServe(['--db', db]);
    try {
      // The listening line comes after the open: the replayed WAL is in the file by now. What is
      // left is the few bytes of the start's own bookkeeping writes (job requeue and purge).
      expect(walSize(db)).toBeLessThan(16 * 1024);
      http = new HttpClient(second.listening.url, ca);
      const list = await http.get('/provisioning/v0/accounts?limit=1', { authorization: `Bearer ${token}` });
      expect(list.status).toBe(200);
      // Requests in flight at the kill may have committed without their 201 reaching us: at least, never fewer.
      expect(Number(list.headers['x-totalcount'])).toBeGreaterThanOrEqual(acknowledged);
      expect(acknowledged).toBeGreaterThan(0);
      http.close();
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  });
});
