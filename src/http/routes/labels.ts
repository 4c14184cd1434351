import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { LabelInput, LabelOwner, LabelService } from '../../provisioning/labels/label-service.js';
import { LABEL_NAME, LABEL_VALUE_MAX, LABELS_MAX } from '../../provisioning/labels.js';
import { SINGLE_LINE } from '../../shared/zod-rules.js';
import type { AppEnv } from '../context.js';
import { acceptJson } from '../middleware/content-type.js';
import { jsonContent } from '../openapi-helpers.js';
import { idParam, pathId } from '../path-ids.js';

const RULES = `Names match ${LABEL_NAME.source}, values are strings of at most ${LABEL_VALUE_MAX} characters without control characters, at most ${LABELS_MAX} labels.`;

const LabelsResponse = z.object({ labels: z.record(z.string(), z.string()) }).openapi('Labels');

/*
 * The validator checks only the wrapper (400 when it is not `{labels: {...}}`); values stay
 * unknown here so the service can report every label rule at once as a 422 naming `labels.<name>`.
 * The documented value types are the ones the service accepts.
 */
const labelsObject = (value: z.ZodType) => z.record(z.string(), value).openapi({ description: RULES });
const ReplaceBody = z.strictObject({ labels: labelsObject(z.unknown().openapi({ type: 'string', maxLength: LABEL_VALUE_MAX, pattern: SINGLE_LINE.source })) }).openapi('LabelsReplace');
const PatchBody = z
  .strictObject({ labels: labelsObject(z.unknown().openapi({ type: ['string', 'null'], maxLength: LABEL_VALUE_MAX, pattern: SINGLE_LINE.source })) })
  .openapi('LabelsMergePatch');
const IdParam = z.object({ id: idParam() });

function labelRoutes(kind: LabelOwner, collection: string) {
  const path = `/provisioning/v0/${collection}/id/{id}/labels`;
  const errors = {
    400: { description: 'Unreadable request (malformed JSON, not {labels: {...}}, bad path id).' },
    404: { description: `No such ${kind} in this organization.` },
    415: { description: 'The body is not JSON.' },
    422: { description: `A label breaks a rule; details name each as labels.<name>.${kind === 'campaign' ? ' campaignGroup and sys.* names are reserved.' : ''}` },
  };
  const answer = { description: `The ${kind}'s labels, sorted by name.`, ...jsonContent(LabelsResponse) };
  return {
    get: createRoute({
      method: 'get',
      path,
      summary: `The labels of a${kind === 'account' ? 'n' : ''} ${kind}`,
      security: [{ bearerAuth: [] }],
      request: { params: IdParam },
      responses: { 200: answer, 400: errors[400], 404: errors[404] },
    }),
    put: createRoute({
      method: 'put',
      path,
      summary: `Replace all labels of the ${kind}`,
      middleware: [acceptJson()] as const,
      security: [{ bearerAuth: [] }],
      request: { params: IdParam, body: { required: true, ...jsonContent(ReplaceBody) } },
      responses: { 200: answer, ...errors },
    }),
    patch: createRoute({
      method: 'patch',
      path,
      summary: `Change some labels of the ${kind} (JSON Merge Patch: a string sets one, null deletes one)`,
      middleware: [acceptJson('application/json', 'application/merge-patch+json')] as const,
      security: [{ bearerAuth: [] }],
      request: {
        params: IdParam,
        body: { required: true, content: { 'application/json': { schema: PatchBody }, 'application/merge-patch+json': { schema: PatchBody } } },
      },
      responses: { 200: answer, ...errors },
    }),
  };
}

/**
 * The labels member as sent. zod's record output silently drops an own `__proto__` member, which
 * must be refused as a bad name instead; Hono keeps the body text, so this parses it again.
 */
async function sentLabels(req: { json(): Promise<unknown> }): Promise<LabelInput> {
  return ((await req.json()) as { labels: LabelInput }).labels;
}

export function registerLabelRoutes(app: OpenAPIHono<AppEnv>, labels: LabelService): void {
  for (const [kind, collection] of [['account', 'accounts'], ['campaign', 'campaigns']] as const) {
    const routes = labelRoutes(kind, collection);
    app.openapi(routes.get, async (c) => {
      const id = pathId(c.req.valid('param').id, kind);
      return c.json({ labels: await labels.get(kind, c.get('auth').organizationId, id) }, 200);
    });
    // The validator has checked the wrapper before these run; see sentLabels for why it is read again.
    app.openapi(routes.put, async (c) => {
      const id = pathId(c.req.valid('param').id, kind);
      return c.json({ labels: await labels.replace(kind, c.get('auth').organizationId, id, await sentLabels(c.req)) }, 200);
    });
    app.openapi(routes.patch, async (c) => {
      const id = pathId(c.req.valid('param').id, kind);
      return c.json({ labels: await labels.patch(kind, c.get('auth').organizationId, id, await sentLabels(c.req)) }, 200);
    });
  }
}
