import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';
import { keyFileOf, keysOnDisk } from '../helpers/token-keys.js';

const root = tempDir('adreport-perm-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const modeOf = (target: string) => fs.statSync(target).mode & 0o777;

async function writeOneAccount(
  serve: Awaited<ReturnType<typeof startServe>>,
  dataDir: string,
  credentials: { clientId: string; clientSecret: string },
) {
  const http = new HttpClient(
    serve.listening.url,
    fs.readFileSync(path.join(dataDir, 'adreport.duckdb.tls', 'cert.pem'), 'utf8'),
  );
  const token = (
    await http.request('POST', '/token', {
      headers: { authorization: basic(credentials.clientId, credentials.clientSecret), 'content-type': FORM },
      body: 'grant_type=client_credentials',
    })
  ).json.access_token as string;
  const res = await http.request('POST', '/provisioning/v0/accounts', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ account: { name: 'Perm GmbH', languageCode: 'de', countryCode: 'DE', currency: 'EUR' } }),
  });
  expect(res.status).toBe(201);
  http.close();
}

describe("files of a database are the owner's alone (issue 19 item 21)", () => {
  it('a first start makes the data directory 0700 and the database, its WAL and the key file 0600; no key in the database', async () => {
    // The test runner's umask (usually 022) is what the bin inherits: the service must not depend on it.
    const dataDir = path.join(root, 'fresh', 'data');
    const db = path.join(dataDir, 'adreport.duckdb');
    const serve = await startServe(['--demo', '--db', db]);
    try {
      await writeOneAccount(serve, dataDir, serve.listening.demo!);
      expect(modeOf(dataDir).toString(8)).toBe('700');
      expect(modeOf(db).toString(8)).toBe('600');
      // A write below the checkpoint threshold stays in the WAL, which DuckDB made after the open.
      expect(fs.existsSync(`${db}.wal`)).toBe(true);
      expect(modeOf(`${db}.wal`).toString(8)).toBe('600');
      expect(modeOf(keyFileOf(db)).toString(8)).toBe('600');
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
    // What a reader of the database file finds: no signing key, in any spelling.
    const bytes = Buffer.concat([
      fs.readFileSync(db),
      fs.existsSync(`${db}.wal`) ? fs.readFileSync(`${db}.wal`) : Buffer.alloc(0),
    ]);
    for (const key of keysOnDisk(db)) {
      const secret = Buffer.from(key.secret, 'base64url');
      for (const spelling of [
        secret,
        Buffer.from(secret.toString('hex')),
        Buffer.from(key.secret),
        Buffer.from(secret.toString('base64')),
      ]) {
        expect(bytes.includes(spelling)).toBe(false);
      }
    }
  });

  it('tightens what an earlier release left readable (directory, database, WAL) and refuses a readable key file', async () => {
    const dataDir = path.join(root, 'loose');
    const db = path.join(dataDir, 'adreport.duckdb');
    const first = await startServe(['--demo', '--db', db]);
    await writeOneAccount(first, dataDir, first.listening.demo!);
    // Killed, so the WAL stays for the next start to find.
    first.child.kill('SIGKILL');
    await first.exited;
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(db, 0o644);
    fs.chmodSync(`${db}.wal`, 0o644);
    fs.chmodSync(keyFileOf(db), 0o644);

    // A key file others could read is not tightened quietly: the key may be known (issue 36 item 8).
    const refused = await runCli(['serve', '--db', db]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^adreport: refusing .*adreport\.duckdb\.token-keys\.json: its mode 0644 lets group or others read it; .*chmod 600/,
      ),
    ]);
    fs.chmodSync(keyFileOf(db), 0o600);

    const second = await startServe(['--db', db]);
    try {
      expect(modeOf(dataDir).toString(8)).toBe('700');
      expect(modeOf(db).toString(8)).toBe('600');
      expect(modeOf(keyFileOf(db)).toString(8)).toBe('600');
      // The start checkpointed the crash's WAL away; whatever WAL there is now is owner-only too.
      if (fs.existsSync(`${db}.wal`)) expect(modeOf(`${db}.wal`).toString(8)).toBe('600');
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  });
});
