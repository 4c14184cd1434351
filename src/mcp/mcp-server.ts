import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import type { RestGateway } from './rest-gateway.js';
import { explainStatistic, STATISTIC_NAMES } from './statistic-explanation.js';
import { STATISTIC_BY_NAME } from '../catalog/statistics.js';
import { registerExportTools } from './tools/export-tools.js';
import { registerProvisioningTools } from './tools/provisioning-tools.js';
import { registerReportingTools } from './tools/reporting-tools.js';

const INSTRUCTIONS = [
  'adreport: advertising performance reports of one organization across Google Ads, Microsoft Advertising and FACEBOOK.',
  'Start with describe_reporting (the endpoints, statistics and segments), then run_report or compare_periods.',
  'Every result carries provenance: dataVersion (an unchanged value means unchanged numbers), completeThrough and mayChange (whether platforms may still restate the range), warnings (mixed currencies, estimated FX rates, incomplete data), the engine, and restUrl / explorerUrl where a person opens the same numbers.',
  'Quote figures with their range and, when mayChange is true, say they are not final. A page that is not the whole result says so: page.nextOffset, or start_export for a file.',
].join(' ');

/**
 * The MCP server for one request (the endpoint is stateless): the reporting tools for every
 * caller, the provisioning ones only for a token with that scope, the field catalogue and the
 * statistics as resources. Everything it answers comes through `rest`, as the caller.
 */
export function buildMcpServer(
  rest: RestGateway,
  caller: { readonly scopes: readonly string[] },
  version: string,
): McpServer {
  const server = new McpServer(
    { name: 'adreport', title: 'adreport reporting', version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  registerReportingTools(server, rest);
  registerExportTools(server, rest);
  if (caller.scopes.includes('provisioning')) registerProvisioningTools(server, rest);

  server.registerResource(
    'fields',
    'adreport://reporting/fields',
    {
      title: 'Reporting field catalogue',
      description:
        'GET /reporting/v0/fields: every endpoint with its statistics, segments, sources, filters, sorts and embeds.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const answer = await rest.get('/reporting/v0/fields');
      if (answer.status !== 200) throw new Error(`GET /reporting/v0/fields answered ${answer.status}`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(answer.body) }] };
    },
  );
  server.registerResource(
    'statistic',
    new ResourceTemplate('adreport://reporting/statistics/{name}', {
      list: () => ({
        resources: STATISTIC_NAMES.map((name) => ({
          uri: `adreport://reporting/statistics/${name}`,
          name,
          title: `Statistic ${name}`,
          description: STATISTIC_BY_NAME.get(name)!.description,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'How a statistic is computed',
      description: 'The spec of one statistic (what explain_statistic answers).',
      mimeType: 'application/json',
    },
    (uri, variables) => {
      const statistic = STATISTIC_BY_NAME.get(String(variables.name));
      if (statistic === undefined)
        throw new Error(`No statistic ${String(variables.name)}; see adreport://reporting/fields.`);
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(explainStatistic(statistic)) }],
      };
    },
  );
  return server;
}
