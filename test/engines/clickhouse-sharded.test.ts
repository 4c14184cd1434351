import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouse } from '../../src/clickhouse/clickhouse-connection.js';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { runCli } from '../helpers/cli.js';
import type { GeneratedOrganization } from '../helpers/generate.js';
import { copyWorld } from '../helpers/worlds.js';
import { startClickHouseShim, type ClickHouseShim } from '../helpers/clickhouse-http-shim.js';
import { tempDir } from '../helpers/server.js';

/**
 * ADREPORT_CLICKHOUSE_SHARD_URLS: replication into the layout `adreport clickhouse schema` prints,
 * two shards. Each shard is a database behind the ClickHouse HTTP front (test/helpers/
 * clickhouse-http-shim.ts) with the printed DDL applied as one node applies it (ON CLUSTER dropped,
 * MergeTree for ReplicatedMergeTree). Reads through the Distributed tables need ClickHouse's
 * inter-server protocol, which no process here speaks: they are not run here.
 */
const SHARDS = ['shard_a', 'shard_b'];
let dir: string;
let shim: ClickHouseShim;
let service: RunningService;
let orgs: GeneratedOrganization[];
const shardOf = (organizationId: number) => SHARDS[organizationId % SHARDS.length]!;

async function connect(database: string): Promise<ClickHouse> {
  return ClickHouse.connect({ kind: 'server', url: shim.url(database) });
}

beforeAll(async () => {
  dir = tempDir('adreport-clickhouse-sharded-');
  const dbPath = path.join(dir, 'adreport.duckdb');
  orgs = [...(await copyWorld('mid-2orgs-40d', dir)).organizations];
  shim = await startClickHouseShim(path.join(dir, 'clickhouse'), { user: 'reporter', password: 'pw' });
  for (const database of SHARDS) {
    const printed = await runCli([
      'clickhouse',
      'schema',
      '--cluster',
      'adreport',
      '--shards',
      '2',
      '--replicas',
      '1',
      '--database',
      database,
      '--json',
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    const { statements } = JSON.parse(printed.stdout) as { statements: string[] };
    const node = await connect(database);
    for (const statement of statements) {
      // The Distributed tables name a cluster this node does not have; the local tables are what is written.
      if (statement.includes('Distributed(')) continue;
      await node.command(
        statement
          .replace(' ON CLUSTER `adreport`', '')
          .replace(/Replicated(\w*)MergeTree\('[^']*', '[^']*'(?:, ([^)]*))?\)/, (_, kind: string, args?: string) =>
            args === undefined ? `${kind}MergeTree` : `${kind}MergeTree(${args})`,
          ),
      );
    }
    await node.close();
  }
  service = await startService(
    serviceConfigSchema.parse({
      dbPath,
      host: '127.0.0.1',
      port: 0,
      reportEngine: 'clickhouse',
      clickhouseUrl: shim.url('reads'),
      clickhouseShardUrls: SHARDS.map((database) => shim.url(database)).join(','),
    }),
    { logError: () => undefined },
  );
  await service.clickhouse!.replicator.idle();
}, 300_000);
afterAll(async () => {
  await service?.close();
  await shim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('replication into a sharded cluster', () => {
  it("writes each organization's partitions to its shard's local tables, and only there", async () => {
    expect(service.clickhouse!.replicator.lastError).toBeUndefined();
    for (const org of orgs) {
      for (const table of ['fact_ad_daily', 'fact_keyword_daily', 'rollup_campaign_daily', 'campaigns', 'accounts']) {
        const [duck] = await service.db.read((r) =>
          r.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table} WHERE organization_id = $1`, [org.id]),
        );
        expect(duck!.n, table).toBeGreaterThan(0);
        for (const database of SHARDS) {
          const node = await connect(database);
          const [found] = await node.rows<{ n: number }>(
            `SELECT toInt32(count()) AS n FROM ${table}_local WHERE organization_id = {org:Int64}`,
            { org: org.id },
          );
          await node.close();
          expect(found!.n, `${table} of organization ${org.id} on ${database}`).toBe(
            database === shardOf(org.id) ? duck!.n : 0,
          );
        }
      }
    }
  });

  it('FX rates and the watermarks go to the first shard (one replica set across the cluster)', async () => {
    const first = await connect(SHARDS[0]!);
    const [fx] = await first.rows<{ n: number }>('SELECT toInt32(count()) AS n FROM fx_rates');
    const [duckFx] = await service.db.read((r) => r.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM fx_rates'));
    expect(fx!.n).toBe(duckFx!.n);
    const marks = await first.rows<{ organization_id: number }>(
      'SELECT DISTINCT toInt32(organization_id) AS organization_id FROM adreport_watermarks ORDER BY 1',
    );
    expect(marks.map((m) => m.organization_id)).toEqual([0, ...orgs.map((o) => o.id).sort((a, b) => a - b)]);
    await first.close();
  });
});
