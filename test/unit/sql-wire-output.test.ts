import { once } from 'node:events';
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Output } from '../../src/sql-endpoint/wire/output.js';
import { writeRows, columnEncoders } from '../../src/sql-endpoint/wire/result-rows.js';
import { PgType } from '../../src/sql-endpoint/wire/pg-types.js';

/*
 * Backpressure of a large result: rows are encoded only as fast as the socket takes them. A fake
 * socket holds every write until the test lets it go, as a client that reads nothing would.
 */

class HeldSocket extends Duplex {
  accepted = 0;
  private held: (() => void)[] = [];
  private flowing = false;

  constructor() {
    super({ writableHighWaterMark: 16 * 1024 });
    // Counts what Output hands over, and says when the socket first refuses more (write() false).
    const write = this.write.bind(this) as (chunk: Buffer) => boolean;
    this.write = ((chunk: Buffer) => {
      this.accepted += chunk.length;
      const more = write(chunk);
      if (!more) this.emit('full');
      return more;
    }) as Duplex['write'];
  }

  override _write(_chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    if (this.flowing) callback();
    else this.held.push(callback);
  }

  override _read(): void {}

  release(): void {
    this.flowing = true;
    for (const callback of this.held.splice(0)) callback();
  }
}

describe('a large result and a socket that takes nothing', () => {
  it('stops encoding at about one batch beyond the socket buffer, and finishes once the socket drains', async () => {
    const socket = new HeldSocket();
    const out = new Output(socket);
    const rows = Array.from({ length: 100_000 }, (_, i) => [i, `row ${i}`]);
    const encoders = columnEncoders(
      [
        { name: 'i', typeOid: PgType.int4 },
        { name: 'label', typeOid: PgType.text },
      ],
      [0, 0],
    );
    let finished = false;
    const full = once(socket, 'full');
    const writing = writeRows(out, rows, 0, rows.length, encoders, new AbortController().signal).then(() => {
      finished = true;
    });
    await full;
    // One 64 KiB batch handed over, then the loop waits for 'drain': nothing like the ~2 MB of the whole result.
    expect(socket.accepted).toBeLessThan(128 * 1024);
    expect(finished).toBe(false);
    socket.release();
    await writing;
    await out.flush();
    const total = rows.reduce((sum, [i, label]) => sum + 7 + 4 + String(i).length + 4 + String(label).length, 0);
    expect(socket.accepted).toBe(total);
  });

  it('a cancel stops the rows at the next batch with 57014', async () => {
    const socket = new HeldSocket();
    socket.release();
    const out = new Output(socket);
    const controller = new AbortController();
    controller.abort();
    const rows = Array.from({ length: 100_000 }, (_, i) => [i]);
    const encoders = columnEncoders([{ name: 'i', typeOid: PgType.int4 }], [1]);
    await expect(writeRows(out, rows, 0, rows.length, encoders, controller.signal)).rejects.toMatchObject({
      code: '57014',
    });
    expect(socket.accepted).toBeLessThan(128 * 1024);
  });
});
