import {
  SqlError,
  type PreparedSql,
  type SqlColumn,
  type SqlParam,
  type SqlResult,
  type SqlSession,
  type TransactionStatus,
} from './wire/session.js';
import { parseStatements, type Statement } from './statements.js';
import { translateSelect } from './translate/translate-select.js';
import { castForOid, columnOf, parameterOid, valueOf } from './result-types.js';
import { SessionSettings } from './session-settings.js';
import type { CatalogSandbox } from './catalog/catalog-sandbox.js';
import type { StatementShape } from '../store/executor.js';

/**
 * One client connection's SQL (issue 41): statements parsed and classified, SELECTs over the
 * model translated onto the caller's organization and run in the report lane, catalog statements
 * in the sandbox, settings and transaction blocks kept here. The wire layer (wire/) sees only
 * this SqlSession.
 */
export interface ModelSessionDeps {
  readonly organizationId: number;
  readonly clientId: string;
  readonly catalog: CatalogSandbox;
  /** Runs a translated statement in the report lane (scheduler, database-time budget, rate limit). */
  readonly runModel: (
    organizationId: number,
    clientId: string,
    sql: string,
    params: readonly (string | null)[],
    signal: AbortSignal,
    maxRows: number,
  ) => Promise<{ shape: StatementShape; rows: unknown[][] }>;
  readonly describeModel: (organizationId: number, sql: string) => Promise<StatementShape>;
  /** Rows a statement may answer; one more is an error, never a silent cut. */
  readonly maxRows: number;
  readonly startupParameters: Readonly<Record<string, string>>;
  readonly serverVersion: string;
}

export class ModelSession implements SqlSession {
  private status: TransactionStatus = 'idle';
  private readonly settings: SessionSettings;

  constructor(private readonly deps: ModelSessionDeps) {
    this.settings = new SessionSettings(deps.startupParameters, deps.serverVersion);
  }

  transactionStatus(): TransactionStatus {
    return this.status;
  }

  close(): void {}

  async *query(sql: string, signal: AbortSignal): AsyncIterable<SqlResult> {
    const statements = await this.failing(() => parseStatements(sql));
    for (const statement of statements) {
      if (statement.kind === 'empty') continue;
      const prepared = await this.failing(() => this.prepareStatement(statement, []));
      yield await prepared.execute([], signal);
    }
  }

  async prepare(sql: string, paramTypeOids: readonly number[]): Promise<PreparedSql> {
    const statements = await this.failing(() => parseStatements(sql));
    if (statements.length > 1)
      throw this.fail(new SqlError('42601', 'cannot insert multiple commands into a prepared statement'));
    const statement = statements[0]!;
    if (statement.kind === 'empty')
      return { paramTypeOids: [], columns: null, execute: async () => ({ columns: null, rows: [], commandTag: '' }) };
    return this.failing(() => this.prepareStatement(statement, paramTypeOids));
  }

  private async prepareStatement(statement: Statement, declared: readonly number[]): Promise<PreparedSql> {
    switch (statement.kind) {
      case 'model':
        return this.prepareModel(statement.select, declared);
      case 'catalog':
        return this.prepareCatalog(statement.text, declared);
      case 'set':
        return this.command(() => {
          this.inTransactionOk();
          return this.settings.set(statement.name, statement.value);
        });
      case 'show': {
        const value = this.settings.show(statement.name);
        const columns: SqlColumn[] = [{ name: statement.name, typeOid: 25 }];
        return { paramTypeOids: [], columns, execute: async () => ({ columns, rows: [[value]], commandTag: 'SHOW' }) };
      }
      case 'transaction':
        return this.command(() => this.transaction(statement.action));
      case 'noop':
        return this.command(() => {
          this.inTransactionOk();
          return statement.tag;
        });
      case 'empty':
        return { paramTypeOids: [], columns: null, execute: async () => ({ columns: null, rows: [], commandTag: '' }) };
    }
  }

  private command(run: () => string): PreparedSql {
    return {
      paramTypeOids: [],
      columns: null,
      execute: async () => ({ columns: null, rows: [], commandTag: this.failingSync(run) }),
    };
  }

  private transaction(action: 'begin' | 'commit' | 'rollback'): string {
    if (action === 'begin') {
      this.status = this.status === 'idle' ? 'transaction' : this.status;
      return 'BEGIN';
    }
    const failed = this.status === 'error';
    this.status = 'idle';
    if (action === 'commit') return failed ? 'ROLLBACK' : 'COMMIT';
    return 'ROLLBACK';
  }

  /** In a failed transaction block only its end is accepted, as PostgreSQL does. */
  private inTransactionOk(): void {
    if (this.status === 'error') {
      throw new SqlError('25P02', 'current transaction is aborted, commands ignored until end of transaction block');
    }
  }

  private async prepareModel(select: Record<string, unknown>, declared: readonly number[]): Promise<PreparedSql> {
    const { organizationId, clientId, maxRows } = this.deps;
    const clientParams = highestParam(select, declared.length);
    const declaredCasts = Array.from({ length: clientParams }, (_, i) => castForOid(declared[i] ?? 0));
    // A first translation asks DuckDB what the undeclared parameters and the statement's strings
    // are; the second casts each to it (text where DuckDB could not tell): a statement with an
    // untyped placeholder left has no result types before it runs, which the protocol needs.
    const probe = translateSelect(select, clientParams, organizationId, declaredCasts);
    // Nothing to ask when the only placeholder is the organization's (always cast to BIGINT).
    const probed =
      clientParams === 0 && probe.boundValues.length <= 1
        ? { parameterTypes: ['BIGINT'], columns: [] }
        : await this.deps.describeModel(organizationId, probe.sql);
    const casts = declaredCasts.map((cast, i) => cast ?? knownType(probed.parameterTypes[i]) ?? 'VARCHAR');
    const stringCasts = new Map(
      probe.boundValues.map((_, i) => {
        const number = clientParams + i + 1;
        return [number, knownType(probed.parameterTypes[number - 1]) ?? 'VARCHAR'] as const;
      }),
    );
    const translated = translateSelect(select, clientParams, organizationId, casts, stringCasts);
    const sql = translated.sql;
    const shape = await this.deps.describeModel(organizationId, sql);
    const columns = shape.columns.map((c) => columnOf(c.name, c.type));
    const paramTypeOids = casts.map((cast, i) => declared[i] || parameterOid(cast));
    return {
      paramTypeOids,
      columns,
      execute: (params, signal) =>
        this.running(signal, async (combined) => {
          this.inTransactionOk();
          const values = [...params.map(paramText), ...translated.boundValues];
          // One row past the limit says the answer would be cut: an error, not a short answer.
          const { rows } = await this.deps.runModel(organizationId, clientId, sql, values, combined, maxRows + 1);
          if (rows.length > maxRows) {
            throw new SqlError('54000', `the answer has more than ${maxRows} rows`, {
              hint: 'Aggregate, filter or add LIMIT; larger pulls are report jobs (POST /reporting/v0/report-jobs).',
            });
          }
          return {
            columns,
            rows: rows.map((row) => row.map((v, i) => valueOf(v, columns[i]!))),
            commandTag: `SELECT ${rows.length}`,
          };
        }),
    };
  }

  private async prepareCatalog(text: string, declared: readonly number[]): Promise<PreparedSql> {
    const shape = await this.deps.catalog.describe(text);
    const columns: SqlColumn[] = shape.columns.map((c) => ({ name: c.name, typeOid: c.typeOid }));
    return {
      paramTypeOids: shape.parameterTypes.map((oid, i) => declared[i] || oid),
      columns: columns.length ? columns : null,
      execute: (params, signal) =>
        this.running(signal, async (combined) => {
          this.inTransactionOk();
          const result = await this.deps.catalog.run(text, params.map(paramText), combined);
          return { columns, rows: result.rows, commandTag: `SELECT ${result.rows.length}` };
        }),
    };
  }

  /** Runs a statement under the session's statement_timeout and the client's cancel; a failure fails an open transaction block. */
  private async running<T>(signal: AbortSignal, work: (combined: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = this.settings.statementTimeoutMs();
    const controller = new AbortController();
    let reason: 'cancel' | 'timeout' | undefined;
    const onCancel = () => {
      reason ??= 'cancel';
      controller.abort();
    };
    signal.addEventListener('abort', onCancel);
    if (signal.aborted) onCancel();
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            reason ??= 'timeout';
            controller.abort();
          }, timeoutMs)
        : undefined;
    try {
      const result = await work(controller.signal);
      // A statement cancelled or timed out answers its cancellation, even if its rows arrived meanwhile.
      if (reason) throw new SqlError('57014', 'canceled');
      return result;
    } catch (error) {
      if (reason) {
        throw this.fail(
          new SqlError(
            '57014',
            reason === 'timeout'
              ? 'canceling statement due to statement timeout'
              : 'canceling statement due to user request',
          ),
        );
      }
      throw this.fail(error);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCancel);
    }
  }

  private async failing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.fail(error);
    }
  }

  private failingSync<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw this.fail(error);
    }
  }

  private fail(error: unknown): unknown {
    if (this.status === 'transaction') this.status = 'error';
    // A statement nested deeper than a walk of its tree can go (thousands of NOTs or parentheses).
    if (error instanceof RangeError && /call stack/.test(error.message))
      return new SqlError('54001', 'stack depth limit exceeded');
    return error;
  }
}

/** The highest $n a statement uses, or the count the client declared if that is more. */
function highestParam(tree: unknown, declared: number): number {
  let highest = declared;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'ParamRef') highest = Math.max(highest, (value as { number?: number }).number ?? 0);
      visit(value);
    }
  };
  visit(tree);
  return highest;
}

/** A DuckDB parameter type worth casting to (an unresolved one is cast to text, as PostgreSQL types unknown). */
function knownType(type: string | undefined): string | undefined {
  if (!type || type === 'UNKNOWN' || type === 'ANY' || type === 'NULL' || type === '"NULL"') return undefined;
  return type;
}

function paramText(param: SqlParam): string | null {
  if (param === null) return null;
  if (typeof param === 'boolean') return param ? 'true' : 'false';
  return String(param);
}
