import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { duckdbDialect, type CompiledQuery, type ExportFormat } from '../sql/compile-report.js';
import { ApiError, OverloadedError } from '../shared/errors.js';
import type { Executor } from '../store/database.js';
import type { Store } from '../store/store.js';

const run = promisify(execFile);

/** How an export that fails after its first byte ends, so a truncated file never looks complete. */
export const CSV_ERROR_TRAILER = '#adreport-error:';

/**
 * The rendered bytes, and how the export ended: undefined when complete, else why not. Emits
 * 'stalled' (with the Error) when its client took no bytes for the idle timeout, just before it
 * stops and ends with its error line (Parquet: destroyed, an aborted response).
 */
export type ExportStream = Readable & { readonly outcome: Promise<Error | undefined> };

/** How many exports run at once, and how long one may wait for its client. */
export interface ExportLimits {
  /** Exports of one organization at once (at most the service's maxConcurrent). */
  readonly maxPerOrganization?: number | undefined;
  /** No byte taken by the client for this long: the export stops. Unset: it waits for ever (CLI). */
  readonly idleTimeoutMs?: number | undefined;
}

/** Seconds a refused export is told to wait. */
const RETRY_AFTER_SECONDS = 5;

/** 503 for an organization that runs as many exports as it may: the others' slots stay theirs. */
export class OrganizationExportsBusyError extends ApiError {
  constructor(limit: number) {
    super(
      503,
      'overloaded',
      `This organization already runs ${limit} export${limit === 1 ? '' : 's'}, its limit (exports.maxPerOrganization); retry when one has ended.`,
      [],
      {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      },
    );
  }
}

/**
 * Exports (DESIGN D3): DuckDB renders the whole result itself with COPY ... TO a named pipe, and
 * we stream the pipe. JS never sees a row: the event loop only moves 64 KiB buffers, memory
 * stays at the pipe and stream buffers, and backpressure is the pipe's (DuckDB's writer blocks
 * while the client is slow). Measured on 2 M rows: CSV 1.55 M rows/s through the pipe vs 1.60 M
 * for COPY to a file, Parquet 5.55 M vs 5.64 M; reading the same rows as JSON strings through
 * the client API's streaming result managed 0.32 M rows/s.
 */
export class ExportService {
  private running = 0;
  /** Running exports per organization id. */
  private readonly runningOf = new Map<number, number>();
  private readonly maxPerOrganization: number;
  private readonly idleTimeoutMs: number | undefined;
  private fifoDir: string | undefined;
  private sequence = 0;
  /** Shutdown hooks of the running exports. */
  private readonly active = new Set<() => Promise<void>>();
  private closed = false;

  constructor(
    private readonly db: Store,
    private readonly maxConcurrent: number,
    limits: ExportLimits = {},
  ) {
    this.maxPerOrganization = Math.min(maxConcurrent, limits.maxPerOrganization ?? maxConcurrent);
    this.idleTimeoutMs = limits.idleTimeoutMs;
  }

  /**
   * Starts the export and resolves with its stream once the first bytes are there (or the
   * export ended), so a failure before any output is still an HTTP error. Destroying the stream
   * interrupts the query. 503 when the organization runs `maxPerOrganization` exports already,
   * or the service `maxConcurrent`. `compiled` is the export SELECT (compileReport(plan).export).
   */
  async open(organizationId: number, compiled: CompiledQuery, format: ExportFormat): Promise<ExportStream> {
    const ofOrganization = this.runningOf.get(organizationId) ?? 0;
    if (this.closed) throw new OverloadedError(RETRY_AFTER_SECONDS);
    if (ofOrganization >= this.maxPerOrganization) throw new OrganizationExportsBusyError(this.maxPerOrganization);
    if (this.running >= this.maxConcurrent) throw new OverloadedError(RETRY_AFTER_SECONDS);
    this.running++;
    this.runningOf.set(organizationId, ofOrganization + 1);
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.running--;
        const left = (this.runningOf.get(organizationId) ?? 1) - 1;
        if (left > 0) this.runningOf.set(organizationId, left);
        else this.runningOf.delete(organizationId);
      }
    };
    let fifo: string | undefined;
    try {
      fifo = await this.newFifo();
      // The pipe's path is ours (a temp directory and a counter), never user text.
      return await this.stream(
        organizationId,
        fifo,
        duckdbDialect.copyToFile(compiled.sql, fifo, format),
        compiled.params,
        format,
        release,
      );
    } catch (error) {
      release();
      if (fifo) fs.rmSync(fifo, { force: true });
      throw error;
    }
  }

  /** Interrupts every running export; each ends with its error line (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.active].map((shutdown) => shutdown()));
    if (this.fifoDir) fs.rmSync(this.fifoDir, { recursive: true, force: true });
  }

  private async newFifo(): Promise<string> {
    this.fifoDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-exports-'));
    const fifo = path.join(this.fifoDir, `export-${++this.sequence}.pipe`);
    await run('mkfifo', ['-m', '600', fifo]);
    return fifo;
  }

  private async stream(
    organizationId: number,
    fifo: string,
    sql: string,
    params: CompiledQuery['params'],
    format: ExportFormat,
    release: () => void,
  ): Promise<ExportStream> {
    // Reader first and non-blocking, then a writer of our own: the pipe has a reader before DuckDB
    // opens it (its open never blocks), and no end-of-file shows before DuckDB's writer has closed.
    const readFd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const keepOpenFd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    const pipe = new net.Socket({ fd: readFd, readable: true, writable: false });
    pipe.pause();
    let executor: Executor | undefined;
    let abortReason: string | undefined;
    const copied: Promise<Error | undefined> = this.db
      .readExport(organizationId, async (r) => {
        executor = r;
        if (abortReason !== undefined) throw new Error(abortReason);
        try {
          await r.runOnce(sql, params);
        } finally {
          // The connection goes back to the pool now: an interrupt after this would hit another request's query.
          executor = undefined;
        }
      })
      .then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => fs.closeSync(keepOpenFd));
    const cleanedUp = copied.then(
      () =>
        new Promise<void>((resolve) =>
          pipe.readableEnded || pipe.destroyed ? resolve() : pipe.once('close', () => resolve()),
        ),
    );

    let ended = false;
    let settle!: (failure: Error | undefined) => void;
    const outcome = new Promise<Error | undefined>((resolve) => (settle = resolve));
    /** The last byte handed on: a failure line must start on a line of its own. */
    let lastByte: number | undefined;
    /**
     * The idle-write timeout. It runs only while the client holds the export up: the output is
     * full (DuckDB's pipe paused) and nothing has been taken since. A slow query that has no
     * bytes yet, or a client that reads slowly but reads, never trips it.
     */
    let idleTimer: NodeJS.Timeout | undefined;
    const idleMs = this.idleTimeoutMs;
    const waitForClient = () => {
      if (idleMs === undefined || idleTimer !== undefined || ended) return;
      idleTimer = setTimeout(() => {
        idleTimer = undefined;
        const failure = new Error(`the client took no data for ${idleMs / 1000} s`);
        output.emit('stalled', failure);
        // The query stops and the slot is freed now; what was rendered stays buffered, followed by
        // the error line, so a client that reads again learns the file was cut (Parquet: aborted).
        // A client that never reads again is the transport's (its write-idle timeout closes it).
        void abort(failure.message).then(() => finish(failure));
      }, idleMs);
    };
    const clientTookData = () => {
      clearTimeout(idleTimer);
      idleTimer = undefined;
    };

    /** The export's last words: nothing after success; after a failure a line saying so (Parquet: an aborted response). */
    const finish = (failure: Error | undefined) => {
      if (ended) return;
      ended = true;
      // Whatever is left is in buffers and the slot is free: the client may take its time.
      clientTookData();
      settle(failure);
      if (!failure) output.push(null);
      else if (format === 'parquet') output.destroy(failure);
      else {
        const newline = lastByte === undefined || lastByte === 0x0a ? '' : '\n';
        const line =
          format === 'csv'
            ? `${CSV_ERROR_TRAILER} export_failed: ${oneLine(failure.message)}`
            : JSON.stringify({ error: { code: 'export_failed', message: oneLine(failure.message) } });
        output.push(`${newline}${line}\n`);
        output.push(null);
      }
    };
    /**
     * Stops DuckDB and drains the pipe until it has stopped (a writer blocked on a full pipe must
     * get unstuck to see the interrupt); what it still wrote is dropped.
     */
    const abort = async (reason: string): Promise<Error> => {
      abortReason ??= reason;
      executor?.interrupt();
      pipe.removeAllListeners('data');
      pipe.on('data', () => undefined);
      pipe.resume();
      await copied;
      return new Error(abortReason);
    };
    const shutdown = async () => {
      const failure = await abort('the service is shutting down');
      finish(failure);
    };
    this.active.add(shutdown);

    void cleanedUp.finally(() => {
      clientTookData();
      pipe.destroy();
      fs.rmSync(fifo, { force: true });
      this.active.delete(shutdown);
      release();
    });

    const output = new Readable({
      highWaterMark: 256 * 1024,
      read: () => {
        clientTookData();
        if (abortReason === undefined) pipe.resume();
      },
      destroy: (error, callback) => {
        clientTookData();
        // Node destroys a stream after its clean end too: then there is nothing to stop.
        if (ended && !error) {
          callback(null);
          return;
        }
        // The client went away (or the response failed): stop the query, nothing more to say.
        if (!ended) settle(error ?? new Error(abortReason ?? 'the client disconnected'));
        ended = true;
        abort(error?.message ?? 'the client disconnected').then(
          () => callback(error),
          () => callback(error),
        );
      },
    });
    pipe.on('data', (chunk: Buffer) => {
      lastByte = chunk[chunk.length - 1];
      if (!output.push(chunk)) {
        pipe.pause();
        waitForClient();
      }
    });
    pipe.on('error', (error) => output.destroy(error));
    pipe.on('end', () => {
      void copied.then((failure) => finish(failure && abortReason !== undefined ? new Error(abortReason) : failure));
    });

    // Wait for the first bytes or the end: an export that fails before writing anything is an HTTP error.
    let onReadable: (() => void) | undefined;
    const readable = new Promise<'data'>((resolve) => pipe.once('readable', (onReadable = () => resolve('data'))));
    const first = await Promise.race([readable, copied.then((failure) => failure ?? ('done' as const))]);
    // While a 'readable' listener is attached, resume() does nothing: the stream must be free to flow.
    pipe.removeListener('readable', onReadable!);
    if (first instanceof Error && pipe.readableLength === 0) {
      output.destroy();
      throw first;
    }
    return Object.assign(output, { outcome });
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 500);
}
