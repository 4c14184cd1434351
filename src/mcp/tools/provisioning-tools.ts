import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { RestGateway } from '../rest-gateway.js';
import { withCachedJsonSchema } from '../cached-json-schema.js';
import { ANSWER_OUTPUT, reportPageResult } from '../tool-results.js';
import { READ_ONLY } from './reporting-tools.js';

const PAGE = 100;

const LIST_ACCOUNTS_INPUT = withCachedJsonSchema(
  z.object({
    labels: z.array(z.string().min(3)).min(1).max(5).optional().describe('Filters "labelName:labelValue".'),
    ids: z.array(z.number().int().positive()).min(1).max(100).optional().describe('Only these account ids.'),
    offset: z.number().int().min(0).optional().describe('0 or a multiple of 100 (page.nextOffset).'),
  }),
);

/** Tools over the provisioning API: offered only to a token with the provisioning scope. */
export function registerProvisioningTools(server: McpServer, rest: RestGateway): void {
  server.registerTool(
    'list_accounts',
    {
      title: 'List the accounts',
      description:
        'The organization\'s accounts (GET /provisioning/v0/accounts), ascending by id, 100 per page: name, language, country, currency, custom fields, labels and the linked ad platform accounts. Filter by labels ("name:value", all must match, at most 5) or ids.',
      inputSchema: LIST_ACCOUNTS_INPUT,
      outputSchema: ANSWER_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ labels, ids, offset }) => {
      const query = new URLSearchParams({ limit: String(PAGE) });
      if (offset !== undefined) query.set('offset', String(offset));
      if (labels !== undefined) query.set('labels', labels.join(','));
      if (ids !== undefined) query.set('id', ids.join(','));
      const answer = await rest.get('/provisioning/v0/accounts', query);
      return reportPageResult(answer, { offset: offset ?? 0, limit: PAGE }, undefined);
    },
  );
}
