import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { ApiError } from '../../shared/errors.js';
import { chooseEncoding, type ContentCoding } from '../content-coding.js';
import { ifNoneMatchMatches } from '../conditional.js';
import type { AppEnv } from '../context.js';
import type { ExplorerAssets, StaticAsset } from '../explorer-assets.js';

/** The explorer's page and files live under this path; it is a page for people, not an API operation. */
export const EXPLORER_PATH = '/explorer';

/**
 * The page may run only its own script and style from this origin, talk only to this origin, and
 * never be framed: no inline script or style, no third-party origin, no plugin, no form posted
 * elsewhere. uPlot sets element styles through the CSSOM, which style-src does not govern.
 */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': EXPLORER_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // Revalidated on every load (a new build is seen at once); unchanged files answer 304.
  'Cache-Control': 'no-cache',
};
/** Brotli first on equal weights: the files were compressed once at build time, at its best level. */
const CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

/**
 * GET /explorer (the page) and GET /explorer/<file> (its script, styles and icon). No token: the
 * page signs in itself. Not in the OpenAPI document, which describes the API.
 */
export function registerExplorerRoutes(app: OpenAPIHono<AppEnv>, assets: ExplorerAssets): void {
  const serve = (c: Context<AppEnv>, name: string) => {
    if (!assets.built) throw new ApiError(503, 'explorer_not_built', assets.reason);
    const asset = assets.files.get(name);
    if (asset === undefined) throw new ApiError(404, 'not_found', `No file ${EXPLORER_PATH}/${name}.`);
    return answer(c, asset);
  };
  app.get(EXPLORER_PATH, (c) => serve(c, 'index.html'));
  app.get(`${EXPLORER_PATH}/`, (c) => c.redirect(EXPLORER_PATH, 308));
  app.get(`${EXPLORER_PATH}/:file{[A-Za-z0-9._-]+}`, (c) => {
    const name = c.req.param('file');
    // The page has one address, /explorer: its file is not served under a second one.
    if (name === 'index.html') throw new ApiError(404, 'not_found', `No file ${EXPLORER_PATH}/${name}.`);
    return serve(c, name);
  });
}

function answer(c: Context<AppEnv>, asset: StaticAsset): Response {
  const headers: Record<string, string> = {
    ...PAGE_HEADERS,
    'Content-Type': asset.contentType,
    ETag: asset.etag,
    Vary: 'Accept-Encoding',
  };
  if (ifNoneMatchMatches(c.req.header('if-none-match'), asset.etag))
    return new Response(null, { status: 304, headers });
  const { coding } = chooseEncoding(c.req.header('accept-encoding'), CODINGS);
  const body = (coding === 'br' ? asset.br : coding === 'gzip' ? asset.gzip : undefined) ?? asset.identity;
  if (body !== asset.identity) headers['Content-Encoding'] = coding!;
  headers['Content-Length'] = String(body.byteLength);
  return new Response(c.req.method === 'HEAD' ? null : body, { status: 200, headers });
}
