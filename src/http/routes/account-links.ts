import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ACCEPTED_PLATFORM_NAMES, AD_PLATFORM_TYPES, parsePlatformType } from '../../shared/ad-platforms.js';
import { linkTag, type PlatformAccountService } from '../../provisioning/platform-accounts/platform-account-service.js';
import { LINK_STATUSES, type LinkStatus } from '../../provisioning/platform-accounts/platform-account-store.js';
import { ruleIssue } from '../../shared/zod-rules.js';
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
import { bearer, jsonContent, LOCATION, mergePatchContent } from '../openapi-helpers.js';
import { errorResponses } from '../openapi-errors.js';
import { acceptJson } from '../middleware/content-type.js';
import { idParam, pathId } from '../path-ids.js';

const BASE = '/provisioning/v0/accounts/id/{id}/adplatform-accounts';

export const LinkedSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    adPlatformType: z.enum(AD_PLATFORM_TYPES),
    status: z.enum(LINK_STATUSES),
    adPlatformId: z.string(),
  })
  .openapi('LinkedAdPlatformAccount');

const platformType = z
  .string()
  .superRefine((value, ctx) => {
    if (!parsePlatformType(value))
      ctx.addIssue(ruleIssue('not_allowed', `must be one of ${ACCEPTED_PLATFORM_NAMES.join(', ')}`));
  })
  .meta({
    enum: [...ACCEPTED_PLATFORM_NAMES],
    description: 'ADWORDS and BING_ADS are accepted for GOOGLE_ADS and MICROSOFT_ADVERTISING (supplement 2).',
  });
/** What a client may ask for; NO_ACCESS is the service's, when the platform revokes access (supplement 2). */
const REQUESTED_STATUSES = ['READ_WRITE', 'READ_ONLY'] as const satisfies readonly LinkStatus[];
const status = z
  .enum(REQUESTED_STATUSES, {
    message: 'must be READ_WRITE or READ_ONLY (NO_ACCESS is set by the service when the platform revokes access)',
  })
  .openapi({ description: 'READ_WRITE or READ_ONLY; responses may also show NO_ACCESS, which only the service sets.' });

const LinkBody = z.strictObject({
  adPlatformAccount: z.strictObject({
    adPlatformType: platformType,
    adPlatformId: z.string().min(1).max(64),
    status: status.optional(),
  }),
});
const StatusBody = z.strictObject({ adPlatformAccount: z.strictObject({ status }) });
const AccountParam = z.object({ id: idParam() });
const LinkParams = z.object({ id: idParam(), apaId: idParam('apaId') });

const tags = ['Links'];
const BAD_PATH = 'malformed path id';
const BAD_CONDITION = 'an If-Match / If-None-Match that is not * or a list of entity-tags (invalid_header)';
const NOT_LINKED = 'No such account, or the platform account is not linked to it.';
const LinkEnvelope = z.object({ adPlatformAccount: LinkedSchema });

const linkRoute = createRoute({
  method: 'post',
  path: BASE,
  operationId: 'linkPlatformAccount',
  tags,
  summary: 'Link an existing platform account to the account',
  description:
    'The platform must show the account to this organization: under one of its master accounts (GOOGLE_ADS, MICROSOFT_ADVERTISING) or among its direct ad accounts (FACEBOOK). status defaults to READ_WRITE.',
  middleware: [acceptJson()] as const,
  ...bearer('provisioning'),
  request: { params: AccountParam, body: { required: true, ...jsonContent(LinkBody) } },
  responses: {
    201: { description: 'Linked.', headers: { ...LOCATION, ...RESOURCE_ETAG }, ...jsonContent(LinkEnvelope) },
    ...errorResponses('post', {
      400: `The request cannot be read: malformed JSON, a body that is not {"adPlatformAccount": {...}}, or a ${BAD_PATH}.`,
      404: 'No such account in this organization.',
      409: 'Already linked to this account (already_linked).',
      413: true,
      415: true,
      422: 'A field breaks a rule, or the platform does not know the id or grants this organization no access (details code invalid_format, unknown_at_platform, no_access, refused_by_platform).',
      503: 'The platform is not answering (platform_unavailable; Retry-After), or the service is at capacity.',
    }),
  },
});
const getLinkRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{apaId}`,
  operationId: 'getLinkedPlatformAccount',
  description:
    "One link of the account, as linkedAdPlatformAccounts lists it; its ETag changes with the link's status (the service sets NO_ACCESS when the platform revokes access) and the platform account's name.",
  tags,
  summary: 'One linked platform account of the account',
  ...bearer('provisioning'),
  request: { params: LinkParams, headers: z.object({ 'If-None-Match': IF_NONE_MATCH }) },
  responses: {
    200: { description: 'The link.', headers: RESOURCE_ETAG, ...jsonContent(LinkEnvelope) },
    ...RESOURCE_NOT_MODIFIED,
    ...errorResponses('get', { 400: `A ${BAD_PATH}.`, 404: NOT_LINKED }),
  },
});
const statusRoute = createRoute({
  method: 'patch',
  path: `${BASE}/id/{apaId}`,
  operationId: 'updateLinkStatus',
  description:
    'A client may set READ_WRITE or READ_ONLY; NO_ACCESS is set by the service when the platform revokes access.',
  tags,
  summary: "Change a link's status (READ_WRITE or READ_ONLY)",
  middleware: [acceptJson('application/json', 'application/merge-patch+json')] as const,
  ...bearer('provisioning'),
  request: {
    params: LinkParams,
    headers: CONDITIONAL_WRITE_HEADERS,
    body: { required: true, ...mergePatchContent(StatusBody) },
  },
  responses: {
    200: { description: 'The link after the change.', headers: NEW_REPRESENTATION, ...jsonContent(LinkEnvelope) },
    ...errorResponses('patch', {
      400: `The request cannot be read: malformed JSON, a body that is not {"adPlatformAccount": {...}}, a ${BAD_PATH}, or ${BAD_CONDITION}.`,
      404: NOT_LINKED,
      412: true,
      413: true,
      415: true,
      422: 'status is missing, or not READ_WRITE or READ_ONLY (validation_failed, not_allowed).',
    }),
  },
});
const unlinkRoute = createRoute({
  method: 'delete',
  path: `${BASE}/id/{apaId}`,
  operationId: 'unlinkPlatformAccount',
  description:
    'Removes the link only: the platform account, its campaigns and statistics stay known to the organization.',
  tags,
  summary: 'Unlink a platform account from the account',
  ...bearer('provisioning'),
  request: { params: LinkParams, headers: CONDITIONAL_WRITE_HEADERS },
  responses: {
    204: { description: 'Unlinked; empty body.' },
    ...errorResponses('delete', {
      400: `A ${BAD_PATH}, or ${BAD_CONDITION}.`,
      404: NOT_LINKED,
      412: true,
      413: true,
    }),
  },
});

export function registerAccountLinkRoutes(app: OpenAPIHono<AppEnv>, service: PlatformAccountService): void {
  app.openapi(linkRoute, async (c) => {
    const accountId = pathId(c.req.valid('param').id, 'account');
    const body = (c.req.valid('json') as z.infer<typeof LinkBody>).adPlatformAccount;
    const requested = body.status ?? 'READ_WRITE';
    const linked = await service.link(c.get('auth').organizationId, accountId, {
      adPlatformType: parsePlatformType(body.adPlatformType)!,
      adPlatformId: body.adPlatformId,
      status: requested,
    });
    return c.json({ adPlatformAccount: linked }, 201, {
      Location: linkPath(accountId, linked.id),
      ...resourceTagHeaders(c, linkTag(linked)),
    });
  });
  app.openapi(getLinkRoute, async (c) => {
    const params = c.req.valid('param');
    const link = await service.getLink(
      c.get('auth').organizationId,
      pathId(params.id, 'account'),
      pathId(params.apaId, 'ad platform account', 'apaId'),
    );
    const etag = linkTag(link);
    return resourceNotModified(c, etag) ?? c.json({ adPlatformAccount: link }, 200, resourceTagHeaders(c, etag));
  });
  app.openapi(statusRoute, async (c) => {
    const params = c.req.valid('param');
    // The headers first: a malformed one is a 400 whether or not the resource exists.
    const precondition = writePrecondition(c);
    const accountId = pathId(params.id, 'account');
    const requested = (c.req.valid('json') as z.infer<typeof StatusBody>).adPlatformAccount.status;
    const linked = await service.setStatus(
      c.get('auth').organizationId,
      accountId,
      pathId(params.apaId, 'ad platform account', 'apaId'),
      requested,
      precondition,
    );
    return c.json({ adPlatformAccount: linked }, 200, {
      ...resourceTagHeaders(c, linkTag(linked)),
      'Content-Location': linkPath(accountId, linked.id),
    });
  });
  app.openapi(unlinkRoute, async (c) => {
    const params = c.req.valid('param');
    const precondition = writePrecondition(c);
    const accountId = pathId(params.id, 'account');
    const platformAccountId = pathId(params.apaId, 'ad platform account', 'apaId');
    await service.unlink(c.get('auth').organizationId, accountId, platformAccountId, precondition);
    return c.body(null, 204);
  });
}

const linkPath = (accountId: number, platformAccountId: number) =>
  `/provisioning/v0/accounts/id/${accountId}/adplatform-accounts/id/${platformAccountId}`;
