import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where `npm run build` puts the explorer (scripts/explorer-bundle.ts): dist/explorer of this package, from src/ or dist/. */
export const DEFAULT_EXPLORER_DIR = path.resolve(import.meta.dirname, '..', '..', 'dist', 'explorer');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface StaticAsset {
  readonly contentType: string;
  /** Strong: the SHA-256 of the identity bytes (the precompressed forms are the same representation's codings). */
  readonly etag: string;
  readonly identity: Uint8Array;
  readonly gzip: Uint8Array | undefined;
  readonly br: Uint8Array | undefined;
}

export type ExplorerAssets =
  | { readonly built: true; readonly files: ReadonlyMap<string, StaticAsset> }
  | { readonly built: false; readonly reason: string };

/**
 * The built explorer, read once at start into memory (about 100 KB, with its gzip and brotli
 * forms made at build time). A missing build is not fatal: the API serves, and GET /explorer says
 * how to build it.
 */
export function loadExplorerAssets(dir: string = DEFAULT_EXPLORER_DIR): ExplorerAssets {
  if (!fs.existsSync(path.join(dir, 'index.html')))
    return { built: false, reason: 'The explorer is not built: run npm run build, then restart the service.' };
  const files = new Map<string, StaticAsset>();
  for (const name of fs.readdirSync(dir)) {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (contentType === undefined) continue;
    const identity = fs.readFileSync(path.join(dir, name));
    const variant = (suffix: string) =>
      fs.existsSync(path.join(dir, name + suffix)) ? fs.readFileSync(path.join(dir, name + suffix)) : undefined;
    files.set(name, {
      contentType,
      etag: `"${createHash('sha256').update(identity).digest('base64url')}"`,
      identity,
      gzip: variant('.gz'),
      br: variant('.br'),
    });
  }
  return { built: true, files };
}
