import type { PreparedSql, SqlParam, SqlResult, SqlSession } from './session.js';
import { SqlError } from './session.js';
import {
  bindComplete,
  closeComplete,
  commandComplete,
  emptyQueryResponse,
  noData,
  parameterDescription,
  parseComplete,
  portalSuspended,
  rowDescription,
} from './backend-messages.js';
import { decodeBinary, hasBinaryFormat, utf8 } from './binary-format.js';
import type { Deallocation } from './deallocate.js';
import type { FrontendMessage } from './frontend-messages.js';
import type { Output } from './output.js';
import { typeName } from './pg-types.js';
import { columnEncoders, resolveFormats, TEXT, writeRows, type ColumnEncoder } from './result-rows.js';

/**
 * The extended query protocol's objects: prepared statements (Parse) and portals (Bind), by name,
 * "" being the unnamed one that each new Parse or Bind replaces. Errors are SqlErrors with
 * PostgreSQL's codes and words; the connection turns them into ErrorResponse and skips to Sync.
 */

interface Statement {
  readonly prepared: PreparedSql;
}

interface Portal {
  readonly statement: Statement;
  readonly params: readonly SqlParam[];
  readonly formats: readonly number[];
  /** null: the statement returns no rows. */
  readonly encoders: readonly ColumnEncoder[] | null;
  result?: SqlResult;
  /** Rows sent by earlier Executes (a max-rows Execute leaves the portal suspended). */
  sent: number;
  suspended: boolean;
  ran: boolean;
}

/** Runs a statement under an AbortSignal that a CancelRequest, a closed socket or a shutdown aborts. */
export type StatementRunner = <T>(work: (signal: AbortSignal) => Promise<T>) => Promise<T>;

type Message<T extends FrontendMessage['type']> = Extract<FrontendMessage, { type: T }>;

export class ExtendedQuery {
  private readonly statements = new Map<string, Statement>();
  private readonly portals = new Map<string, Portal>();

  constructor(
    private readonly session: SqlSession,
    private readonly out: Output,
    private readonly run: StatementRunner,
  ) {}

  async parse({ name, sql, paramTypeOids }: Message<'Parse'>): Promise<void> {
    if (name !== '' && this.statements.has(name))
      throw new SqlError('42P05', `prepared statement "${name}" already exists`);
    // The old unnamed statement goes before the new one is prepared: a failed Parse leaves none, as in PostgreSQL.
    if (name === '') this.statements.delete('');
    this.statements.set(name, { prepared: await this.session.prepare(sql, paramTypeOids) });
    this.out.push(parseComplete());
  }

  bind(message: Message<'Bind'>): void {
    const statement = this.statement(message.statement);
    const { paramTypeOids, columns } = statement.prepared;
    const paramFormats = resolveFormats(
      message.paramFormats,
      message.params.length,
      () => `bind message has ${message.paramFormats.length} parameter formats but ${message.params.length} parameters`,
    );
    if (message.params.length !== paramTypeOids.length)
      throw new SqlError(
        '08P01',
        `bind message supplies ${message.params.length} parameters, but prepared statement "${message.statement}" requires ${paramTypeOids.length}`,
      );
    const params = message.params.map((bytes, i) =>
      bytes === null ? null : decodeParam(paramTypeOids[i]!, paramFormats[i]!, bytes, i + 1),
    );
    const formats = resolveFormats(
      message.resultFormats,
      columns?.length ?? 0,
      () =>
        `bind message has ${message.resultFormats.length} result formats but query has ${columns?.length ?? 0} columns`,
    );
    if (message.portal !== '' && this.portals.has(message.portal))
      throw new SqlError('42P03', `cursor "${message.portal}" already exists`);
    this.portals.set(message.portal, {
      statement,
      params,
      formats,
      encoders: columns ? columnEncoders(columns, formats) : null,
      sent: 0,
      suspended: false,
      ran: false,
    });
    this.out.push(bindComplete());
  }

  describe({ target, name }: Message<'Describe'>): void {
    if (target === 'statement') {
      const { paramTypeOids, columns } = this.statement(name).prepared;
      this.out.push(parameterDescription(paramTypeOids));
      this.out.push(
        columns
          ? rowDescription(
              columns,
              columns.map(() => TEXT),
            )
          : noData(),
      );
      return;
    }
    const portal = this.portal(name);
    const columns = portal.statement.prepared.columns;
    this.out.push(columns ? rowDescription(columns, portal.formats) : noData());
  }

  async execute({ portal: name, maxRows }: Message<'Execute'>): Promise<void> {
    const portal = this.portal(name);
    if (portal.encoders === null && portal.ran) throw new SqlError('55000', `portal "${name}" cannot be run`);
    portal.ran = true;
    portal.result ??= await this.run((signal) => portal.statement.prepared.execute(portal.params, signal));
    const { result, encoders } = portal;
    if (encoders === null) {
      this.out.push(result.commandTag === '' ? emptyQueryResponse() : commandComplete(result.commandTag));
      return;
    }
    if (result.columns?.length !== encoders.length)
      throw new TypeError(
        `the statement described ${encoders.length} columns, its result has ${result.columns?.length}`,
      );
    const from = portal.sent;
    const to = maxRows > 0 ? Math.min(result.rows.length, from + maxRows) : result.rows.length;
    await this.run((signal) => writeRows(this.out, result.rows, from, to, encoders, signal));
    portal.sent = to;
    if (to < result.rows.length) {
      portal.suspended = true;
      this.out.push(portalSuspended());
      return;
    }
    // After a suspension PostgreSQL counts the rows of this Execute only: 'SELECT 2' for the last 2 of 5.
    const tag = portal.suspended || from > 0 ? result.commandTag.replace(/ \d+$/, ` ${to - from}`) : result.commandTag;
    this.out.push(commandComplete(tag));
  }

  close({ target, name }: Message<'Close'>): void {
    if (target === 'statement') this.statements.delete(name);
    else this.portals.delete(name);
    this.out.push(closeComplete());
  }

  /** DEALLOCATE as PostgreSQL answers it: 26000 for a name it does not know. */
  deallocate(target: Deallocation): void {
    if (target.all) this.statements.clear();
    else if (!this.statements.delete(target.name))
      throw new SqlError('26000', `prepared statement "${target.name}" does not exist`);
    this.out.push(commandComplete(target.all ? 'DEALLOCATE ALL' : 'DEALLOCATE'));
  }

  /** The implicit transaction ended (a Sync or a simple Query outside a transaction block): its portals with it. */
  dropPortals(): void {
    this.portals.clear();
  }

  /** A simple Query replaces the unnamed statement and portal, as PostgreSQL's exec_simple_query does. */
  dropUnnamed(): void {
    this.statements.delete('');
    this.portals.delete('');
  }

  private statement(name: string): Statement {
    const statement = this.statements.get(name);
    if (statement) return statement;
    throw new SqlError(
      '26000',
      name === '' ? 'unnamed prepared statement does not exist' : `prepared statement "${name}" does not exist`,
    );
  }

  private portal(name: string): Portal {
    const portal = this.portals.get(name);
    if (portal) return portal;
    throw new SqlError('34000', `portal "${name}" does not exist`);
  }
}

function decodeParam(typeOid: number, format: number, bytes: Buffer, position: number): SqlParam {
  if (format === TEXT) {
    try {
      return utf8(bytes);
    } catch {
      throw new SqlError('22021', 'invalid byte sequence for encoding "UTF8"');
    }
  }
  if (!hasBinaryFormat(typeOid))
    throw new SqlError('42883', `no binary input function available for type ${typeName(typeOid)}`);
  try {
    return decodeBinary(typeOid, bytes);
  } catch {
    throw new SqlError('22P03', `incorrect binary data format in bind parameter ${position}`);
  }
}
