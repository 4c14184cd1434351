import { findScramClient } from '../auth/clients.js';
import { parseScramVerifier } from '../auth/scram.js';
import { OverloadedError } from '../shared/errors.js';
import type { CostBuckets, RateBuckets } from '../shared/token-bucket.js';
import { AbortedStatement, isDescribing, type DescribingExecutor, type StatementShape } from '../store/executor.js';
import type { Store } from '../store/store.js';
import { CATALOG_POSTGRES_VERSION, sharedCatalogSandbox } from './catalog/catalog-sandbox.js';
import { ModelSession } from './model-session.js';
import { startSqlWireServer } from './wire/server.js';
import { SqlError, type ScramVerifier, type SqlAuthenticator } from './wire/session.js';

/**
 * The SQL endpoint (issue 41, `serve --sql-port`): the PostgreSQL protocol over TLS, SCRAM-SHA-256
 * with a client id and its secret (scope `reporting`), one database per organization (whatever
 * name the client sends, it is the client's own), statements over the reporting model run in the
 * report lane under the same scheduler, database-time budget and per-client rate limit as REST.
 */
export interface SqlEndpointOptions {
  readonly host: string;
  readonly port: number;
  readonly tls: { readonly key: string | Buffer; readonly cert: string | Buffer };
  readonly db: Store;
  readonly apiRate: RateBuckets;
  readonly dbTime: CostBuckets | undefined;
  readonly nowMs: () => number;
  readonly maxRows: number;
  readonly maxConnections: number;
  /**
   * Keys the made-up salt an unknown user is offered (a deployment secret): the same at every
   * start, as a real user's salt is, so a restart does not tell unknown users apart.
   */
  readonly mockSecret: Buffer;
  /** The version the endpoint reports (`server_version`): PostgreSQL's protocol level, then ours. */
  readonly version: string;
  readonly log?: ((line: string) => void) | undefined;
  /** Where an internal error of the endpoint goes (the service's error log: a bug, with its stack). */
  readonly logError: (error: Error) => void;
}

export interface RunningSqlEndpoint {
  readonly port: number;
  close(): Promise<void>;
}

/** `--sql-port` asked of a deployment that cannot serve it: one line at start. */
export class SqlEndpointConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlEndpointConfigurationError';
  }
}

export async function startSqlEndpoint(options: SqlEndpointOptions): Promise<RunningSqlEndpoint> {
  const { db } = options;
  const catalog = sharedCatalogSandbox();
  // The version of the PostgreSQL whose catalogs answer the tools (catalog-worker.ts), so what a
  // driver reads in server_version and what it finds in pg_catalog agree.
  const serverVersion = `${CATALOG_POSTGRES_VERSION} (adreport ${options.version})`;
  const clients = new Map<string, { organizationId: number }>();

  const authenticator: SqlAuthenticator = {
    async verifierOf(user: string): Promise<ScramVerifier | undefined> {
      const client = await db.read((r) => findScramClient(r, user));
      if (!client || client.disabled || !client.scopes.includes('reporting') || !client.verifier) return undefined;
      clients.set(user, { organizationId: client.organizationId });
      return parseScramVerifier(client.verifier);
    },
    async openSession({ user, parameters }) {
      const client = clients.get(user);
      if (!client) throw new SqlError('28000', `role "${user}" does not exist`, { severity: 'FATAL' });
      return new ModelSession({
        organizationId: client.organizationId,
        clientId: user,
        catalog,
        maxRows: options.maxRows,
        startupParameters: parameters,
        serverVersion,
        describeModel: (organizationId, sql) => describe(organizationId, sql),
        runModel: (organizationId, clientId, sql, params, signal, maxRows) =>
          run(organizationId, clientId, sql, params, signal, maxRows),
      });
    },
  };

  async function admit(organizationId: number, clientId: string): Promise<void> {
    const now = options.nowMs();
    const decision = await options.apiRate.take(clientId, now);
    if (!decision.allowed) {
      throw new SqlError('53000', `too many requests for this client; retry in ${decision.retryAfterSeconds} s`, {
        hint: "The SQL endpoint shares the client's REST rate limit.",
      });
    }
    const cost = options.dbTime?.check(String(organizationId), now);
    if (cost && !cost.allowed) {
      throw new SqlError(
        '53000',
        `this organization's reports used more database time than its share; retry in ${cost.retryAfterSeconds} s`,
      );
    }
  }

  function describe(organizationId: number, sql: string): Promise<StatementShape> {
    return inReportLane(organizationId, (executor) => executor.describe(sql));
  }

  async function run(
    organizationId: number,
    clientId: string,
    sql: string,
    params: readonly (string | null)[],
    signal: AbortSignal,
    maxRows: number,
  ) {
    await admit(organizationId, clientId);
    return inReportLane(organizationId, (executor) => executor.allDescribed(sql, params, signal, maxRows));
  }

  async function inReportLane<T>(
    organizationId: number,
    work: (executor: DescribingExecutor) => Promise<T>,
  ): Promise<T> {
    try {
      return await db.readReport({ organizationId, slots: 'one' }, async (executor) => {
        if (!isDescribing(executor)) throw new SqlError('0A000', 'the SQL endpoint needs the embedded DuckDB store');
        return work(executor);
      });
    } catch (error) {
      throw duckdbError(error);
    }
  }

  const server = await startSqlWireServer({
    host: options.host,
    port: options.port,
    tls: options.tls,
    authenticator,
    serverVersion,
    maxConnections: options.maxConnections,
    mockSecret: options.mockSecret,
    // The wire layer writes lines; an internal error (XX000 to the client) is the service's error.
    log: (line) => (line.includes('internal error') ? options.logError(new Error(line)) : options.log?.(line)),
  });
  options.log?.(`SQL endpoint (PostgreSQL protocol, TLS) on ${options.host}:${server.port}`);
  return {
    port: server.port,
    async close() {
      await server.close();
    },
  };
}

/**
 * DuckDB's error as PostgreSQL's, first line only: DuckDB quotes the statement after it, and the
 * statement holds the model's internal SQL (table names), which is not the client's business.
 */
export function duckdbError(error: unknown): unknown {
  if (error instanceof SqlError) return error;
  if (error instanceof OverloadedError) return new SqlError('53000', 'the report lane is at capacity; retry shortly');
  if (error instanceof AbortedStatement) return new SqlError('57014', 'canceling statement due to user request');
  if (!(error instanceof Error)) return error;
  // The kind prefix and the message up to DuckDB's quote of the statement (LINE n:), which a
  // newline inside an identifier would otherwise cut short.
  const whole = error.message.split(/\nLINE \d+:/)[0]!;
  const [, kind = '', text = whole] = /^(\w[\w ]*?) Error: ([\s\S]*)$/.exec(whole) ?? [];
  const message = text.replace(/!$/, '').replace(/\s+/g, ' ').trim();
  const first = message;
  if (/INTERRUPT/i.test(first)) return new SqlError('57014', 'canceling statement due to user request');
  const column = unknownColumn(message);
  if (column !== undefined) return new SqlError('42703', `column ${column} does not exist`);
  if (/Division by zero/i.test(message)) return new SqlError('22012', 'division by zero');
  if (kind === 'Conversion' || kind === 'Invalid Input') return new SqlError('22P02', message);
  if (kind === 'Out of Range') return new SqlError('22003', message);
  if (kind === 'Binder' && /No function matches|Cannot compare|Cannot mix/i.test(message))
    return new SqlError('42883', message);
  if (/GROUP BY/.test(message)) return new SqlError('42803', message);
  if (kind === 'Binder') return new SqlError('42000', message);
  if (kind === 'Parser') return new SqlError('42601', message);
  if (kind === 'Catalog') return new SqlError('42P01', message);
  if (kind === 'Out of Memory') return new SqlError('53200', 'out of memory');
  if (kind === 'Not implemented') return new SqlError('0A000', message);
  if (kind) return new SqlError('XX000', `${kind} error: ${message}`);
  return error;
}

/** The column an unknown-column error of DuckDB names, in PostgreSQL's words (`"x"`, `c."x"`); undefined for other errors. */
function unknownColumn(message: string): string | undefined {
  const referenced =
    /Referenced column "([^"]+)" not found|Column "([^"]+)" referenced that exists in the SELECT clause/.exec(message);
  if (referenced) return `"${referenced[1] ?? referenced[2]}"`;
  const qualified = /(?:Values list|Table|Table Function) "([^"]+)" does not have a column named "([^"]+)"/.exec(
    message,
  );
  if (qualified) return `${qualified[1]}.${qualified[2]}`;
  return /column "?[^"]+"? does not exist/i.test(message) ? message.replace(/^.*?(column)/i, '') : undefined;
}
