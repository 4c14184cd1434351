import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySecret } from '../../src/auth/secrets.js';
import { runCli as runCliInProcess } from '../../src/cli/run.js';
import { CELLS, generatedDays, reportedShare } from '../../src/generator/traffic.js';
import { parseGenerateOptions, GenerateOptionError } from '../../src/generator/options.js';
import { GENERATOR_MARKETS } from '../../src/generator/markets.js';
import { MARKETS } from '../../src/platforms/sandbox/vocabulary.js';
import { isAllowedPair } from '../../src/provisioning/accounts/language-country.js';
import { Database } from '../../src/store/database.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { ROLLUP_GRAINS, rollupCheckSql, type RollupCheck } from '../helpers/rollups.js';
import { tempDir } from '../helpers/server.js';

/**
 * `adreport data generate` end to end: the real bin writes real DuckDB files, then SQL over
 * them checks determinism, the consistency rules every fact row must keep, and the derived
 * tables (impression shares, audience runs, call details) against the facts they come from.
 */

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function freshDb(): string {
  const dir = tempDir('adreport-gen-');
  dirs.push(dir);
  return path.join(dir, 'adreport.duckdb');
}

/** 5 accounts over 2 organizations, all three platforms, markups and calls; ~300 k fact rows. */
const ARGS = ['--scale', '3', '--days', '40', '--orgs', '2', '--seed', '4'];

interface GenerateJson {
  organizations: Array<{ id: number; name: string; clientId: string; clientSecret: string; accounts: number }>;
  factRows: number;
  seconds: number;
  rowsPerSecond: number;
  peakRssMb: number;
}

async function generate(db: string, args: string[]): Promise<{ result: CliResult; json: GenerateJson }> {
  const result = await runCli(['data', 'generate', ...args, '--db', db, '--json']);
  if (result.code !== 0) throw new Error(`generate failed (${result.code}): ${result.stderr}`);
  return { result, json: JSON.parse(result.stdout) as GenerateJson };
}

async function runInProcess(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({ write: (chunk, _encoding, done) => (append(String(chunk)), done()) });
  const code = await runCliInProcess(args, {
    stdout: sink((t) => (stdout += t)),
    stderr: sink((t) => (stderr += t)),
    env: {},
  });
  return { code, stdout, stderr };
}

async function query<T extends object>(file: string, sql: string): Promise<T[]> {
  const db = await Database.open(file, { readConnections: 1, maxQueued: 4 });
  try {
    return await db.read((r) => r.all<T>(sql));
  } finally {
    await db.close();
  }
}

/** Columns that hold the time of the run, not generated content. */
const TIMESTAMPS = ['created_at', 'updated_at', 'imported_at', 'synced_at'];
const CONTENT_TABLES = [
  'organizations',
  'adplatform_master_accounts',
  'accounts',
  'account_labels',
  'adplatform_accounts',
  'account_adplatform_links',
  'statistics_sources',
  'campaigns',
  'campaign_labels',
  'ad_groups',
  'ads',
  'keywords',
  'markups',
  'fact_ad_daily',
  'fact_keyword_daily',
  'fact_impression_share_daily',
  'fact_audience_runs',
  'call_details',
];

/** Per table: row count and an order-independent checksum of every column but timestamps. */
async function contentChecksums(file: string): Promise<Record<string, string>> {
  const columns = await query<{ table_name: string; column_name: string }>(
    file,
    `SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main'`,
  );
  const parts = CONTENT_TABLES.map((table) => {
    const present = columns.filter((c) => c.table_name === table).map((c) => c.column_name);
    const excluded = TIMESTAMPS.filter((c) => present.includes(c));
    const cols = excluded.length > 0 ? `*COLUMNS(* EXCLUDE (${excluded.join(', ')}))` : '*COLUMNS(*)';
    return `SELECT '${table}' AS t, count(*)::VARCHAR || ':' || coalesce(sum(hash(${cols})::HUGEINT), 0)::VARCHAR AS v FROM ${table}`;
  });
  const rows = await query<{ t: string; v: string }>(file, parts.join(' UNION ALL '));
  return Object.fromEntries(rows.map((r) => [r.t, r.v]));
}

describe('adreport data generate', () => {
  const first = freshDb();
  const second = freshDb();
  let run: { result: CliResult; json: GenerateJson };

  beforeAll(async () => {
    run = await generate(first, ARGS);
    await generate(second, ARGS);
  }, 300_000);

  it('prints the organizations with working credentials as one JSON line, and the run figures', async () => {
    const { json, result } = run;
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(json).toEqual({
      organizations: [
        {
          id: 1,
          name: 'Generated organization 1 (seed 4)',
          clientId: expect.stringMatching(/^adr_/),
          clientSecret: expect.any(String),
          accounts: 3,
        },
        {
          id: 2,
          name: 'Generated organization 2 (seed 4)',
          clientId: expect.stringMatching(/^adr_/),
          clientSecret: expect.any(String),
          accounts: 2,
        },
      ],
      factRows: expect.any(Number),
      seconds: expect.any(Number),
      rowsPerSecond: expect.any(Number),
      peakRssMb: expect.any(Number),
    });
    // 3 x 1 M x 40 / 400 days, within the calibration's few percent.
    expect(json.factRows).toBeGreaterThan(270_000);
    expect(json.factRows).toBeLessThan(330_000);
    expect(json.peakRssMb).toBeGreaterThan(0);
    const clients = await query<{
      client_id: string;
      organization_id: number;
      secret_hash: string;
      scopes: string[];
      name: string;
      disabled_at: unknown;
    }>(
      first,
      'SELECT client_id, organization_id, secret_hash, scopes, name, disabled_at FROM api_clients ORDER BY organization_id',
    );
    expect(clients.map((c) => [c.client_id, c.organization_id, c.scopes, c.name, c.disabled_at])).toEqual(
      json.organizations.map((o) => [o.clientId, o.id, ['provisioning', 'reporting'], 'generated', null]),
    );
    for (const [i, organization] of json.organizations.entries())
      expect(await verifySecret(organization.clientSecret, clients[i]!.secret_hash)).toBe(true);
    // Progress and the summary go to stderr; non-TTY progress is a line per ~10 %.
    expect(result.stderr).toMatch(/facts \[#+\] 100%/);
    expect(result.stderr).toMatch(/fact rows .* rows\/s, peak RSS \d+ MB/);
  });

  it('is deterministic: the same arguments on an empty database give the same content', async () => {
    const [a, b] = await Promise.all([contentChecksums(first), contentChecksums(second)]);
    expect(b).toEqual(a);
    for (const table of CONTENT_TABLES) expect(a[table], table).not.toMatch(/^0:/);
  });

  it('another seed gives other data', async () => {
    const other = freshDb();
    await generate(other, ['--scale', '3', '--days', '10', '--orgs', '2', '--seed', '5']);
    const [a, c] = await Promise.all([contentChecksums(first), contentChecksums(other)]);
    // Accounts depend on the seed only (not on --days).
    expect(c.accounts).not.toEqual(a.accounts);
    expect(c.organizations).not.toEqual(a.organizations);
  });

  it('keeps every consistency rule on every fact row', async () => {
    const rules = (table: string) => `
      SELECT
        count(*) FILTER (WHERE impressions <= 0) AS zero_impressions,
        count(*) FILTER (WHERE clicks < 0 OR clicks > impressions) AS clicks,
        count(*) FILTER (WHERE conversions < 0 OR conversions > clicks) AS conversions,
        count(*) FILTER (WHERE conversion_value < 0 OR (conversions = 0 AND conversion_value <> 0)) AS conversion_value,
        count(*) FILTER (WHERE calls < 0 OR calls > clicks) AS calls,
        count(*) FILTER (WHERE call_conversions < 0 OR call_conversions > calls) AS call_conversions,
        count(*) FILTER (WHERE call_conversions_fractional < 0 OR call_conversions_fractional > call_conversions) AS call_fractional,
        count(*) FILTER (WHERE cost < 0 OR (clicks = 0 AND cost <> 0)) AS cost,
        count(*) FILTER (WHERE cost <> round(cost, 2) OR conversions <> round(conversions, 2) OR conversion_value <> round(conversion_value, 2)) AS decimals
      FROM ${table}`;
    const [ad] = await query<Record<string, number>>(first, rules('fact_ad_daily'));
    const [keyword] = await query<Record<string, number>>(first, rules('fact_keyword_daily'));
    const zeros = Object.fromEntries(Object.keys(ad!).map((k) => [k, 0]));
    expect(ad).toEqual(zeros);
    expect(keyword).toEqual(zeros);
  });

  it('writes facts only inside the range, the campaigns active periods and the platform cells', async () => {
    const days = generatedDays(parseGenerateOptions({ scale: '1' }).lastDay, 40);
    const [row] = await query<Record<string, unknown>>(
      first,
      `WITH f AS (SELECT * FROM fact_ad_daily UNION ALL BY NAME SELECT * FROM fact_keyword_daily)
       SELECT min(day)::VARCHAR AS first, max(day)::VARCHAR AS last,
              count(*) FILTER (WHERE keyword_id IS NOT NULL AND network NOT IN ('SEARCH', 'SEARCH_PARTNERS')) AS keyword_networks,
              (SELECT count(*) FROM fact_ad_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
                WHERE (p.ad_platform_type = 'FACEBOOK') <> (f.network = 'SOCIAL' AND f.device = 'UNKNOWN')
                   OR (p.ad_platform_type = 'MICROSOFT_ADVERTISING' AND (f.network = 'DISPLAY' OR f.device NOT IN ('DESKTOP', 'MOBILE', 'TABLET')))
                   OR (f.device = 'CONNECTED_TV' AND f.network <> 'DISPLAY')) AS wrong_cells,
              (SELECT count(*) FROM fact_keyword_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id WHERE p.ad_platform_type = 'FACEBOOK') AS social_keywords,
              (SELECT count(*) FROM fact_ad_daily f JOIN ads a ON a.id = f.ad_id JOIN ad_groups g ON g.id = a.ad_group_id
                WHERE g.id <> f.ad_group_id OR g.campaign_id <> f.campaign_id OR a.organization_id <> f.organization_id) AS wrong_parents,
              (SELECT count(DISTINCT campaign_id) FROM f) AS active_campaigns,
              (SELECT count(*) FROM campaigns) AS campaigns
         FROM f`,
    );
    expect(row).toMatchObject({
      first: days[0]!.date,
      last: days.at(-1)!.date,
      keyword_networks: 0,
      wrong_cells: 0,
      social_keywords: 0,
      wrong_parents: 0,
    });
    // Campaigns start and stop inside the range: some have no facts in 40 days, most do.
    expect(Number(row!.active_campaigns)).toBeLessThan(Number(row!.campaigns));
    expect(Number(row!.active_campaigns)).toBeGreaterThan(Number(row!.campaigns) * 0.5);
  });

  it('writes rows in (organization, day) order', async () => {
    for (const table of [
      'fact_ad_daily',
      'fact_keyword_daily',
      'fact_impression_share_daily',
      'fact_audience_runs',
      ...Object.keys(ROLLUP_GRAINS),
    ]) {
      const [row] = await query<{ unordered: number }>(
        first,
        `SELECT count(*) AS unordered FROM (
           SELECT organization_id, day, lag(organization_id) OVER (ORDER BY rowid) AS po, lag(day) OVER (ORDER BY rowid) AS pd FROM ${table})
         WHERE organization_id < po OR (organization_id = po AND day < pd)`,
      );
      expect(row!.unordered, table).toBe(0);
    }
  });

  it('writes the rollups with the facts: each equals GROUP BY over fact_ad_daily at its grain', async () => {
    const checks = await query<RollupCheck>(first, rollupCheckSql());
    expect(checks.map((c) => c.t).sort()).toEqual(Object.keys(ROLLUP_GRAINS).sort());
    for (const check of checks) {
      expect(check.mismatched, check.t).toBe(0);
      expect(check.rows, check.t).toBeGreaterThan(100);
    }
  });

  it('gives GOOGLE_ADS search campaigns impression shares whose impressions are the ad facts', async () => {
    const [row] = await query<Record<string, number>>(
      first,
      `WITH ads AS (
         SELECT f.organization_id, f.day, f.adplatform_account_id, f.campaign_id, f.device, sum(f.impressions) AS impressions
           FROM fact_ad_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
          WHERE p.ad_platform_type = 'GOOGLE_ADS' AND f.network = 'SEARCH' GROUP BY ALL
       ), shares AS (SELECT * FROM fact_impression_share_daily)
       SELECT (SELECT count(*) FROM shares) AS share_rows,
              (SELECT count(*) FROM ads FULL OUTER JOIN shares s USING (organization_id, day, adplatform_account_id, campaign_id, device)
                WHERE ads.impressions IS DISTINCT FROM s.impressions) AS mismatched,
              (SELECT count(*) FROM shares WHERE network <> 'SEARCH') AS other_networks,
              (SELECT count(*) FROM shares WHERE eligible_impressions < impressions
                  OR budget_lost_impressions < 0 OR rank_lost_impressions < 0
                  OR budget_lost_impressions + rank_lost_impressions <> eligible_impressions - impressions
                  OR absolute_top_impressions < 0 OR absolute_top_impressions > top_impressions OR top_impressions > impressions) AS broken,
              (SELECT count(*) FROM (SELECT campaign_id FROM shares GROUP BY campaign_id HAVING sum(impressions) / sum(eligible_impressions) < 0.1)) AS low_share_campaigns`,
    );
    expect(row!.share_rows).toBeGreaterThan(0);
    expect(row).toMatchObject({ mismatched: 0, other_networks: 0, broken: 0 });
  });

  it('gives FACEBOOK ads audience runs inside their bounds, shorter than the impressions', async () => {
    const [row] = await query<Record<string, number>>(
      first,
      `WITH runs AS (
         SELECT organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ad_id, count(*) AS n, sum(user_to - user_from) AS reach,
                min(user_from) AS lo, max(user_to) AS hi
           FROM fact_audience_runs GROUP BY ALL
       ), social AS (
         SELECT f.* FROM fact_ad_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id WHERE p.ad_platform_type = 'FACEBOOK'
       )
       SELECT (SELECT count(*) FROM fact_audience_runs) AS run_rows,
              (SELECT count(*) FROM fact_audience_runs WHERE user_from < 0 OR user_to <= user_from OR user_to > 50000000) AS out_of_bounds,
              (SELECT count(*) FROM runs WHERE n > 2) AS more_than_two,
              (SELECT count(*) FROM social s FULL OUTER JOIN runs r USING (organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ad_id)
                WHERE r.reach IS NULL OR s.impressions IS NULL OR r.reach > s.impressions OR r.reach < 1) AS unmatched,
              (SELECT count(*) FROM fact_audience_runs a JOIN fact_audience_runs b
                  ON a.ad_id = b.ad_id AND a.day = b.day AND a.user_from < b.user_from AND a.user_to > b.user_from) AS overlapping,
              (SELECT sum(user_to - user_from) FROM fact_audience_runs) AS daily_reach_total`,
    );
    expect(row!.run_rows).toBeGreaterThan(0);
    expect(row).toMatchObject({ out_of_bounds: 0, more_than_two: 0, unmatched: 0, overlapping: 0 });
    // People are reached again on later days: the union of a campaign's runs (its reach over the
    // period, islands of overlapping runs) is well below the sum of its daily runs.
    const [union] = await query<{ reach: number }>(
      first,
      `WITH r AS (
         SELECT campaign_id, user_from, user_to,
                max(user_to) OVER (PARTITION BY campaign_id ORDER BY user_from, user_to ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
           FROM fact_audience_runs
       ), i AS (
         SELECT *, sum(CASE WHEN before IS NULL OR user_from > before THEN 1 ELSE 0 END)
                     OVER (PARTITION BY campaign_id ORDER BY user_from, user_to ROWS UNBOUNDED PRECEDING) AS island
           FROM r
       )
       SELECT sum(len) AS reach FROM (SELECT campaign_id, island, max(user_to) - min(user_from) AS len FROM i GROUP BY ALL)`,
    );
    expect(Number(union!.reach)).toBeLessThan(Number(row!.daily_reach_total) * 0.9);
  });

  it('writes one call detail per call, exactly the call conversions converting', async () => {
    const [row] = await query<Record<string, number>>(
      first,
      `WITH facts AS (
         SELECT organization_id, day, adplatform_account_id, campaign_id, sum(calls) AS calls, sum(call_conversions) AS conversions
           FROM fact_ad_daily WHERE calls > 0 GROUP BY ALL
       ), details AS (
         SELECT organization_id, day, adplatform_account_id, campaign_id, count(*) AS calls, count(*) FILTER (WHERE is_conversion) AS conversions
           FROM call_details GROUP BY ALL
       )
       SELECT (SELECT count(*) FROM call_details) AS call_rows,
              (SELECT count(*) FROM facts FULL OUTER JOIN details d USING (organization_id, day, adplatform_account_id, campaign_id)
                WHERE facts.calls IS DISTINCT FROM d.calls OR facts.conversions IS DISTINCT FROM d.conversions) AS mismatched,
              (SELECT count(*) FROM call_details WHERE (status = 'MISSED') <> (duration_seconds = 0)
                  OR (is_conversion AND (status <> 'RECEIVED' OR duration_seconds < 60)) OR status NOT IN ('MISSED', 'RECEIVED')) AS broken_status,
              (SELECT count(*) FROM call_details c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE (timezone(p.time_zone, c.start_time))::DATE <> c.day OR hour(timezone(p.time_zone, c.start_time)) NOT BETWEEN 8 AND 19) AS outside_hours,
              (SELECT count(*) FROM call_details WHERE call_type NOT IN ('CALL_ASSET', 'CALL_ONLY_AD', 'WEBSITE_CALL')
                  OR NOT regexp_full_match(caller_country, '[A-Z]{2}') OR NOT regexp_full_match(caller_area_code, '[0-9]+')
                  OR NOT regexp_full_match(ad_platform_id, '[0-9]+')) AS malformed,
              (SELECT count(*) - count(DISTINCT id) + count(*) - count(DISTINCT ad_platform_id) FROM call_details) AS duplicates,
              (SELECT count(*) FROM call_details c JOIN ad_groups g ON g.id = c.ad_group_id WHERE g.campaign_id <> c.campaign_id) AS wrong_parents,
              (SELECT avg(CASE WHEN status = 'MISSED' THEN 1 ELSE 0 END) FROM call_details) AS missed_share`,
    );
    expect(row!.call_rows).toBeGreaterThan(100);
    expect(row).toMatchObject({
      mismatched: 0,
      broken_status: 0,
      outside_hours: 0,
      malformed: 0,
      duplicates: 0,
      wrong_parents: 0,
    });
    expect(row!.missed_share).toBeGreaterThan(0.05);
    expect(row!.missed_share).toBeLessThan(0.3);
  });

  it('makes entities a client can use: formats, markets, labels, links, masters, sources, markups', async () => {
    const [row] = await query<Record<string, number>>(
      first,
      `SELECT
         (SELECT count(*) FROM adplatform_accounts WHERE NOT CASE ad_platform_type
             WHEN 'GOOGLE_ADS' THEN regexp_full_match(ad_platform_id, '[1-9][0-9]{2}-[0-9]{3}-[0-9]{4}') AND master_account_id IS NOT NULL
             WHEN 'MICROSOFT_ADVERTISING' THEN regexp_full_match(ad_platform_id, '[1-9][0-9]{8}') AND master_account_id IS NOT NULL
             WHEN 'FACEBOOK' THEN regexp_full_match(ad_platform_id, 'act_[1-9][0-9]{14}') AND master_account_id IS NULL ELSE false END) AS bad_platform_accounts,
         (SELECT count(*) FROM adplatform_accounts p JOIN adplatform_master_accounts m ON m.id = p.master_account_id
           WHERE m.ad_platform_type <> p.ad_platform_type OR m.organization_id <> p.organization_id) AS bad_master_links,
         (SELECT count(*) FROM (SELECT organization_id FROM adplatform_master_accounts GROUP BY organization_id
           HAVING count(*) FILTER (WHERE ad_platform_type = 'GOOGLE_ADS' AND kind = 'MANAGER' AND regexp_full_match(ad_platform_id, '[0-9]{3}-[0-9]{3}-[0-9]{4}')) <> 1
               OR count(*) FILTER (WHERE ad_platform_type = 'MICROSOFT_ADVERTISING' AND kind = 'RESELLER' AND regexp_full_match(ad_platform_id, '[0-9]+')) <> 1)) AS bad_masters,
         (SELECT count(*) FROM accounts a WHERE (SELECT count(*) FROM account_adplatform_links l WHERE l.account_id = a.id AND l.status = 'READ_WRITE') NOT BETWEEN 1 AND 3) AS bad_link_counts,
         (SELECT count(*) FROM account_adplatform_links l JOIN accounts a ON a.id = l.account_id JOIN adplatform_accounts p ON p.id = l.adplatform_account_id
           WHERE a.currency <> p.currency OR a.organization_id <> p.organization_id) AS bad_links,
         (SELECT count(*) FROM adplatform_accounts p LEFT JOIN statistics_sources s ON s.adplatform_account_id = p.id
           WHERE s.source IS DISTINCT FROM 'GENERATED' OR s.synced_from <> (SELECT min(day) FROM fact_ad_daily) OR s.synced_through <> (SELECT max(day) FROM fact_ad_daily)
              OR s.synced_at IS NULL) AS bad_sources,
         (SELECT count(*) FROM accounts WHERE auto_import OR field1 IS NULL OR field21 IS NULL) AS bad_accounts,
         (SELECT count(*) FROM accounts a WHERE (SELECT count(*) FROM account_labels l WHERE l.account_id = a.id AND l.name IN ('clientId', 'tier', 'region')) <> 3) AS bad_account_labels,
         (SELECT count(*) FROM campaigns c WHERE NOT EXISTS (SELECT 1 FROM campaign_labels l WHERE l.campaign_id = c.id AND l.name = 'sys.campaignGroup')) AS without_group,
         (SELECT count(*) FROM campaign_labels WHERE name NOT IN ('sys.campaignGroup', 'team', 'objective')) AS odd_labels,
         (SELECT count(*) FROM (SELECT adplatform_account_id, ad_platform_id FROM campaigns GROUP BY ALL HAVING count(*) > 1)) AS duplicate_campaign_ids,
         (SELECT count(*) FROM (SELECT c.adplatform_account_id, g.ad_platform_id FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id GROUP BY ALL HAVING count(*) > 1)) AS duplicate_ad_group_ids,
         (SELECT count(*) FROM (SELECT c.adplatform_account_id, a.ad_platform_id FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id GROUP BY ALL HAVING count(*) > 1)) AS duplicate_ad_ids,
         (SELECT count(*) FROM (SELECT c.adplatform_account_id, k.ad_platform_id FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id GROUP BY ALL HAVING count(*) > 1)) AS duplicate_keyword_ids,
         (SELECT count(*) FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
           WHERE c.ad_platform_type = 'FACEBOOK' OR k.match_type NOT IN ('EXACT', 'PHRASE', 'BROAD') OR length(k.text) > 80) AS bad_keywords,
         (SELECT count(*) FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
           WHERE CASE WHEN c.ad_platform_type = 'FACEBOOK'
                      THEN a.ad_type NOT IN ('IMAGE', 'VIDEO', 'CAROUSEL') OR len(a.image_urls) = 0 OR json_extract_string(a.specific_fields, '$.callToAction') IS NULL
                      ELSE a.ad_type NOT IN ('RESPONSIVE_SEARCH_AD', 'EXPANDED_TEXT_AD') OR len(a.image_urls) <> 0 OR a.specific_fields IS NOT NULL
                           OR length(a.headline) > 30 OR length(a.description) > 90 END) AS bad_ads,
         (SELECT count(*) FROM (SELECT status FROM campaigns UNION ALL SELECT status FROM ad_groups UNION ALL SELECT status FROM ads UNION ALL SELECT status FROM keywords)
           WHERE status NOT IN ('ENABLED', 'PAUSED', 'REMOVED')) AS bad_statuses,
         (SELECT count(*) FROM markups WHERE rate < 0.05 OR rate > 0.25 OR rate <> round(rate, 4) OR end_date < start_date) AS bad_markups,
         (SELECT count(*) FROM markups a JOIN markups b ON a.account_id = b.account_id AND a.id < b.id
           WHERE a.start_date <= coalesce(b.end_date, DATE '9999-12-31') AND b.start_date <= coalesce(a.end_date, DATE '9999-12-31')) AS overlapping_markups,
         (SELECT count(*) FROM markups) AS markups`,
    );
    expect(row).toEqual({
      bad_platform_accounts: 0,
      bad_master_links: 0,
      bad_masters: 0,
      bad_link_counts: 0,
      bad_links: 0,
      bad_sources: 0,
      bad_accounts: 0,
      bad_account_labels: 0,
      without_group: 0,
      odd_labels: 0,
      duplicate_campaign_ids: 0,
      duplicate_ad_group_ids: 0,
      duplicate_ad_ids: 0,
      duplicate_keyword_ids: 0,
      bad_keywords: 0,
      bad_ads: 0,
      bad_statuses: 0,
      bad_markups: 0,
      overlapping_markups: 0,
      markups: expect.any(Number),
    });
    expect(row!.markups).toBeGreaterThan(0);
  });

  it('uses only the sandbox markets: their currencies, and language/country pairs of spec table 2.3', async () => {
    const currencies = new Set(MARKETS.map((m) => m.currency));
    const accounts = await query<{ language_code: string; country_code: string; currency: string }>(
      first,
      'SELECT language_code, country_code, currency FROM accounts',
    );
    const platformCurrencies = await query<{ currency: string; time_zone: string }>(
      first,
      'SELECT currency, time_zone FROM adplatform_accounts',
    );
    for (const a of accounts) {
      expect(isAllowedPair(a.language_code, a.country_code), `${a.language_code}/${a.country_code}`).toBe(true);
      expect(currencies.has(a.currency)).toBe(true);
    }
    for (const p of platformCurrencies) {
      expect(currencies.has(p.currency)).toBe(true);
      expect(MARKETS.some((m) => m.currency === p.currency && m.timeZone === p.time_zone)).toBe(true);
    }
    for (const m of GENERATOR_MARKETS)
      for (const [language] of m.languages)
        expect(isAllowedPair(language, m.country), `${language}/${m.country}`).toBe(true);
  });

  it('appends to a database with data: ids continue from the sequences, content is the same', async () => {
    const db = freshDb();
    fs.copyFileSync(first, db);
    const again = await generate(db, ARGS);
    expect(again.json.organizations.map((o) => o.id)).toEqual([3, 4]);
    const [row] = await query<Record<string, number>>(
      db,
      `SELECT (SELECT count(*) FROM campaigns) AS campaigns, (SELECT count(DISTINCT id) FROM campaigns) AS campaign_ids,
              (SELECT count(*) FROM call_details) AS calls, (SELECT count(DISTINCT id) FROM call_details) AS call_ids,
              (SELECT count(*) FROM keywords) AS keywords, (SELECT count(DISTINCT id) FROM keywords) AS keyword_ids,
              (SELECT nextval('campaign_id_seq')) > (SELECT max(id) FROM campaigns) AS campaign_sequence_ahead,
              (SELECT nextval('keyword_id_seq')) > (SELECT max(id) FROM keywords) AS keyword_sequence_ahead,
              (SELECT nextval('call_detail_id_seq')) > (SELECT max(id) FROM call_details) AS call_sequence_ahead,
              (SELECT sum(impressions) FILTER (WHERE organization_id <= 2) = sum(impressions) FILTER (WHERE organization_id > 2) FROM fact_ad_daily) AS same_facts`,
    );
    expect(row).toMatchObject({
      campaign_sequence_ahead: true,
      keyword_sequence_ahead: true,
      call_sequence_ahead: true,
      same_facts: true,
    });
    expect(row!.campaign_ids).toBe(row!.campaigns);
    expect(row!.keyword_ids).toBe(row!.keywords);
    expect(row!.call_ids).toBe(row!.calls);
    for (const check of await query<RollupCheck>(db, rollupCheckSql())) expect(check.mismatched, check.t).toBe(0);
  });

  it.each([
    [[], /--scale is required/],
    [['--scale', '0'], /--scale must be more than 0/],
    [['--scale', 'abc'], /--scale must be a positive number/],
    [['--scale', '1.2345'], /--scale must be a positive number with at most 3 decimals/],
    [['--scale=-1'], /--scale must be a positive number/],
    [['--scale', '100001'], /--scale must be a positive number|at most 10000/],
    [['--scale', '1', '--days', '0'], /--days must be an integer from 1 to 1827/],
    [['--scale', '1', '--days', '1828'], /--days must be an integer from 1 to 1827/],
    [['--scale', '1', '--days', '1.5'], /--days must be an integer/],
    [['--scale', '1', '--seed', '0'], /--seed must be an integer from 1/],
    [['--scale', '1', '--orgs', '0'], /--orgs must be a positive integer/],
    [['--scale', '1', '--orgs', '3'], /--orgs must be at most the number of accounts, 2 at --scale 1, not 3/],
    [['--scale', '1', '--bogus'], /Unknown option '--bogus'/],
  ])('refuses %j with exit code 2 and one line', async (args, pattern) => {
    const db = freshDb();
    // In process (the same runCli the bin calls): validation happens before anything starts.
    const result = await runInProcess(['data', 'generate', ...args, '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^adreport: /);
    expect(lines[0]).toMatch(pattern);
    expect(fs.existsSync(db)).toBe(false);
  });

  it('says in one line that a running process holds the database', async () => {
    const db = freshDb();
    fs.mkdirSync(path.dirname(db), { recursive: true });
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { DuckDBInstance } from '@duckdb/node-api';
      await DuckDBInstance.create(${JSON.stringify(db)});
      console.log('open');
      setTimeout(() => {}, 20000);
    `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
      const result = await runCli(['data', 'generate', '--scale', '1', '--db', db]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`is held by a running process \\(pid ${holder.pid}\\).*stop it`)),
      ]);
    } finally {
      holder.kill();
    }
  });
});

describe('generator options and shapes', () => {
  it('sizes runs from the scale', () => {
    const now = new Date('2026-03-10T15:00:00Z');
    expect(parseGenerateOptions({ scale: '100' }, now)).toEqual({
      scale: 100,
      days: 400,
      seed: 1,
      orgs: 10,
      accounts: 150,
      targetRows: 100_000_000,
      lastDay: '2026-03-09',
    });
    expect(parseGenerateOptions({ scale: '0.02', days: '20' }, now)).toMatchObject({
      orgs: 1,
      accounts: 1,
      targetRows: 1000,
    });
    expect(parseGenerateOptions({ scale: '1000', days: '800', orgs: '40' }, now)).toMatchObject({
      orgs: 40,
      accounts: 1500,
      targetRows: 2_000_000_000,
    });
    expect(() => parseGenerateOptions({ scale: '1', orgs: '3' }, now)).toThrow(GenerateOptionError);
  });

  it('reports 55 % of conversions for yesterday, rising to all at 14 days', () => {
    expect(reportedShare(0)).toBeCloseTo(0.55);
    expect(reportedShare(7)).toBeCloseTo(0.55 + 0.45 * 0.75);
    expect(reportedShare(14)).toBe(1);
    expect(reportedShare(100)).toBe(1);
  });

  it('has a Black Friday spike, a Q4 ramp and a quiet January; search dips at weekends, social rises', () => {
    const days = generatedDays('2025-12-31', 365);
    const at = (date: string) => days.find((d) => d.date === date)!;
    expect(at('2025-11-28').season).toBeGreaterThan(1.6); // Black Friday 2025
    expect(at('2025-12-05').season).toBeGreaterThan(at('2025-10-01').season);
    expect(at('2025-01-14').season).toBeLessThan(0.9);
    const saturday = at('2025-06-07');
    const tuesday = at('2025-06-03');
    expect(saturday.weekSearch).toBeLessThan(tuesday.weekSearch);
    expect(saturday.weekSocial).toBeGreaterThan(tuesday.weekSocial);
  });

  it('has the device x network cells of each platform', () => {
    const cells = (platform: number) =>
      CELLS.filter((c) => c.platform === platform)
        .map((c) => `${c.network}/${c.device}`)
        .sort();
    expect(cells(0)).toHaveLength(13);
    expect(cells(0)).toContain('DISPLAY/CONNECTED_TV');
    expect(cells(1)).toEqual([
      'SEARCH/DESKTOP',
      'SEARCH/MOBILE',
      'SEARCH/TABLET',
      'SEARCH_PARTNERS/DESKTOP',
      'SEARCH_PARTNERS/MOBILE',
      'SEARCH_PARTNERS/TABLET',
    ]);
    expect(cells(2)).toEqual(['SOCIAL/UNKNOWN']);
  });
});
