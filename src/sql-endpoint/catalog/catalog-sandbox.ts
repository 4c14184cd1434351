import { Worker } from 'node:worker_threads';
import { SqlError } from '../wire/session.js';
import type { CatalogAsk, CatalogColumn, CatalogReply, CatalogRequest } from './catalog-messages.js';

/**
 * Where catalog statements run (`pg_catalog`, `information_schema`, `version()`, `SELECT 1`): a
 * PostgreSQL of its own (PGlite, catalog-worker.ts) that holds the model's relations as empty
 * views and nothing of any organization. One per process, started at the first catalog
 * statement (PGlite takes ~6 s and ~700 MB to start here: README, SQL endpoint); a statement
 * cancelled or past its timeout ends the worker, and the next statement starts another.
 */
export interface CatalogShape {
  readonly parameterTypes: readonly number[];
  readonly columns: readonly CatalogColumn[];
}

export interface CatalogRows {
  readonly columns: readonly CatalogColumn[];
  readonly rows: readonly (readonly (string | null)[])[];
}

interface Pending {
  readonly resolve: (reply: CatalogReply) => void;
  readonly reject: (error: unknown) => void;
}

class CatalogWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ended: unknown;

  constructor() {
    const ts = import.meta.url.endsWith('.ts');
    const script = new URL(`./catalog-worker.${ts ? 'ts' : 'js'}`, import.meta.url);
    // Under tsx (tests, development) the worker is TypeScript: it registers tsx's loader first
    // (Node 20 does not apply a worker's --import to its module loading).
    this.worker = ts
      ? new Worker(
          `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); })`,
          { eval: true },
        )
      : new Worker(script);
    this.worker.unref();
    this.worker.on('message', (reply: CatalogReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiting?.resolve(reply);
    });
    const fail = (error: unknown) => {
      this.ended ??= error;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new SqlError('57P01', 'the catalog sandbox ended; retry')));
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  ask(request: CatalogAsk, signal?: AbortSignal): Promise<CatalogReply> {
    if (!this.alive) return Promise.reject(this.ended);
    const id = this.nextId++;
    const onAbort = () => void this.stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    return new Promise<CatalogReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id } as CatalogRequest);
    }).finally(() => signal?.removeEventListener('abort', onAbort));
  }

  async stop(): Promise<void> {
    this.ended ??= new SqlError('57014', 'canceling statement due to user request');
    await this.worker.terminate();
  }
}

/**
 * The version of the PostgreSQL in the sandbox (PGlite 0.5.17, pinned in package.json), which the
 * endpoint reports as server_version without starting the sandbox at every service start;
 * test/service/sql-endpoint-scoping.test.ts holds it to what the sandbox says.
 */
export const CATALOG_POSTGRES_VERSION = '18.7';

export class CatalogSandbox {
  private worker: CatalogWorker | undefined;

  async describe(sql: string): Promise<CatalogShape> {
    const reply = await this.ask({ op: 'describe', sql });
    if (!('parameterTypes' in reply)) throw new Error('catalog sandbox: unexpected reply to describe');
    return reply;
  }

  async run(sql: string, params: readonly (string | null)[], signal: AbortSignal): Promise<CatalogRows> {
    const reply = await this.ask({ op: 'run', sql, params }, signal);
    if (!('rows' in reply)) throw new Error('catalog sandbox: unexpected reply to run');
    return reply;
  }

  async close(): Promise<void> {
    await this.worker?.stop();
    this.worker = undefined;
  }

  private async ask(request: CatalogAsk, signal?: AbortSignal): Promise<CatalogReply> {
    if (!this.worker?.alive) this.worker = new CatalogWorker();
    const reply = await this.worker.ask(request, signal);
    if (!reply.ok) {
      const { code, message, position, detail, hint } = reply.error;
      throw new SqlError(code, message, {
        ...(position ? { position: Number(position) } : {}),
        ...(detail ? { detail } : {}),
        ...(hint ? { hint } : {}),
      });
    }
    return reply;
  }
}

/** One sandbox per process: what it holds (the model's empty relations) is the same for every organization. */
let shared: CatalogSandbox | undefined;
export function sharedCatalogSandbox(): CatalogSandbox {
  shared ??= new CatalogSandbox();
  return shared;
}
