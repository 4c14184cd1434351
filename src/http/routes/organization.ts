import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { getOrganization, ORGANIZATION_NAME_MAX, renameOrganization } from '../../organizations/organizations.js';
import { notFound } from '../../shared/errors.js';
import type { Database } from '../../store/database.js';
import type { AppEnv } from '../context.js';
import { acceptJson } from '../middleware/content-type.js';
import { singleLine } from '../../shared/zod-rules.js';

const OrganizationSchema = z.object({ id: z.number().int(), name: z.string() }).openapi('Organization');
const OrganizationResponse = z.object({ organization: OrganizationSchema });

const OrganizationPatch = z
  .object({
    organization: z.strictObject({
      name: singleLine(z.string().trim().min(1, 'must not be empty').max(ORGANIZATION_NAME_MAX, `must be at most ${ORGANIZATION_NAME_MAX} characters`)),
    }),
  })
  .strict();

const getRoute = createRoute({
  method: 'get',
  path: '/provisioning/v0/organization',
  summary: "The caller's organization",
  description: 'Each set of credentials belongs to exactly one organization; this tells which.',
  security: [{ bearerAuth: [] }],
  responses: { 200: { description: 'The organization.', content: { 'application/json': { schema: OrganizationResponse } } } },
});

const patchRoute = createRoute({
  method: 'patch',
  path: '/provisioning/v0/organization',
  summary: "Rename the caller's organization (JSON Merge Patch)",
  middleware: [acceptJson('application/json', 'application/merge-patch+json')] as const,
  security: [{ bearerAuth: [] }],
  request: {
    body: {
      required: true,
      content: {
        'application/json': { schema: OrganizationPatch },
        'application/merge-patch+json': { schema: OrganizationPatch },
      },
    },
  },
  responses: {
    200: { description: 'The organization after the change.', content: { 'application/json': { schema: OrganizationResponse } } },
    400: { description: 'The body is not JSON or not the wrapper object.' },
    415: { description: 'The body is not JSON.' },
    422: { description: 'A field breaks a rule.' },
  },
});

export function registerOrganizationRoutes(app: OpenAPIHono<AppEnv>, db: Database): void {
  app.openapi(getRoute, async (c) => {
    const organization = await db.read((r) => getOrganization(r, c.get('auth').organizationId));
    if (!organization) throw notFound('The organization of this client no longer exists.');
    return c.json({ organization }, 200);
  });
  app.openapi(patchRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof OrganizationPatch>;
    const organization = await db.write((tx) => renameOrganization(tx, c.get('auth').organizationId, body.organization.name));
    if (!organization) throw notFound('The organization of this client no longer exists.');
    return c.json({ organization }, 200);
  });
}
