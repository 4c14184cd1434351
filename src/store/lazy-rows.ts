import {
  DuckDBBlobVector,
  JSDuckDBValueConverter,
  type DuckDBDataChunk,
  type DuckDBMaterializedResult,
} from '@duckdb/node-api';
import { fromDuckDBValue } from './sql-values.js';

/**
 * The rows of a finished query, read cell by cell when asked: a BLOB cell is copied out of
 * DuckDB's memory (once) only when `get` reads it. A JSON page is sent part by part as the
 * socket drains, so at most one part of it lives in JS at a time: the whole 3.4 MB page copied at
 * once lived as long as its slowest write, outlived V8's young generation, and its external
 * memory set off a major GC every few pulls at 16 connections (10-40 ms pauses of the event loop).
 *
 * The result object is held with its chunks because their string data may point into the
 * result's own buffers. `detach` copies what is left into JS, for a store that closes while a
 * response is still being written; `release` lets DuckDB's memory go.
 */
export class LazyRows {
  readonly rowCount: number;
  private source: { result: DuckDBMaterializedResult; chunks: readonly DuckDBDataChunk[] } | undefined;
  private copied: unknown[][] | undefined;
  private released = false;
  /** Called once by `release`, so the store stops tracking these rows. */
  onRelease: (() => void) | undefined;

  constructor(result: DuckDBMaterializedResult, chunks: readonly DuckDBDataChunk[]) {
    this.source = { result, chunks };
    this.rowCount = chunks.reduce((n, chunk) => n + chunk.rowCount, 0);
  }

  /** A cell as `Executor.all` would give it (BIGINTs as numbers where safe), a BLOB as a fresh Uint8Array. */
  get(row: number, column: number): unknown {
    if (this.released) throw new Error('rows read after release');
    if (row < 0 || row >= this.rowCount) throw new RangeError(`row ${row} of ${this.rowCount}`);
    if (this.copied) return this.copied[row]![column];
    let index = row;
    for (const chunk of this.source!.chunks) {
      if (index < chunk.rowCount) return readCell(chunk, column, index);
      index -= chunk.rowCount;
    }
    throw new RangeError(`row ${row} of ${this.rowCount}`);
  }

  /** Copies every cell into JS and lets DuckDB's memory go; `get` keeps working. */
  detach(): void {
    if (this.released || this.copied) return;
    const chunks = this.source!.chunks;
    this.copied = chunks.flatMap((chunk) =>
      Array.from({ length: chunk.rowCount }, (_, row) =>
        Array.from({ length: chunk.columnCount }, (__, column) => readCell(chunk, column, row)),
      ),
    );
    this.source = undefined;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.source = undefined;
    this.copied = undefined;
    this.onRelease?.();
  }
}

function readCell(chunk: DuckDBDataChunk, column: number, row: number): unknown {
  const vector = chunk.getColumnVector(column);
  if (vector instanceof DuckDBBlobVector) {
    const bytes = vector.getItemBytes(row);
    // Up to 12 bytes are a view of the vector itself (DuckDB inlines them), not a copy.
    return bytes === null ? null : bytes.byteLength <= 12 ? bytes.slice() : bytes;
  }
  const value = vector.getItem(row);
  return value === null ? null : fromDuckDBValue(JSDuckDBValueConverter(value, vector.type, JSDuckDBValueConverter));
}
