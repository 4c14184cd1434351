import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { StoredAccount } from '../../provisioning/accounts/account-store.js';
import {
  accountPatchSchema,
  accountWriteSchema,
  CUSTOM_FIELDS,
  TEXT_FIELDS,
  type AccountPatch,
  type AccountWrite,
} from '../../provisioning/accounts/account-schema.js';
import { accountTag, toAccountResponse, type AccountService } from '../../provisioning/accounts/account-service.js';
import { LABEL_NAME, LABEL_VALUE_MAX } from '../../provisioning/labels.js';
import {
  CONDITIONAL_WRITE_HEADERS,
  IF_NONE_MATCH,
  NEW_REPRESENTATION,
  RESOURCE_ETAG,
  RESOURCE_NOT_MODIFIED,
  resourceNotModified,
  resourceTagHeaders,
  writePrecondition,
} from '../conditional.js';
import type { AppEnv } from '../context.js';
import { bearer, jsonContent, LOCATION, mergePatchContent, TOTAL_COUNT } from '../openapi-helpers.js';
import { errorResponses } from '../openapi-errors.js';
import { commaListParameter, labelFilterQuery, pagingQuery } from '../openapi-parameters.js';
import { LinkedSchema } from './account-links.js';
import { acceptJson } from '../middleware/content-type.js';
import { idParam, pathId } from '../path-ids.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';
import { characterCount } from '../../shared/text-length.js';

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
    ...Object.fromEntries(
      CUSTOM_FIELDS.map((f) => [f, TEXT_FIELDS.includes(f) ? z.string().nullable() : z.number().nullable()]),
    ),
    labels: z.record(z.string(), z.string()),
    linkedAdPlatformAccounts: z.array(LinkedSchema),
  })
  .openapi('Account');
const AccountEnvelope = z.object({ account: AccountSchema });
const WriteBody = z.strictObject({ account: accountWriteSchema }).openapi('AccountCreateUpdate');
const PatchBody = z.strictObject({ account: accountPatchSchema }).openapi('AccountPatch');
const IdParam = z.object({ id: idParam() });
const tags = ['Accounts'];

const BODY_400 =
  'The request cannot be read: malformed JSON, a body that is not {"account": {...}}, a malformed path id, or an If-Match / If-None-Match that is not * or a list of entity-tags (invalid_header).';
const writeErrors = (method: string, rules: string) =>
  errorResponses(method, {
    400:
      method === 'post'
        ? 'The request cannot be read: malformed JSON or a body that is not {"account": {...}}.'
        : BODY_400,
    ...(method === 'post' ? {} : { 404: 'No such account in this organization.', 412: true }),
    413: true,
    415: true,
    422: `A rule is broken (validation_failed); details name each field: ${rules}`,
  });
const RULES =
  'required (name, languageCode, countryCode, currency), too_long, blank, not_allowed (languageCode, or a pair outside table 2.3 on countryCode), unknown_currency, unsupported_currency, wrong_type, unknown_field, read_only (id, language, country, linkedAdPlatformAccounts), invalid_name and too_many for labels.';

const createAccountRoute = createRoute({
  method: 'post',
  path: BASE,
  operationId: 'createAccount',
  description:
    'The body is {"account": AccountCreateUpdate} (spec 2.1): name, languageCode, countryCode (a pair of table 2.3) and currency are required. labels are optional; autoImport true queues an AUTO_IMPORT job. Location names the new account.',
  tags,
  summary: 'Create an account',
  middleware: [acceptJson()] as const,
  ...bearer('provisioning'),
  request: { body: { required: true, ...jsonContent(WriteBody) } },
  responses: {
    201: { description: 'Created.', headers: { ...LOCATION, ...RESOURCE_ETAG }, ...jsonContent(AccountEnvelope) },
    ...writeErrors('post', RULES),
  },
});

const listAccountsRoute = createRoute({
  method: 'get',
  path: BASE,
  operationId: 'listAccounts',
  description:
    'Sorted by id. labels keeps the accounts carrying every given label; id keeps the given accounts. X-TotalCount counts the matches across all pages.',
  tags,
  summary: 'List accounts, by id, 100 at most per page',
  ...bearer('provisioning'),
  request: {
    query: z.object({
      ...pagingQuery(100),
      labels: labelFilterQuery(MAX_LABEL_FILTERS),
      id: commaListParameter(
        { type: 'integer', format: 'int64', minimum: 0 },
        { maxItems: MAX_ID_FILTER, description: `Only these account ids (at most ${MAX_ID_FILTER}).` },
      ),
    }),
  },
  responses: {
    200: {
      description: 'One page.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ accounts: z.array(AccountSchema) })),
    },
    ...errorResponses('get', {
      400: 'A query parameter breaks its rules (invalid_parameter, unknown_parameter); details name it.',
    }),
  },
});

const getAccountRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{id}`,
  operationId: 'getAccount',
  description:
    'The account in the response shape of spec 2.2: language and country, every custom field (null when unset), labels and the linked platform accounts.',
  tags,
  summary: 'Get an account',
  ...bearer('provisioning'),
  request: { params: IdParam, headers: z.object({ 'If-None-Match': IF_NONE_MATCH }) },
  responses: {
    200: { description: 'The account.', headers: RESOURCE_ETAG, ...jsonContent(AccountEnvelope) },
    ...RESOURCE_NOT_MODIFIED,
    ...errorResponses('get', { 400: 'The path id is not an int64.', 404: 'No such account in this organization.' }),
  },
});

const putAccountRoute = createRoute({
  method: 'put',
  path: `${BASE}/id/{id}`,
  operationId: 'replaceAccount',
  description:
    'Spec 4.2 rule 1: every field missing from the body becomes null (autoImport false), and labels replace all labels. The four required fields must be given.',
  tags,
  summary: 'Overwrite an account: fields missing from the body become null, labels are replaced',
  middleware: [acceptJson()] as const,
  ...bearer('provisioning'),
  request: {
    params: IdParam,
    headers: CONDITIONAL_WRITE_HEADERS,
    body: { required: true, ...jsonContent(WriteBody) },
  },
  responses: {
    200: { description: 'The account after the change.', headers: NEW_REPRESENTATION, ...jsonContent(AccountEnvelope) },
    ...writeErrors('put', RULES),
  },
});

const patchAccountRoute = createRoute({
  method: 'patch',
  path: `${BASE}/id/{id}`,
  operationId: 'updateAccount',
  tags,
  summary: 'Change some fields (JSON Merge Patch; null clears; labels, when present, replace all labels)',
  description:
    'The merged account must pass every rule of a PUT: a languageCode that does not go with the stored countryCode (or the reverse) is a 422, and the four required fields cannot be cleared with null (422 required).',
  middleware: [acceptJson('application/json', 'application/merge-patch+json')] as const,
  ...bearer('provisioning'),
  request: {
    params: IdParam,
    headers: CONDITIONAL_WRITE_HEADERS,
    body: { required: true, ...mergePatchContent(PatchBody) },
  },
  responses: {
    200: { description: 'The account after the change.', headers: NEW_REPRESENTATION, ...jsonContent(AccountEnvelope) },
    ...writeErrors('patch', `${RULES} A patch is checked merged with the stored account.`),
  },
});

export function registerAccountRoutes(app: OpenAPIHono<AppEnv>, accounts: AccountService): void {
  app.openapi(createAccountRoute, async (c) => {
    const body = c.req.valid('json') as { account: AccountWrite };
    const account = await accounts.create(c.get('auth').organizationId, body.account);
    return c.json({ account: toAccountResponse(account) }, 201, {
      Location: `${BASE}/id/${account.id}`,
      ...resourceTagHeaders(c, accountTag(account)),
    });
  });

  // Registered for the document; parsed by hand so unknown and repeated parameters are refused.
  app.openAPIRegistry.registerPath(listAccountsRoute);
  app.get(BASE, async (c) => {
    const query = QueryParams.parse(c.req.url, ['limit', 'offset', 'labels', 'id'], ['labels', 'id']);
    const page = parsePaging(query, 100, 100);
    const { total, json } = await accounts.list(
      c.get('auth').organizationId,
      { ids: parseIds(query.get('id')), labels: parseLabelFilters(query.get('labels')) },
      page,
    );
    // The body c.json would write for { accounts }, rendered by DuckDB.
    return c.body(`{"accounts":${json}}`, 200, { 'Content-Type': 'application/json', 'X-TotalCount': String(total) });
  });

  app.openapi(getAccountRoute, async (c) => {
    const account = await accounts.get(c.get('auth').organizationId, accountId(c.req.valid('param').id));
    const etag = accountTag(account);
    return (
      resourceNotModified(c, etag) ?? c.json({ account: toAccountResponse(account) }, 200, resourceTagHeaders(c, etag))
    );
  });

  app.openapi(putAccountRoute, async (c) => {
    const precondition = writePrecondition(c);
    const id = accountId(c.req.valid('param').id);
    const body = c.req.valid('json') as { account: AccountWrite };
    const account = await accounts.replace(c.get('auth').organizationId, id, body.account, precondition);
    return c.json({ account: toAccountResponse(account) }, 200, newRepresentation(c, account));
  });

  app.openapi(patchAccountRoute, async (c) => {
    const precondition = writePrecondition(c);
    const id = accountId(c.req.valid('param').id);
    const body = c.req.valid('json') as { account: AccountPatch };
    const account = await accounts.patch(c.get('auth').organizationId, id, body.account, precondition);
    return c.json({ account: toAccountResponse(account) }, 200, newRepresentation(c, account));
  });
}

/** A PUT's or PATCH's answer: the account as it is now, its tag, and where it lives (RFC 9110 8.7). */
const newRepresentation = (c: Context<AppEnv>, account: StoredAccount) => ({
  ...resourceTagHeaders(c, accountTag(account)),
  'Content-Location': `${BASE}/id/${account.id}`,
});

const INT64_MAX = 2n ** 63n - 1n;
const accountId = (text: string) => pathId(text, 'account');

function parseIds(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',');
  if (parts.length > MAX_ID_FILTER) invalidParameter('id', `at most ${MAX_ID_FILTER} ids`);
  return parts.map((part) => {
    if (!/^\d{1,19}$/.test(part) || BigInt(part) > INT64_MAX)
      invalidParameter('id', `"${part}" is not an account id; give a comma list of integers`);
    // Beyond 2^53 no account exists; 0 matches nothing, which keeps the filter's meaning.
    return Math.min(Number(part), Number.MAX_SAFE_INTEGER);
  });
}

function parseLabelFilters(text: string | undefined): Array<{ name: string; value: string }> | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',');
  if (parts.length > MAX_LABEL_FILTERS)
    invalidParameter('labels', `at most ${MAX_LABEL_FILTERS} filters, not ${parts.length}`);
  return parts.map((part) => {
    const colon = part.indexOf(':');
    const name = colon < 0 ? part : part.slice(0, colon);
    if (colon < 0 || !LABEL_NAME.test(name))
      invalidParameter('labels', `"${part}" is not name:value with a valid label name`);
    const value = part.slice(colon + 1);
    if (characterCount(value) > LABEL_VALUE_MAX)
      invalidParameter('labels', `the value of ${name} is longer than ${LABEL_VALUE_MAX} characters`);
    return { name, value };
  });
}
