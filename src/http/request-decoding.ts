import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { ApiError, badRequest } from '../shared/errors.js';

/**
 * Request content codings (RFC 9110 8.4) the service decodes: gzip (and `x-gzip`, which 8.4.1.3
 * says to treat as gzip), deflate (8.4.1.2: the zlib format of RFC 1950; a bare deflate stream,
 * which some senders wrongly label so, is refused as undecodable rather than guessed at) and br
 * (RFC 7932). All come with Node's zlib, so supporting them costs nothing; `compress` (LZW,
 * nothing in Node reads it) and `zstd` (experimental in Node) are refused with 415.
 */
const DECODERS = {
  gzip: promisify<zlib.InputType, zlib.ZlibOptions, Buffer>(zlib.gunzip),
  'x-gzip': promisify<zlib.InputType, zlib.ZlibOptions, Buffer>(zlib.gunzip),
  deflate: promisify<zlib.InputType, zlib.ZlibOptions, Buffer>(zlib.inflate),
  br: promisify<zlib.InputType, zlib.BrotliOptions, Buffer>(zlib.brotliDecompress),
} as const;
type Coding = keyof typeof DECODERS;

/** The request header a 415 carries (RFC 9110 15.5.16, 12.5.3): the codings a body may have. */
export const ACCEPTED_REQUEST_ENCODINGS = 'gzip, deflate, br';

/** Stacked codings (`gzip, br`: gzip applied first) are decoded in reverse; more than this is refused. */
export const MAX_STACKED_CODINGS = 3;

/**
 * The codings a Content-Encoding header lists, in the order they were applied; `identity` (no
 * coding) and empty entries dropped. A coding the service cannot decode is a 415 naming it.
 */
export function requestCodings(header: string | undefined): Coding[] {
  if (header === undefined) return [];
  const codings = header
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '' && entry !== 'identity');
  for (const coding of codings)
    if (!Object.hasOwn(DECODERS, coding))
      throw unsupported(`The request body's Content-Encoding ${JSON.stringify(coding.slice(0, 40))} cannot be decoded`);
  if (codings.length > MAX_STACKED_CODINGS)
    throw unsupported(
      `The request body has ${codings.length} content codings; at most ${MAX_STACKED_CODINGS} can be decoded`,
    );
  return codings as Coding[];
}

/**
 * The body with its codings undone, last applied first. Each step stops as soon as its output
 * passes `maxBytes` (zlib's maxOutputLength: the decoder is closed at that chunk, so a bomb never
 * inflates past it in memory), which is a 413: the body limit is on what the body holds.
 */
export async function decodeBody(wire: Uint8Array, codings: readonly Coding[], maxBytes: number): Promise<Uint8Array> {
  let bytes = wire;
  for (const coding of [...codings].reverse()) {
    try {
      bytes = await DECODERS[coding](bytes, { maxOutputLength: maxBytes });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        throw new ApiError(
          413,
          'payload_too_large',
          `The request body is larger than ${maxBytes} bytes (1 MiB) once its ${coding} coding is decoded.`,
        );
      throw badRequest(
        'invalid_body',
        `The request body is not ${coding} data as its Content-Encoding says (${(error as Error).message}).`,
        [{ field: 'Content-Encoding', code: 'undecodable', message: `the body cannot be decoded as ${coding}` }],
      );
    }
  }
  return bytes;
}

function unsupported(reason: string): ApiError {
  return new ApiError(
    415,
    'unsupported_content_encoding',
    `${reason}; send it as gzip, deflate or br, or without a coding (identity).`,
    [{ field: 'Content-Encoding', code: 'unsupported', message: `the service decodes ${ACCEPTED_REQUEST_ENCODINGS}` }],
    { 'Accept-Encoding': ACCEPTED_REQUEST_ENCODINGS },
  );
}
