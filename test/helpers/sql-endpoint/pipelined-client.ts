import crypto from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';

/**
 * A PostgreSQL protocol client that pipelines: statements are written without waiting for the
 * answers before them (up to `window` in flight), and each submission's answer is everything up to
 * its ReadyForQuery. Simple queries ('Q') and the extended protocol (Parse/Bind/Describe/Execute/
 * Sync with text parameters) both. Every value stays the server's text. What node-postgres would
 * hide is kept: each ErrorResponse's SQLSTATE, and whether the server closed the connection while
 * a submission waited (`lost`), so a fuzz can tell a refusal from a dropped connection.
 */

export interface WireError {
  readonly code: string | undefined;
  readonly message: string;
  readonly severity: string | undefined;
}

export interface WireResult {
  readonly columns: readonly string[];
  readonly rows: (string | null)[][];
}

export interface WireAnswer {
  readonly results: WireResult[];
  readonly errors: WireError[];
  /** The connection ended before the submission's ReadyForQuery. */
  readonly lost: boolean;
  /** ReadyForQuery's transaction status: I (idle), T (in a block), E (in a failed block). */
  readonly status: string;
}

interface Pending {
  readonly answer: { results: WireResult[]; errors: WireError[]; lost: boolean; status: string };
  current: WireResult | undefined;
  readonly resolve: (answer: WireAnswer) => void;
}

const cstring = (value: string) => Buffer.from(`${value}\0`);
const int32 = (value: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(value);
  return b;
};
const int16 = (value: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(value);
  return b;
};
const message = (type: string, body: Buffer) => Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);

export class PipelinedClient {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending: Pending[] = [];
  private readonly waitingForRoom: (() => void)[] = [];
  private startup: ((m: { type: string; body: Buffer }) => void) | undefined;
  private ended = false;

  private constructor(
    private readonly socket: tls.TLSSocket,
    private readonly window: number,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.lose());
    socket.on('error', () => this.lose());
  }

  /** SSLRequest, TLS (any certificate: the service's own is self-signed), startup, SCRAM-SHA-256, first ReadyForQuery. */
  static async connect(options: {
    port: number;
    user: string;
    password: string;
    database?: string;
    window?: number;
  }): Promise<PipelinedClient> {
    const plain = net.connect(options.port, '127.0.0.1');
    plain.setNoDelay(true);
    await new Promise((resolve, reject) => plain.once('connect', resolve).once('error', reject));
    plain.write(Buffer.concat([int32(8), int32(80877103)]));
    const answer = await new Promise<Buffer>((resolve, reject) => {
      plain.once('data', resolve).once('error', reject);
    });
    if (answer.toString() !== 'S') throw new Error(`SSLRequest answered ${answer.toString()}`);
    const secure = tls.connect({ socket: plain, rejectUnauthorized: false });
    await new Promise((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
    const client = new PipelinedClient(secure, options.window ?? 16);
    await client.handshake(options.user, options.password, options.database ?? 'adreport');
    return client;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** A simple query: one string, any number of statements. */
  query(sql: string): Promise<WireAnswer> {
    return this.submit(message('Q', cstring(sql)));
  }

  /** The extended protocol: unnamed statement and portal, parameters as text (null: SQL NULL), then Sync. */
  extended(sql: string, params: readonly (string | null)[]): Promise<WireAnswer> {
    const values = params.map((p) => {
      if (p === null) return int32(-1);
      const bytes = Buffer.from(p);
      return Buffer.concat([int32(bytes.length), bytes]);
    });
    return this.submit(
      Buffer.concat([
        message('P', Buffer.concat([cstring(''), cstring(sql), int16(0)])),
        message('B', Buffer.concat([cstring(''), cstring(''), int16(0), int16(params.length), ...values, int16(0)])),
        message('D', Buffer.concat([Buffer.from('P'), cstring('')])),
        message('E', Buffer.concat([cstring(''), int32(0)])),
        message('S', Buffer.alloc(0)),
      ]),
    );
  }

  async close(): Promise<void> {
    if (!this.ended) this.socket.write(message('X', Buffer.alloc(0)));
    this.socket.end();
    await new Promise<void>((resolve) => (this.ended ? resolve() : this.socket.once('close', () => resolve())));
  }

  private async submit(bytes: Buffer): Promise<WireAnswer> {
    while (!this.ended && this.pending.length >= this.window)
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
    if (this.ended) return { results: [], errors: [], lost: true, status: '' };
    return new Promise<WireAnswer>((resolve) => {
      this.pending.push({ answer: { results: [], errors: [], lost: false, status: '' }, current: undefined, resolve });
      this.socket.write(bytes);
    });
  }

  private async handshake(user: string, password: string, database: string): Promise<void> {
    const messages: { type: string; body: Buffer }[] = [];
    let wake: (() => void) | undefined;
    this.startup = (m) => {
      messages.push(m);
      wake?.();
    };
    const next = async () => {
      while (messages.length === 0) {
        if (this.ended) throw new Error('the server closed the connection during startup');
        await new Promise<void>((resolve) => (wake = resolve));
      }
      return messages.shift()!;
    };
    const body = Buffer.concat([
      int32(196608),
      cstring('user'),
      cstring(user),
      cstring('database'),
      cstring(database),
      Buffer.from([0]),
    ]);
    this.socket.write(Buffer.concat([int32(body.length + 4), body]));
    const sasl = await next();
    if (sasl.type !== 'R' || sasl.body.readInt32BE(0) !== 10)
      throw new Error(`expected AuthenticationSASL, got ${sasl.type} ${errorOf(sasl.body).message}`);
    const clientNonce = crypto.randomBytes(18).toString('base64');
    const clientFirstBare = `n=,r=${clientNonce}`;
    const first = Buffer.from(`n,,${clientFirstBare}`);
    this.socket.write(message('p', Buffer.concat([cstring('SCRAM-SHA-256'), int32(first.length), first])));
    const serverFirstMessage = await next();
    if (serverFirstMessage.type !== 'R') throw new Error(`SCRAM: ${errorOf(serverFirstMessage.body).message}`);
    const serverFirst = serverFirstMessage.body.subarray(4).toString();
    const attrs = Object.fromEntries(serverFirst.split(',').map((a) => [a[0], a.slice(2)]));
    const salted = crypto.pbkdf2Sync(password, Buffer.from(attrs.s!, 'base64'), Number(attrs.i), 32, 'sha256');
    const clientKey = crypto.createHmac('sha256', salted).update('Client Key').digest();
    const storedKey = crypto.createHash('sha256').update(clientKey).digest();
    const withoutProof = `c=biws,r=${attrs.r}`;
    const signature = crypto
      .createHmac('sha256', storedKey)
      .update(`${clientFirstBare},${serverFirst},${withoutProof}`)
      .digest();
    const proof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]!));
    this.socket.write(message('p', Buffer.from(`${withoutProof},p=${proof.toString('base64')}`)));
    for (;;) {
      const m = await next();
      if (m.type === 'E') throw new Error(`startup refused: ${errorOf(m.body).message}`);
      if (m.type === 'Z') break;
    }
    this.startup = undefined;
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    let offset = 0;
    while (this.buffer.length - offset >= 5) {
      const length = this.buffer.readInt32BE(offset + 1);
      if (this.buffer.length - offset < 1 + length) break;
      const type = String.fromCharCode(this.buffer[offset]!);
      const body = this.buffer.subarray(offset + 5, offset + 1 + length);
      offset += 1 + length;
      if (this.startup) this.startup({ type, body: Buffer.from(body) });
      else this.handle(type, body);
    }
    this.buffer = this.buffer.subarray(offset);
  }

  private handle(type: string, body: Buffer): void {
    const head = this.pending[0];
    if (!head) return;
    switch (type) {
      case 'T':
        head.current = { columns: rowDescription(body), rows: [] };
        head.answer.results.push(head.current);
        break;
      case 'D':
        if (!head.current) {
          // Execute after Describe of the portal: the row description came first in the same answer.
          head.current = { columns: [], rows: [] };
          head.answer.results.push(head.current);
        }
        head.current.rows.push(dataRow(body));
        break;
      case 'C':
      case 'I':
        head.current = undefined;
        break;
      case 'E':
        head.answer.errors.push(errorOf(body));
        head.current = undefined;
        break;
      case 'Z':
        head.answer.status = String.fromCharCode(body[0] ?? 0);
        this.pending.shift();
        head.resolve(head.answer);
        this.waitingForRoom.shift()?.();
        break;
      default:
        // ParseComplete, BindComplete, NoData, ParameterDescription, notices, parameter statuses.
        break;
    }
  }

  private lose(): void {
    if (this.ended) return;
    this.ended = true;
    for (const p of this.pending.splice(0)) p.resolve({ ...p.answer, lost: true });
    for (const wake of this.waitingForRoom.splice(0)) wake();
  }
}

function rowDescription(body: Buffer): string[] {
  const count = body.readInt16BE(0);
  const names: string[] = [];
  let offset = 2;
  for (let i = 0; i < count; i++) {
    const end = body.indexOf(0, offset);
    names.push(body.subarray(offset, end).toString('utf8'));
    offset = end + 1 + 18;
  }
  return names;
}

function dataRow(body: Buffer): (string | null)[] {
  const count = body.readInt16BE(0);
  const values: (string | null)[] = [];
  let offset = 2;
  for (let i = 0; i < count; i++) {
    const length = body.readInt32BE(offset);
    offset += 4;
    if (length < 0) values.push(null);
    else {
      values.push(body.subarray(offset, offset + length).toString('utf8'));
      offset += length;
    }
  }
  return values;
}

function errorOf(body: Buffer): WireError {
  const fields: Record<string, string> = {};
  let offset = 0;
  while (offset < body.length && body[offset] !== 0) {
    const code = String.fromCharCode(body[offset]!);
    const end = body.indexOf(0, offset + 1);
    fields[code] = body.subarray(offset + 1, end).toString('utf8');
    offset = end + 1;
  }
  return { code: fields.C, message: fields.M ?? '', severity: fields.S };
}
