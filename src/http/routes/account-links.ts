import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { AD_PLATFORM_TYPES } from '../../platforms/connector.js';
import { ACCEPTED_PLATFORM_NAMES, parsePlatformType } from '../../platforms/platform-types.js';
import { assertNotNoAccess, type PlatformAccountService } from '../../provisioning/platform-accounts/platform-account-service.js';
import { LINK_STATUSES } from '../../provisioning/platform-accounts/platform-account-store.js';
import { ruleIssue } from '../../shared/zod-rules.js';
import type { AppEnv } from '../context.js';
import { jsonContent } from '../openapi-helpers.js';
import { acceptJson } from '../middleware/content-type.js';
import { idParam, pathId } from '../path-ids.js';

const BASE = '/provisioning/v0/accounts/id/{id}/adplatform-accounts';

const LinkedSchema = z
  .object({ id: z.number().int(), name: z.string(), adPlatformType: z.enum(AD_PLATFORM_TYPES), status: z.enum(LINK_STATUSES), adPlatformId: z.string() })
  .openapi('LinkedAdPlatformAccount');

const platformType = z.string().superRefine((value, ctx) => {
  if (!parsePlatformType(value)) ctx.addIssue(ruleIssue('not_allowed', `must be one of ${ACCEPTED_PLATFORM_NAMES.join(', ')}`));
});
const status = z.enum(LINK_STATUSES, { message: `must be one of ${LINK_STATUSES.join(', ')}` });

const LinkBody = z.strictObject({
  adPlatformAccount: z.strictObject({ adPlatformType: platformType, adPlatformId: z.string().min(1).max(64), status: status.optional() }),
});
const StatusBody = z.strictObject({ adPlatformAccount: z.strictObject({ status }) });
const AccountParam = z.object({ id: idParam() });
const LinkParams = z.object({ id: idParam(), apaId: idParam('apaId') });

const linkRoute = createRoute({
  method: 'post',
  path: BASE,
  summary: 'Link an existing platform account to the account',
  middleware: [acceptJson()] as const,
  security: [{ bearerAuth: [] }],
  request: { params: AccountParam, body: { required: true, ...jsonContent(LinkBody) } },
  responses: {
    201: { description: 'Linked.', ...jsonContent(z.object({ adPlatformAccount: LinkedSchema })) },
    404: { description: 'Unknown account.' },
    409: { description: 'Already linked to this account.' },
    422: { description: 'The platform does not know the id, or grants this organization no access.' },
    503: { description: 'The platform is not answering.' },
  },
});
const statusRoute = createRoute({
  method: 'patch',
  path: `${BASE}/id/{apaId}`,
  summary: "Change a link's status (READ_WRITE or READ_ONLY)",
  middleware: [acceptJson('application/json', 'application/merge-patch+json')] as const,
  security: [{ bearerAuth: [] }],
  request: {
    params: LinkParams,
    body: { required: true, content: { 'application/json': { schema: StatusBody }, 'application/merge-patch+json': { schema: StatusBody } } },
  },
  responses: { 200: { description: 'The link after the change.', ...jsonContent(z.object({ adPlatformAccount: LinkedSchema })) }, 404: { description: 'No such link.' } },
});
const unlinkRoute = createRoute({
  method: 'delete',
  path: `${BASE}/id/{apaId}`,
  summary: 'Unlink a platform account from the account',
  security: [{ bearerAuth: [] }],
  request: { params: LinkParams },
  responses: { 204: { description: 'Unlinked; empty body.' }, 404: { description: 'No such link (empty body, as for every DELETE error).' } },
});

export function registerAccountLinkRoutes(app: OpenAPIHono<AppEnv>, service: PlatformAccountService): void {
  app.openapi(linkRoute, async (c) => {
    const accountId = pathId(c.req.valid('param').id, 'account');
    const body = (c.req.valid('json') as z.infer<typeof LinkBody>).adPlatformAccount;
    const requested = body.status ?? 'READ_WRITE';
    assertNotNoAccess(requested);
    const linked = await service.link(c.get('auth').organizationId, accountId, { adPlatformType: parsePlatformType(body.adPlatformType)!, adPlatformId: body.adPlatformId, status: requested });
    return c.json({ adPlatformAccount: linked }, 201, { Location: `/provisioning/v0/accounts/id/${accountId}/adplatform-accounts/id/${linked.id}` });
  });
  app.openapi(statusRoute, async (c) => {
    const params = c.req.valid('param');
    const requested = (c.req.valid('json') as z.infer<typeof StatusBody>).adPlatformAccount.status;
    assertNotNoAccess(requested);
    const linked = await service.setStatus(c.get('auth').organizationId, pathId(params.id, 'account'), pathId(params.apaId, 'ad platform account', 'apaId'), requested);
    return c.json({ adPlatformAccount: linked }, 200);
  });
  app.openapi(unlinkRoute, async (c) => {
    const params = c.req.valid('param');
    await service.unlink(c.get('auth').organizationId, pathId(params.id, 'account'), pathId(params.apaId, 'ad platform account', 'apaId'));
    return c.body(null, 204);
  });
}
