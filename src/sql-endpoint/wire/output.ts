import type { Duplex } from 'node:stream';

/**
 * The server's side of the byte stream: messages are batched (one write per ReadyForQuery, Flush or
 * CHUNK bytes, not one per DataRow) and a flush waits while the socket's own buffer is full, so a
 * large result goes out at the client's pace instead of piling up in memory when the client reads slowly.
 */
const CHUNK = 64 * 1024;
const END_GRACE_MS = 2000;

export class Output {
  private parts: Buffer[] = [];
  private size = 0;
  private closed = false;
  private ended = false;

  constructor(private readonly stream: Duplex) {
    stream.once('close', () => {
      this.closed = true;
    });
  }

  push(message: Buffer): void {
    this.parts.push(message);
    this.size += message.length;
  }

  /** A batch's worth is waiting: the caller should `flush()` before encoding more rows. */
  get full(): boolean {
    return this.size >= CHUNK;
  }

  /** Whether the connection is gone: writes are then dropped, and whoever produces them may stop. */
  get isClosed(): boolean {
    return this.closed || this.ended || this.stream.destroyed;
  }

  /** Hands the batch to the socket; resolves once the socket can take more (or is gone). */
  async flush(): Promise<void> {
    if (this.size === 0) return;
    const data = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    if (this.isClosed) return;
    if (this.stream.write(data)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off('drain', done);
        this.stream.off('close', done);
        resolve();
      };
      this.stream.on('drain', done);
      this.stream.on('close', done);
    });
  }

  /**
   * Sends what is waiting, then closes the write side: the client reads the last message (a FATAL,
   * say), then EOF. A client that keeps its side open anyway is cut after END_GRACE_MS.
   */
  async end(): Promise<void> {
    await this.flush();
    if (this.isClosed) return;
    this.ended = true;
    this.stream.end();
    setTimeout(() => this.stream.destroy(), END_GRACE_MS).unref();
  }
}
