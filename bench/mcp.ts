/**
 * What MCP costs over REST (issue 42): `node --import tsx bench/mcp.ts [--scale 1] [--count 100]`
 * (needs `npm run build` and the generated database of the scale, bench/generated.ts).
 *
 * The built bin serves the generated database, page cache and database-time budget off. Each
 * report of the mix is asked `count` times one at a time as the REST GET and as the run_report
 * tool call of the SDK's v2 client (2026-07-28 revision; and, in a third column, the 2025-11-25
 * revision), interleaved. The tool answers through the same REST route in process, so the
 * difference is the MCP layer: JSON-RPC, the per-request server, the answer's JSON in a JSON text.
 * The tool's answer is checked equal to the REST body before anything is timed.
 */
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { generatedDatabase } from './generated.js';
import {
  certificateOf,
  clientToken,
  closeTimedGets,
  median,
  percentile,
  startServer,
  stopServer,
  timedGet,
} from './lib.js';
import { MIX, MIX_NAMES, mixParams, serviceUrlPath, type MixName } from './peer/report-queries.js';

const { values } = parseArgs({
  options: { scale: { type: 'string', default: '1' }, count: { type: 'string', default: '100' } },
});
const scale = Number(values.scale);
const count = Number(values.count);
const generated = generatedDatabase(scale, undefined, true);
const organization = generated.organizations[0]!;
const ca = certificateOf(generated.dbPath);
/** A tool answer holds at most 1,000 rows: the 10,000-row pull is asked as its first 1,000. */
const MCP_LIMIT = 1000;

/** The mix request as run_report arguments (lists as arrays, numbers as numbers). */
function toolArguments(name: MixName, from: string, to: string): Record<string, unknown> {
  const args: Record<string, unknown> = { endpoint: MIX[name].endpoint, startDate: from, endDate: to };
  for (const [key, value] of Object.entries(MIX[name].query)) {
    if (key === 'limit') args.limit = Math.min(Number(value), MCP_LIMIT);
    else if (key === 'filter') args.filter = value;
    else args[key] = value.split(',');
  }
  return args;
}

Object.assign(process.env, { ADREPORT_CACHE_MB: '0', ADREPORT_DB_TIME_MS_PER_SECOND: '0' });
const server = startServer(generated.dbPath, []);
const dispatcher = new Agent({ connect: { ca, servername: 'localhost' } });
try {
  const listening = (await server.ready) as unknown as { url: string };
  const token = await clientToken(listening.url, ca, organization);
  const connect = async (mode: 'legacy' | { pin: string }) => {
    const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', listening.url), {
        fetch: (url, init) => fetch(url, { ...init, dispatcher } as RequestInit),
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };
  const modern = await connect({ pin: '2026-07-28' });
  const legacy = await connect('legacy');
  const rows = [
    '| report | rows | REST p50 / p99 ms | MCP 2026-07-28 p50 / p99 ms | MCP 2025-11-25 p50 / p99 ms | MCP / REST (p50, 2026-07-28) |',
    '|---|---|---|---|---|---|',
  ];
  for (const name of MIX_NAMES) {
    const p = mixParams(name, organization.id, generated.lastDay);
    const args = toolArguments(name, p.from, p.to);
    const path = serviceUrlPath(name, p).replace(/limit=10000/, `limit=${MCP_LIMIT}`);
    const url = `${listening.url}${path}`;
    const rest = await fetch(url, { headers: { authorization: `Bearer ${token}` }, dispatcher } as RequestInit);
    const body = (await rest.json()) as Record<string, unknown>;
    const answered = await modern.callTool({ name: 'run_report', arguments: args });
    const answer = (answered.structuredContent as { answer: unknown }).answer;
    if (JSON.stringify(answer) !== JSON.stringify(body)) throw new Error(`${name}: the tool and REST answers differ`);
    const restMs: number[] = [];
    const modernMs: number[] = [];
    const legacyMs: number[] = [];
    for (let i = 0; i < count; i++) {
      restMs.push((await timedGet(url, token, ca)).ms);
      let started = performance.now();
      await modern.callTool({ name: 'run_report', arguments: args });
      modernMs.push(performance.now() - started);
      started = performance.now();
      await legacy.callTool({ name: 'run_report', arguments: args });
      legacyMs.push(performance.now() - started);
    }
    const cell = (ms: number[]) => `${median(ms).toFixed(2)} / ${percentile(ms, 99).toFixed(2)}`;
    const rowCount = (Object.values(body).find(Array.isArray) as unknown[]).length;
    rows.push(
      `| ${name} | ${rowCount} | ${cell(restMs)} | ${cell(modernMs)} | ${cell(legacyMs)} | ${(median(modernMs) / median(restMs)).toFixed(2)} |`,
    );
  }
  await modern.close();
  await legacy.close();
  console.log(`scale ${scale}, organization ${organization.id}, ${count} requests per report and side, interleaved`);
  console.log(rows.join('\n'));
} finally {
  closeTimedGets();
  await dispatcher.close();
  await stopServer(server.child);
}
