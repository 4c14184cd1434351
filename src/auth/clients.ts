import type { Scope } from '../config/config.js';
import type { Executor } from '../store/database.js';
import { scramVerifierOf } from './scram.js';
import { hashSecret, newClientId, newClientSecret } from './secrets.js';

export interface ClientSummary {
  readonly clientId: string;
  readonly name: string | null;
  readonly organizationId: number;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  readonly disabledAt: string | null;
}

export interface NewClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly organizationId: number;
  readonly scopes: readonly Scope[];
  readonly name: string | null;
}

export interface ClientCredentialRecord {
  readonly clientId: string;
  readonly organizationId: number;
  readonly secretHash: string;
  readonly scopes: readonly Scope[];
  readonly disabled: boolean;
}

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly secretHash: string;
  /** The SQL endpoint's SCRAM-SHA-256 verifier of the same secret. */
  readonly scramVerifier: string;
}

/** Hashing takes ~80 ms, so it happens before the write transaction, not inside it. */
export async function newClientCredentials(): Promise<ClientCredentials> {
  const clientSecret = newClientSecret();
  const [secretHash, scramVerifier] = await Promise.all([hashSecret(clientSecret), scramVerifierOf(clientSecret)]);
  return { clientId: newClientId(), clientSecret, secretHash, scramVerifier };
}

/** The secret is returned once, here; only its scrypt hash is stored. */
export async function insertClient(
  tx: Executor,
  { clientId, clientSecret, secretHash, scramVerifier }: ClientCredentials,
  input: { organizationId: number; scopes: readonly Scope[]; name?: string | null | undefined },
): Promise<NewClient> {
  await tx.run(
    'INSERT INTO api_clients (client_id, organization_id, name, secret_hash, scopes) VALUES ($1, $2, $3, $4, $5)',
    [clientId, input.organizationId, input.name ?? null, secretHash, input.scopes],
  );
  await tx.run('INSERT INTO api_client_scram (client_id, verifier) VALUES ($1, $2)', [clientId, scramVerifier]);
  return {
    clientId,
    clientSecret,
    organizationId: input.organizationId,
    scopes: input.scopes,
    name: input.name ?? null,
  };
}

const SUMMARY_COLUMNS = `client_id AS "clientId", name, organization_id AS "organizationId", scopes,
  strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "createdAt",
  strftime(disabled_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "disabledAt"`;

export async function listClients(db: Executor, organizationId: number): Promise<ClientSummary[]> {
  return db.all<ClientSummary & Record<string, unknown>>(
    `SELECT ${SUMMARY_COLUMNS} FROM api_clients WHERE organization_id = $1 ORDER BY created_at, client_id`,
    [organizationId],
  );
}

/** Idempotent: disabling a disabled client keeps its first disabledAt. */
export async function disableClient(tx: Executor, clientId: string): Promise<ClientSummary | undefined> {
  await tx.run('UPDATE api_clients SET disabled_at = now() WHERE client_id = $1 AND disabled_at IS NULL', [clientId]);
  return tx.one<ClientSummary & Record<string, unknown>>(
    `SELECT ${SUMMARY_COLUMNS} FROM api_clients WHERE client_id = $1`,
    [clientId],
  );
}

export async function findClientCredentials(
  db: Executor,
  clientId: string,
): Promise<ClientCredentialRecord | undefined> {
  const row = await db.one<{
    clientId: string;
    organizationId: number;
    secretHash: string;
    scopes: Scope[];
    disabled: boolean;
  }>(
    `SELECT client_id AS "clientId", organization_id AS "organizationId", secret_hash AS "secretHash", scopes,
            disabled_at IS NOT NULL AS disabled
       FROM api_clients WHERE client_id = $1`,
    [clientId],
  );
  return row;
}

export async function listDisabledClientIds(db: Executor): Promise<string[]> {
  const rows = await db.all<{ clientId: string }>(
    'SELECT client_id AS "clientId" FROM api_clients WHERE disabled_at IS NOT NULL',
  );
  return rows.map((row) => row.clientId);
}

/** The SCRAM-SHA-256 verifier of a client, with what the SQL endpoint checks besides: its organization, scopes, state. */
export async function findScramClient(
  db: Executor,
  clientId: string,
): Promise<{ organizationId: number; scopes: Scope[]; disabled: boolean; verifier: string | null } | undefined> {
  return db.one(
    `SELECT c.organization_id AS "organizationId", c.scopes, c.disabled_at IS NOT NULL AS disabled, s.verifier
       FROM api_clients c LEFT JOIN api_client_scram s ON s.client_id = c.client_id
      WHERE c.client_id = $1`,
    [clientId],
  );
}

/** Stores a verifier for a client made before verifiers existed (after its secret was checked); a second writer changes nothing. */
export async function rememberScramVerifier(tx: Executor, clientId: string, verifier: string): Promise<void> {
  await tx.run(
    'INSERT INTO api_client_scram (client_id, verifier) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM api_client_scram WHERE client_id = $1)',
    [clientId, verifier],
  );
}
