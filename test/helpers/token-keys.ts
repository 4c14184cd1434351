import fs from 'node:fs';

export interface KeyOnDisk {
  kid: string;
  secret: string;
  createdAt: string;
  retiredAt: string | null;
  acceptsV1?: true;
}

/** The key file beside a database, read as a thief with a copy of it would: plain JSON. */
export function keyFileOf(dbPath: string): string {
  return `${dbPath}.token-keys.json`;
}

export function keysOnDisk(dbPath: string): KeyOnDisk[] {
  return (JSON.parse(fs.readFileSync(keyFileOf(dbPath), 'utf8')) as { keys: KeyOnDisk[] }).keys;
}

/** The key that signs new tokens, as signToken takes it. */
export function signingKeyOnDisk(dbPath: string): { kid: string; secret: Buffer } {
  const key = keysOnDisk(dbPath).find((k) => k.retiredAt === null)!;
  return { kid: key.kid, secret: Buffer.from(key.secret, 'base64url') };
}
