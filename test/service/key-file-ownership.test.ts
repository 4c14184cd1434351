import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newStoredKey } from '../../src/auth/signing-keys.js';
import { serviceConfigSchema } from '../../src/config/config.js';
import { selfSignedPair } from '../../src/http/tls.js';
import { startService, type RunningService } from '../../src/main.js';
import { tempDir } from '../helpers/server.js';

/**
 * Issue 36 item 8: with the database in a directory others can write to (a sticky /tmp),
 * another local user could make `<db>.token-keys.json`, `<db>.webhook-key` or the TLS pair first
 * and the server adopted it. A start now refuses, in one line naming the file, what is wrong and
 * the fix, any of them that another user owns, that is a symbolic link, or that group or others
 * may read; it makes them itself with O_EXCL, 0600 (directory 0700).
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

function workDir(mode = 0o700): string {
  const dir = tempDir('adreport-keyfiles-');
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.chmodSync(dir, mode);
  return dir;
}

async function start(dbPath: string): Promise<{ service: RunningService; log: string[] }> {
  const log: string[] = [];
  const config = serviceConfigSchema.parse({ dbPath, host: '127.0.0.1', port: 0 });
  const service = await startService(config, { logError: () => undefined, log: (line) => log.push(line) });
  cleanups.push(() => service.close());
  return { service, log };
}

/** The start's error: one line; and the file it names is as it was (a failed start changes nothing). */
async function refusedStart(dbPath: string, file: string): Promise<string> {
  const before = fs.lstatSync(file);
  const content = before.isSymbolicLink() ? fs.readlinkSync(file) : before.isFile() ? fs.readFileSync(file) : undefined;
  const error = await start(dbPath).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error, `${file} was adopted`).toBeInstanceOf(Error);
  expect(error!.message).not.toContain('\n');
  expect(error!.message.startsWith(`refusing ${file}: `), error!.message).toBe(true);
  const after = fs.lstatSync(file);
  expect([after.uid, after.mode]).toEqual([before.uid, before.mode]);
  if (after.isSymbolicLink()) expect(fs.readlinkSync(file)).toBe(content);
  else if (after.isFile()) expect(fs.readFileSync(file)).toEqual(content);
  return error!.message;
}

function keyFileText(): string {
  return `${JSON.stringify({ format: 'adreport-token-keys/1', keys: [newStoredKey(new Date())] })}\n`;
}

describe('key files and the TLS pair must be the service user alone (issue 36 item 8)', () => {
  it('makes every file 0600 and the TLS directory 0700 beside the database, and reads them back', async () => {
    const dir = workDir();
    const db = path.join(dir, 'x.duckdb');
    const { service } = await start(db);
    expect(service.tls?.source).toBe('generated');
    await service.close();
    for (const file of [`${db}.token-keys.json`, `${db}.webhook-key`, `${db}.tls/key.pem`, `${db}.tls/cert.pem`])
      expect((fs.lstatSync(file).mode & 0o777).toString(8), file).toBe('600');
    expect((fs.lstatSync(`${db}.tls`).mode & 0o777).toString(8)).toBe('700');
    expect(fs.existsSync(path.join(dir, 'tls'))).toBe(false);
    const again = await start(db);
    expect(again.service.tls?.source).toBe('existing');
  });

  it('refuses a token key file, a webhook key or a TLS file that group or others may read', async () => {
    const dir = workDir();
    const db = path.join(dir, 'x.duckdb');
    const { service } = await start(db);
    await service.close();
    for (const [file, mode, fix] of [
      [`${db}.token-keys.json`, 0o644, /chmod 600 .*adreport keys rotate --drop-previous/],
      [`${db}.webhook-key`, 0o640, /existing webhooks must then be created again/],
      [`${db}.tls/key.pem`, 0o604, /clients must then trust the new certificate/],
      [`${db}.tls`, 0o755, /chmod 700/],
    ] as const) {
      fs.chmodSync(file, mode);
      const message = await refusedStart(db, file);
      expect(message).toContain(`its mode 0${mode.toString(8)} lets group or others read it`);
      expect(message).toMatch(fix);
      fs.chmodSync(file, file.endsWith('.tls') ? 0o700 : 0o600);
    }
    // The certificate is public: others may read it, not write it.
    fs.chmodSync(`${db}.tls/cert.pem`, 0o644);
    await (await start(db)).service.close();
    fs.chmodSync(`${db}.tls/cert.pem`, 0o664);
    expect(await refusedStart(db, `${db}.tls/cert.pem`)).toContain('lets group or others write it');
  });

  it('refuses a symbolic link planted at a key name, and never writes through one', async () => {
    const dir = workDir();
    const db = path.join(dir, 'x.duckdb');
    // Theirs: a key file they know, and a name they would like the service to create for them.
    const theirs = path.join(dir, 'theirs.json');
    fs.writeFileSync(theirs, keyFileText(), { mode: 0o600 });
    fs.symlinkSync(theirs, `${db}.token-keys.json`);
    expect(await refusedStart(db, `${db}.token-keys.json`)).toContain('symbolic link');
    fs.rmSync(`${db}.token-keys.json`);

    const wanted = path.join(dir, 'written-for-them');
    fs.symlinkSync(wanted, `${db}.webhook-key`); // dangling: O_EXCL must not create its target
    expect(await refusedStart(db, `${db}.webhook-key`)).toContain('symbolic link');
    expect(fs.existsSync(wanted)).toBe(false);
    fs.rmSync(`${db}.webhook-key`);

    fs.mkdirSync(path.join(dir, 'their-tls'), { mode: 0o700 });
    fs.symlinkSync(path.join(dir, 'their-tls'), `${db}.tls`);
    expect(await refusedStart(db, `${db}.tls`)).toContain('symbolic link');
    expect(fs.readdirSync(path.join(dir, 'their-tls'))).toEqual([]);
  });

  it(`refuses files another user made first in a shared sticky directory (${isRoot ? 'as root: real files of uid 65534' : 'not root here: chown is refused, the unit test file-ownership.test.ts shows the rule'})`, async () => {
    const shared = workDir(0o1777);
    const db = path.join(shared, 'x.duckdb');
    const planted = [`${db}.token-keys.json`, `${db}.webhook-key`];
    fs.writeFileSync(planted[0]!, keyFileText(), { mode: 0o600 });
    fs.writeFileSync(planted[1]!, `${crypto.randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    fs.mkdirSync(`${db}.tls`, { mode: 0o700 });
    if (!isRoot) {
      // Without root no file of another uid can be made: say so rather than pass quietly.
      expect(() => fs.chownSync(planted[0]!, NOBODY, NOBODY)).toThrow(/EPERM/);
      return;
    }
    for (const target of [...planted, `${db}.tls`]) fs.chownSync(target, NOBODY, NOBODY);
    for (const file of [...planted, `${db}.tls`]) {
      expect(await refusedStart(db, file)).toContain(
        `it is owned by uid ${NOBODY}, not by this service's user (uid 0): another user may have made it`,
      );
      fs.rmSync(file, { recursive: true }); // what the line says to do; the next start makes its own
    }
    const { service } = await start(db);
    for (const file of [...planted, `${db}.tls/key.pem`]) expect(fs.lstatSync(file).uid).toBe(0);
    expect(service.tls?.source).toBe('generated');
  });
});

describe('the TLS pair of an earlier release, in <db dir>/tls/ (upgrade)', () => {
  async function legacyPair(dir: string) {
    const pair = await selfSignedPair(Date.now());
    fs.mkdirSync(path.join(dir, 'tls'), { mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'tls', 'key.pem'), pair.key, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'tls', 'cert.pem'), pair.cert, { mode: 0o600 });
    return pair;
  }

  it("is adopted (same certificate) from the database's own private directory, and says so", async () => {
    const dir = workDir();
    const db = path.join(dir, 'x.duckdb');
    const old = await legacyPair(dir);
    const { service, log } = await start(db);
    expect(service.tls?.source).toBe('adopted');
    expect(service.tls?.cert).toBe(old.cert);
    expect(fs.readFileSync(`${db}.tls/cert.pem`, 'utf8')).toBe(old.cert);
    expect((fs.lstatSync(`${db}.tls/key.pem`).mode & 0o777).toString(8)).toBe('600');
    expect(log).toEqual([expect.stringMatching(/^TLS: the self-signed pair of .*\/tls now lives in .*x\.duckdb\.tls/)]);
    await service.close();
    expect((await start(db)).service.tls?.source).toBe('existing');
  });

  it('is not adopted from a shared sticky directory (like /tmp/tls): a new pair is made, and the line says why', async () => {
    const shared = workDir(0o1777);
    const db = path.join(shared, 'x.duckdb');
    const old = await legacyPair(shared);
    const { service, log } = await start(db);
    expect(service.tls?.source).toBe('generated');
    expect(service.tls?.cert).not.toBe(old.cert);
    expect(log).toEqual([
      expect.stringMatching(
        /^TLS: .*\/tls was not adopted \(.*sticky.*\); made a new self-signed pair in .*x\.duckdb\.tls/,
      ),
    ]);
  });

  it('is not adopted when its key is readable by others', async () => {
    const dir = workDir();
    const db = path.join(dir, 'x.duckdb');
    await legacyPair(dir);
    fs.chmodSync(path.join(dir, 'tls', 'key.pem'), 0o644);
    const { service, log } = await start(db);
    expect(service.tls?.source).toBe('generated');
    expect(log[0]).toMatch(/was not adopted \(refusing .*key\.pem: its mode 0644 lets group or others read it\)/);
  });
});
