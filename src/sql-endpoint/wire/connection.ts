import type { SqlSession } from './session.js';
import {
  commandComplete,
  emptyQueryResponse,
  errorResponse,
  readyForQuery,
  rowDescription,
  type ErrorFields,
} from './backend-messages.js';
import { parseDeallocate } from './deallocate.js';
import { errorFields } from './errors.js';
import { ExtendedQuery } from './extended-query.js';
import { decodeMessage, ProtocolViolation, type FrontendMessage } from './frontend-messages.js';
import type { MessageReader } from './message-reader.js';
import type { Output } from './output.js';
import { CANCELED, columnEncoders, TEXT, writeRows } from './result-rows.js';

/** PostgreSQL takes messages up to 1 GB; SQL and parameters for reports need far less, and memory is ours. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The message types of the extended protocol, after whose error PostgreSQL skips to the next Sync. */
const EXTENDED = new Set(['Parse', 'Bind', 'Describe', 'Execute', 'Close', 'Flush']);
const [QUERY, SYNC, TERMINATE] = ['Q', 'S', 'X'].map((letter) => letter.charCodeAt(0));

export interface ConnectionOptions {
  readonly session: SqlSession;
  readonly reader: MessageReader;
  readonly out: Output;
  readonly log: (line: string) => void;
  /** Names the connection in log lines. */
  readonly label: string;
  /** Closes a connection that waits this long for its next message after ReadyForQuery; 0 never. */
  readonly idleTimeoutMs: number;
}

/**
 * One authenticated connection: its message loop from the first ReadyForQuery to the end, as
 * PostgreSQL's PostgresMain runs it. One message at a time; at most one statement running, under an
 * AbortSignal that a CancelRequest, the client's disconnect or the server's shutdown aborts.
 */
export class Connection {
  private readonly extended: ExtendedQuery;
  private running: AbortController | undefined;
  private closing = false;
  /** After an error in an extended-protocol message: everything up to the next Sync is dropped. */
  private skippingToSync = false;
  private waitingAfterReady = false;

  constructor(private readonly options: ConnectionOptions) {
    this.extended = new ExtendedQuery(options.session, options.out, this.runStatement);
  }

  /** A CancelRequest with this connection's key: the running statement (if any) is aborted. */
  cancel(): void {
    this.running?.abort(CANCELED());
  }

  /** The socket closed: no one will read the running statement's answer. */
  lost(): void {
    this.closing = true;
    this.running?.abort(CANCELED());
  }

  /** The server shuts down: PostgreSQL's `pg_ctl stop -m fast` answer. */
  async terminate(): Promise<void> {
    await this.fatal({
      severity: 'FATAL',
      code: '57P01',
      message: 'terminating connection due to administrator command',
    });
  }

  /** Serves messages until Terminate, a FATAL error or the end of the stream; the session is closed after. */
  async serve(): Promise<void> {
    try {
      await this.ready();
      while (!this.closing) {
        const raw = await this.nextMessage();
        if (!raw) return;
        if (!(await this.handle(raw.type, raw.body))) return;
      }
    } finally {
      this.closing = true;
      this.options.session.close();
    }
  }

  private async nextMessage(): Promise<{ type: number; body: Buffer } | null> {
    const { reader, idleTimeoutMs } = this.options;
    const idle =
      this.waitingAfterReady && idleTimeoutMs > 0 && !reader.hasBufferedInput()
        ? setTimeout(() => {
            void this.fatal({
              severity: 'FATAL',
              code: '57P05',
              message: 'terminating connection due to idle-session timeout',
            });
          }, idleTimeoutMs)
        : undefined;
    try {
      return await reader.readMessage(MAX_MESSAGE_BYTES);
    } finally {
      clearTimeout(idle);
      this.waitingAfterReady = false;
    }
  }

  /** Whether to read on. */
  private async handle(type: number, body: Buffer): Promise<boolean> {
    if (this.skippingToSync && type !== SYNC && type !== TERMINATE) return true;
    let message: FrontendMessage | undefined;
    try {
      message = decodeMessage(type, body);
      return await this.dispatch(message);
    } catch (error) {
      const fields = errorFields(error, this.options.log, `on ${this.options.label}`);
      if (fields.severity === 'FATAL') {
        await this.fatal(fields);
        return false;
      }
      this.options.out.push(errorResponse(fields));
      // A simple Query (or a message that failed to decode as one) ends with ReadyForQuery; the extended protocol waits for Sync.
      if (message === undefined ? type !== QUERY : EXTENDED.has(message.type)) this.skippingToSync = true;
      else await this.ready();
      return true;
    }
  }

  private async dispatch(message: FrontendMessage): Promise<boolean> {
    const { out } = this.options;
    switch (message.type) {
      case 'Query':
        await this.simpleQuery(message.sql);
        return true;
      case 'Parse':
        await this.extended.parse(message);
        return true;
      case 'Bind':
        this.extended.bind(message);
        return true;
      case 'Describe':
        this.extended.describe(message);
        return true;
      case 'Execute':
        await this.extended.execute(message);
        return true;
      case 'Close':
        this.extended.close(message);
        return true;
      case 'Flush':
        await out.flush();
        return true;
      case 'Sync':
        this.skippingToSync = false;
        await this.ready();
        return true;
      case 'Terminate':
        await out.end();
        return false;
      case 'FunctionCall':
        out.push(
          errorResponse({ severity: 'ERROR', code: '0A000', message: 'the function call protocol is not supported' }),
        );
        await this.ready();
        return true;
      case 'CopyIgnored':
        return true;
      case 'Password':
        throw new ProtocolViolation('invalid frontend message type 112');
    }
  }

  /** Every result in order (RowDescription, DataRows, CommandComplete); the first error ends the string. */
  private async simpleQuery(sql: string): Promise<void> {
    this.extended.dropUnnamed();
    // In a failed transaction block DEALLOCATE is refused like any statement: the session says so.
    const deallocation = this.options.session.transactionStatus() === 'error' ? undefined : parseDeallocate(sql);
    try {
      if (deallocation) this.extended.deallocate(deallocation);
      else await this.runStatement((signal) => this.answer(sql, signal));
    } catch (error) {
      const fields = errorFields(error, this.options.log, `on ${this.options.label}`);
      if (fields.severity === 'FATAL') throw error;
      this.options.out.push(errorResponse(fields));
    }
    await this.ready();
  }

  private async answer(sql: string, signal: AbortSignal): Promise<void> {
    const { session, out } = this.options;
    let results = 0;
    for await (const result of session.query(sql, signal)) {
      results++;
      if (result.columns === null) {
        out.push(result.commandTag === '' ? emptyQueryResponse() : commandComplete(result.commandTag));
        continue;
      }
      const formats = result.columns.map(() => TEXT);
      const encoders = columnEncoders(result.columns, formats);
      out.push(rowDescription(result.columns, formats));
      await writeRows(out, result.rows, 0, result.rows.length, encoders, signal);
      out.push(commandComplete(result.commandTag));
    }
    if (results === 0) out.push(emptyQueryResponse());
  }

  private readonly runStatement = async <T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    if (this.closing) controller.abort(CANCELED());
    this.running = controller;
    try {
      return await work(controller.signal);
    } finally {
      this.running = undefined;
    }
  };

  private async ready(): Promise<void> {
    const status = this.options.session.transactionStatus();
    if (status === 'idle') this.extended.dropPortals();
    this.options.out.push(readyForQuery(status));
    await this.options.out.flush();
    this.waitingAfterReady = true;
  }

  private async fatal(fields: ErrorFields): Promise<void> {
    this.closing = true;
    this.running?.abort(CANCELED());
    this.options.out.push(errorResponse(fields));
    await this.options.out.end();
  }
}
