import { Readable, pipeline, type Transform } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { chooseEncoding, type ContentCoding } from '../content-coding.js';

/** Bodies up to this size stay as they are: headers and framing cost more than compression saves. */
export const COMPRESS_MIN_BYTES = 1024;
/** Bodies up to this size are compressed in one piece, so the answer carries its Content-Length. */
export const WHOLE_MAX_BYTES = 64 * 1024;

/**
 * Codings in order of preference on equal q, and their settings, chosen by measurement (README,
 * Design: compression; bench/compression.ts --codecs-only): on a 470 KB keyword page gzip 4 costs
 * 3.3 CPU ms per MB for 8.4 % of the size, brotli 4 4.6 ms for 7.6 %; level 6 / quality 5 double
 * the CPU for under 1 point of size. gzip first on equal weights: cheaper, and every client has it.
 */
export const CODING_PREFERENCE: readonly ContentCoding[] = ['gzip', 'br'];
const GZIP_OPTIONS: zlib.ZlibOptions = { level: 4 };
const BROTLI_OPTIONS: zlib.BrotliOptions = {
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
    [zlib.constants.BROTLI_PARAM_LGWIN]: 18,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  },
};

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * JSON responses over 1 KB, compressed as Accept-Encoding allows (gzip or br). The work runs in
 * zlib's asynchronous API on libuv's thread pool, in 16 KiB steps, never on the event loop.
 * Exports are left alone (they are not JSON and do their own gzip), as are HEAD, 204 and 304, and
 * a resource's answer with its strong ETag (`identityOnly`, ../conditional.ts).
 */
export function compressJson(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.req.method === 'HEAD') return;
    const res = c.res;
    if (res.status === 204 || res.status === 304) return;
    // A resource's strong ETag names these bytes; another coding would need a tag of its own.
    if (c.get('identityOnly')) return;
    const type = res.headers.get('content-type') ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type) || res.headers.has('content-encoding')) return;
    res.headers.append('Vary', 'Accept-Encoding');
    const { coding, identityRefused } = chooseEncoding(c.req.header('accept-encoding'), CODING_PREFERENCE);
    if (coding === undefined) return;

    const declared = res.headers.get('content-length');
    const length = declared === null ? undefined : Number(declared);
    if (length !== undefined && length <= COMPRESS_MIN_BYTES && !identityRefused) return;
    const headers = new Headers(res.headers);
    headers.set('Content-Encoding', coding);
    if (length !== undefined && length > WHOLE_MAX_BYTES) {
      // A big JSON page arrives as a stream: compressed as it goes, so no Content-Length.
      headers.delete('Content-Length');
      const compressed = pipeline(
        Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>),
        compressor(coding),
        () => undefined,
      );
      replaceResponse(
        c,
        new Response(Readable.toWeb(compressed) as ReadableStream<Uint8Array>, { status: res.status, headers }),
      );
      return;
    }
    const body = new Uint8Array(await res.arrayBuffer());
    if (body.byteLength <= COMPRESS_MIN_BYTES && !identityRefused) {
      replaceResponse(c, new Response(body, { status: res.status, headers: res.headers }));
      return;
    }
    const compressed = await compressWhole(coding, body);
    headers.set('Content-Length', String(compressed.byteLength));
    replaceResponse(c, new Response(compressed, { status: res.status, headers }));
  };
}

/** A whole body in one coding, with the settings above, on libuv's thread pool (the page cache keeps these). */
export async function compressWhole(coding: ContentCoding, body: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const compressed = coding === 'br' ? await brotli(body, BROTLI_OPTIONS) : await gzip(body, GZIP_OPTIONS);
  return new Uint8Array(compressed.buffer as ArrayBuffer, compressed.byteOffset, compressed.byteLength);
}

/**
 * Hono's `c.res =` copies every header of the old response onto the new one (its Content-Length
 * too) and turns the new body into a stream; clearing first makes it take the response as is.
 */
function replaceResponse(c: Context<AppEnv>, response: Response): void {
  c.res = undefined;
  c.res = response;
}

function compressor(coding: ContentCoding): Transform {
  return coding === 'br' ? zlib.createBrotliCompress(BROTLI_OPTIONS) : zlib.createGzip(GZIP_OPTIONS);
}
