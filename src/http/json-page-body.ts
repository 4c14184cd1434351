/**
 * A JSON page's body: `{"<rows>":[` + the parts DuckDB rendered + `]...}`.
 *
 * Small pages go out as one buffer. Larger ones go out piece by piece, one per socket drain:
 * TLS encrypts whatever one write hands it on the event loop, so one 3.4 MB write held the loop
 * for its whole encryption, and 16 keyword pulls finishing together blocked it for 100-200 ms.
 * A part is copied out of DuckDB's memory only when its turn comes (see LazyRows).
 */
import type { PageParts } from '../reporting/report-service.js';

export const SLICE_BYTES = 64 * 1024;

export interface JsonPageBody {
  readonly body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly length: number;
}

export function jsonPageBody(head: string, parts: PageParts, tail: string): JsonPageBody {
  const { pieces, length } = piecesOf(head, parts, tail);
  if (length <= SLICE_BYTES) return { body: jsonPageBytes(head, parts, tail), length };
  return slicedBody(pieces(), length, () => parts.release());
}

/** The whole body in one buffer (for the page cache); the parts are released. */
export function jsonPageBytes(head: string, parts: PageParts, tail: string): Buffer<ArrayBuffer> {
  const { pieces, length } = piecesOf(head, parts, tail);
  try {
    return Buffer.concat([...pieces()], length);
  } finally {
    parts.release();
  }
}

/** A body already in memory (a cached page), sent as jsonPageBody sends one: a slice per drain when large. */
export function bufferBody(bytes: Uint8Array<ArrayBuffer>): JsonPageBody {
  const length = bytes.byteLength;
  if (length <= SLICE_BYTES) return { body: bytes, length };
  return slicedBody([bytes][Symbol.iterator](), length, () => undefined);
}

function piecesOf(head: string, parts: PageParts, tail: string) {
  const first = Buffer.from(`${head}[`);
  const last = Buffer.from(`]${tail}`);
  const length = first.length + parts.byteLength + last.length;
  /** The body's pieces in order, each made when asked for. */
  const pieces = function* (): Generator<Uint8Array<ArrayBuffer>> {
    yield first;
    for (let i = 0; i < parts.count; i++) yield parts.part(i);
    yield last;
  };
  return { pieces, length };
}

function slicedBody(source: Iterator<Uint8Array<ArrayBuffer>>, length: number, release: () => void): JsonPageBody {
  let pending: Uint8Array<ArrayBuffer> | undefined;
  const body = new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      pull(controller) {
        if (pending === undefined) {
          const next = source.next();
          if (next.done) {
            release();
            controller.close();
            return;
          }
          pending = next.value;
        }
        // A part over a slice (wide rows) still goes out a slice per drain: views, not copies.
        controller.enqueue(pending.subarray(0, SLICE_BYTES));
        pending = pending.byteLength > SLICE_BYTES ? pending.subarray(SLICE_BYTES) : undefined;
      },
      cancel() {
        release();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, length };
}
