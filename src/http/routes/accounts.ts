import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { accountPatchSchema, accountWriteSchema, CUSTOM_FIELDS, TEXT_FIELDS, type AccountPatch, type AccountWrite } from '../../provisioning/accounts/account-schema.js';
import { toAccountResponse, type AccountService } from '../../provisioning/accounts/account-service.js';
import { LABEL_NAME, LABEL_VALUE_MAX } from '../../provisioning/labels.js';
import type { AppEnv } from '../context.js';
import { jsonContent } from '../openapi-helpers.js';
import { acceptJson } from '../middleware/content-type.js';
import { idParam, pathId } from '../path-ids.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';

const BASE = '/provisioning/v0/accounts';
const MAX_LABEL_FILTERS = 5;
const MAX_ID_FILTER = 100;

const AccountSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    language: z.string(),
    country: z.string(),
    currency: z.string(),
    notes: z.string().nullable(),
    autoImport: z.boolean(),
    ...Object.fromEntries(CUSTOM_FIELDS.map((f) => [f, TEXT_FIELDS.includes(f) ? z.string().nullable() : z.number().nullable()])),
    labels: z.record(z.string(), z.string()),
    linkedAdPlatformAccounts: z.array(
      z.object({ id: z.number().int(), name: z.string(), adPlatformType: z.string(), status: z.string(), adPlatformId: z.string() }),
    ),
  })
  .openapi('Account');
const AccountEnvelope = z.object({ account: AccountSchema });
const WriteBody = z.strictObject({ account: accountWriteSchema }).openapi('AccountCreateUpdate');
const PatchBody = z.strictObject({ account: accountPatchSchema }).openapi('AccountPatch');
const IdParam = z.object({ id: idParam() });

const errors = {
  400: { description: 'Unreadable request (malformed JSON, not the wrapper object, bad path id).' },
  404: { description: 'No such account in this organization.' },
  415: { description: 'The body is not JSON.' },
  422: { description: 'A rule is broken; details name each field.' },
};

const createAccountRoute = createRoute({
  method: 'post',
  path: BASE,
  summary: 'Create an account',
  middleware: [acceptJson()] as const,
  security: [{ bearerAuth: [] }],
  request: { body: { required: true, ...jsonContent(WriteBody) } },
  responses: { 201: { description: 'Created.', ...jsonContent(AccountEnvelope) }, ...errors },
});

const listAccountsRoute = createRoute({
  method: 'get',
  path: BASE,
  summary: 'List accounts, by id, 100 at most per page',
  security: [{ bearerAuth: [] }],
  request: {
    query: z.object({
      limit: z.string().optional().openapi({ description: 'Page size, 1-100 (default 100).' }),
      offset: z.string().optional().openapi({ description: '0 or a multiple of limit.' }),
      labels: z.string().optional().openapi({ description: 'Comma list of name:value, all must match, at most 5 (percent-encode the whole value).' }),
      id: z.string().optional().openapi({ description: 'Comma list of account ids (at most 100).' }),
    }),
  },
  responses: {
    200: { description: 'One page; X-TotalCount counts all pages.', headers: { 'X-TotalCount': { schema: { type: 'integer' } } }, ...jsonContent(z.object({ accounts: z.array(AccountSchema) })) },
    400: { description: 'A bad parameter, named in the error.' },
  },
});

const getAccountRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{id}`,
  summary: 'Get an account',
  security: [{ bearerAuth: [] }],
  request: { params: IdParam },
  responses: { 200: { description: 'The account.', ...jsonContent(AccountEnvelope) }, 400: errors[400], 404: errors[404] },
});

const putAccountRoute = createRoute({
  method: 'put',
  path: `${BASE}/id/{id}`,
  summary: 'Overwrite an account: fields missing from the body become null, labels are replaced',
  middleware: [acceptJson()] as const,
  security: [{ bearerAuth: [] }],
  request: { params: IdParam, body: { required: true, ...jsonContent(WriteBody) } },
  responses: { 200: { description: 'The account after the change.', ...jsonContent(AccountEnvelope) }, ...errors },
});

const patchAccountRoute = createRoute({
  method: 'patch',
  path: `${BASE}/id/{id}`,
  summary: 'Change some fields (JSON Merge Patch; null clears; labels, when present, replace all labels)',
  middleware: [acceptJson('application/json', 'application/merge-patch+json')] as const,
  security: [{ bearerAuth: [] }],
  request: {
    params: IdParam,
    body: { required: true, content: { 'application/json': { schema: PatchBody }, 'application/merge-patch+json': { schema: PatchBody } } },
  },
  responses: { 200: { description: 'The account after the change.', ...jsonContent(AccountEnvelope) }, ...errors },
});

export function registerAccountRoutes(app: OpenAPIHono<AppEnv>, accounts: AccountService): void {
  app.openapi(createAccountRoute, async (c) => {
    const body = c.req.valid('json') as { account: AccountWrite };
    const account = await accounts.create(c.get('auth').organizationId, body.account);
    return c.json({ account: toAccountResponse(account) }, 201, { Location: `${BASE}/id/${account.id}` });
  });

  // Registered for the document; parsed by hand so unknown and repeated parameters are refused.
  app.openAPIRegistry.registerPath(listAccountsRoute);
  app.get(BASE, async (c) => {
    const query = QueryParams.parse(c.req.url, ['limit', 'offset', 'labels', 'id']);
    const page = parsePaging(query, 100, 100);
    const { total, accounts: rows } = await accounts.list(c.get('auth').organizationId, { ids: parseIds(query.get('id')), labels: parseLabelFilters(query.get('labels')) }, page);
    return c.json({ accounts: rows.map(toAccountResponse) }, 200, { 'X-TotalCount': String(total) });
  });

  app.openapi(getAccountRoute, async (c) => {
    const account = await accounts.get(c.get('auth').organizationId, accountId(c.req.valid('param').id));
    return c.json({ account: toAccountResponse(account) }, 200);
  });

  app.openapi(putAccountRoute, async (c) => {
    const id = accountId(c.req.valid('param').id);
    const body = c.req.valid('json') as { account: AccountWrite };
    const account = await accounts.replace(c.get('auth').organizationId, id, body.account);
    return c.json({ account: toAccountResponse(account) }, 200);
  });

  app.openapi(patchAccountRoute, async (c) => {
    const id = accountId(c.req.valid('param').id);
    const body = c.req.valid('json') as { account: AccountPatch };
    const account = await accounts.patch(c.get('auth').organizationId, id, body.account);
    return c.json({ account: toAccountResponse(account) }, 200);
  });
}

const INT64_MAX = 2n ** 63n - 1n;
const accountId = (text: string) => pathId(text, 'account');

function parseIds(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',');
  if (parts.length > MAX_ID_FILTER) invalidParameter('id', `at most ${MAX_ID_FILTER} ids`);
  return parts.map((part) => {
    if (!/^\d{1,19}$/.test(part) || BigInt(part) > INT64_MAX) invalidParameter('id', `"${part}" is not an account id; give a comma list of integers`);
    // Beyond 2^53 no account exists; 0 matches nothing, which keeps the filter's meaning.
    return Math.min(Number(part), Number.MAX_SAFE_INTEGER);
  });
}

function parseLabelFilters(text: string | undefined): Array<{ name: string; value: string }> | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',');
  if (parts.length > MAX_LABEL_FILTERS) invalidParameter('labels', `at most ${MAX_LABEL_FILTERS} filters, not ${parts.length}`);
  return parts.map((part) => {
    const colon = part.indexOf(':');
    const name = colon < 0 ? part : part.slice(0, colon);
    if (colon < 0 || !LABEL_NAME.test(name)) invalidParameter('labels', `"${part}" is not name:value with a valid label name`);
    const value = part.slice(colon + 1);
    if (value.length > LABEL_VALUE_MAX) invalidParameter('labels', `the value of ${name} is longer than ${LABEL_VALUE_MAX} characters`);
    return { name, value };
  });
}
