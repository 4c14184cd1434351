import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  /** Where the pair came from, for the start banner. */
  readonly source: 'given' | 'generated' | 'existing';
  readonly certPath: string;
}

/**
 * DESIGN D7: a given pair wins; otherwise a self-signed pair for localhost lives under
 * <data dir>/tls, made on the first start and again once it nears expiry.
 */
export async function loadTls(options: {
  tlsCert?: string | undefined;
  tlsKey?: string | undefined;
  dataDir: string;
  nowMs: number;
}): Promise<TlsMaterial> {
  if (options.tlsCert || options.tlsKey) {
    if (!options.tlsCert || !options.tlsKey)
      throw new Error('--tls-cert and --tls-key go together: give both or neither');
    return { cert: readPem(options.tlsCert), key: readPem(options.tlsKey), source: 'given', certPath: options.tlsCert };
  }
  const dir = path.join(options.dataDir, 'tls');
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  if (fs.existsSync(certPath) && fs.existsSync(keyPath)) {
    const cert = fs.readFileSync(certPath, 'utf8');
    const validTo = Date.parse(new crypto.X509Certificate(cert).validTo);
    if (validTo - options.nowMs > 7 * 24 * 3600_000)
      return { cert, key: fs.readFileSync(keyPath, 'utf8'), source: 'existing', certPath };
  }
  const notBefore = new Date(options.nowMs - 60_000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: new Date(options.nowMs + 397 * 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyPath, pems.private, { mode: 0o600 });
  fs.writeFileSync(certPath, pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private, source: 'generated', certPath };
}

function readPem(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}
