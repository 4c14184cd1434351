import type { TransportError } from './transport-error.js';

/** The methods the service implements; any other is 501 (RFC 9110 9.1), on every path. */
export const IMPLEMENTED_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Longest request target (path and query) served, in bytes. Reports have no POST form, so the
 * limit follows the longest reports rather than nginx's 8 KiB: 20 formulas and a
 * 2,000-character filter, percent-encoded, take about 5.4 KiB; the test suite's most expensive
 * report (20 formulas of 24 terms, used in filter and sort) 10.9 KiB. It leaves 4 KiB of
 * headers within Node's 16 KiB head limit.
 */
export const MAX_REQUEST_TARGET_BYTES = 12 * 1024;

/** The parts of a parsed request head the checks read (an IncomingMessage has them). */
export interface RequestHead {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly httpVersion: string;
  readonly rawHeaders: readonly string[];
}

export function notImplemented(method: string): TransportError {
  return {
    status: 501,
    code: 'not_implemented',
    message: `The method ${method} is not implemented; this service implements ${IMPLEMENTED_METHODS.join(', ')}.`,
  };
}

export const URI_TOO_LONG: TransportError = {
  status: 414,
  code: 'uri_too_long',
  message: `The request target (path and query) is longer than ${MAX_REQUEST_TARGET_BYTES} bytes.`,
};

/** An absolute-form target (RFC 9112 3.2.2): scheme, then the authority (userinfo dropped). */
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^/?#@]*@)?([^/?#]*)/;

/** `OPTIONS *` (RFC 9110 9.3.7): a question about the server in general, not about a resource. */
export function asksServerOptions(head: RequestHead): boolean {
  return head.method === 'OPTIONS' && head.url === '*';
}

/**
 * What the service refuses before routing, in this order: a target over the limit (414), a
 * method it does not implement (501), a target that is neither a path nor an absolute URL
 * (400), a Host header RFC 9112 3.2 calls bad (400).
 */
export function checkRequestHead(head: RequestHead): TransportError | undefined {
  const target = head.url ?? '';
  if (Buffer.byteLength(target, 'latin1') > MAX_REQUEST_TARGET_BYTES) return URI_TOO_LONG;
  const method = head.method ?? '';
  if (!IMPLEMENTED_METHODS.includes(method)) return notImplemented(method);
  if (!asksServerOptions(head)) {
    const form = checkTargetForm(target);
    if (form) return form;
  }
  return checkHost(head, target);
}

/** A target must be a path (origin-form) or an absolute URL; `*` only with OPTIONS, authority-form only with CONNECT (501). */
export function checkTargetForm(target: string): TransportError | undefined {
  if (target.startsWith('/') || ABSOLUTE_FORM.test(target)) return undefined;
  return badRequest(
    `The request target ${JSON.stringify(target.slice(0, 100))} is neither a path nor an absolute URL.`,
  );
}

// uri-host [":" port]: a bracketed IPv6 literal, or reg-name / IPv4 characters (RFC 3986 3.2.2).
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::\d{0,5})?$/;

function checkHost(head: RequestHead, target: string): TransportError | undefined {
  const hosts: string[] = [];
  for (let i = 0; i < head.rawHeaders.length; i += 2) {
    if (head.rawHeaders[i]!.toLowerCase() === 'host') hosts.push(head.rawHeaders[i + 1]!);
  }
  if (hosts.length > 1)
    return badRequest(`The request has ${hosts.length} Host headers; HTTP/1.1 allows exactly one (RFC 9112 3.2).`);
  const host = hosts[0];
  // HTTP/1.0 may omit Host, but the service needs it to know the request's URL, so it is required for both.
  if (host === undefined)
    return badRequest(
      'The request has no Host header; HTTP/1.1 requires one (RFC 9112 3.2), and so does this service for HTTP/1.0.',
    );
  if (!HOST_VALUE.test(host))
    return badRequest(`The Host header ${JSON.stringify(host)} is not a host with an optional port.`);
  // RFC 9112 3.2.2 lets a server take the target's host and ignore Host; refusing a mismatch
  // instead keeps every layer (proxy, logs, this service) agreeing on which host was asked.
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute && comparableHost(absolute[2]!, absolute[1]!) !== comparableHost(host, absolute[1]!)) {
    return badRequest(
      `The Host header ${JSON.stringify(host)} differs from the host of the request target ${JSON.stringify(absolute[2])}.`,
    );
  }
  return undefined;
}

/** Lower case, without the scheme's default port: `LOCALHOST:443` and `localhost` are one host for https. */
function comparableHost(authority: string, scheme: string): string {
  const defaultPort = { http: ':80', https: ':443' }[scheme.toLowerCase()];
  const lower = authority.toLowerCase();
  return defaultPort !== undefined && lower.endsWith(defaultPort) ? lower.slice(0, -defaultPort.length) : lower;
}

function badRequest(message: string): TransportError {
  return { status: 400, code: 'bad_request', message };
}
