import { insertClient, newClientCredentials } from '../../src/auth/clients.js';
import { createOrganization } from '../../src/organizations/organizations.js';
import { basic, FORM } from './http.js';
import type { TestServer } from './server.js';

export const VALID_ACCOUNT = { name: 'Acme GmbH', languageCode: 'de', countryCode: 'DE', currency: 'EUR' } as const;

export function jsonRequest(
  server: TestServer,
  token: string,
  method: string,
  path: string,
  body: unknown,
  contentType = 'application/json',
) {
  return server.http.request(method, path, {
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function createAccount(server: TestServer, token: string, account: Record<string, unknown> = {}) {
  const res = await jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', {
    account: { ...VALID_ACCOUNT, ...account },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.json.account as Record<string, any>;
}

/** A second tenant with its own client and token, to prove isolation. */
export async function otherTenantToken(server: TestServer): Promise<string> {
  const organization = await server.service.db.write('all-organizations', (tx) =>
    createOrganization(tx, `Other ${Math.random()}`),
  );
  const credentials = await newClientCredentials();
  await server.service.db.write('all-organizations', (tx) =>
    insertClient(tx, credentials, { organizationId: organization.id, scopes: ['provisioning', 'reporting'] }),
  );
  const res = await server.http.request('POST', '/token', {
    headers: { authorization: basic(credentials.clientId, credentials.clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  return res.json.access_token as string;
}

export async function accountCount(server: TestServer, token: string): Promise<number> {
  const res = await server.http.get('/provisioning/v0/accounts?limit=1', { authorization: `Bearer ${token}` });
  return Number(res.headers['x-totalcount']);
}

/** A new account linked to the first GOOGLE_ADS platform account under the demo manager account. */
export async function linkedGoogleAccount(server: TestServer, token: string, name: string) {
  const auth = { authorization: `Bearer ${token}` };
  const google = (await server.http.get('/provisioning/v0/adplatform-master-accounts', auth)).json
    .adPlatformMasterAccounts[0];
  const under = (
    await server.http.get(`/provisioning/v0/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, auth)
  ).json.adPlatformAccounts;
  const account = await createAccount(server, token, { name });
  const adPlatformId = under[0].adPlatformId as string;
  const linked = await jsonRequest(
    server,
    token,
    'POST',
    `/provisioning/v0/accounts/id/${account.id}/adplatform-accounts`,
    { adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId } },
  );
  return {
    accountId: account.id as number,
    platformAccountId: linked.json.adPlatformAccount.id as number,
    adPlatformId,
  };
}
