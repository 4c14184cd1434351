/**
 * What the PostgreSQL wire server asks of whoever answers the SQL: the seam between the protocol
 * (wire/, which knows messages, formats and type OIDs) and the reporting model (the rest of
 * src/sql-endpoint, which knows relations, organizations and DuckDB). Neither side sees the other's
 * internals: the wire layer never parses SQL, the session never writes a protocol message.
 */

/** A PostgreSQL error: SQLSTATE code (https://www.postgresql.org/docs/15/errcodes-appendix.html) and message. */
export class SqlError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: {
      readonly detail?: string;
      readonly hint?: string;
      /** 1-based character position in the statement, as PostgreSQL reports it. */
      readonly position?: number;
      readonly severity?: 'ERROR' | 'FATAL';
    } = {},
  ) {
    super(message);
    this.name = 'SqlError';
  }
}

/** A column of a result: its name and PostgreSQL type (OID, and the type modifier or -1). */
export interface SqlColumn {
  readonly name: string;
  readonly typeOid: number;
  readonly typeModifier?: number;
}

/**
 * A value of a row, as the session hands it over; the wire layer encodes it by its column's type in
 * the format the client asked for. Dates are 'YYYY-MM-DD', timestamps ISO 8601, numerics their
 * exact decimal text.
 */
export type SqlValue = string | number | bigint | boolean | null;

/** A parameter as the wire layer decoded it (text parameters stay text; binary ones become JS values). */
export type SqlParam = string | number | bigint | boolean | null;

export interface SqlResult {
  /** null when the statement returns no rows (SET, BEGIN, ...): the protocol's NoData. */
  readonly columns: readonly SqlColumn[] | null;
  readonly rows: readonly (readonly SqlValue[])[];
  /** CommandComplete's tag: `SELECT 3`, `SET`, `BEGIN`, `SHOW`, ... */
  readonly commandTag: string;
}

export interface PreparedSql {
  /** Every parameter's type: the client's declared ones where it sent them, the session's inference for the rest. */
  readonly paramTypeOids: readonly number[];
  /** The row description, or null for a statement without rows. */
  readonly columns: readonly SqlColumn[] | null;
  /** Runs the statement with its parameters; rejects with SqlError (57014 when the signal aborts it). */
  execute(params: readonly SqlParam[], signal: AbortSignal): Promise<SqlResult>;
}

export type TransactionStatus = 'idle' | 'transaction' | 'error';

export interface SqlSession {
  /** A simple Query message: zero or more statements, their results in order; the first error ends it. */
  query(sql: string, signal: AbortSignal): AsyncIterable<SqlResult>;
  /** A Parse message: exactly one statement (an empty one is allowed and answers EmptyQueryResponse). */
  prepare(sql: string, paramTypeOids: readonly number[]): Promise<PreparedSql>;
  /** What ReadyForQuery reports. */
  transactionStatus(): TransactionStatus;
  /** The connection ended. */
  close(): void;
}

/** SCRAM-SHA-256 verifier of a user, as PostgreSQL stores it (RFC 5802/7677): base64 salt, StoredKey, ServerKey. */
export interface ScramVerifier {
  readonly salt: string;
  readonly iterations: number;
  readonly storedKey: string;
  readonly serverKey: string;
}

export interface SqlAuthenticator {
  /** The verifier of a user, or undefined for an unknown (or disabled) user: the exchange then fails like a wrong password. */
  verifierOf(user: string): Promise<ScramVerifier | undefined>;
  /** After a successful exchange: the session of that user on that database (whatever the name, it is the user's organization). */
  openSession(connection: {
    readonly user: string;
    readonly database: string;
    readonly parameters: Readonly<Record<string, string>>;
  }): Promise<SqlSession>;
}
