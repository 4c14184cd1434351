import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, mergeConfig, serviceConfigSchema } from '../../src/config/config.js';
import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import { buildPlan } from '../../src/planner/build-plan.js';
import type { ReportRequest } from '../../src/planner/report-plan.js';
import { compileReport } from '../../src/sql/compile-report.js';
import { migrate } from '../../src/store/migrate.js';
import { useGeneratedDatabase } from '../helpers/generated-database.js';
import { startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';
import { reportRequestOf } from '../helpers/report-request.js';
import { ROLLUP_GRAINS, rollupCheckSql, type RollupCheck } from '../helpers/rollups.js';

/**
 * Aggregate navigation (issue 21 item 1): which table a report reads, seen in the plan DuckDB
 * runs (EXPLAIN of the compiled statement) and from outside through a running service; the
 * migration's backfill; the switch. That the answers are the same either way is the oracle and
 * metamorphic tests' job (they run with rollups on and off).
 */

interface PlanNode {
  readonly children: readonly PlanNode[];
  readonly extra_info?: { readonly Table?: string };
}

const TABLES = ['fact_ad_daily', 'fact_keyword_daily', ...Object.keys(ROLLUP_GRAINS)];

describe('the table a report reads', () => {
  const generated = useGeneratedDatabase('adreport-rollups-');

  /** The tables DuckDB's physical plan scans for the page of this request (EXPLAIN through the store). */
  async function scanned(endpoint: string, request: Partial<ReportRequest>, rollups: boolean): Promise<string[]> {
    const plan = buildPlan(ENDPOINT_BY_PATH.get(endpoint)!, reportRequestOf(request), new Date());
    const page = compileReport(plan, undefined, { rollups }).page();
    const [row] = await generated.sql<{ explain_value: string }>(`EXPLAIN (FORMAT json) ${page.sql}`, page.params);
    const tables = new Set<string>();
    const visit = (node: PlanNode) => {
      const table = node.extra_info?.Table;
      if (table !== undefined) tables.add(table.split('.').pop()!);
      node.children.forEach(visit);
    };
    (JSON.parse(row!.explain_value) as PlanNode[]).forEach(visit);
    return TABLES.filter((t) => tables.has(t));
  }

  it.each([
    ['campaigns', {}, true, 'rollup_campaign_daily'],
    [
      'campaigns',
      { segments: ['Week', 'DeviceType'], filter: "segments.networkType == 'SEARCH'" },
      true,
      'rollup_campaign_daily',
    ],
    ['campaigns', { currency: 'USD', statistics: ['cost'] }, true, 'rollup_campaign_daily'],
    ['accounts', {}, true, 'rollup_platform_account_daily'],
    ['accounts', { statistics: ['costWithMarkup'], segments: ['Month'] }, true, 'rollup_platform_account_daily'],
    ['adplatform-accounts', { segments: ['DayOfWeek'] }, true, 'rollup_platform_account_daily'],
    // The campaign-label endpoint joins campaign_labels on campaign_id: the campaign grain.
    [
      'accounts',
      { campaignLabel: { name: 'campaignGroup', stored: 'sys.campaignGroup' } },
      true,
      'rollup_campaign_daily',
    ],
    // Levels below the campaign: no rollup keeps their key.
    ['adgroups', { segments: ['Day', 'DeviceType'] }, true, 'fact_ad_daily'],
    ['ads', {}, true, 'fact_ad_daily'],
    ['keywords', {}, true, 'fact_keyword_daily'],
    // Rollups off (ADREPORT_ROLLUPS=false): the facts, always.
    ['campaigns', {}, false, 'fact_ad_daily'],
    ['accounts', {}, false, 'fact_ad_daily'],
  ] as const)('%s %j, rollups %s: %s', async (endpoint, request, rollups, table) => {
    expect(await scanned(endpoint, request as Partial<ReportRequest>, rollups)).toEqual([table]);
  });

  it('migration 010 backfills the rollups from the facts of a database made before it', async () => {
    // The generated file as release 9 left it: the facts, no rollup tables.
    await generated.db.write('all-organizations', async (tx) => {
      for (const table of Object.keys(ROLLUP_GRAINS)) await tx.run(`DROP TABLE ${table}`);
      await tx.run('DELETE FROM schema_migrations WHERE version = 10');
    });
    expect(await migrate(generated.db)).toEqual([10]);
    const checks = await generated.sql<RollupCheck>(rollupCheckSql());
    for (const check of checks) {
      expect(check.mismatched, check.t).toBe(0);
      expect(check.rows, check.t).toBeGreaterThan(100);
    }
    // Written in (organization, day) order, as the facts, for the zone maps.
    for (const table of Object.keys(ROLLUP_GRAINS)) {
      const [row] = await generated.sql<{ unordered: number }>(
        `SELECT count(*)::INTEGER AS unordered FROM (
           SELECT organization_id, day, lag(organization_id) OVER (ORDER BY rowid) AS po, lag(day) OVER (ORDER BY rowid) AS pd FROM ${table})
         WHERE organization_id < po OR (organization_id = po AND day < pd)`,
      );
      expect(row!.unordered, table).toBe(0);
    }
  });
});

describe('ADREPORT_ROLLUPS', () => {
  it('is on by default; false, 0 or no turn it off', () => {
    const parse = (env: NodeJS.ProcessEnv) => serviceConfigSchema.parse(mergeConfig(configFromEnv(env))).rollups;
    expect(parse({})).toBe(true);
    expect(parse({ ADREPORT_ROLLUPS: 'true' })).toBe(true);
    for (const off of ['false', '0', 'no']) expect(parse({ ADREPORT_ROLLUPS: off }), off).toBe(false);
  });

  // A running service, seen from outside: a row written into the campaign rollup alone (never done
  // outside this test) shows in the campaign report of a service with rollups on, and not with them off.
  let on: ReportingFixture;
  let off: ReportingFixture;
  beforeAll(async () => {
    const spec = { world: 'tiny-30d' } as const;
    on = await startReportingFixture({ ...spec, service: { rollups: true } });
    off = await startReportingFixture({ ...spec, service: { rollups: false } });
  });
  afterAll(async () => {
    await on?.close();
    await off?.close();
  });

  it('decides which table a running service reads, for JSON pages and exports alike', async () => {
    const results: Record<string, { json: number; csv: string }> = {};
    for (const [name, fx] of [
      ['on', on],
      ['off', off],
    ] as const) {
      const org = fx.orgs[0]!;
      const [campaign] = await fx.sql<{ id: number; pa: number }>(
        'SELECT id, adplatform_account_id AS pa FROM campaigns WHERE organization_id = $1 ORDER BY id LIMIT 1',
        [org.id],
      );
      await fx.write(
        `INSERT INTO rollup_campaign_daily VALUES ($1, $2::DATE, $3, $4, 'DESKTOP', 'SEARCH', 1000000000, 0, 0, 0, 0, 0, 0, 0)`,
        [org.id, fx.yesterday, campaign!.pa, campaign!.id],
      );
      const query = {
        startDate: fx.yesterday,
        endDate: fx.yesterday,
        statistics: 'impressions',
        filter: `id == ${campaign!.id}`,
      };
      const page = await fx.report('campaigns', org.token, query);
      expect(page.status).toBe(200);
      const csv = await fx.report('campaigns', org.token, { ...query, format: 'csv' });
      expect(csv.status).toBe(200);
      const [facts] = await fx.sql<{ impressions: number }>(
        'SELECT coalesce(sum(impressions), 0)::BIGINT AS impressions FROM fact_ad_daily WHERE campaign_id = $1 AND day = $2::DATE',
        [campaign!.id, fx.yesterday],
      );
      const json = Number(page.json.campaigns[0].statistics.impressions) - Number(facts!.impressions);
      results[name] = {
        json,
        csv: csv.text.includes(String(1_000_000_000 + Number(facts!.impressions))) ? 'rollup' : 'facts',
      };
    }
    expect(results).toEqual({ on: { json: 1_000_000_000, csv: 'rollup' }, off: { json: 0, csv: 'facts' } });
  });
});
