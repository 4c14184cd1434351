/**
 * A JSON page's body: `{"<rows>":` + the rows DuckDB rendered + the rest, as bytes.
 *
 * Small pages go out as one buffer. Large ones go out in slices: TLS encrypts whatever one write
 * hands it on the event loop, so one 3.4 MB write held the loop for its whole encryption, and 16
 * keyword pulls finishing together blocked it for 100-200 ms. Slices are written one per drain,
 * so other requests run between them.
 */
export const SLICE_BYTES = 64 * 1024;

export interface JsonPageBody {
  readonly body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly length: number;
}

export function jsonPageBody(head: string, rows: Uint8Array<ArrayBuffer>, tail: string): JsonPageBody {
  const parts = [Buffer.from(head), Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength), Buffer.from(tail)];
  const length = parts.reduce((n, part) => n + part.length, 0);
  if (length <= SLICE_BYTES) return { body: Buffer.concat(parts, length), length };
  // Slices are views of the rows DuckDB gave us, not copies.
  const slices = parts.flatMap((part) => Array.from({ length: Math.ceil(part.length / SLICE_BYTES) }, (_, i) => part.subarray(i * SLICE_BYTES, (i + 1) * SLICE_BYTES)));
  let next = 0;
  const body = new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      pull(controller) {
        controller.enqueue(slices[next++]!);
        if (next === slices.length) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, length };
}
