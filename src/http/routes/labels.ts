import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  labelsTag,
  type LabelInput,
  type LabelOwner,
  type LabelService,
} from '../../provisioning/labels/label-service.js';
import { LABEL_NAME, LABEL_VALUE_MAX, LABELS_MAX, type Labels } from '../../provisioning/labels.js';
import { SINGLE_LINE } from '../../shared/zod-rules.js';
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
import { acceptJson } from '../middleware/content-type.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, mergePatchContent } from '../openapi-helpers.js';
import { idParam, pathId } from '../path-ids.js';

const RULES = `Names match ${LABEL_NAME.source}, values are strings of at most ${LABEL_VALUE_MAX} characters without control characters, at most ${LABELS_MAX} labels.`;

const LabelsResponse = z.object({ labels: z.record(z.string(), z.string()) }).openapi('Labels');

/** campaignGroup (in any case) and sys.* are the campaign's own (label-service RESERVED); sys.* already fails the name pattern. */
const RESERVED_CAMPAIGN_NAME = '^[Cc][Aa][Mm][Pp][Aa][Ii][Gg][Nn][Gg][Rr][Oo][Uu][Pp]$';

/*
 * The validator checks only the wrapper (400 when it is not `{labels: {...}}`); values stay
 * unknown here so the service can report every label rule at once as a 422 naming `labels.<name>`.
 * The documented value types are the ones the service accepts.
 */
function labelsObject(kind: LabelOwner, value: Record<string, unknown>, patch: boolean) {
  const reserved = kind === 'campaign' ? ' campaignGroup (in any case) is reserved: the import sets it.' : '';
  return z.record(z.string(), z.unknown()).meta({
    type: 'object',
    additionalProperties: value,
    propertyNames: {
      pattern: LABEL_NAME.source,
      ...(kind === 'campaign' ? { not: { pattern: RESERVED_CAMPAIGN_NAME } } : {}),
    },
    maxProperties: LABELS_MAX,
    description: `${RULES}${reserved}${patch ? ` A string sets a label, null deletes one; the result may hold at most ${LABELS_MAX} labels (422 too_many).` : ''}`,
  });
}
const replaceBody = (kind: LabelOwner) =>
  z.strictObject({
    labels: labelsObject(kind, { type: 'string', maxLength: LABEL_VALUE_MAX, pattern: SINGLE_LINE.source }, false),
  });
const patchBody = (kind: LabelOwner) =>
  z.strictObject({
    labels: labelsObject(
      kind,
      { type: ['string', 'null'], maxLength: LABEL_VALUE_MAX, pattern: SINGLE_LINE.source },
      true,
    ),
  });
const IdParam = z.object({ id: idParam() });

const OPERATION_IDS = {
  account: { get: 'getAccountLabels', put: 'replaceAccountLabels', patch: 'updateAccountLabels' },
  campaign: { get: 'getCampaignLabels', put: 'replaceCampaignLabels', patch: 'updateCampaignLabels' },
} as const;

function labelRoutes(kind: LabelOwner, collection: string) {
  const path = `/provisioning/v0/${collection}/id/{id}/labels`;
  const notFound = `No such ${kind} in this organization.`;
  const writeErrors = (method: string) =>
    errorResponses(method, {
      400: 'The request cannot be read: malformed JSON, a body that is not {"labels": {...}}, a malformed path id, or an If-Match / If-None-Match that is not * or a list of entity-tags (invalid_header).',
      404: notFound,
      412: true,
      413: true,
      415: true,
      422: `A label breaks a rule (validation_failed); details name each as labels.<name>: invalid_name, wrong_type, too_long, too_many${kind === 'campaign' ? ', reserved' : ''}.`,
    });
  const answer = {
    description: `The ${kind}'s labels, sorted by name.`,
    headers: RESOURCE_ETAG,
    ...jsonContent(LabelsResponse),
  };
  const written = {
    description: `The ${kind}'s labels after the change, sorted by name.`,
    headers: NEW_REPRESENTATION,
    ...jsonContent(LabelsResponse),
  };
  const common = { tags: ['Labels'], ...bearer('provisioning') };
  return {
    get: createRoute({
      method: 'get',
      path,
      operationId: OPERATION_IDS[kind].get,
      description: `The client labels of the ${kind}, sorted by name${kind === 'campaign' ? '; the campaign group is a field of the campaign, not a label here' : ''}.`,
      ...common,
      summary: `The labels of a${kind === 'account' ? 'n' : ''} ${kind}`,
      request: { params: IdParam, headers: z.object({ 'If-None-Match': IF_NONE_MATCH }) },
      responses: {
        200: answer,
        ...RESOURCE_NOT_MODIFIED,
        ...errorResponses('get', { 400: 'A malformed path id.', 404: notFound }),
      },
    }),
    put: createRoute({
      method: 'put',
      path,
      operationId: OPERATION_IDS[kind].put,
      description: `The body is the whole new set: labels missing from it are deleted. Every broken rule is reported at once, and nothing changes.`,
      ...common,
      summary: `Replace all labels of the ${kind}`,
      middleware: [acceptJson()] as const,
      request: {
        params: IdParam,
        headers: CONDITIONAL_WRITE_HEADERS,
        body: {
          required: true,
          ...jsonContent(
            replaceBody(kind).openapi(kind === 'account' ? 'AccountLabelsReplace' : 'CampaignLabelsReplace'),
          ),
        },
      },
      responses: { 200: written, ...writeErrors('put') },
    }),
    patch: createRoute({
      method: 'patch',
      path,
      operationId: OPERATION_IDS[kind].patch,
      description:
        'RFC 7396: a string sets or replaces one label, null deletes one (deleting a label that is not there is fine), labels not named stay. The result must keep the label rules.',
      ...common,
      summary: `Change some labels of the ${kind} (JSON Merge Patch: a string sets one, null deletes one)`,
      middleware: [acceptJson('application/json', 'application/merge-patch+json')] as const,
      request: {
        params: IdParam,
        headers: CONDITIONAL_WRITE_HEADERS,
        body: {
          required: true,
          ...mergePatchContent(
            patchBody(kind).openapi(kind === 'account' ? 'AccountLabelsMergePatch' : 'CampaignLabelsMergePatch'),
          ),
        },
      },
      responses: { 200: written, ...writeErrors('patch') },
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
  for (const [kind, collection] of [
    ['account', 'accounts'],
    ['campaign', 'campaigns'],
  ] as const) {
    const routes = labelRoutes(kind, collection);
    app.openapi(routes.get, async (c) => {
      const id = pathId(c.req.valid('param').id, kind);
      const current = await labels.get(kind, c.get('auth').organizationId, id);
      const etag = labelsTag(current);
      return resourceNotModified(c, etag) ?? c.json({ labels: current }, 200, resourceTagHeaders(c, etag));
    });
    // The validator has checked the wrapper before these run; see sentLabels for why it is read again.
    app.openapi(routes.put, async (c) => {
      const precondition = writePrecondition(c);
      const id = pathId(c.req.valid('param').id, kind);
      const next = await labels.replace(kind, c.get('auth').organizationId, id, await sentLabels(c.req), precondition);
      return c.json({ labels: next }, 200, newRepresentation(c, collection, id, next));
    });
    app.openapi(routes.patch, async (c) => {
      const precondition = writePrecondition(c);
      const id = pathId(c.req.valid('param').id, kind);
      const next = await labels.patch(kind, c.get('auth').organizationId, id, await sentLabels(c.req), precondition);
      return c.json({ labels: next }, 200, newRepresentation(c, collection, id, next));
    });
  }
}

/** A PUT's or PATCH's answer: the labels as they are now, their tag, and where they live (RFC 9110 8.7). */
function newRepresentation(c: Context<AppEnv>, collection: string, id: number, labels: Labels) {
  return {
    ...resourceTagHeaders(c, labelsTag(labels)),
    'Content-Location': `/provisioning/v0/${collection}/id/${id}/labels`,
  };
}
