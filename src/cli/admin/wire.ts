/**
 * The admin channel's protocol (README of this folder): one request per connection, a JSON line
 * `{version, command, input}`; the answer is JSON lines, progress `{event, ...}` and byte frames
 * `{bytes: N}` followed by N raw bytes, ending with `{ok: true, result}` or
 * `{ok: false, error: {message, exitCode}}`. Lines never hold a raw newline (JSON escapes it).
 */
import type { AdminEvent, JsonValue } from './operation.js';

export const PROTOCOL_VERSION = 1;
/** A request is one line; `fx import` carries a CSV file in it. */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
/** A line of the answer (a result: a long job list) may be longer, but not without bound. */
export const MAX_ANSWER_LINE_BYTES = 256 * 1024 * 1024;

export interface AdminRequest {
  readonly version: number;
  readonly command: string;
  readonly input: unknown;
}

export interface WireFailure {
  readonly message: string;
  readonly exitCode: number;
}

export type AdminAnswer =
  { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: WireFailure };

export type WireItem =
  | { readonly kind: 'event'; readonly event: AdminEvent }
  | { readonly kind: 'bytes'; readonly data: Buffer }
  | { readonly kind: 'answer'; readonly answer: AdminAnswer };

export function line(value: AdminRequest | AdminEvent | AdminAnswer | { readonly bytes: number } | JsonValue): string {
  return `${JSON.stringify(value)}\n`;
}

/** The protocol is broken (not a failure of the command): a garbled line, a line too long. */
export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

/**
 * Splits what arrives into lines and byte frames. Chunks of a line are kept in a list and joined
 * once, so a long line arriving in many chunks is copied once, not once per chunk.
 */
export class WireReader {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** Raw bytes still owed by the last `{bytes: N}` header. */
  private owed = 0;

  constructor(private readonly maxLineBytes: number) {}

  *push(chunk: Buffer): Generator<WireItem> {
    let rest = chunk;
    while (rest.length > 0) {
      if (this.owed > 0) {
        const data = rest.subarray(0, this.owed);
        this.owed -= data.length;
        rest = rest.subarray(data.length);
        yield { kind: 'bytes', data };
        continue;
      }
      const newline = rest.indexOf(10);
      if (newline < 0) {
        this.keep(rest);
        return;
      }
      this.keep(rest.subarray(0, newline));
      rest = rest.subarray(newline + 1);
      const text = Buffer.concat(this.pending, this.pendingLength).toString('utf8');
      this.pending = [];
      this.pendingLength = 0;
      const item = parseLine(text);
      if (item.kind === 'header') this.owed = item.length;
      else yield item;
    }
  }

  /** True between items: nothing half-read. */
  get idle(): boolean {
    return this.owed === 0 && this.pendingLength === 0;
  }

  private keep(part: Buffer): void {
    this.pendingLength += part.length;
    if (this.pendingLength > this.maxLineBytes)
      throw new WireError(`a line of the admin channel exceeds ${this.maxLineBytes} bytes`);
    if (part.length > 0) this.pending.push(part);
  }
}

function parseLine(text: string): WireItem | { readonly kind: 'header'; readonly length: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WireError('the admin channel sent a line that is not JSON');
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.bytes === 'number' && Number.isSafeInteger(record.bytes) && record.bytes > 0)
      return { kind: 'header', length: record.bytes };
    if (typeof record.event === 'string') return { kind: 'event', event: record as AdminEvent };
    if (record.ok === true && 'result' in record)
      return { kind: 'answer', answer: { ok: true, result: record.result } };
    if (record.ok === false && isFailure(record.error))
      return { kind: 'answer', answer: { ok: false, error: record.error } };
  }
  throw new WireError('the admin channel sent a line it does not know');
}

function isFailure(value: unknown): value is WireFailure {
  const record = value as Partial<WireFailure> | null;
  return typeof record?.message === 'string' && typeof record.exitCode === 'number';
}
