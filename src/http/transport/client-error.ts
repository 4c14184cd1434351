import { checkTargetForm, MAX_REQUEST_TARGET_BYTES, notImplemented, URI_TOO_LONG } from './request-head.js';
import type { TransportError } from './transport-error.js';

/** What Node's HTTP parser attaches to the errors it emits as `clientError`. */
export interface ParserError {
  readonly code?: string | undefined;
  readonly rawPacket?: Buffer | undefined;
  readonly bytesParsed?: number | undefined;
}

/** Node's limit on a request head (request line and headers together); Node's default. */
export const MAX_HEAD_BYTES = 16 * 1024;

export const REQUEST_TIMEOUT: TransportError = {
  status: 408,
  code: 'request_timeout',
  message: 'The request did not arrive in time; send the head and the body without pausing.',
};

/**
 * The answer to a request Node's HTTP layer rejected before our handlers ran, or undefined
 * when there is nobody to answer: TLS failures, resets and handshake timeouts come here too,
 * on sockets that never carried HTTP, and those are only closed.
 */
export function replyToClientError(error: ParserError): TransportError | undefined {
  const code = error.code ?? '';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return REQUEST_TIMEOUT;
  if (!code.startsWith('HPE_')) return undefined;
  const packet = error.rawPacket?.toString('latin1') ?? '';
  switch (code) {
    case 'HPE_INVALID_METHOD': {
      // A token where the method goes is a method we lack; bytes that are no token are not HTTP.
      const method = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) /.exec(packet)?.[1];
      return method ? notImplemented(method) : badRequest();
    }
    case 'HPE_HEADER_OVERFLOW':
      return overflowEndsRequestLine(packet, error.bytesParsed ?? 0) ? URI_TOO_LONG : HEAD_TOO_LARGE;
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        code: 'payload_too_large',
        message: 'The chunk extensions of the request body are too large.',
      };
    case 'HPE_INVALID_URL': {
      // The parser also refuses a target of the wrong form (`GET health`), which is no encoding problem.
      const target = /^[A-Z]+ (\S+)/.exec(packet)?.[1];
      return (target !== undefined && checkTargetForm(target)) || UNENCODED;
    }
    default:
      return hasRawSpaceInTarget(packet) ? UNENCODED : badRequest();
  }
}

const HEAD_TOO_LARGE: TransportError = {
  status: 431,
  code: 'request_header_fields_too_large',
  message: `The request head (request line and headers) is larger than ${MAX_HEAD_BYTES} bytes; the request target may have at most ${MAX_REQUEST_TARGET_BYTES}.`,
};

const UNENCODED: TransportError = {
  status: 400,
  code: 'unencoded_characters',
  message: 'The request target has characters that must be percent-encoded.',
};

function badRequest(): TransportError {
  return { status: 400, code: 'bad_request', message: 'The request could not be parsed as HTTP.' };
}

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d\.\d$/;

/**
 * The parser counts the request line into its head limit and says only "header overflow". The
 * line it stopped in is the request line when it is the packet's first and ends in the HTTP
 * version. A line longer than the whole packet (its start and end in other packets) cannot be
 * told from an oversized header and stays 431.
 */
function overflowEndsRequestLine(packet: string, stoppedAt: number): boolean {
  const lineEnd = packet.indexOf('\r\n', Math.max(0, stoppedAt - 1));
  const lineStart = lineEnd < 0 ? packet.lastIndexOf('\r\n') : packet.lastIndexOf('\r\n', lineEnd - 1);
  if (lineStart >= 0) return REQUEST_LINE.test(packet.slice(lineStart + 2, lineEnd < 0 ? undefined : lineEnd));
  if (lineEnd < 0) return /^[A-Z]+ \S+$/.test(packet);
  return / HTTP\/\d\.\d$/.test(packet.slice(0, lineEnd));
}

/** A raw space in the target splits the request line, so the parser sees a bad version instead. */
function hasRawSpaceInTarget(packet: string): boolean {
  const firstLine = packet.split('\r\n')[0] ?? '';
  return (
    /^[A-Z]+ \S+ .+ HTTP\/\d\.\d$/.test(firstLine) ||
    (/^[A-Z]+ \S+ /.test(firstLine) && !/ HTTP\/\d\.\d$/.test(firstLine))
  );
}
