import crypto from 'node:crypto';
import http from 'node:http';
import { errorBody } from '../error-mapper.js';

/** A refusal decided before the app sees the request: status, stable code, a sentence for people. */
export interface TransportError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

const ACCEPTABLE_REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/** A sane given X-Request-Id (the same rule as the app's middleware), else a fresh one. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && ACCEPTABLE_REQUEST_ID.test(header) ? header : crypto.randomUUID();
}

/** What every response of the service carries; app.ts adds the same to the app's responses. */
function serviceHeaders(secure: boolean): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...(secure ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  };
}

/**
 * Answers a request that never reaches the app with the error envelope. A DELETE gets the
 * status alone, as from the app (spec 7).
 */
export function sendTransportError(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  error: TransportError,
  options: { secure: boolean; close?: boolean },
): void {
  const requestId = requestIdFor(req.headers['x-request-id']);
  const headers: Record<string, string | number> = { ...serviceHeaders(options.secure), 'X-Request-Id': requestId };
  if (options.close) headers.Connection = 'close';
  if (req.method === 'DELETE') {
    res.writeHead(error.status, { ...headers, 'Content-Length': 0 });
    res.end();
    return;
  }
  const text = JSON.stringify(errorBody(error.status, error.code, error.message, [], requestId));
  res.writeHead(error.status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * A whole HTTP/1.1 error response as bytes, for a connection the HTTP layer gave up on (no
 * request object exists); the connection closes after it.
 */
export function rawErrorResponse(error: TransportError, secure: boolean): string {
  const requestId = crypto.randomUUID();
  const text = JSON.stringify(errorBody(error.status, error.code, error.message, [], requestId));
  const headers = {
    ...serviceHeaders(secure),
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    'X-Request-Id': requestId,
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status] ?? 'Error'}\r\n${head}\r\n${text}`;
}
