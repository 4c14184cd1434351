import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { CHANGE_KINDS } from '../../changes/change-log.js';
import type { ChangeFeed } from '../../changes/change-feed.js';
import type { AppEnv } from '../context.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent } from '../openapi-helpers.js';
import { invalidParameter, QueryParams } from '../../shared/query-params.js';

const MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 100;

const ChangeSchema = z
  .object({
    platformAccountId: z.number().int().nullable().openapi({
      description: 'The ad platform account whose data changed; null: every one (of the account, if given).',
    }),
    accountId: z.number().int().nullable().openapi({
      description: 'The account whose data changed (markups, links, account edits); null: not one account.',
    }),
    firstDay: z
      .string()
      .nullable()
      .openapi({ format: 'date', description: 'First changed day (inclusive); null: from the first day.' }),
    lastDay: z
      .string()
      .nullable()
      .openapi({ format: 'date', description: 'Last changed day (inclusive); null: to the last day (open end).' }),
    kind: z.enum(CHANGE_KINDS).openapi({
      description:
        'STATISTICS_REPLACED: figures of the days were replaced (a sync, a restatement); ENTITIES_CHANGED: campaigns, ad groups, ads, keywords or accounts changed (names, statuses, new ones), so every day may read differently; LINK_CHANGED: an account gained, lost or changed a link to the platform account; FX_OR_MARKUP_CHANGED: exchange rates (every organization) or a markup period of the account.',
    }),
    changedAt: z.string().openapi({ format: 'date-time', description: 'When the change was committed.' }),
  })
  .openapi('Change');

const listChangesRoute = createRoute({
  method: 'get',
  path: '/reporting/v0/changes',
  operationId: 'listChanges',
  description:
    "What changed in the organization's report data since the cursor, in commit order: pull the listed ranges again and nothing else. Call without `since` to start (from the oldest change kept: seven days), then pass `nextCursor` each time; while `hasMore` is true, more are there already. A cursor is valid seven days from the response that issued it: after that (or when changes it had not listed were deleted) the answer is 410 `cursor_expired` and the client resyncs in full. Cursors are sealed (encrypted and authenticated with a server key) and bound to the organization: they carry nothing readable, and a changed one is refused.",
  tags: ['Reporting'],
  summary: 'Changes of report data since a cursor (change feed)',
  ...bearer('reporting'),
  request: {
    query: z.object({
      since: z.string().optional().openapi({
        pattern: '^[A-Za-z0-9_-]{1,200}$',
        description:
          'A `nextCursor` of an earlier call, unchanged (opaque; any other value, a changed one, one of another organization or one issued after now is 400 invalid_cursor). Absent: from the oldest change kept.',
        // No example: only the service issues cursors, each valid seven days and sealed, so any fixed
        // text would be refused (issue 36 item 6; test/service/openapi-examples.test.ts sends every example).
      }),
      limit: z
        .string()
        .optional()
        .openapi({
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          default: DEFAULT_LIMIT,
          description: `Most changes in one answer, 1-${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
        }),
    }),
  },
  responses: {
    200: {
      description: 'The changes after the cursor, oldest first, and the cursor to continue from.',
      ...jsonContent(
        z.object({
          changes: z.array(ChangeSchema),
          nextCursor: z.string().openapi({ description: 'Pass as `since` next time; valid seven days.' }),
          hasMore: z.boolean().openapi({ description: 'More changes follow: call again with nextCursor now.' }),
        }),
      ),
    },
    ...errorResponses('get', {
      400: 'since is not a cursor this API issued to the organization (invalid_cursor), or limit is out of range or a parameter unknown (invalid_parameter, unknown_parameter).',
    }),
    410: {
      description:
        'cursor_expired: the cursor is older than seven days, changes after it were deleted (kept seven days), or it is of the first, unsealed format (issued before cursors were sealed). Start again without since (a full resync).',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
  },
});

export function registerChangeRoutes(app: OpenAPIHono<AppEnv>, changes: ChangeFeed): void {
  app.openAPIRegistry.registerPath(listChangesRoute);
  app.get(listChangesRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['since', 'limit']);
    const limitText = query.get('limit');
    const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
    if (limitText !== undefined && (!/^\d{1,10}$/.test(limitText) || limit < 1 || limit > MAX_LIMIT))
      invalidParameter('limit', `must be an integer from 1 to ${MAX_LIMIT}`);
    const page = await changes.list(c.get('auth').organizationId, query.get('since'), limit);
    return c.json(page, 200);
  });
}
