import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, newClientId, newClientSecret } from '../../src/auth/secrets.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Who may log in to the SQL endpoint (issue 41): a client's id and secret over SCRAM-SHA-256,
 * with the reporting scope, not disabled. A client made before SCRAM verifiers existed (its row
 * has a scrypt hash only) cannot, until its next successful POST /token stores one.
 */
describe('SQL endpoint: credentials', () => {
  let server: TestServer;
  /** The demo organization's id. */
  const organizationId = () => {
    const demo = server.service.demo;
    if (!demo?.created) throw new Error('the test server made no demo organization');
    return demo.organization.id;
  };

  beforeAll(async () => {
    server = await startTestServer({ sqlPort: 0 });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  async function login(user: string, password: string): Promise<string> {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: server.service.sqlPort,
      user,
      password,
      database: 'whatever',
      ssl: { rejectUnauthorized: false },
    });
    try {
      await client.connect();
      const result = await client.query('SELECT count(*)::int AS n FROM accounts');
      return `ok ${result.rows[0].n}`;
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** A client as a release before this one stored it: the scrypt hash, no verifier. */
  async function insertOldClient(scopes: readonly string[], disabled = false): Promise<{ id: string; secret: string }> {
    const id = newClientId();
    const secret = newClientSecret();
    const hash = await hashSecret(secret);
    await server.service.db.write('no-report-data', (tx) =>
      tx.run(
        `INSERT INTO api_clients (client_id, organization_id, name, secret_hash, scopes, disabled_at)
         VALUES ($1, $2, 'old', $3, $4, ${disabled ? 'now()' : 'NULL'})`,
        [id, organizationId(), hash, scopes],
      ),
    );
    return { id, secret };
  }

  async function postToken(id: string, secret: string): Promise<number> {
    const res = await server.http.request('POST', '/token', {
      headers: {
        authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    return res.status;
  }

  it('the demo client logs in with its id and secret; a wrong secret and an unknown user get the same 28P01', async () => {
    const accounts = await server.service.db.read((r) =>
      r.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM accounts WHERE organization_id = $1', [
        organizationId(),
      ]),
    );
    expect(await login(server.clientId, server.clientSecret)).toBe(`ok ${accounts!.n}`);
    expect(await login(server.clientId, `${server.clientSecret}x`)).toBe('28P01');
    expect(await login(newClientId(), server.clientSecret)).toBe('28P01');
  });

  it('a client made before verifiers existed logs in after its next POST /token', async () => {
    const old = await insertOldClient(['reporting', 'provisioning']);
    expect(await login(old.id, old.secret)).toBe('28P01');
    expect(await postToken(old.id, old.secret)).toBe(200);
    expect(await login(old.id, old.secret)).toMatch(/^ok \d+$/);
    // A wrong secret at POST /token stores nothing.
    const other = await insertOldClient(['reporting']);
    expect(await postToken(other.id, `${old.secret}`)).toBe(401);
    expect(await login(other.id, other.secret)).toBe('28P01');
  });

  it('without the reporting scope, or disabled, a client cannot log in', async () => {
    const provisioningOnly = await insertOldClient(['provisioning']);
    expect(await postToken(provisioningOnly.id, provisioningOnly.secret)).toBe(200);
    expect(await login(provisioningOnly.id, provisioningOnly.secret)).toBe('28P01');
    const disabled = await insertOldClient(['reporting'], true);
    expect(await postToken(disabled.id, disabled.secret)).toBe(401);
    expect(await login(disabled.id, disabled.secret)).toBe('28P01');
  });
});
