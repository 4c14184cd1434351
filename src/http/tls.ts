import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';
import {
  createSecretFile,
  ensureSecretDirectory,
  readSecretFile,
  sharedDirectoryProblem,
  type SecretFileOptions,
} from '../store/secret-files.js';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  /** Where the pair came from, for the start banner. */
  readonly source: 'given' | 'generated' | 'existing' | 'adopted';
  readonly certPath: string;
  /** What the start did about the pair of an earlier release (`<db dir>/tls/`), for the banner. */
  readonly note?: string;
}

/**
 * The self-signed pair's own directory, named after the database (`<db>.tls/`): never a
 * shared directory's `tls/`, which with `--db /tmp/x.duckdb` was `/tmp/tls`, anyone's to make.
 */
export function tlsDirFor(dbPath: string): string {
  return `${path.resolve(dbPath)}.tls`;
}

/** Where releases before issue 36 kept the pair: `tls/` in the database's directory. */
export function legacyTlsDirFor(dbPath: string): string {
  return path.join(path.dirname(path.resolve(dbPath)), 'tls');
}

const TLS_FIX =
  "remove it and start again (a new self-signed pair is made; clients must then trust the new certificate), or, if it is this service's own, chmod 700 the directory and 600 its files";
const KEY: SecretFileOptions = { fix: TLS_FIX };
const CERT: SecretFileOptions = { fix: TLS_FIX, othersMayRead: true };
const RENEW_BEFORE_MS = 7 * 24 * 3600_000;

/**
 * DESIGN D7: a given pair wins; otherwise a self-signed pair for localhost lives in `dir`
 * (tlsDirFor), made on the first start and again once it nears expiry. The directory and the
 * files must be this user's alone (a pair another user made would let them read the traffic).
 * `legacyDir` is where an earlier release kept it: adopted when nobody else could have put it
 * there, otherwise a new pair is made and `note` says why.
 */
export async function loadTls(options: {
  tlsCert?: string | undefined;
  tlsKey?: string | undefined;
  dir: string;
  legacyDir?: string | undefined;
  nowMs: number;
}): Promise<TlsMaterial> {
  if (options.tlsCert || options.tlsKey) {
    if (!options.tlsCert || !options.tlsKey)
      throw new Error('--tls-cert and --tls-key go together: give both or neither');
    return { cert: readPem(options.tlsCert), key: readPem(options.tlsKey), source: 'given', certPath: options.tlsCert };
  }
  const { dir, nowMs } = options;
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  ensureSecretDirectory(dir, { fix: TLS_FIX });
  const existing = readPair(dir);
  if (existing && stillValid(existing.cert, nowMs)) return { ...existing, source: 'existing', certPath };
  let note: string | undefined;
  if (!existing && options.legacyDir) {
    const legacy = adoptable(options.legacyDir, nowMs);
    if (legacy.pair) {
      writePair(dir, legacy.pair);
      return {
        ...legacy.pair,
        source: 'adopted',
        certPath,
        note: `TLS: the self-signed pair of ${options.legacyDir} now lives in ${dir} (same certificate); ${options.legacyDir} is no longer read: remove it, and point clients at ${certPath}`,
      };
    }
    if (legacy.refusal)
      note = `TLS: ${options.legacyDir} was not adopted (${legacy.refusal}); made a new self-signed pair in ${dir}: clients must trust ${certPath}`;
  }
  const pair = await selfSignedPair(nowMs);
  // An expired or half-made pair: the directory is this user's alone (checked), so what is in it is too.
  for (const file of [keyPath, certPath]) fs.rmSync(file, { force: true });
  writePair(dir, pair);
  return { ...pair, source: 'generated', certPath, ...(note ? { note } : {}) };
}

function readPair(dir: string): { cert: string; key: string } | undefined {
  const key = readSecretFile(path.join(dir, 'key.pem'), KEY);
  const cert = readSecretFile(path.join(dir, 'cert.pem'), CERT);
  return key !== undefined && cert !== undefined ? { cert, key } : undefined;
}

function stillValid(cert: string, nowMs: number): boolean {
  return Date.parse(new crypto.X509Certificate(cert).validTo) - nowMs > RENEW_BEFORE_MS;
}

/** Both files made with O_EXCL and 0600 in a directory of this user's: nothing else's is written through. */
function writePair(dir: string, pair: { cert: string; key: string }): void {
  for (const [name, text] of [
    ['key.pem', pair.key],
    ['cert.pem', pair.cert],
  ] as const) {
    const file = path.join(dir, name);
    if (!createSecretFile(file, text)) throw new Error(`${file} appeared while the TLS pair was made; start again`);
  }
}

/**
 * The pair an earlier release left in `<db dir>/tls/`, if nobody but this user could have made it:
 * the database's directory is not shared (not sticky like /tmp, nobody else may create files in
 * it) and the pair passes the same checks as the new location's. Otherwise why not.
 */
function adoptable(legacyDir: string, nowMs: number): { pair?: { cert: string; key: string }; refusal?: string } {
  if (!fs.existsSync(path.join(legacyDir, 'key.pem'))) return {};
  const parent = sharedDirectoryProblem(path.dirname(legacyDir));
  if (parent) return { refusal: `${path.dirname(legacyDir)}: ${parent}` };
  const dir = sharedDirectoryProblem(legacyDir);
  if (dir) return { refusal: dir };
  try {
    const pair = readPair(legacyDir);
    if (!pair) return { refusal: 'cert.pem or key.pem is missing' };
    if (!stillValid(pair.cert, nowMs)) return { refusal: 'its certificate expires within 7 days' };
    return { pair };
  } catch (error) {
    return { refusal: (error as Error).message.replace(/; remove it and start again.*$/, '') };
  }
}

/** A P-256 pair for the given names (localhost, 127.0.0.1 and ::1 by default), valid 397 days. */
export async function selfSignedPair(
  nowMs: number,
  hostNames: readonly string[] = ['localhost'],
): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: hostNames[0] ?? 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(nowMs - 60_000),
    notAfterDate: new Date(nowMs + 397 * 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...hostNames.map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: '127.0.0.1' },
          { type: 7 as const, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

function readPem(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}
