import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableClient, insertClient, newClientCredentials } from '../../src/auth/clients.js';
import { signToken } from '../../src/auth/tokens.js';
import { createOrganization } from '../../src/organizations/organizations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signingKeyOnDisk } from '../helpers/token-keys.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clientStatusRefreshMs: 200, tokenTtlSeconds: 60 });
});
afterAll(() => server.close());

const ORG = '/provisioning/v0/organization';

async function signingKey(): Promise<{ kid: string; secret: Buffer }> {
  return signingKeyOnDisk(server.filesAnchor);
}

describe('bearer authentication on /provisioning/v0 and /reporting/v0 (spec 5, RFC 6750)', () => {
  it.each([ORG, '/reporting/v0/campaigns', '/provisioning/v0/no-such-route'])(
    'answers 401 with WWW-Authenticate: Bearer on %s without a token',
    async (path) => {
      const res = await server.http.get(path);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="adreport"$/);
      expect(res.json.error.code).toBe('unauthorized');
    },
  );

  it.each([
    ['a garbage token', 'Bearer not-a-token'],
    ['a token with a flipped signature', 'FLIP'],
    ['a token signed with another key', 'FORGED'],
  ])('answers 401 invalid_token for %s', async (_name, header) => {
    let authorization = header;
    if (header === 'FLIP') {
      const token = await server.token();
      const last = token.at(-2) === 'A' ? 'B' : 'A';
      authorization = `Bearer ${token.slice(0, -2)}${last}${token.at(-1)}`;
    }
    if (header === 'FORGED') {
      const now = Math.floor(Date.now() / 1000);
      authorization = `Bearer ${signToken({ clientId: server.clientId, organizationId: 1, scopes: ['provisioning'], issuedAt: now, expiresAt: now + 60 }, { kid: (await signingKey()).kid, secret: crypto.randomBytes(32) })}`;
    }
    const res = await server.http.get(ORG, { authorization });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    expect(res.json.error.code).toBe('invalid_token');
  });

  it.each([
    ['Basic credentials', 'Basic YWJjOmRlZg=='],
    ['an unknown scheme', 'Token abc'],
  ])(
    'answers %s like no credentials: 401 unauthorized with the bare challenge (RFC 6750 3.1)',
    async (_name, authorization) => {
      const res = await server.http.get(ORG, { authorization });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="adreport"');
      expect(res.json.error.code).toBe('unauthorized');
    },
  );

  it.each([
    ['Bearer without a token', 'Bearer'],
    ['Bearer and spaces only', 'Bearer    '],
    ['two tokens', 'Bearer abc def'],
    ['a comma list', 'Bearer abc, def'],
    ['a character outside b64token', 'Bearer abc@def'],
    ['"=" inside the token', 'Bearer abc=def'],
    ['a quoted token', 'Bearer "abc"'],
    ['an empty header', ''],
    ['no scheme at all', '=abc'],
  ])('answers a malformed header (%s) with 400 invalid_request and its challenge', async (_name, authorization) => {
    const res = await server.http.get(ORG, { authorization });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_request');
    expect(res.headers['www-authenticate']).toMatch(
      /^Bearer realm="adreport", error="invalid_request", error_description="[\x20-\x21\x23-\x5B\x5D-\x7E]+"$/,
    );
    // The same request with a good token passes: the 400 is about the header alone.
    expect((await server.http.get(ORG, { authorization: `Bearer ${await server.token()}` })).status).toBe(200);
  });

  it('reads the token after several spaces (RFC 6750 2.1: 1*SP)', async () => {
    const res = await server.http.get(ORG, { authorization: `Bearer   ${await server.token()}` });
    expect(res.status).toBe(200);
  });

  it('answers 401 invalid_token for an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = signToken(
      {
        clientId: server.clientId,
        organizationId: 1,
        scopes: ['provisioning'],
        issuedAt: now - 120,
        expiresAt: now - 60,
      },
      await signingKey(),
    );
    const res = await server.http.get(ORG, { authorization: `Bearer ${expired}` });
    expect(res.status).toBe(401);
    expect(res.json.error.message).toMatch(/expired/);
  });

  it('answers 403 when the token lacks the API scope, with insufficient_scope', async () => {
    const reportingOnly = await server.token('reporting');
    const res = await server.http.get(ORG, { authorization: `Bearer ${reportingOnly}` });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('insufficient_scope');
    expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope", scope="provisioning"/);

    const provisioningOnly = await server.token('provisioning');
    const reporting = await server.http.get('/reporting/v0/campaigns', { authorization: `Bearer ${provisioningOnly}` });
    expect(reporting.status).toBe(403);
  });

  it('accepts the scheme name in any case', async () => {
    const token = await server.token();
    const res = await server.http.get(ORG, { authorization: `bearer ${token}` });
    expect(res.status).toBe(200);
  });

  it('rejects the tokens of a disabled client within the refresh interval (< 60 s)', async () => {
    const credentials = await newClientCredentials();
    await server.service.db.write('all-organizations', (tx) =>
      insertClient(tx, credentials, { organizationId: 1, scopes: ['provisioning'] }),
    );
    const now = Math.floor(Date.now() / 1000);
    const token = signToken(
      {
        clientId: credentials.clientId,
        organizationId: 1,
        scopes: ['provisioning'],
        issuedAt: now,
        expiresAt: now + 60,
      },
      await signingKey(),
    );
    expect((await server.http.get(ORG, { authorization: `Bearer ${token}` })).status).toBe(200);

    // Disabled behind the server's back, as another writer would: only the periodic re-read can notice.
    await server.service.db.write('all-organizations', (tx) => disableClient(tx, credentials.clientId));
    // The refresh runs every 200 ms here; allow a loaded CI machine far more, still well under 60 s.
    const deadline = Date.now() + 10_000;
    let res = await server.http.get(ORG, { authorization: `Bearer ${token}` });
    while (res.status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await server.http.get(ORG, { authorization: `Bearer ${token}` });
    }
    const inDatabase = await server.service.db.read((r) =>
      r.one('SELECT disabled_at IS NOT NULL AS disabled FROM api_clients WHERE client_id = $1', [credentials.clientId]),
    );
    const diagnostic = JSON.stringify({
      inDatabase,
      inMemory: server.service.disabledClients.has(credentials.clientId),
      debug: (server.service.disabledClients as any).debug,
      now: Date.now(),
      errors: server.errors.map(String),
    });
    expect(res.status, diagnostic).toBe(401);
    expect(res.json.error.code).toBe('invalid_token');
  });

  it('carries the organization of the credentials with each request', async () => {
    const organization = await server.service.db.write('all-organizations', (tx) =>
      createOrganization(tx, 'Second tenant'),
    );
    const credentials = await newClientCredentials();
    await server.service.db.write('all-organizations', (tx) =>
      insertClient(tx, credentials, { organizationId: organization.id, scopes: ['provisioning'] }),
    );
    const now = Math.floor(Date.now() / 1000);
    const token = signToken(
      {
        clientId: credentials.clientId,
        organizationId: organization.id,
        scopes: ['provisioning'],
        issuedAt: now,
        expiresAt: now + 60,
      },
      await signingKey(),
    );
    const theirs = await server.http.get(ORG, { authorization: `Bearer ${token}` });
    const ours = await server.http.get(ORG, { authorization: `Bearer ${await server.token()}` });
    expect(theirs.json.organization).toEqual({ id: organization.id, name: 'Second tenant' });
    expect(ours.json.organization.id).toBe(1);
  });

  it('needs no token for the token endpoint, the OpenAPI document and the health check', async () => {
    expect((await server.http.get('/openapi.json')).status).toBe(200);
    expect((await server.http.get('/health')).status).toBe(200);
  });
});

describe('one spelling per token (issue 19 item 22)', () => {
  const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const expectInvalid = async (token: string) => {
    const res = await server.http.get(ORG, { authorization: `Bearer ${token}` });
    expect(res.status, token).toBe(401);
    expect(res.json.error.code).toBe('invalid_token');
  };

  /** A token of the demo client whose signature holds "-" or "_", so the standard alphabet spells it differently. */
  async function tokenWithUrlCharacters(): Promise<string> {
    const key = await signingKey();
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 200; i++) {
      const token = signToken(
        {
          clientId: server.clientId,
          organizationId: 1,
          scopes: ['provisioning'],
          issuedAt: now - i,
          expiresAt: now + 600,
        },
        key,
      );
      if (/[-_]/.test(token.split('.').at(-1)!)) return token;
    }
    throw new Error('no token with - or _ in 200 tries');
  }

  it('accepts the canonical token (the control)', async () => {
    expect((await server.http.get(ORG, { authorization: `Bearer ${await tokenWithUrlCharacters()}` })).status).toBe(
      200,
    );
  });

  it('refuses "=" and "==" padding after the signature', async () => {
    const token = await tokenWithUrlCharacters();
    // 32 bytes of HMAC are 43 characters unpadded; RFC 4648 padding would add one "=".
    expect(token.split('.').at(-1)).toHaveLength(43);
    await expectInvalid(`${token}=`);
    await expectInvalid(`${token}==`);
  });

  it('refuses the standard base64 alphabet ("+" and "/")', async () => {
    const token = await tokenWithUrlCharacters();
    const standard = token.replaceAll('-', '+').replaceAll('_', '/');
    expect(standard).not.toBe(token);
    await expectInvalid(standard);
  });

  it('refuses a last character that differs only in the unused low bits', async () => {
    const token = await tokenWithUrlCharacters();
    // 43 characters carry 258 bits for 256: the last character's two low bits are unused.
    const last = B64URL.indexOf(token.at(-1)!);
    const sibling = B64URL[last ^ 1]!;
    const variant = `${token.slice(0, -1)}${sibling}`;
    expect(Buffer.from(variant.split('.').at(-1)!, 'base64url')).toEqual(
      Buffer.from(token.split('.').at(-1)!, 'base64url'),
    );
    await expectInvalid(variant);
  });

  it('refuses padding inside the claims part as a malformed header (RFC 6750 b64token allows "=" only at the end)', async () => {
    const token = await tokenWithUrlCharacters();
    const parts = token.split('.');
    const claims = parts.at(-2)!;
    parts[parts.length - 2] = `${claims}${'='.repeat((4 - (claims.length % 4)) % 4 || 4)}`;
    const padded = parts.join('.');
    const res = await server.http.get(ORG, { authorization: `Bearer ${padded}` });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_request');
  });
});
