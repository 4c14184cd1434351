import type { Migration } from './migration.js';

/**
 * SCRAM-SHA-256 verifiers of client secrets (src/auth/scram.ts) for the SQL endpoint (issue 41).
 * A table of its own rather than a column of api_clients: DuckDB cannot replay an ADD COLUMN on
 * a table with rows from its WAL (migration 017). A client made before this release gets its
 * verifier at its next successful POST /token, the one moment its secret is known again.
 */
export const m021ScramVerifiers: Migration = {
  version: 21,
  name: 'SCRAM-SHA-256 verifiers of client secrets',
  statements: [
    `CREATE TABLE api_client_scram (
       client_id VARCHAR PRIMARY KEY,
       verifier VARCHAR NOT NULL
     )`,
  ],
};
