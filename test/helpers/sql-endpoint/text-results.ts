import pg from 'pg';
import type { GeneratedOrg, ReportingFixture } from '../reporting-fixture.js';

/**
 * Results of the SQL endpoint (issue 41) and of a real PostgreSQL as the wire's text: every value
 * as the server printed it (no driver parsing, so nothing is lost to JS numbers), with each
 * column's name and type OID. The differential and isolation tests compare and scan these.
 */

export interface TextColumn {
  readonly name: string;
  readonly typeOid: number;
}

export interface TextResult {
  readonly columns: readonly TextColumn[];
  readonly rows: readonly (readonly (string | null)[])[];
}

/** node-postgres keeps every value as the server's text. */
const AS_TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/** A node-postgres client of the endpoint as an organization's client (SCRAM, TLS with the service's self-signed cert). */
export async function connectEndpoint(
  fixture: ReportingFixture,
  org: GeneratedOrg,
  overrides: Partial<pg.ClientConfig> = {},
): Promise<pg.Client> {
  const port = fixture.service.sqlPort;
  if (port === undefined) throw new Error('the service runs without an SQL endpoint (service: { sqlPort: 0 })');
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: org.clientId,
    password: org.clientSecret,
    database: 'adreport',
    ssl: { rejectUnauthorized: false },
    ...overrides,
  });
  // An error after connect (a dropped connection) must fail the test that waits on a query, not the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** One statement (simple protocol without params, extended with them), every value as text. */
export async function textQuery(client: pg.Client, sql: string, params?: readonly unknown[]): Promise<TextResult> {
  const result = await client.query({
    text: sql,
    ...(params ? { values: [...params] } : {}),
    rowMode: 'array',
    types: AS_TEXT,
  });
  return {
    columns: result.fields.map((f) => ({ name: f.name, typeOid: f.dataTypeID })),
    rows: result.rows as (string | null)[][],
  };
}

/** PostgreSQL's error of a failed statement, or the thrown thing when it is none (a dropped connection). */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
