import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/shared/errors.js';
import { decodeBody, requestCodings } from '../../src/http/request-decoding.js';

const MiB = 1024 * 1024;

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

function refusal(call: () => unknown): ApiError {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('requestCodings reads Content-Encoding (RFC 9110 8.4)', () => {
  it('lists the codings in the order applied, without identity, in any case and spacing', () => {
    expect(requestCodings(undefined)).toEqual([]);
    expect(requestCodings('identity')).toEqual([]);
    expect(requestCodings('')).toEqual([]);
    expect(requestCodings(' GZIP ,br')).toEqual(['gzip', 'br']);
    expect(requestCodings('x-gzip, identity, deflate')).toEqual(['x-gzip', 'deflate']);
  });

  it('refuses what it cannot decode with 415 and Accept-Encoding', () => {
    for (const header of ['compress', 'zstd', 'constructor', 'gzip, x-unknown', 'br, br, br, br']) {
      const error = refusal(() => requestCodings(header));
      expect([error.status, error.code, error.headers['Accept-Encoding']], header).toEqual([
        415,
        'unsupported_content_encoding',
        'gzip, deflate, br',
      ]);
    }
  });
});

describe('decodeBody', () => {
  const text = Buffer.from('{"account":{"name":"A"}}');

  it('undoes stacked codings last applied first', async () => {
    const coded = zlib.brotliCompressSync(zlib.deflateSync(zlib.gzipSync(text)));
    expect(Buffer.from(await decodeBody(coded, ['gzip', 'deflate', 'br'], MiB)).toString()).toBe(text.toString());
  });

  it('stops at the limit: exactly the limit passes, one byte more is a 413', async () => {
    const exact = zlib.gzipSync(Buffer.alloc(MiB, 0x20));
    expect((await decodeBody(exact, ['gzip'], MiB)).length).toBe(MiB);
    const over = zlib.gzipSync(Buffer.alloc(MiB + 1, 0x20));
    const error = await rejection(decodeBody(over, ['gzip'], MiB));
    expect([error.status, error.code]).toEqual([413, 'payload_too_large']);
  });

  it('refuses a stacked coding whose outer step already decodes past the limit', async () => {
    // The br step alone gives 2 MiB (gzip's stored blocks), refused before gzip runs on it.
    const inner = zlib.gzipSync(Buffer.from(Array.from({ length: 2 * MiB }, (_, i) => (i * 2654435761) % 256)), {
      level: 0,
    });
    const error = await rejection(decodeBody(zlib.brotliCompressSync(inner), ['gzip', 'br'], MiB));
    expect(error.status).toBe(413);
  });

  it('refuses data that is not what its coding says, naming Content-Encoding', async () => {
    for (const [coding, body] of [
      ['gzip', text],
      ['deflate', zlib.deflateRawSync(text)],
      ['br', Buffer.from([0xff, 0xff, 0xff])],
    ] as const) {
      const error = await rejection(decodeBody(body, [coding], MiB));
      expect([error.status, error.code, error.details[0]?.field], coding).toEqual([
        400,
        'invalid_body',
        'Content-Encoding',
      ]);
    }
  });
});
