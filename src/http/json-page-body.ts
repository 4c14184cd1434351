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
  const first = Buffer.from(`${head}[`);
  const last = Buffer.from(`]${tail}`);
  const length = first.length + parts.byteLength + last.length;
  /** The body's pieces in order, each made when asked for. */
  const pieces = function* (): Generator<Uint8Array<ArrayBuffer>> {
    yield first;
    for (let i = 0; i < parts.count; i++) yield parts.part(i);
    yield last;
  };
  if (length <= SLICE_BYTES) {
    try {
      return { body: Buffer.concat([...pieces()], length), length };
    } finally {
      parts.release();
    }
  }
  const source = pieces();
  let pending: Uint8Array<ArrayBuffer> | undefined;
  const body = new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      pull(controller) {
        if (pending === undefined) {
          const next = source.next();
          if (next.done) {
            parts.release();
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
        parts.release();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, length };
}
