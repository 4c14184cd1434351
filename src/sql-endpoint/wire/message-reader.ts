import type { Duplex } from 'node:stream';
import { ProtocolViolation } from './frontend-messages.js';

/**
 * Frames the client's byte stream into messages, reading only as fast as the connection handles
 * them: past HIGH_WATER buffered bytes the stream is paused, so a client that pipelines faster than
 * statements run waits in TCP, not in our memory. Chunks are kept as they came and joined once per
 * message: a large Bind arriving in many small chunks is copied once, not once per chunk.
 */
const HIGH_WATER = 1024 * 1024;

export interface TypedMessage {
  readonly type: number;
  readonly body: Buffer;
}

export class MessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(private readonly stream: Duplex) {
    stream.on('data', this.onData);
    stream.on('end', this.onEnd);
    stream.on('close', this.onEnd);
    stream.on('error', this.onEnd);
  }

  /** An untyped startup-phase packet (its length word counts itself); null when the stream ended first. */
  async readStartupPacket(maxLength: number): Promise<Buffer | null> {
    if (!(await this.need(4))) return null;
    const length = this.peekInt32(0);
    if (length < 8 || length > maxLength) throw new ProtocolViolation('invalid length of startup packet');
    if (!(await this.need(length))) return null;
    return this.take(length).subarray(4);
  }

  /** A typed message; null when the stream ended first. */
  async readMessage(maxLength: number): Promise<TypedMessage | null> {
    if (!(await this.need(5))) return null;
    const header = this.peek(5);
    const length = header.readInt32BE(1);
    if (length < 4 || length > maxLength)
      throw new ProtocolViolation(`invalid message length ${length} for message type ${header[0]}`);
    if (!(await this.need(1 + length))) return null;
    const message = this.take(1 + length);
    return { type: message[0]!, body: message.subarray(5) };
  }

  /** Whether a whole message is already here: output may then wait, as PostgreSQL waits to flush until its input runs dry. */
  hasBufferedInput(): boolean {
    return this.buffered > 0;
  }

  /** Stops reading and hands back what came after the last message (the TLS upgrade must find nothing there). */
  detach(): Buffer {
    this.stream.pause();
    this.stream.off('data', this.onData);
    this.stream.off('end', this.onEnd);
    this.stream.off('close', this.onEnd);
    this.stream.off('error', this.onEnd);
    const rest = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    return rest;
  }

  private readonly onData = (chunk: Buffer): void => {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered > HIGH_WATER) this.stream.pause();
    this.notify();
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    this.notify();
  };

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async need(length: number): Promise<boolean> {
    while (this.buffered < length) {
      if (this.ended) return false;
      // Paused at the high-water mark with a message still incomplete: read on until it is whole.
      if (this.stream.isPaused()) this.stream.resume();
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return true;
  }

  private peekInt32(offset: number): number {
    return this.peek(offset + 4).readInt32BE(offset);
  }

  /** The first `length` bytes as one buffer (they may span chunks); nothing is consumed. */
  private peek(length: number): Buffer {
    if (this.chunks[0]!.length < length) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0]!;
  }

  private take(length: number): Buffer {
    let out: Buffer;
    const first = this.chunks[0]!;
    if (first.length >= length) {
      out = first.subarray(0, length);
      if (first.length === length) this.chunks.shift();
      else this.chunks[0] = first.subarray(length);
    } else {
      const parts: Buffer[] = [];
      let left = length;
      while (left > 0) {
        const chunk = this.chunks[0]!;
        if (chunk.length <= left) {
          parts.push(chunk);
          this.chunks.shift();
          left -= chunk.length;
        } else {
          parts.push(chunk.subarray(0, left));
          this.chunks[0] = chunk.subarray(left);
          left = 0;
        }
      }
      out = Buffer.concat(parts, length);
    }
    this.buffered -= length;
    if (this.buffered < HIGH_WATER && this.stream.isPaused() && !this.ended) this.stream.resume();
    return out;
  }
}
