import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/**
 * Report statements stay prepared across writes (issue 39), which is safe only because DuckDB
 * plans a statement whose scan filters on a parameter again at every execution. These tests hold
 * DuckDB to that, on the plan that breaks when it is kept: a GROUP BY over ids that DuckDB runs
 * as a perfect hash over the ids' range when the plan was made.
 */
describe('DuckDB and plans kept across writes', () => {
  let instance: DuckDBInstance;
  let writer: DuckDBConnection;
  let reader: DuckDBConnection;

  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    writer = await instance.connect();
    reader = await instance.connect();
    await writer.run('CREATE TABLE sums (organization_id BIGINT, campaign_id BIGINT, clicks BIGINT)');
    await writer.run('INSERT INTO sums SELECT 1, i % 50, 1 FROM range(100000) r(i)');
  });
  afterAll(() => {
    reader.closeSync();
    writer.closeSync();
    instance.closeSync();
  });

  const grouped = (organization: string) =>
    `SELECT count(*)::INTEGER AS campaigns, sum(total)::INTEGER AS clicks FROM
       (SELECT campaign_id, sum(clicks) AS total FROM sums WHERE organization_id = ${organization} GROUP BY campaign_id)`;

  it('keeps the plan of a statement without parameters, which then fails on ids beyond those it was planned on', async () => {
    const kept = await reader.prepare(grouped('1'));
    expect((await kept.runAndReadAll()).getRowObjectsJS()).toEqual([{ campaigns: 50, clicks: 100000 }]);
    await writer.run('INSERT INTO sums SELECT 1, 1000000 + i, 1 FROM range(300) r(i)');
    // Why every other lane drops its statements at each write: the statistics of the plan are stale.
    await expect(kept.runAndReadAll()).rejects.toThrow(/statistics/i);
    await writer.run('DELETE FROM sums WHERE campaign_id >= 1000000');
  });

  it('plans a statement that filters its scan on a parameter again at each run, so it answers right after the write', async () => {
    const kept = await reader.prepare(grouped('$1::BIGINT'));
    kept.bindBigInt(1, 1n);
    expect((await kept.runAndReadAll()).getRowObjectsJS()).toEqual([{ campaigns: 50, clicks: 100000 }]);
    await writer.run('INSERT INTO sums SELECT 1, 2000000 + i, 1 FROM range(300) r(i)');
    expect((await kept.runAndReadAll()).getRowObjectsJS()).toEqual([{ campaigns: 350, clicks: 100300 }]);
  });
});

describe('report statements stay prepared across writes and answer what the data says', () => {
  let fixture: ReportingFixture;
  let token: string;
  let organizationId: number;

  beforeAll(async () => {
    // One report connection, so that the second request runs on the statement the first prepared.
    fixture = await startReportingFixture({
      world: 'small-2orgs-30d',
      service: { cacheMb: 0, database: { reportConcurrency: 1, reportReserve: 0 } },
    });
    token = fixture.orgs[0]!.token;
    organizationId = fixture.orgs[0]!.id;
  });
  afterAll(() => fixture.close());

  const campaigns = () =>
    fixture.report('campaigns', token, {
      startDate: fixture.yesterday,
      endDate: fixture.yesterday,
      statistics: 'clicks',
      sort: '-statistics.clicks',
      limit: 5,
    });
  const prepared = () => fixture.service.db.reportLane().statementsPrepared;

  it('reads a campaign written after the statement was prepared, without preparing it again', async () => {
    const before = await campaigns();
    expect(before.status).toBe(200);
    const preparedOnce = prepared();
    expect((await campaigns()).status).toBe(200);
    expect(prepared()).toBe(preparedOnce);

    // A campaign with an id far beyond the others and more clicks than any, written the way a
    // sync writes: its row and its rollup of yesterday.
    const [newest] = await fixture.sql<{
      id: number;
      platformAccountId: number;
      platform: string;
    }>(
      `SELECT max(id)::BIGINT AS id, any_value(adplatform_account_id) AS "platformAccountId", any_value(ad_platform_type) AS platform
         FROM campaigns WHERE organization_id = $1`,
      [organizationId],
    );
    const { id: maxId, platformAccountId, platform } = newest!;
    const newId = maxId + 1_000_000;
    await fixture.write(
      `INSERT INTO campaigns (id, organization_id, adplatform_account_id, ad_platform_type, ad_platform_id, name, status)
       VALUES ($1, $2, $3, $4, 'plan-cache-test', 'Written after the plan', 'ACTIVE')`,
      [newId, organizationId, platformAccountId, platform],
    );
    await fixture.write(
      `INSERT INTO rollup_campaign_daily
         (organization_id, day, adplatform_account_id, campaign_id, device, network, impressions, clicks, cost,
          conversions, conversion_value, calls, call_conversions, call_conversions_fractional)
       VALUES ($1, $2::DATE, $3, $4, 'DESKTOP', 'SEARCH', 1000000, 999999, 0, 0, 0, 0, 0, 0)`,
      [organizationId, fixture.yesterday, platformAccountId, newId],
    );

    const after = await campaigns();
    expect(after.status).toBe(200);
    expect(prepared()).toBe(preparedOnce);
    const rows = (after.json as { campaigns: Array<{ id: number; name: string; statistics: { clicks: number } }> })
      .campaigns;
    expect(rows[0]).toMatchObject({ id: newId, name: 'Written after the plan', statistics: { clicks: 999999 } });
    expect(Number(after.headers['x-totalcount'])).toBe(Number(before.headers['x-totalcount']) + 1);
    expect(fixture.errors).toEqual([]);
  });
});
