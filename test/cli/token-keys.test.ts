import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newClientCredentials } from '../../src/auth/clients.js';
import { signToken } from '../../src/auth/tokens.js';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { createOrganization } from '../../src/organizations/organizations.js';
import { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { runCli, startServe } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';
import { keyFileOf, keysOnDisk, signingKeyOnDisk } from '../helpers/token-keys.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function freshDb(): string {
  const dir = tempDir('adreport-keys-');
  dirs.push(dir);
  return path.join(dir, 'adreport.duckdb');
}

const ORG = '/provisioning/v0/organization';
const kidOf = (token: string) => token.split('.')[1];
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** README: a key's id is the first 8 characters of base64url(HMAC-SHA256(key, "adreport token key id")). */
const documentedKeyId = (secret: Buffer) =>
  crypto.createHmac('sha256', secret).update('adreport token key id').digest('base64url').slice(0, 8);
/** A token as releases before key rotation made them: v1.<claims>.<HMAC-SHA256 with the key from server_keys>. */
function v1Token(
  secret: Buffer,
  claims: { cid: string; org: number; scp: string[]; iat: number; exp: number },
): string {
  const body = `v1.${b64url(claims)}`;
  return `${body}.${crypto.createHmac('sha256', secret).update(body).digest('base64url')}`;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function tokenOf(http: HttpClient, credentials: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await http.request('POST', '/token', {
    headers: { authorization: basic(credentials.clientId, credentials.clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  expect(res.status).toBe(200);
  return res.json.access_token as string;
}

describe('the signing key that an earlier release kept in the database (migration 8)', () => {
  it('moves to the key file retired: v1 tokens work for one token lifetime, a new key signs, the table is gone', async () => {
    const db = freshDb();
    const legacy = crypto.randomBytes(32);
    const credentials = await newClientCredentials();
    const old = await Database.open(db, { readConnections: 1, maxQueued: 8 });
    await migrate(
      old,
      MIGRATIONS.filter((m) => m.version <= 7),
    );
    await old.write('all-organizations', async (tx) => {
      await tx.run("INSERT INTO server_keys (name, key_hex) VALUES ('token-signing', $1)", [legacy.toString('hex')]);
      const organization = await createOrganization(tx, 'Upgraded');
      // As the release of migration 7 stored a client: no SCRAM verifier (its table came with migration 21).
      await tx.run(
        'INSERT INTO api_clients (client_id, organization_id, name, secret_hash, scopes) VALUES ($1, $2, NULL, $3, $4)',
        [credentials.clientId, organization.id, credentials.secretHash, ['provisioning']],
      );
    });
    await old.close();
    const beforeUpgrade = Math.floor(Date.now() / 1000) - 5;
    // A token issued by the old release just before the upgrade, and one a thief with the old key might forge, valid for days.
    const issued = v1Token(legacy, {
      cid: credentials.clientId,
      org: 1,
      scp: ['provisioning'],
      iat: beforeUpgrade,
      exp: beforeUpgrade + 3600,
    });
    const longLived = v1Token(legacy, {
      cid: credentials.clientId,
      org: 1,
      scp: ['provisioning'],
      iat: beforeUpgrade,
      exp: beforeUpgrade + 5 * 86400,
    });

    let offsetMs = 0;
    const errors: unknown[] = [];
    const service = await startService(serviceConfigSchema.parse({ dbPath: db, host: '127.0.0.1', port: 0 }), {
      logError: (entry) => errors.push(entry.error),
      nowMs: () => Date.now() + offsetMs,
    });
    const http = new HttpClient(service.url, service.tls!.cert);
    try {
      const tables = await service.db.read((r) =>
        r.all("SELECT table_name FROM information_schema.tables WHERE table_name = 'server_keys'"),
      );
      expect(tables).toEqual([]);
      const keys = keysOnDisk(db);
      const moved = keys.find((k) => Buffer.from(k.secret, 'base64url').equals(legacy))!;
      expect(moved).toMatchObject({ acceptsV1: true, retiredAt: expect.any(String) });
      expect(fs.statSync(keyFileOf(db)).mode & 0o777).toBe(0o600);

      expect((await http.get(ORG, { authorization: `Bearer ${issued}` })).status).toBe(200);
      expect((await http.get(ORG, { authorization: `Bearer ${longLived}` })).status).toBe(200);
      const fresh = await tokenOf(http, { clientId: credentials.clientId, clientSecret: credentials.clientSecret });
      expect(fresh.startsWith('v2.')).toBe(true);
      expect(kidOf(fresh)).toBe(signingKeyOnDisk(db).kid);
      expect(signingKeyOnDisk(db).secret.equals(legacy)).toBe(false);
      // Signed with the old key after it retired: refused at once.
      const afterRetirement = Math.floor(Date.parse(moved.retiredAt!) / 1000) + 2;
      const forged = v1Token(legacy, {
        cid: credentials.clientId,
        org: 1,
        scp: ['provisioning'],
        iat: afterRetirement,
        exp: afterRetirement + 600,
      });
      expect((await http.get(ORG, { authorization: `Bearer ${forged}` })).status).toBe(401);

      // One token lifetime (3600 s) after the retirement the old key verifies nothing, whatever a token's own expiry says.
      offsetMs = 3601 * 1000;
      const late = await http.get(ORG, { authorization: `Bearer ${longLived}` });
      expect(late.status).toBe(401);
      expect(late.json.error.code).toBe('invalid_token');
      expect((await http.get(ORG, { authorization: `Bearer ${await tokenOf(http, credentials)}` })).status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      http.close();
      await service.close();
    }
  });
});

describe('adreport keys rotate (issue 19 item 21)', () => {
  it('with the server running: the new key signs within seconds, the old one verifies its tokens until a lifetime after, then is dropped', async () => {
    const db = freshDb();
    const env = { ADREPORT_TOKEN_TTL_SECONDS: '10' };
    const serve = await startServe(['--demo', '--db', db], env);
    const demo = serve.listening.demo!;
    const http = new HttpClient(serve.listening.url, fs.readFileSync(`${db}.tls/cert.pem`, 'utf8'));
    try {
      const first = signingKeyOnDisk(db);
      const before = await tokenOf(http, demo);
      expect(kidOf(before)).toBe(first.kid);
      const now = Math.floor(Date.now() / 1000);
      // What a thief holding the first key could mint: valid for an hour by its own claims.
      const stolen = signToken(
        {
          clientId: demo.clientId,
          organizationId: 1,
          scopes: ['provisioning'],
          issuedAt: now - 1,
          expiresAt: now + 3600,
        },
        first,
      );
      expect((await http.get(ORG, { authorization: `Bearer ${stolen}` })).status).toBe(200);

      const rotation = await runCli(['keys', 'rotate', '--db', db, '--json'], env);
      expect(rotation.code, rotation.stderr).toBe(0);
      const rotated = JSON.parse(rotation.stdout);
      expect(rotated.signingKeyId).not.toBe(first.kid);
      expect(rotated.verifying).toEqual([
        { keyId: first.kid, retiredAt: expect.any(String), verifiesUntil: expect.any(String) },
      ]);
      expect(Date.parse(rotated.verifying[0].verifiesUntil) - Date.parse(rotated.verifying[0].retiredAt)).toBe(10_000);
      expect(signingKeyOnDisk(db).kid).toBe(rotated.signingKeyId);
      expect(fs.statSync(keyFileOf(db)).mode & 0o777).toBe(0o600);

      // The server re-reads the file every second; allow a loaded machine 5 s.
      const rotatedAt = Date.now();
      let after = await tokenOf(http, demo);
      while (kidOf(after) !== rotated.signingKeyId && Date.now() - rotatedAt < 5000) {
        await sleep(50);
        after = await tokenOf(http, demo);
      }
      expect(kidOf(after)).toBe(rotated.signingKeyId);
      expect((await http.get(ORG, { authorization: `Bearer ${after}` })).status).toBe(200);
      expect((await http.get(ORG, { authorization: `Bearer ${before}` })).status).toBe(200);
      const mintedLater = signToken(
        {
          clientId: demo.clientId,
          organizationId: 1,
          scopes: ['provisioning'],
          issuedAt: Math.floor(Date.parse(rotated.verifying[0].retiredAt) / 1000) + 1,
          expiresAt: now + 3600,
        },
        first,
      );
      expect((await http.get(ORG, { authorization: `Bearer ${mintedLater}` })).status).toBe(401);

      // Past the retirement plus one token lifetime (10 s): even the long-lived token of the old key is refused.
      const until = Date.parse(rotated.verifying[0].verifiesUntil);
      await sleep(Math.max(0, until - Date.now()) + 300);
      const late = await http.get(ORG, { authorization: `Bearer ${stolen}` });
      expect(late.status).toBe(401);

      // The next rotation drops the first key from the file: every token it signed has expired.
      const again = JSON.parse((await runCli(['keys', 'rotate', '--db', db, '--json'], env)).stdout);
      expect(again.dropped).toEqual([first.kid]);
      expect(
        keysOnDisk(db)
          .map((k) => k.kid)
          .sort(),
      ).toEqual([again.signingKeyId, rotated.signingKeyId].sort());
    } finally {
      http.close();
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
  }, 300_000);

  it('--drop-previous makes every earlier token fail as soon as the server re-reads the file (a leaked key)', async () => {
    const db = freshDb();
    const serve = await startServe(['--demo', '--db', db]);
    const demo = serve.listening.demo!;
    const http = new HttpClient(serve.listening.url, fs.readFileSync(`${db}.tls/cert.pem`, 'utf8'));
    try {
      const before = await tokenOf(http, demo);
      const rotation = await runCli(['keys', 'rotate', '--drop-previous', '--db', db, '--json']);
      expect(rotation.code, rotation.stderr).toBe(0);
      expect(JSON.parse(rotation.stdout)).toMatchObject({ verifying: [], dropped: [kidOf(before)] });
      const start = Date.now();
      let res = await http.get(ORG, { authorization: `Bearer ${before}` });
      while (res.status === 200 && Date.now() - start < 5000) {
        await sleep(50);
        res = await http.get(ORG, { authorization: `Bearer ${before}` });
      }
      expect(res.status).toBe(401);
      expect((await http.get(ORG, { authorization: `Bearer ${await tokenOf(http, demo)}` })).status).toBe(200);
    } finally {
      http.close();
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
  });

  it('refuses without a database, and when the keys come from the environment', async () => {
    const missing = await runCli(['keys', 'rotate', '--db', path.join(tempDir('adreport-keys-none-'), 'none.duckdb')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^adreport: no database at .*none\.duckdb/);
    const db = freshDb();
    fs.writeFileSync(db, '');
    const fromEnv = await runCli(['keys', 'rotate', '--db', db], {
      ADREPORT_TOKEN_SIGNING_KEY: crypto.randomBytes(32).toString('hex'),
    });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toMatch(/ADREPORT_TOKEN_SIGNING_KEY: rotate it in your secret store/);
    expect(fs.existsSync(keyFileOf(db))).toBe(false);
  });
});

describe('keys from the environment (a secret store)', () => {
  it('ADREPORT_TOKEN_SIGNING_KEY signs, ADREPORT_TOKEN_PREVIOUS_KEYS verify, and no key file is written', async () => {
    const db = freshDb();
    const signing = crypto.randomBytes(32);
    const previous = crypto.randomBytes(32);
    const serve = await startServe(['--demo', '--db', db], {
      ADREPORT_TOKEN_SIGNING_KEY: signing.toString('hex'),
      ADREPORT_TOKEN_PREVIOUS_KEYS: previous.toString('base64'),
    });
    const demo = serve.listening.demo!;
    const http = new HttpClient(serve.listening.url, fs.readFileSync(`${db}.tls/cert.pem`, 'utf8'));
    try {
      const token = await tokenOf(http, demo);
      const parts = token.split('.');
      expect(parts[1]).toBe(documentedKeyId(signing));
      expect(crypto.createHmac('sha256', signing).update(parts.slice(0, 3).join('.')).digest('base64url')).toBe(
        parts[3],
      );
      const now = Math.floor(Date.now() / 1000);
      const byPrevious = signToken(
        { clientId: demo.clientId, organizationId: 1, scopes: ['provisioning'], issuedAt: now, expiresAt: now + 60 },
        { kid: documentedKeyId(previous), secret: previous },
      );
      expect((await http.get(ORG, { authorization: `Bearer ${byPrevious}` })).status).toBe(200);
      expect(fs.existsSync(keyFileOf(db))).toBe(false);
    } finally {
      http.close();
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
  });

  it('refuses a key too short to be a secret, without printing it', async () => {
    const weak = 'abcdef123456';
    const error = await startServe(['--db', freshDb()], { ADREPORT_TOKEN_SIGNING_KEY: weak }).then(
      (serve) => {
        serve.child.kill('SIGKILL');
        return 'started';
      },
      (e: Error) => e.message,
    );
    expect(error).toMatch(/ADREPORT_TOKEN_SIGNING_KEY must be at least 32 random bytes/);
    expect(error).not.toContain(weak);
  });
});
