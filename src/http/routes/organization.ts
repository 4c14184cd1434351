import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { OrganizationService } from '../../organizations/organization-service.js';
import { ORGANIZATION_NAME_MAX } from '../../organizations/organizations.js';
import { notFound } from '../../shared/errors.js';
import type { AppEnv } from '../context.js';
import { acceptJson } from '../middleware/content-type.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, mergePatchContent } from '../openapi-helpers.js';
import { singleLine, TRIMMED_SINGLE_LINE_NOT_BLANK } from '../../shared/zod-rules.js';

const OrganizationSchema = z.object({ id: z.number().int(), name: z.string() }).openapi('Organization');
const OrganizationResponse = z.object({ organization: OrganizationSchema });

const OrganizationPatch = z
  .object({
    organization: z.strictObject({
      name: singleLine(
        z
          .string()
          .trim()
          .min(1, 'must not be empty')
          .max(ORGANIZATION_NAME_MAX, `must be at most ${ORGANIZATION_NAME_MAX} characters`),
      ).openapi({
        pattern: TRIMMED_SINGLE_LINE_NOT_BLANK.source,
        description: `Stored trimmed: 1-${ORGANIZATION_NAME_MAX} characters after trimming white space, none of them a control character.`,
      }),
    }),
  })
  .strict();

const GONE = 'The organization of these credentials no longer exists.';

const getRoute = createRoute({
  method: 'get',
  path: '/provisioning/v0/organization',
  operationId: 'getOrganization',
  tags: ['Organization'],
  summary: "The caller's organization",
  description: 'Each set of credentials belongs to exactly one organization; this tells which.',
  ...bearer('provisioning'),
  responses: {
    200: { description: 'The organization.', ...jsonContent(OrganizationResponse) },
    ...errorResponses('get', { 404: GONE }),
  },
});

const patchRoute = createRoute({
  method: 'patch',
  path: '/provisioning/v0/organization',
  operationId: 'updateOrganization',
  description: 'Only name can change; it is stored trimmed. The answer is the organization after the change.',
  tags: ['Organization'],
  summary: "Rename the caller's organization (JSON Merge Patch)",
  middleware: [acceptJson('application/json', 'application/merge-patch+json')] as const,
  ...bearer('provisioning'),
  request: { body: { required: true, ...mergePatchContent(OrganizationPatch) } },
  responses: {
    200: { description: 'The organization after the change.', ...jsonContent(OrganizationResponse) },
    ...errorResponses('patch', {
      400: 'The request cannot be read: malformed JSON or a body that is not {"organization": {...}}.',
      404: GONE,
      413: true,
      415: true,
      422: `name is missing, blank after trimming, longer than ${ORGANIZATION_NAME_MAX} characters or not a string, or an unknown field (validation_failed).`,
    }),
  },
});

export function registerOrganizationRoutes(app: OpenAPIHono<AppEnv>, organizations: OrganizationService): void {
  app.openapi(getRoute, async (c) => {
    const organization = await organizations.get(c.get('auth').organizationId);
    if (!organization) throw notFound('The organization of this client no longer exists.');
    return c.json({ organization }, 200);
  });
  app.openapi(patchRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof OrganizationPatch>;
    const organization = await organizations.rename(c.get('auth').organizationId, body.organization.name);
    if (!organization) throw notFound('The organization of this client no longer exists.');
    return c.json({ organization }, 200);
  });
}
